//! The per-syscall tracepoint plan: `syscalls:sys_exit_NAME` (and
//! `sys_enter_NAME`) for each audited native syscall, when no rule can
//! record a compat one.

use super::companion::companion_hooks;
use crate::plan::hook::Hook;
use crate::plan::rule::arch_allows;
use crate::plan::syscalls;
use crate::plan::{Environment, Plan};

/// Per-syscall tracepoint hooks for the plan, if it can use them: no rule
/// can record a compat syscall (or the kernel runs none: ia32 disabled),
/// fewer than 64 syscalls, the tracepoint kind usable, and every
/// tracepoint present (`tracepoints`, when known).
pub(super) fn per_syscall(plan: &Plan, env: &Environment) -> Option<Vec<Hook>> {
    let tracepoints = env.syscall_tracepoints.as_ref();
    let compat = !env.ia32_disabled
        && plan
            .by_syscall
            .values()
            .flatten()
            .any(|&i| arch_allows(&plan.exit_rules[i as usize], plan.target.audit_arch(true)));
    if compat || !plan.kinds.tracepoint.usable() {
        return None;
    }
    let name = |nr: u32| syscalls::tracepoint_name(plan.target, nr).map(str::to_string);
    // Without compat, a number only a compat rule selects needs no hook.
    let exits = plan
        .by_syscall
        .keys()
        .filter(|&&nr| !env.ia32_disabled || !plan.candidates(nr, false).is_empty())
        .map(|&nr| name(nr).map(|syscall| Hook::SyscallExit { nr, syscall }))
        .collect::<Option<Vec<Hook>>>()?;
    if exits.len() >= 64 {
        return None;
    }
    let special = syscalls::special(plan.target, false);
    // exit/exit_group's exit tracepoints never fire: judged at entry below.
    let mut hooks: Vec<Hook> = exits
        .into_iter()
        .filter(|h| !matches!(h, Hook::SyscallExit { nr, .. } if special.no_return().contains(nr)))
        .collect();
    for nr in super::entry::native_entries(plan, env) {
        hooks.push(Hook::SyscallEnter {
            nr,
            syscall: name(nr)?,
        });
    }
    if super::entry::execs_by_prepare(plan, env) && super::entry::native_execs_audited(plan) {
        hooks.push(Hook::ExecPrepare);
    }
    // A missing tracepoint (the kernel's SYSCALL_DEFINE name differs from
    // the table's) sends everything to the raw hooks. Entry hooks are
    // checked by their exit tracepoint's name too: both come from one
    // SYSCALL_DEFINE.
    let present = |syscall: &String| tracepoints.is_none_or(|t| t.contains(syscall));
    let all_present = hooks.iter().all(|h| match h {
        Hook::SyscallExit { syscall, .. } | Hook::SyscallEnter { syscall, .. } => present(syscall),
        _ => true,
    });
    if !all_present {
        return None;
    }
    let mut login = companion_hooks(plan.target, &hooks, tracepoints);
    hooks.append(&mut login);
    Some(hooks)
}
