//! Decoding: an event's samples into the payloads of its records (CWD,
//! PATH, EXECVE, SOCKADDR, ...), as the kernel writes them; the runtime
//! calls [`event::decode`] for every event, so that the caller receives
//! it decoded.
//!
//! The rule of this layer: what the BPF side could not see at the syscall
//! (the names of a failed syscall, a script's interpreter, file
//! capabilities) it looks up on the live file system right after the
//! event, as the kernel would have found it; it loads no BPF and plans
//! nothing, and it reads the kernel's facts only as the data it is given
//! (`host::facts`, probed once at start). It does not import `read` (nor `read` it): it takes the
//! samples' payloads as the shared `crate::payload`'s, given by the runtime.

pub(crate) mod event;
pub(crate) mod exec_files;
pub(crate) mod exit_records;
pub(crate) mod lookup;
pub(crate) mod mq_names;
pub(crate) mod names;
pub(crate) mod sent;
pub(crate) mod uring_paths;
pub(crate) mod uring_sq;
