//! What a plan hooks: the kernel hooks it needs and the BPF programs and
//! attach points that implement them (chosen by `hooks`).

use crate::plan::kinds::Kind;
use std::fmt;

/// A kernel hook the plan needs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Hook {
    /// `raw_syscalls:sys_exit`: every syscall's exit, of both ABIs.
    RawSyscallExit,
    /// `syscalls:sys_exit_SYSCALL` for one native syscall.
    SyscallExit { nr: u32, syscall: String },
    /// `syscalls:sys_exit_SYSCALL` for one native syscall that no rule
    /// selects of the write family (a write to /proc/PID/loginuid makes
    /// LOGIN) or sendto/sendmsg (auditctl's CONFIG_CHANGE), which stock
    /// audit follows with the syscall's SYSCALL and PROCTITLE (`syscall`
    /// is the tracepoint's name).
    CompanionExit { nr: u32, syscall: String },
    /// `raw_syscalls:sys_enter`, to save exec arguments and judge
    /// exit/exit_group (both ABIs).
    RawSyscallEnter,
    /// `syscalls:sys_enter_SYSCALL`: saves a native exec syscall's
    /// arguments, or judges exit/exit_group, which never reach an exit hook.
    SyscallEnter { nr: u32, syscall: String },
    /// `sched:sched_prepare_exec` (Linux 6.10+): saves an exec's arguments
    /// before its old program is flushed, in place of the raw entry hook
    /// for ia32 execs (and a native exec of an ia32 program).
    ExecPrepare,
    /// Task creation and exit, for the task list.
    TaskLifecycle,
    /// Inode change tracepoints (`timestamp:*ctime*`), for path= and dir= watches.
    InodeChanges,
    /// The io_uring tracepoints an op's issue attempts are rebuilt from.
    UringOps,
    /// io_uring_enter's entry (and exit) tracepoints: inline ops' context.
    UringEnter,
    /// `signal:signal_generate`: the task a signal syscall signals, as it
    /// is when the signal is sent (OBJ_PID).
    SignalSent,
    /// fentry/fexit programs on the kernel functions that note a record's
    /// data inside a syscall (System V IPC objects, NTP values).
    Noted(Noted),
    /// fexit on the kernel function one syscall of one ABI enters (its
    /// exit), or fentry (its entry's work): only that syscall runs a
    /// program. `group`: the function's prototype group (the body its
    /// stub tail-calls); `companion`: hooked for companions only.
    SyscallFunction {
        side: Trampoline,
        nr: u32,
        compat: bool,
        function: String,
        group: u8,
        companion: bool,
    },
}

impl Hook {
    /// Whether the hook is a tp_btf or raw_tp program (not a per-syscall tracepoint).
    pub fn needs_raw_kind(&self) -> bool {
        !matches!(
            self,
            Hook::SyscallExit { .. }
                | Hook::SyscallEnter { .. }
                | Hook::CompanionExit { .. }
                | Hook::Noted(_)
                | Hook::SyscallFunction { .. }
        ) && *self != Hook::UringEnter
    }
}

/// What a [`Hook::Noted`] hook notes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Noted {
    /// The NTP values adjtimex/clock_adjtime changed and the offset they
    /// injected (TIME_ADJNTPVAL, TIME_INJOFFSET).
    Ntp,
    /// The name of the module init_module/finit_module loads (KERN_MODULE).
    Module,
}

/// Which side of a kernel function a trampoline program runs on (both
/// need the [`Kind::Fexit`] hook kind: BPF trampolines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Trampoline {
    /// On entry, with the arguments.
    Fentry,
    /// On return, with the arguments and the return value.
    Fexit,
}

impl Trampoline {
    /// Its name, as libbpf's section prefix and `--explain` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Trampoline::Fentry => "fentry",
            Trampoline::Fexit => "fexit",
        }
    }
}

/// Where a program is attached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttachPoint {
    /// A tp_btf or raw_tp program, attached to the tracepoint its section
    /// names (`category` is shown, not used: the section has none).
    Raw {
        kind: Kind,
        category: &'static str,
        tracepoint: &'static str,
    },
    /// A `syscalls:` tracepoint (`sys_exit_NAME`, `sys_enter_NAME`).
    Syscall { tracepoint: String },
    /// A kprobe on a kernel function (its section names it).
    Kprobe { function: &'static str },
    /// An fentry or fexit program on a kernel function (its section names it).
    Function {
        kind: Trampoline,
        function: &'static str,
    },
    /// A syscall function's stub (syscall_functions.bpf.h): its section
    /// names no function, the loader sets this one before the load.
    Stub { kind: Trampoline, function: String },
    /// The body a prototype group's stubs tail-call: loaded for
    /// `function` (one of the group's), put in the group's body map,
    /// attached nowhere.
    StubBody {
        kind: Trampoline,
        /// Its stubs' family (`fexit`, `fentry`, `fentry_end`): its map
        /// is `{family}_body{group}`.
        family: &'static str,
        group: u8,
        function: String,
    },
}

impl AttachPoint {
    /// The section the program attached here has in the BPF object, which
    /// is what libbpf attaches it by (`None`: a per-syscall tracepoint,
    /// attached by the name given here). The loader refuses a program
    /// whose section differs, and a test checks every program a plan can
    /// name against the object, so what `--explain` prints is what
    /// attaches.
    pub fn section(&self) -> Option<String> {
        match self {
            AttachPoint::Raw {
                kind, tracepoint, ..
            } => Some(format!("{}/{tracepoint}", kind.name())),
            AttachPoint::Syscall { .. } => None,
            AttachPoint::Kprobe { function } => Some(format!("kprobe/{function}")),
            AttachPoint::Function { kind, function } => Some(format!("{}/{function}", kind.name())),
            AttachPoint::Stub { kind, .. } | AttachPoint::StubBody { kind, .. } => {
                Some(kind.name().to_string())
            }
        }
    }

    /// The function a stub or body is loaded for (set before the load).
    pub fn load_target(&self) -> Option<&str> {
        match self {
            AttachPoint::Stub { function, .. } | AttachPoint::StubBody { function, .. } => {
                Some(function)
            }
            _ => None,
        }
    }
}

impl fmt::Display for AttachPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttachPoint::Raw {
                kind,
                category,
                tracepoint,
            } => write!(f, "{}/{category}:{tracepoint}", kind.name()),
            AttachPoint::Syscall { tracepoint } => write!(f, "tracepoint/syscalls:{tracepoint}"),
            AttachPoint::Kprobe { function } => write!(f, "kprobe/{function}"),
            AttachPoint::Function { kind, function } => write!(f, "{}/{function}", kind.name()),
            AttachPoint::Stub { kind, function } => write!(f, "{}/{function}", kind.name()),
            AttachPoint::StubBody {
                kind,
                family,
                group,
                function,
            } => write!(
                f,
                "{} body of the {family} stubs of prototype group {group} (loaded for {function}, tail-called)",
                kind.name()
            ),
        }
    }
}

/// One BPF program of the object attached at one point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    /// The program's name in the BPF object.
    pub program: &'static str,
    /// Where it is attached.
    pub point: AttachPoint,
    /// What it is attached for, for `--explain`.
    pub purpose: String,
}

impl fmt::Display for Attachment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} by {}", self.point, self.program)
    }
}
