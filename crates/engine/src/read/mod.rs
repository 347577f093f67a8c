//! Reading: the ring buffer's samples back into events, in the order and
//! groups the kernel writes them.
//!
//! The rule of this layer: it reads bytes the BPF side wrote and assembles
//! them; it loads nothing and decodes no record. It does not import
//! `decode` (nor `decode` it): the samples' payloads it cuts out are the
//! shared `crate::payload`'s, and the runtime hands them on to `decode`.

pub(crate) mod ring;
pub(crate) mod samples;
pub(crate) mod uring_groups;
