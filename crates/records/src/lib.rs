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

pub use line::{Format, Stamp};
pub use syscall::Syscall;
pub use uringop::UringOp;

/// Record type numbers (`<linux/audit.h>`).
pub mod types {
    /// `LOGIN` (the kernel's, from a write to /proc/PID/loginuid).
    pub const LOGIN: u32 = 1006;
    /// `SYSCALL`.
    pub const SYSCALL: u32 = 1300;
    /// `PATH`.
    pub const PATH: u32 = 1302;
    /// `SOCKADDR`.
    pub const SOCKADDR: u32 = 1306;
    /// `CWD`.
    pub const CWD: u32 = 1307;
    /// `URINGOP`.
    pub const URINGOP: u32 = 1336;
    /// `EOE` (auditd never writes it to disk).
    pub const EOE: u32 = 1320;
    /// `PROCTITLE`.
    pub const PROCTITLE: u32 = 1327;
    /// `DAEMON_ERR`, which auditd's own tools accept for daemon-side reports.
    pub const DAEMON_ERR: u32 = 1209;
    /// `DAEMON_START`.
    pub const DAEMON_START: u32 = 1200;
    /// `DAEMON_END`.
    pub const DAEMON_END: u32 = 1201;
    /// `DAEMON_ABORT`.
    pub const DAEMON_ABORT: u32 = 1202;
    /// `DAEMON_CONFIG` (the configuration read again, on SIGHUP).
    pub const DAEMON_CONFIG: u32 = 1203;
    /// `DAEMON_ROTATE`.
    pub const DAEMON_ROTATE: u32 = 1205;
    /// `DAEMON_RESUME` (logging resumed, on SIGUSR2).
    pub const DAEMON_RESUME: u32 = 1206;
    /// `CONFIG_CHANGE`.
    pub const CONFIG_CHANGE: u32 = 1305;
    /// `FEATURE_CHANGE`.
    pub const FEATURE_CHANGE: u32 = 1328;
    /// `EXECVE`.
    pub const EXECVE: u32 = 1309;
    /// `FD_PAIR`.
    pub const FD_PAIR: u32 = 1317;
    /// `OBJ_PID`.
    pub const OBJ_PID: u32 = 1318;
    /// `BPRM_FCAPS`.
    pub const BPRM_FCAPS: u32 = 1321;
    /// `CAPSET`.
    pub const CAPSET: u32 = 1322;
    /// `MMAP`.
    pub const MMAP: u32 = 1323;
    /// `OPENAT2`.
    pub const OPENAT2: u32 = 1337;
    /// `KERN_MODULE`.
    pub const KERN_MODULE: u32 = 1330;
    /// `SOCKETCALL`.
    pub const SOCKETCALL: u32 = 1304;
    /// `IPC`.
    pub const IPC: u32 = 1303;
    /// `IPC_SET_PERM`.
    pub const IPC_SET_PERM: u32 = 1311;
    /// `TIME_INJOFFSET`.
    pub const TIME_INJOFFSET: u32 = 1332;
    /// `TIME_ADJNTPVAL`.
    pub const TIME_ADJNTPVAL: u32 = 1333;
    /// `MQ_OPEN`.
    pub const MQ_OPEN: u32 = 1312;
    /// `MQ_SENDRECV`.
    pub const MQ_SENDRECV: u32 = 1313;
    /// `MQ_NOTIFY`.
    pub const MQ_NOTIFY: u32 = 1314;
    /// `MQ_GETSETATTR`.
    pub const MQ_GETSETATTR: u32 = 1315;
}
