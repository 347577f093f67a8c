//! The hooks for companions: syscalls during which the kernel makes a
//! record that stock audit completes with the syscall's SYSCALL (LOGIN's
//! loginuid write, CONFIG_CHANGE's send), attached whatever the rules.

use crate::plan::hook::Hook;
use crate::plan::syscalls;
use std::collections::BTreeSet;

/// The write family's and sendto/sendmsg's exits that `hooks` do not hook
/// already, for companions (a missing tracepoint is left out: only its
/// LOGINs or CONFIG_CHANGEs come alone).
pub(super) fn companion_hooks(
    target: fastaudit_rules::Target,
    hooks: &[Hook],
    tracepoints: Option<&BTreeSet<String>>,
) -> Vec<Hook> {
    syscalls::companion_exits(target)
        .into_iter()
        .filter(|&(nr, _)| {
            !hooks
                .iter()
                .any(|h| matches!(h, Hook::SyscallExit { nr: n, .. } if *n == nr))
        })
        .filter(|(_, tp)| tracepoints.is_none_or(|t| t.contains(*tp)))
        .map(|(nr, tp)| Hook::CompanionExit {
            nr,
            syscall: tp.to_string(),
        })
        .collect()
}
