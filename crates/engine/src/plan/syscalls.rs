//! The syscall numbers the engine treats specially, looked up once by name
//! in the rules crate's generated tables (libaudit's), so no number is
//! spelled in the engine's code or tests.

use fastaudit_rules::syscall_sets::{
    sysv_ipc, AUDIT_CONFIG_SENDS, EXECS, LOGINUID_WRITES, NO_RETURN,
};
use fastaudit_rules::tables::Machine;
use std::sync::OnceLock;

/// x86_64 syscalls newer than the libaudit the tables were generated from
/// (so `-S` cannot name them, but `-S all` and watches select them): their
/// numbers from the kernel's `syscall_64.tbl`.
const NEWER_X86_64: &[(&str, u32)] = &[
    ("fchmodat2", 452),
    ("setxattrat", 463),
    ("getxattrat", 464),
    ("listxattrat", 465),
    ("removexattrat", 466),
];

/// The syscalls one ABI handles specially.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Special {
    /// `open` (perm= judged by the access mode in a1).
    pub open: u32,
    /// `openat` (access mode in a2).
    pub openat: u32,
    /// `openat2` (access mode in struct open_how).
    pub openat2: u32,
    /// `execve`: arguments saved at entry (a successful one clears them).
    pub execve: u32,
    /// `execveat`: likewise.
    pub execveat: u32,
    /// `exit`: never returns, judged at entry.
    pub exit: u32,
    /// `exit_group`: likewise.
    pub exit_group: u32,
    /// `socketcall` (i386 only: a bind through it is a write for perm=).
    pub socketcall: Option<u32>,
    /// `chdir`: its working directory is kept at entry.
    pub chdir: Option<u32>,
    /// `mq_getsetattr` (native only): the new attributes are kept at entry
    /// (the old ones may be copied out over them).
    pub mq_getsetattr: Option<u32>,
    /// The System V IPC syscalls (native only; ia32 has them behind
    /// `ipc` too): the object one looks up is found at its entry.
    pub sysv_ipc: Vec<u32>,
    /// adjtimex and clock_adjtime (native only): what was noted of an
    /// earlier one is forgotten at their entry.
    pub clock_adjust: Vec<u32>,
    /// init_module and finit_module (native only): likewise.
    pub module_load: Vec<u32>,
}

impl Special {
    /// The exec syscalls, whose arguments are saved at entry.
    pub fn execs(&self) -> [u32; 2] {
        [self.execve, self.execveat]
    }

    /// The syscalls that never return, judged at entry.
    pub fn no_return(&self) -> [u32; 2] {
        [self.exit, self.exit_group]
    }

    /// Those needing an entry hook: execs, those that never return,
    /// chdir (its CWD record is the directory it started from), and the
    /// native mq_getsetattr, module loads,
    /// System V IPC and clock adjusting syscalls (what the kernel reads
    /// there is read then, or what an earlier one noted forgotten).
    pub fn entry_hooked(&self) -> Vec<u32> {
        let mut v = vec![self.execve, self.execveat, self.exit, self.exit_group];
        v.extend(self.chdir);
        v.extend(self.mq_getsetattr);
        v.extend(&self.sysv_ipc);
        v.extend(&self.clock_adjust);
        v.extend(&self.module_load);
        v
    }

    fn of(m: Machine) -> Special {
        let nr = |name: &str| number(m, name);
        let [execve, execveat] = EXECS.map(nr);
        let [exit, exit_group] = NO_RETURN.map(nr);
        Special {
            open: nr("open"),
            openat: nr("openat"),
            openat2: nr("openat2"),
            execve,
            execveat,
            exit,
            exit_group,
            socketcall: m.syscall_number(b"socketcall"),
            chdir: Some(nr("chdir")),
            mq_getsetattr: (m == Machine::X86_64).then(|| nr("mq_getsetattr")),
            sysv_ipc: match m {
                Machine::X86_64 => sysv_ipc().map(nr).collect(),
                _ => Vec::new(),
            },
            clock_adjust: match m {
                Machine::X86_64 => vec![nr("adjtimex"), nr("clock_adjtime")],
                _ => Vec::new(),
            },
            module_load: match m {
                Machine::X86_64 => vec![nr("init_module"), nr("finit_module")],
                _ => Vec::new(),
            },
        }
    }
}

/// Special syscalls of the native (x86_64) ABI.
pub fn native() -> &'static Special {
    static S: OnceLock<Special> = OnceLock::new();
    S.get_or_init(|| Special::of(Machine::X86_64))
}

/// Special syscalls of the compat (i386) ABI.
pub fn ia32() -> &'static Special {
    static S: OnceLock<Special> = OnceLock::new();
    S.get_or_init(|| Special::of(Machine::X86))
}

/// The special syscalls of one ABI.
pub fn special(compat: bool) -> &'static Special {
    if compat {
        ia32()
    } else {
        native()
    }
}

/// The native syscalls during which the kernel makes a record that stock
/// audit completes with the syscall's SYSCALL and PROCTITLE: the write
/// family, by which /proc/PID/loginuid is written (LOGIN), and sendto,
/// sendmsg, by which auditctl changes kernel audit's rules and status
/// (CONFIG_CHANGE): number and `syscalls:sys_exit_NAME` tracepoint name
/// (the rules crate's `syscall_sets`, which the BPF side's tests are
/// generated from).
pub fn companion_exits() -> Vec<(u32, &'static str)> {
    let writes = LOGINUID_WRITES
        .iter()
        .map(|n| (x86_64(n.native), n.tracepoint));
    let sends = AUDIT_CONFIG_SENDS.into_iter().map(|n| (x86_64(n), n));
    writes.chain(sends).collect()
}

/// Whether syscall `nr` of one ABI can have a companion (the BPF side's
/// `is_write`, `is_send`): its never rules judge the companion.
pub fn is_companion_syscall(nr: u32, compat: bool) -> bool {
    if compat {
        LOGINUID_WRITES.iter().any(|n| i386(n.compat) == nr)
    } else {
        companion_exits().iter().any(|w| w.0 == nr)
    }
}

/// Syscalls the kernel names no object for: they take no path, call no
/// `audit_file()` and look nothing up (no `getname`, `audit_inode`), so
/// a rule testing names (path=, dir=, watches, obj_*, inode, filetype)
/// can never hold for them, though some change inode times (a write sets
/// its file's ctime, which a ctime hook would see). Names from libaudit's
/// tables of both ABIs; a name one ABI lacks is skipped.
const NAMES_NOTHING: &[&str] = &[
    "read",
    "write",
    "close",
    "fstat",
    "fstat64",
    "lseek",
    "_llseek",
    "mmap",
    "mmap2",
    "mprotect",
    "munmap",
    "brk",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "pread64",
    "pwrite64",
    "pread",
    "pwrite",
    "readv",
    "writev",
    "preadv",
    "pwritev",
    "preadv2",
    "pwritev2",
    "sched_yield",
    "mremap",
    "msync",
    "mincore",
    "madvise",
    "dup",
    "dup2",
    "dup3",
    "pause",
    "nanosleep",
    "getitimer",
    "alarm",
    "setitimer",
    "getpid",
    "sendfile",
    "sendfile64",
    "socket",
    "shutdown",
    "listen",
    "getsockname",
    "getpeername",
    "socketpair",
    "setsockopt",
    "getsockopt",
    "wait4",
    "waitid",
    "kill",
    "tkill",
    "tgkill",
    "uname",
    "fsync",
    "fdatasync",
    "ftruncate",
    "ftruncate64",
    "fallocate",
    "getdents",
    "getdents64",
    "getcwd",
    "flock",
    "umask",
    "gettimeofday",
    "getrlimit",
    "ugetrlimit",
    "setrlimit",
    "prlimit64",
    "getrusage",
    "sysinfo",
    "times",
    "getuid",
    "getgid",
    "geteuid",
    "getegid",
    "getuid32",
    "getgid32",
    "geteuid32",
    "getegid32",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setfsuid",
    "setfsgid",
    "setuid32",
    "setgid32",
    "setreuid32",
    "setregid32",
    "setresuid32",
    "setresgid32",
    "setfsuid32",
    "setfsgid32",
    "getresuid",
    "getresgid",
    "getgroups",
    "setgroups",
    "setpgid",
    "getppid",
    "getpgrp",
    "setsid",
    "getpgid",
    "getsid",
    "capget",
    "rt_sigpending",
    "rt_sigtimedwait",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "rt_sigsuspend",
    "sigaltstack",
    "getpriority",
    "setpriority",
    "sched_setparam",
    "sched_getparam",
    "sched_setscheduler",
    "sched_getscheduler",
    "sched_get_priority_max",
    "sched_get_priority_min",
    "sched_rr_get_interval",
    "sched_setaffinity",
    "sched_getaffinity",
    "sched_setattr",
    "sched_getattr",
    "mlock",
    "mlock2",
    "munlock",
    "mlockall",
    "munlockall",
    "sync",
    "syncfs",
    "gettid",
    "futex",
    "set_tid_address",
    "set_robust_list",
    "get_robust_list",
    "clock_gettime",
    "clock_getres",
    "clock_nanosleep",
    "time",
    "epoll_create",
    "epoll_create1",
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "epoll_ctl",
    "poll",
    "ppoll",
    "select",
    "pselect6",
    "pipe",
    "pipe2",
    "eventfd",
    "eventfd2",
    "timerfd_create",
    "timerfd_settime",
    "timerfd_gettime",
    "signalfd",
    "signalfd4",
    "getrandom",
    "membarrier",
    "rseq",
    "getcpu",
    "splice",
    "tee",
    "vmsplice",
    "readahead",
    "fadvise64",
    "sync_file_range",
    "copy_file_range",
    "accept",
    "accept4",
    "recvfrom",
    "recvmsg",
    "recvmmsg",
    "sendmmsg",
];

/// Whether syscall `nr` of one ABI names no object (see NAMES_NOTHING).
pub fn names_nothing(nr: u32, compat: bool) -> bool {
    static SETS: OnceLock<[Vec<u32>; 2]> = OnceLock::new();
    let sets = SETS.get_or_init(|| {
        let of = |m: Machine| -> Vec<u32> {
            NAMES_NOTHING
                .iter()
                .filter_map(|n| m.syscall_number(n.as_bytes()))
                .collect()
        };
        [of(Machine::X86_64), of(Machine::X86)]
    });
    sets[usize::from(compat)].contains(&nr)
}

/// The number of syscall `name` on machine `m`. Only called with names of
/// the engine's own tables (a unit test checks every one), so a missing
/// name is a bug in this crate, not an input error.
pub fn number(m: Machine, name: &str) -> u32 {
    m.syscall_number(name.as_bytes())
        .or_else(|| {
            (m == Machine::X86_64)
                .then(|| NEWER_X86_64.iter().find(|(n, _)| *n == name).map(|e| e.1))
                .flatten()
        })
        .unwrap_or_else(|| panic!("syscall {name} is in no table of {}", m.name()))
}

/// The number of native (x86_64) syscall `name`.
pub fn x86_64(name: &str) -> u32 {
    number(Machine::X86_64, name)
}

/// The number of compat (i386) syscall `name`.
pub fn i386(name: &str) -> u32 {
    number(Machine::X86, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_numbers_are_the_kernels() {
        // The ABI facts this crate relies on, checked once against the
        // kernel's numbers: the tables, not these literals, are used.
        assert_eq!(
            (native().execve, native().execveat, native().exit_group),
            (59, 322, 231)
        );
        assert_eq!(
            (
                ia32().execve,
                ia32().execveat,
                ia32().exit,
                ia32().exit_group
            ),
            (11, 358, 1, 252)
        );
        assert_eq!((native().socketcall, ia32().socketcall), (None, Some(102)));
        assert_eq!(x86_64("fchmodat2"), 452);
        assert_eq!(
            companion_exits()
                .into_iter()
                .map(|w| w.0)
                .collect::<Vec<_>>(),
            [1, 18, 20, 296, 328, 44, 46],
            "the numbers the BPF side tests (FA_LOGINUID_WRITE64, FA_AUDIT_CONFIG_SEND64)"
        );
        assert!(is_companion_syscall(4, true) && !is_companion_syscall(4, false));
        assert!(is_companion_syscall(181, true) && is_companion_syscall(18, false));
        assert!(is_companion_syscall(44, false) && !is_companion_syscall(369, true));
    }
}
