//! Audit records exactly as the kernel writes them and auditd frames them:
//! the kernel's untrusted-string encoding, the SYSCALL and PROCTITLE bodies,
//! auditd's RAW and ENRICHED line formats, and fastaudit's JSON events.

pub mod daemon;
pub mod encode;
pub mod enrich;
pub mod execve;
pub mod exit;
pub mod group;
pub mod json;
pub mod line;
pub mod num;
pub mod parse;
pub mod path;
pub mod sockaddr;
pub mod special;
pub mod syscall;
pub mod uringop;
pub mod workload;

pub use line::{Format, Stamp};
pub use syscall::Syscall;
pub use uringop::UringOp;
pub use workload::Workload;

/// Record type numbers (`<linux/audit.h>`), from the message-type table
/// (crates/rules/data/msgtype.tsv), where each is written once.
pub mod types {
    use fastaudit_rules::tables::msgtype;

    /// `LOGIN` (the kernel's, from a write to /proc/PID/loginuid).
    pub const LOGIN: u32 = msgtype("LOGIN");
    /// `SYSCALL`.
    pub const SYSCALL: u32 = msgtype("SYSCALL");
    /// `PATH`.
    pub const PATH: u32 = msgtype("PATH");
    /// `SOCKADDR`.
    pub const SOCKADDR: u32 = msgtype("SOCKADDR");
    /// `CWD`.
    pub const CWD: u32 = msgtype("CWD");
    /// `URINGOP`.
    pub const URINGOP: u32 = msgtype("URINGOP");
    /// `EOE` (auditd never writes it to disk).
    pub const EOE: u32 = msgtype("EOE");
    /// `PROCTITLE`.
    pub const PROCTITLE: u32 = msgtype("PROCTITLE");
    /// `DAEMON_ERR`, which auditd's own tools accept for daemon-side reports.
    pub const DAEMON_ERR: u32 = msgtype("DAEMON_ERR");
    /// `DAEMON_START`.
    pub const DAEMON_START: u32 = msgtype("DAEMON_START");
    /// `DAEMON_END`.
    pub const DAEMON_END: u32 = msgtype("DAEMON_END");
    /// `DAEMON_ABORT`.
    pub const DAEMON_ABORT: u32 = msgtype("DAEMON_ABORT");
    /// `DAEMON_CONFIG` (the configuration read again, on SIGHUP).
    pub const DAEMON_CONFIG: u32 = msgtype("DAEMON_CONFIG");
    /// `DAEMON_ROTATE`.
    pub const DAEMON_ROTATE: u32 = msgtype("DAEMON_ROTATE");
    /// `DAEMON_RESUME` (logging resumed, on SIGUSR2).
    pub const DAEMON_RESUME: u32 = msgtype("DAEMON_RESUME");
    /// `CONFIG_CHANGE`.
    pub const CONFIG_CHANGE: u32 = msgtype("CONFIG_CHANGE");
    /// `FEATURE_CHANGE`.
    pub const FEATURE_CHANGE: u32 = msgtype("FEATURE_CHANGE");
    /// `EXECVE`.
    pub const EXECVE: u32 = msgtype("EXECVE");
    /// `FD_PAIR`.
    pub const FD_PAIR: u32 = msgtype("FD_PAIR");
    /// `OBJ_PID`.
    pub const OBJ_PID: u32 = msgtype("OBJ_PID");
    /// `BPRM_FCAPS`.
    pub const BPRM_FCAPS: u32 = msgtype("BPRM_FCAPS");
    /// `CAPSET`.
    pub const CAPSET: u32 = msgtype("CAPSET");
    /// `MMAP`.
    pub const MMAP: u32 = msgtype("MMAP");
    /// `OPENAT2`.
    pub const OPENAT2: u32 = msgtype("OPENAT2");
    /// `KERN_MODULE`.
    pub const KERN_MODULE: u32 = msgtype("KERN_MODULE");
    /// `SOCKETCALL`.
    pub const SOCKETCALL: u32 = msgtype("SOCKETCALL");
    /// `IPC`.
    pub const IPC: u32 = msgtype("IPC");
    /// `IPC_SET_PERM`.
    pub const IPC_SET_PERM: u32 = msgtype("IPC_SET_PERM");
    /// `TIME_INJOFFSET`.
    pub const TIME_INJOFFSET: u32 = msgtype("TIME_INJOFFSET");
    /// `TIME_ADJNTPVAL`.
    pub const TIME_ADJNTPVAL: u32 = msgtype("TIME_ADJNTPVAL");
    /// `MQ_OPEN`.
    pub const MQ_OPEN: u32 = msgtype("MQ_OPEN");
    /// `MQ_SENDRECV`.
    pub const MQ_SENDRECV: u32 = msgtype("MQ_SENDRECV");
    /// `MQ_NOTIFY`.
    pub const MQ_NOTIFY: u32 = msgtype("MQ_NOTIFY");
    /// `MQ_GETSETATTR`.
    pub const MQ_GETSETATTR: u32 = msgtype("MQ_GETSETATTR");
}
