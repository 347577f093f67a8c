//! What the engine hands its caller: one audited syscall, its records
//! decoded. `read` assembles it from the ring buffer's samples, `decode`
//! fills in the records after SYSCALL.

use fastaudit_records::exit::ExitRecord;
use fastaudit_records::path::PathItem;
use fastaudit_records::{Syscall, UringOp};

/// One audited syscall, ready to be formatted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuditEvent {
    /// Wall-clock time of the syscall exit: seconds and milliseconds.
    pub sec: u64,
    /// Milliseconds part.
    pub msec: u32,
    /// The SYSCALL record's content (`items=` counting the PATH records
    /// and the names the kernel hides).
    pub syscall: Syscall,
    /// The command line (argv joined by NULs), as PROCTITLE wants it.
    pub cmdline: Vec<u8>,
    /// The syscall made a kernel record that stock audit writes with these
    /// SYSCALL and PROCTITLE records, under its stamp (a loginuid write:
    /// LOGIN, whose `pid=` is this event's pid). Its key is `None` unless
    /// a rule selected the syscall too.
    pub companion: bool,
    /// The records the kernel writes after SYSCALL (or after a lone
    /// URINGOP) other than CWD and PATH: EXECVE, SOCKADDR, BPRM_FCAPS,
    /// ..., in the order `audit_log_exit` writes them.
    pub records: Vec<ExitRecord>,
    /// The CWD record's path, if one is written.
    pub cwd: Option<Vec<u8>>,
    /// The PATH records, item 0 first.
    pub paths: Vec<PathItem>,
    /// Some of those records found no room in the ring buffer.
    pub aux_lost: bool,
    /// URINGOP records that come first under the event's stamp (io_uring
    /// ops issued inside this io_uring_enter, or one op of its own).
    pub uringops: Vec<UringOp>,
    /// Only `uringops`: no SYSCALL and PROCTITLE records.
    pub no_syscall: bool,
    /// The task's cgroup id (in the hierarchy `Features::cgroups` names;
    /// 0: unread): what its container is found from. No record has it.
    pub cgroup: u64,
}
