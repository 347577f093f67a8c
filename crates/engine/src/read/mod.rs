//! Reading: the ring buffer's samples back into events, in the order and
//! groups the kernel writes them.
//!
//! The rule of this layer: it reads bytes the BPF side wrote and assembles
//! them; it loads nothing and decodes no record.

pub(crate) mod event;
pub(crate) mod ring;
pub(crate) mod samples;
pub(crate) mod uring_groups;
