//! Loading: one generation of a plan into the kernel. Its BPF object with
//! exactly the plan's programs, the plan's map images written verbatim,
//! the attach list attached; the live paths resolved and followed; the
//! programs the kernel refused named.
//!
//! The rule of this layer: it carries out what the plan decided and
//! decides nothing of its own; it reads no event.

pub(crate) mod bytes;
pub(crate) mod generation;
pub(crate) mod object;
pub(crate) mod programs;
pub(crate) mod refused;
pub(crate) mod resolve;
pub mod start_trace;
pub(crate) mod watch_follow;
pub(crate) mod watches;
