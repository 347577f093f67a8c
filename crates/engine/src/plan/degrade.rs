//! What a plan does without the programs this kernel refused: the
//! program's other hook kind, user-space lookups, or the features that
//! need it marked unavailable ([`crate::Plan::degraded`]).

use crate::plan::hook::{AttachPoint, Attachment};
use crate::plan::kinds::{InodeSource, Probe};
use crate::plan::{Environment, Plan};

/// What one refusal changes in the environment the rules are compiled
/// in, and what the plan then says about it.
pub(crate) enum Step {
    /// Compile again in the changed environment (the note says what changed).
    Again(String),
    /// Drop these attachments: the features they serve are unavailable.
    Drop(Vec<(Attachment, String)>),
}

/// The next step for `plan`'s attachments that `env` says were refused
/// (`None`: none left, or one without which nothing can be audited: then
/// [`Plan::hook_kind_problem`] says which and why).
pub(crate) fn next_step(plan: &Plan, env: &mut Environment) -> Option<Step> {
    let why = |program: &str| {
        env.refused
            .iter()
            .find(|r| r.program == program)
            .map(|r| r.why.clone())
    };
    let refused: Vec<(Attachment, String)> = plan
        .attachments
        .iter()
        .filter_map(|a| why(a.program).map(|w| (a.clone(), w)))
        .collect();
    let (first, first_why) = refused.first()?.clone();
    // The per-syscall tracepoints: the raw syscall hooks do their work.
    if let AttachPoint::Syscall { .. } = first.point {
        env.kinds.tracepoint = Probe::Refused(format!("{}: {first_why}", first.program));
        return Some(Step::Again(format!(
            "per-syscall tracepoints: {} refused ({first_why}); the raw syscall hooks are used instead",
            first.program
        )));
    }
    // A syscall function's stub or body: the per-syscall tracepoints or
    // the raw hooks do their work (per_function sees the refusal).
    if matches!(
        first.point,
        AttachPoint::Stub { .. } | AttachPoint::StubBody { .. }
    ) {
        return Some(Step::Again(format!(
            "syscall functions: {} ({}) refused ({first_why}); the tracepoints or raw syscall hooks are used instead",
            first.program, first.point
        )));
    }
    // Inode changes: object names are looked up from user space; the
    // rules that need the hooks themselves (watches, dir=, path=) are
    // unavailable.
    if crate::plan::hooks::serves_inode_changes(first.program) {
        env.features.inode =
            InodeSource::Missing(format!("{} refused: {first_why}", first.program));
        return Some(Step::Again(format!(
            "inode changes ({}): {} refused ({first_why}); PATH records name changed objects from user space; watches and path=/dir= rules are unavailable",
            first.purpose, first.program
        )));
    }
    // Every syscall's exit judges the rules: nothing is audited without it.
    if crate::plan::hooks::essential(first.program) {
        return None;
    }
    Some(Step::Drop(
        refused
            .into_iter()
            .filter(|(a, _)| {
                !matches!(a.point, AttachPoint::Syscall { .. })
                    && !crate::plan::hooks::serves_inode_changes(a.program)
                    && !crate::plan::hooks::essential(a.program)
            })
            .collect(),
    ))
}

/// Make `plan`'s attachments do without the refused ones the plan can do
/// without (a [`Step::Drop`]), saying so in `plan.degraded`.
pub(crate) fn drop_refused(plan: &mut Plan, dropped: &[(Attachment, String)]) {
    for (a, why) in dropped {
        plan.attachments.retain(|x| x != a);
        plan.degraded.push(format!(
            "{} ({}): unavailable: {} refused ({why})",
            a.purpose, a.point, a.program
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::refusal::Refusal;
    use crate::plan::test_rules::plan_in;

    fn refusing(programs: &[&str]) -> Environment {
        Environment {
            refused: programs
                .iter()
                .map(|p| Refusal {
                    program: p.to_string(),
                    why: "Invalid argument".into(),
                })
                .collect(),
            ..Environment::default()
        }
    }

    fn programs(p: &Plan) -> Vec<&str> {
        p.attachments.iter().map(|a| a.program).collect()
    }

    const RULES: &str = "-w /etc/passwd -p wa -k pw\n-a always,exit -F arch=b64 -S chmod -k ch\n";

    #[test]
    fn a_refused_tp_btf_program_is_replaced_by_its_raw_tp_twin() {
        let p = plan_in(RULES, refusing(&["fa_ctime_xchg"])).unwrap();
        let progs = programs(&p);
        assert!(progs.contains(&"fa_rtp_ctime_xchg") && !progs.contains(&"fa_ctime_xchg"));
        assert!(progs.contains(&"fa_ctime_skip"), "the others stay tp_btf");
        assert!(p.hook_kind_problem().is_none());
        assert!(
            p.degraded
                .iter()
                .any(|d| d.contains("fa_ctime_xchg refused")
                    && d.contains("fa_rtp_ctime_xchg used instead")),
            "{:?}",
            p.degraded
        );
        assert!(p
            .explain()
            .contains("degraded (programs this kernel refused):"));
    }

    #[test]
    fn without_inode_hooks_watches_are_unavailable_and_the_rest_audits() {
        let p = plan_in(RULES, refusing(&["fa_ctime_xchg", "fa_rtp_ctime_xchg"])).unwrap();
        assert!(
            p.hook_kind_problem().is_none(),
            "{:?}",
            p.hook_kind_problem()
        );
        assert!(!p.hooks.contains(&crate::plan::hook::Hook::InodeChanges));
        assert!(
            programs(&p).contains(&"fa_syscall_exit"),
            "chmod is still audited"
        );
        assert_eq!(p.unavailable.len(), 1);
        assert_eq!(p.unavailable[0].line, 1);
        assert_eq!(p.exit_rules.len(), 1, "the watch is left out");
        assert!(
            p.degraded
                .iter()
                .any(|d| d.starts_with("inode changes") && d.contains("fa_ctime_xchg refused")),
            "{:?}",
            p.degraded
        );
        assert!(p
            .degraded
            .iter()
            .any(|d| d.contains("t.rules:1") && d.contains("unavailable")));
        let unrefused = plan_in(RULES, Environment::default()).unwrap();
        assert!(unrefused.degraded.is_empty() && unrefused.unavailable.is_empty());
    }

    #[test]
    fn a_refused_per_syscall_program_gives_way_to_the_raw_syscall_hooks() {
        let chmod = "-a always,exit -F arch=b64 -S chmod -k ch\n";
        assert!(
            programs(&plan_in(chmod, Environment::default()).unwrap()).contains(&"fa_syscall_exit")
        );
        let p = plan_in(chmod, refusing(&["fa_syscall_exit"])).unwrap();
        let progs = programs(&p);
        assert!(!progs.contains(&"fa_syscall_exit"));
        assert!(progs.contains(&"fa_raw_exit"));
        assert!(p.hook_kind_problem().is_none());
        assert!(
            p.degraded[0].starts_with("per-syscall tracepoints"),
            "{:?}",
            p.degraded
        );
    }

    #[test]
    fn nothing_to_audit_without_the_exit_judge_is_said_with_the_reasons() {
        let p = plan_in(
            "-a always,exit -F arch=b64 -S chmod -k ch\n",
            refusing(&["fa_syscall_exit", "fa_raw_exit", "fa_rtp_raw_exit"]),
        )
        .unwrap();
        let why = p.hook_kind_problem().expect("refused");
        assert!(why.starts_with("nothing can be audited"), "{why}");
        assert!(
            why.contains("fa_raw_exit refused by the kernel: Invalid argument"),
            "{why}"
        );
    }

    #[test]
    fn other_refused_programs_cost_only_their_feature() {
        let p = plan_in(
            "-a always,exit -F arch=b64 -S kill -k k\n",
            refusing(&["fa_signal_sent", "fa_rtp_signal_sent"]),
        )
        .unwrap();
        assert!(p.hook_kind_problem().is_none());
        assert!(programs(&p).contains(&"fa_syscall_exit"));
        assert!(
            p.degraded
                .iter()
                .any(|d| d.starts_with("OBJ_PID") && d.contains("unavailable")),
            "{:?}",
            p.degraded
        );
    }
}
