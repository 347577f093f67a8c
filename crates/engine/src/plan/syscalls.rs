//! The syscall numbers the engine treats specially, looked up once by name
//! in the rules crate's generated tables (libaudit's), so no number is
//! spelled in the engine's code or tests.

use fastaudit_rules::syscall_sets::{
    sysv_ipc, AUDIT_CONFIG_SENDS, EXECS, LOGINUID_WRITES, NO_RETURN,
};
use fastaudit_rules::tables::Machine;
use fastaudit_rules::Target;
use std::sync::OnceLock;

/// The machine this binary was built for: the plan's target unless one is
/// given (a plan for another machine is made only to test or explain it).
#[cfg(target_arch = "x86_64")]
pub const BUILT_FOR: Target = Target::X86_64;
/// The machine this binary was built for.
#[cfg(target_arch = "aarch64")]
pub const BUILT_FOR: Target = Target::AARCH64;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("fastaudit plans syscalls for x86_64 and aarch64 only");

/// Where the kernel's `syscalls:sys_exit_NAME` tracepoint (its
/// SYSCALL_DEFINE name) differs from libaudit's aarch64 name of the same
/// number: a per-syscall hook is named by the former. (lookup_dcookie and
/// nfsservctl have neither a tracepoint nor a syscall on arm64.)
const AARCH64_TRACEPOINTS: &[(&str, &str)] = &[
    ("getdents", "getdents64"),
    ("pread", "pread64"),
    ("pwrite", "pwrite64"),
    ("sendfile", "sendfile64"),
    ("uname", "newuname"),
    ("personality", "arm64_personality"),
    ("fadvise64", "fadvise64_64"),
    ("umount2", "umount"),
];

/// The name of native syscall `nr` of `target` as its `syscalls:` tracepoints
/// are named. (x86_64's names are the table's, as they always were here: a
/// table name without a tracepoint sends the plan to the raw hooks.)
pub fn tracepoint_name(target: Target, nr: u32) -> Option<&'static str> {
    let name = target.native.syscall_name(nr)?;
    if target.native == Machine::Aarch64 {
        if let Some(&(_, tp)) = AARCH64_TRACEPOINTS.iter().find(|(n, _)| *n == name) {
            return Some(tp);
        }
    }
    Some(name)
}

/// The syscalls one ABI handles specially.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Special {
    /// `open` (perm= judged by the access mode in a1; aarch64 has none).
    pub open: Option<u32>,
    /// `openat` (access mode in a2).
    pub openat: u32,
    /// `openat2` (access mode in struct open_how).
    pub openat2: u32,
    /// `execve`: arguments saved at entry (a successful one clears them).
    pub execve: u32,
    /// `execveat`: likewise.
    pub execveat: u32,
    /// Whether the kernel's `audit_classify_syscall` takes execveat for an
    /// exec (perm=x): x86's both ABIs and the generic native one do, the
    /// generic compat one (arm on arm64, lib/compat_audit.c) only execve.
    pub execveat_perm_exec: bool,
    /// `exit`: never returns, judged at entry.
    pub exit: u32,
    /// `exit_group`: likewise.
    pub exit_group: u32,
    /// `socketcall` (i386 only: a bind through it is a write for perm=;
    /// arm64's compat ABI is EABI, which has none).
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

    /// Whether `nr` is an exec for perm= (`AUDITSC_EXECVE`).
    pub fn perm_exec(&self, nr: u32) -> bool {
        nr == self.execve || (self.execveat_perm_exec && nr == self.execveat)
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

    fn of(target: Target, compat: bool) -> Special {
        let m = target.machine(compat);
        let nr = |name: &str| number(m, name);
        let [execve, execveat] = EXECS.map(nr);
        let [exit, exit_group] = NO_RETURN.map(nr);
        let native = |names: &[&str]| -> Vec<u32> {
            if compat {
                Vec::new()
            } else {
                names.iter().map(|n| nr(n)).collect()
            }
        };
        let generic_compat = compat && target.native == Machine::Aarch64;
        Special {
            open: m.syscall_number(b"open"),
            openat: nr("openat"),
            openat2: nr("openat2"),
            execve,
            execveat,
            execveat_perm_exec: !generic_compat,
            exit,
            exit_group,
            socketcall: m.syscall_number(b"socketcall").filter(|_| !generic_compat),
            chdir: Some(nr("chdir")),
            mq_getsetattr: (!compat).then(|| nr("mq_getsetattr")),
            sysv_ipc: if compat {
                Vec::new()
            } else {
                sysv_ipc().map(nr).collect()
            },
            clock_adjust: native(&["adjtimex", "clock_adjtime"]),
            module_load: native(&["init_module", "finit_module"]),
        }
    }
}

/// The index of one ABI of one target in per-ABI tables.
fn abi_index(target: Target, compat: bool) -> usize {
    let t = Target::ALL.iter().position(|&t| t == target).unwrap_or(0);
    t * 2 + usize::from(compat)
}

/// Special syscalls of the native (x86_64) ABI.
pub fn native() -> &'static Special {
    special(Target::X86_64, false)
}

/// Special syscalls of the compat (i386) ABI.
pub fn ia32() -> &'static Special {
    special(Target::X86_64, true)
}

/// The special syscalls of one ABI of `target`.
pub fn special(target: Target, compat: bool) -> &'static Special {
    static S: OnceLock<Vec<Special>> = OnceLock::new();
    let all = S.get_or_init(|| {
        Target::ALL
            .iter()
            .flat_map(|&t| [false, true].map(|c| Special::of(t, c)))
            .collect()
    });
    &all[abi_index(target, compat)]
}

/// The native syscalls during which the kernel makes a record that stock
/// audit completes with the syscall's SYSCALL and PROCTITLE: the write
/// family, by which /proc/PID/loginuid is written (LOGIN), and sendto,
/// sendmsg, by which auditctl changes kernel audit's rules and status
/// (CONFIG_CHANGE): number and `syscalls:sys_exit_NAME` tracepoint name
/// (the rules crate's `syscall_sets`, which the BPF side's tests are
/// generated from).
pub fn companion_exits(target: Target) -> Vec<(u32, &'static str)> {
    let nr = |name: &str| number(target.native, name);
    let writes = LOGINUID_WRITES.iter().map(|n| (nr(n.native), n.tracepoint));
    let sends = AUDIT_CONFIG_SENDS.into_iter().map(|n| (nr(n), n));
    writes.chain(sends).collect()
}

/// Whether syscall `nr` of one ABI can have a companion (the BPF side's
/// `is_write`, `is_send`): its never rules judge the companion.
pub fn is_companion_syscall(target: Target, nr: u32, compat: bool) -> bool {
    if compat {
        LOGINUID_WRITES
            .iter()
            .any(|n| number(target.compat, n.compat) == nr)
    } else {
        companion_exits(target).iter().any(|w| w.0 == nr)
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
pub fn names_nothing(target: Target, nr: u32, compat: bool) -> bool {
    static SETS: OnceLock<Vec<Vec<u32>>> = OnceLock::new();
    let sets = SETS.get_or_init(|| {
        let of = |m: Machine| -> Vec<u32> {
            NAMES_NOTHING
                .iter()
                .filter_map(|n| m.syscall_number(n.as_bytes()))
                .collect()
        };
        Target::ALL
            .iter()
            .flat_map(|t| [of(t.native), of(t.compat)])
            .collect()
    });
    sets[abi_index(target, compat)].contains(&nr)
}

/// The number of syscall `name` on machine `m`. Only called with names of
/// the engine's own tables (a unit test checks every one), so a missing
/// name is a bug in this crate, not an input error.
pub fn number(m: Machine, name: &str) -> u32 {
    lookup(m, name).unwrap_or_else(|| panic!("syscall {name} is in no table of {}", m.name()))
}

/// The number of syscall `name` on machine `m`, if it has one: from
/// libaudit's table, else from the kernel's for syscalls newer than it
/// (since Linux 5.1 one number on every machine).
pub fn lookup(m: Machine, name: &str) -> Option<u32> {
    m.syscall_number(name.as_bytes())
        .or_else(|| m.newer_syscall_number(name.as_bytes()))
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
            companion_exits(Target::X86_64)
                .into_iter()
                .map(|w| w.0)
                .collect::<Vec<_>>(),
            [1, 18, 20, 296, 328, 44, 46],
            "the numbers the BPF side tests (FA_LOGINUID_WRITE64, FA_AUDIT_CONFIG_SEND64)"
        );
        let is_companion = |nr, compat| is_companion_syscall(Target::X86_64, nr, compat);
        assert!(is_companion(4, true) && !is_companion(4, false));
        assert!(is_companion(181, true) && is_companion(18, false));
        assert!(is_companion(44, false) && !is_companion(369, true));
    }
}
