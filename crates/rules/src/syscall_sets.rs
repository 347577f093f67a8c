//! Syscalls the kernel's audit treats specially, by their names in
//! libaudit's tables, declared once: the engine plans with them and the
//! bpf crate's build script writes them into the BPF side's generated
//! header (`audit_abi.h`), so C and Rust test the same sets.

/// One syscall by its names: in each ABI's table, and as the kernel's
/// `syscalls:sys_exit_NAME` tracepoint calls it (its SYSCALL_DEFINE name,
/// which can differ from the table's). The 64-bit tables libaudit has for
/// x86_64 and aarch64 name these alike, as do its i386 and arm tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Names {
    /// In the native (64-bit) ABI's table.
    pub native: &'static str,
    /// In the compat (32-bit) ABI's table.
    pub compat: &'static str,
    pub tracepoint: &'static str,
}

impl Names {
    /// The name in one ABI's table.
    pub fn of(&self, compat: bool) -> &'static str {
        if compat {
            self.compat
        } else {
            self.native
        }
    }
}

const fn same(name: &'static str) -> Names {
    Names {
        native: name,
        compat: name,
        tracepoint: name,
    }
}

/// The write family: a write to /proc/PID/loginuid makes the kernel's
/// LOGIN record inside one, which stock audit completes with the write's
/// SYSCALL.
pub const LOGINUID_WRITES: [Names; 5] = [
    same("write"),
    Names {
        native: "pwrite",
        compat: "pwrite64",
        tracepoint: "pwrite64",
    },
    same("writev"),
    same("pwritev"),
    same("pwritev2"),
];

/// The native sends by which auditctl hands kernel audit a message that
/// changes its rules or status (CONFIG_CHANGE inside the send; the ia32
/// ABI's and socketcall's are not followed).
pub const AUDIT_CONFIG_SENDS: [&str; 2] = ["sendto", "sendmsg"];

/// The syscalls a rule must be able to record for the kernel to note the
/// tasks a syscall signals (its `audit_signals`).
pub const AUDIT_SIGNALS: [&str; 3] = ["kill", "tkill", "tgkill"];

/// Native syscalls that signal the task their first argument names.
pub const SIGNAL_TO_FIRST_ARG: [&str; 3] = ["kill", "tkill", "rt_sigqueueinfo"];

/// Native syscalls that signal thread `arg1` of thread group `arg0`.
pub const SIGNAL_TO_THREAD: [&str; 2] = ["tgkill", "rt_tgsigqueueinfo"];

/// The native syscall whose target OBJ_PID also names (an attach or
/// seize), besides the signal senders.
pub const PTRACE: &str = "ptrace";

/// Every native syscall whose target the kernel notes for OBJ_PID.
pub fn obj_pid_senders() -> impl Iterator<Item = &'static str> {
    SIGNAL_TO_FIRST_ARG
        .into_iter()
        .chain(SIGNAL_TO_THREAD)
        .chain(std::iter::once(PTRACE))
}

/// execve and execveat (both ABIs): their registers are gone at exit, so
/// their arguments are kept at entry.
pub const EXECS: [&str; 2] = ["execve", "execveat"];

/// exit and exit_group (both ABIs): they end the task inside the syscall,
/// so no exit hook sees them and they are judged at entry.
pub const NO_RETURN: [&str; 2] = ["exit", "exit_group"];

/// The native System V message queue syscalls (ia32 reaches them through
/// `ipc`, which is not followed).
pub const SYSV_MSG: [&str; 4] = ["msgget", "msgsnd", "msgrcv", "msgctl"];

/// The native System V semaphore syscalls.
pub const SYSV_SEM: [&str; 4] = ["semget", "semop", "semctl", "semtimedop"];

/// The native System V shared memory syscalls.
pub const SYSV_SHM: [&str; 3] = ["shmget", "shmat", "shmctl"];

/// Every native System V IPC syscall: the object one looks up is found at
/// its entry.
pub fn sysv_ipc() -> impl Iterator<Item = &'static str> {
    SYSV_MSG.into_iter().chain(SYSV_SEM).chain(SYSV_SHM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Target;

    /// Every name of every set is in the table of the ABI it is used for,
    /// on every target: a set naming a call a table lacks would test for
    /// nothing there.
    #[test]
    fn every_name_is_in_its_tables() {
        for t in Target::ALL {
            for n in LOGINUID_WRITES {
                for compat in [false, true] {
                    assert!(
                        t.syscall_number(compat, n.of(compat)).is_some(),
                        "{t:?} {n:?}"
                    );
                }
            }
            let native = AUDIT_CONFIG_SENDS
                .into_iter()
                .chain(AUDIT_SIGNALS)
                .chain(obj_pid_senders())
                .chain(sysv_ipc());
            for n in native {
                assert!(t.syscall_number(false, n).is_some(), "{t:?} {n}");
            }
            for n in EXECS.into_iter().chain(NO_RETURN) {
                for compat in [false, true] {
                    assert!(t.syscall_number(compat, n).is_some(), "{t:?} {n}");
                }
            }
        }
    }
}
