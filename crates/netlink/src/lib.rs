//! The kernel audit netlink client: status, settings, rules, daemon
//! registration and the records the kernel sends its daemon.
//!
//! A crate of its own (not part of the engine) because it has nothing to do
//! with BPF: the daemon side of fastaudit and `fastaudit status` use it
//! without linking libbpf, and it is tested against the kernel alone.

pub mod daemon;
pub mod lock;
pub mod proto;
pub mod socket;
pub mod state;

pub use daemon::{DaemonOptions, KernelDaemon, ReaderStats};
pub use proto::{Record, Status};
pub use socket::{AuditSocket, SignalInfo};
pub use state::SavedState;

use nix::errno::Errno;
use thiserror::Error;

/// Why talking to the kernel audit failed.
#[derive(Debug, Error)]
pub enum NetlinkError {
    /// A system call failed.
    #[error("{what}: {source}")]
    Sys {
        /// What was being done.
        what: String,
        /// The error.
        source: Errno,
    },
    /// The kernel answered a request with an error.
    #[error("the kernel refused {what}: {errno}")]
    Refused {
        /// The request.
        what: String,
        /// The kernel's errno.
        errno: Errno,
    },
    /// The kernel did not answer in time.
    #[error("no answer from the kernel to {what}")]
    Timeout {
        /// The request.
        what: String,
    },
    /// An answer that does not follow the protocol.
    #[error("kernel audit protocol: {0}")]
    Protocol(String),
    /// Another audit daemon is registered with the kernel.
    #[error("another audit daemon is registered with the kernel: pid {pid} ({comm}); stop it first, or start fastaudit with --take-over to stop it and take its place, or with --bpf-only to run beside it")]
    OtherDaemon {
        /// Its pid.
        pid: u32,
        /// Its command name.
        comm: String,
    },
    /// Audit is locked (`-e 2`) until reboot with rules fastaudit cannot change.
    #[error("the kernel audit configuration is locked (enabled 2) until reboot, with kernel rules other than -a never,task that fastaudit cannot remove; use --bpf-only")]
    Locked,
    /// The state file could not be read or written.
    #[error("{path}: {source}")]
    State {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

impl NetlinkError {
    /// A closure turning an errno into `Sys` with `what`.
    pub(crate) fn sys(what: &str) -> impl FnOnce(Errno) -> NetlinkError + '_ {
        move |source| NetlinkError::Sys {
            what: what.to_string(),
            source,
        }
    }
}
