//! What the engine hands its caller: one audited syscall.

use crate::read::samples::Aux;
use fastaudit_records::{Syscall, UringOp};

/// One audited syscall, ready to be formatted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditEvent {
    /// Wall-clock time of the syscall exit: seconds and milliseconds.
    pub sec: u64,
    /// Milliseconds part.
    pub msec: u32,
    /// The SYSCALL record's content.
    pub syscall: Syscall,
    /// The command line (argv joined by NULs), as PROCTITLE wants it.
    pub cmdline: Vec<u8>,
    /// The syscall made a kernel record that stock audit writes with these
    /// SYSCALL and PROCTITLE records, under its stamp (a loginuid write:
    /// LOGIN, whose `pid=` is this event's pid). Its key is `None` unless
    /// a rule selected the syscall too.
    pub companion: bool,
    /// The data of the records the kernel writes after SYSCALL (PATH,
    /// CWD, EXECVE, ...), in the order the BPF side sent them.
    pub aux: Vec<Aux>,
    /// Some of those records found no room in the ring buffer.
    pub aux_lost: bool,
    /// URINGOP records that come first under the event's stamp (io_uring
    /// ops issued inside this io_uring_enter, or one op of its own).
    pub uringops: Vec<UringOp>,
    /// Only `uringops`: no SYSCALL and PROCTITLE records.
    pub no_syscall: bool,
}
