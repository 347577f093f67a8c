//! The entry hooks a plan on the raw exit hook needs, without the raw
//! entry hook where another hook does its work.

use crate::plan::hook::Hook;
use crate::plan::syscalls;
use crate::plan::{Environment, Plan};

/// Whether execs of either ABI have their arguments saved by
/// `sched:sched_prepare_exec` (Linux 6.10+) instead of an entry hook: it
/// sees every exec that gets past its checks with the caller's registers,
/// memory and credentials, and one that fails before it leaves them
/// intact for the exit hook. A `syscalls:sys_enter_NAME` tracepoint
/// costs every syscall the entry's perf dispatch (+12 ns a getpid on
/// this project's 6.18 machine, measured 2026-11-26), the prepare hook
/// only execs.
pub(super) fn execs_by_prepare(plan: &Plan, env: &Environment) -> bool {
    !env.no_prepare_exec && plan.kinds.raw_kind().is_some()
}

/// The native syscalls whose entry needs a `sys_enter_NAME` hook: those
/// some rule can record, but the execs where `sched_prepare_exec` saves
/// them and the note-clearing ones where nothing can be noted.
pub(super) fn native_entries(plan: &Plan, env: &Environment) -> Vec<u32> {
    let native = syscalls::special(plan.target, false);
    let execs = native.execs();
    let by_prepare = execs_by_prepare(plan, env);
    native
        .entry_hooked()
        .into_iter()
        .filter(|&nr| {
            !plan.candidates(nr, false).is_empty()
                && super::noted::entry_needed(plan, nr)
                && !(by_prepare && execs.contains(&nr))
        })
        .collect()
}

/// Whether some rule can record a native exec.
pub(super) fn native_execs_audited(plan: &Plan) -> bool {
    syscalls::special(plan.target, false)
        .execs()
        .iter()
        .any(|&nr| !plan.candidates(nr, false).is_empty())
}

/// The entry hooks beside the raw exit hook. execve/execveat clear the
/// registers on success, so their arguments are saved before; exit and
/// exit_group never return, so they are judged at entry. The raw entry
/// hook would cost every syscall as much as the raw exit hook does, so
/// execs of both ABIs take `sched:sched_prepare_exec` where it exists,
/// other native syscalls their own `sys_enter_NAME` tracepoints; only
/// compat (ia32, arm) exit/exit_group and chdir, a missing tracepoint or
/// an unusable tracepoint kind take the raw entry hook.
pub(super) fn raw_entry_hooks(plan: &Plan, env: &Environment) -> Vec<Hook> {
    let native = native_entries(plan, env);
    let native_execs = execs_by_prepare(plan, env) && native_execs_audited(plan);
    let compat = syscalls::special(plan.target, true);
    let ia32: Vec<u32> = compat
        .entry_hooked()
        .into_iter()
        .filter(|&nr| !env.ia32_disabled && !plan.candidates(nr, true).is_empty())
        .collect();
    if native.is_empty() && ia32.is_empty() && !native_execs {
        return Vec::new();
    }
    // No tracepoint sees a compat syscall's entry but the exec's.
    let ia32_execs = compat.execs();
    let ia32_raw = ia32.iter().any(|nr| !ia32_execs.contains(nr));
    let present = |syscall: &String| {
        env.syscall_tracepoints
            .as_ref()
            .is_none_or(|t| t.contains(syscall))
    };
    let enters: Option<Vec<Hook>> = native
        .iter()
        .map(|&nr| {
            let syscall = syscalls::tracepoint_name(plan.target, nr)?.to_string();
            present(&syscall).then_some(Hook::SyscallEnter { nr, syscall })
        })
        .collect();
    match enters {
        Some(mut hooks)
            if !ia32_raw
                && (native.is_empty() || plan.kinds.tracepoint.usable())
                && (ia32.is_empty() || !env.no_prepare_exec) =>
        {
            if !ia32.is_empty() || native_execs {
                hooks.push(Hook::ExecPrepare);
            }
            hooks
        }
        _ => vec![Hook::RawSyscallEnter],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::syscalls::x86_64;
    use crate::plan::test_rules::{plan, plan_in};

    fn enter(name: &str) -> Hook {
        Hook::SyscallEnter {
            nr: x86_64(name),
            syscall: name.into(),
        }
    }

    #[test]
    fn the_raw_entry_hook_only_for_ia32_exit() {
        // STIG's shape: b32 and b64 execve rules and an arch-less watch.
        let text = "-a always,exit -F arch=b64 -S execve -k e\n\
                    -a always,exit -F arch=b32 -S execve -k e\n\
                    -w /etc/passwd -p wa -k w\n";
        let p = plan(text).unwrap();
        assert_eq!(
            p.hooks,
            vec![Hook::RawSyscallExit, Hook::ExecPrepare, Hook::InodeChanges],
            "execve of both ABIs by sched_prepare_exec"
        );
        let shown: Vec<String> = p.attachments.iter().map(|a| a.to_string()).collect();
        assert!(shown.contains(&"tp_btf/sched:sched_prepare_exec by fa_exec_prepare".to_string()));
        let without = Environment {
            no_prepare_exec: true,
            ..Environment::default()
        };
        assert_eq!(
            plan_in(text, without.clone()).unwrap().hooks[..2],
            [Hook::RawSyscallExit, Hook::RawSyscallEnter],
            "a kernel before 6.10 has no sched_prepare_exec"
        );
        assert_eq!(
            plan_in(
                "-a always,exit -F arch=b64 -S execve\n-w /etc/passwd -p wa\n",
                without.clone()
            )
            .unwrap()
            .hooks,
            vec![Hook::RawSyscallExit, enter("execve"), Hook::InodeChanges],
            "and native execve there takes its own entry tracepoint"
        );
        assert_eq!(
            plan("-a always,exit -F arch=b32 -S exit_group,chmod\n")
                .unwrap()
                .hooks[..2],
            [Hook::RawSyscallExit, Hook::RawSyscallEnter],
            "ia32 exit_group is judged at entry: only the raw entry hook sees it"
        );
        assert_eq!(
            plan("-a always,exit -F arch=b32 -S chdir\n").unwrap().hooks[..2],
            [Hook::RawSyscallExit, Hook::RawSyscallEnter],
            "an ia32 chdir's working directory is kept at its entry"
        );
        let no_enter_tp = Environment {
            syscall_tracepoints: Some(["chmod".to_string()].into()),
            ..Environment::default()
        };
        assert_eq!(
            plan_in("-a always,exit -S execve,chmod\n", no_enter_tp.clone())
                .unwrap()
                .hooks[..2],
            [Hook::RawSyscallExit, Hook::ExecPrepare],
            "no sys_enter_execve tracepoint: none needed"
        );
        let before_6_10 = Environment {
            no_prepare_exec: true,
            ..no_enter_tp
        };
        assert_eq!(
            plan_in("-a always,exit -S execve,chmod\n", before_6_10)
                .unwrap()
                .hooks[..2],
            [Hook::RawSyscallExit, Hook::RawSyscallEnter],
            "no sys_enter_execve tracepoint before 6.10: the raw entry hook"
        );
    }
}
