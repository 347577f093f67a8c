//! Decoding: an event's samples into the payloads of its records (CWD,
//! PATH, EXECVE, SOCKADDR, ...), as the kernel writes them.
//!
//! The rule of this layer: what the BPF side could not see at the syscall
//! (the names of a failed syscall, a script's interpreter, file
//! capabilities) it looks up on the live file system right after the
//! event, as the kernel would have found it; it loads no BPF and plans
//! nothing.

pub(crate) mod exec_files;
pub mod exit_records;
pub(crate) mod lookup;
pub(crate) mod mq_names;
pub mod names;
pub(crate) mod sent;
pub mod uring_paths;
pub mod uring_sq;
