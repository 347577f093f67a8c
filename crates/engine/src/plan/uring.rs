//! The io_uring list (`-a always|never,io_uring -S op,...`, the kernel's
//! AUDIT_FILTER_URING_EXIT): its rules compiled per op, the ops tracked
//! (the kernel never audits its `audit_skip` ops unless asked) and the map
//! image. The runtime groups the events (`uring_groups`).
//!
//! The BPF side (`uring_*.bpf.h`, `uring_hooks.bpf.h` first) rebuilds each issue attempt of an op from
//! the io_uring tracepoints and judges it with the credentials it runs
//! with (a personality's or the submitter's for io-wq, the ring creator's
//! for SQPOLL), first match deciding.

use crate::limits::URING_OPS;
use crate::plan::rule::{compile_rule, unsupported, CompileError, CompiledRule, RulePaths};
use fastaudit_bpf::types::{fa_span, fa_span_flag};
use fastaudit_rules::abi::field;
use fastaudit_rules::tables;
use fastaudit_rules::Loaded;
use std::collections::BTreeMap;

/// The io_uring part of a plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UringPlan {
    /// io_uring-list rules in kernel order; their ids follow the task rules'.
    pub rules: Vec<CompiledRule>,
    /// Per op: indexes into `rules`, in order (ops some rule names).
    pub by_op: BTreeMap<u32, Vec<u32>>,
    /// Ops audited at all: every op the kernel audits (not `audit_skip`),
    /// or every op with `audit_skipped_ops`; empty when nothing can record
    /// an io_uring op.
    pub tracked: Vec<u32>,
    /// Audit the ops the kernel skips too (`--audit-skipped-uring-ops`).
    pub audit_skipped_ops: bool,
    /// Whether an exit rule can record io_uring_enter: it then judges the
    /// ops issued inline first, as the kernel's audit_filter_syscall does.
    pub enter_rules: bool,
}

/// Compile one io_uring-list rule into `uring`.
pub(crate) fn add_rule(
    uring: &mut UringPlan,
    loaded: &Loaded,
    lsm_audit_rules: bool,
    paths: &mut RulePaths,
) -> Result<(), CompileError> {
    let r = &loaded.rule;
    if let Some(f) = r
        .fields
        .iter()
        .find(|f| matches!(f.field, field::WATCH | field::DIR | field::PERM))
    {
        let name = tables::field_name(f.field).unwrap_or("path");
        return Err(unsupported(
            &loaded.origin,
            format!("-F {name} on the io_uring list"),
        ));
    }
    let compiled = compile_rule(r, &loaded.origin, lsm_audit_rules, paths)?;
    let idx = uring.rules.len() as u32;
    for op in (0..URING_OPS).filter(|&op| r.has_syscall(op)) {
        uring.by_op.entry(op).or_default().push(idx);
    }
    uring.rules.push(compiled);
    Ok(())
}

/// Decide the tracked ops once every rule is in; `enter_rules`: whether
/// an exit rule can record io_uring_enter.
pub(crate) fn finish(u: &mut UringPlan, enter_rules: bool, audit_skipped_ops: bool) {
    u.audit_skipped_ops = audit_skipped_ops;
    u.enter_rules = enter_rules;
    let can_record = u.rules.iter().any(|r| r.always) || u.enter_rules;
    u.tracked = if can_record {
        (0..tables::URING_OPS.len() as u32)
            .filter(|&op| audit_skipped_ops || tables::uring_op_audited(op))
            .collect()
    } else {
        Vec::new()
    };
}

impl UringPlan {
    /// Whether anything io_uring is hooked.
    pub fn active(&self) -> bool {
        !self.tracked.is_empty()
    }

    /// `uring_spans`: op → its candidates (starting at `start` in the
    /// candidates array, rule ids from `first_id`), for tracked ops.
    pub fn spans(&self, start: u32, first_id: u32) -> (Vec<(u32, fa_span)>, Vec<u32>) {
        let mut spans = Vec::new();
        let mut candidates = Vec::new();
        for &op in &self.tracked {
            let ids = self.by_op.get(&op).cloned().unwrap_or_default();
            spans.push((
                op,
                fa_span {
                    start: start + candidates.len() as u32,
                    count: ids.len() as u32,
                    flags: fa_span_flag::FA_SPAN_URING_OP.0,
                    ..fa_span::default()
                },
            ));
            candidates.extend(ids.iter().map(|i| first_id + i));
        }
        (spans, candidates)
    }

    /// Lines for `--explain`.
    pub fn explain(&self) -> String {
        if self.rules.is_empty() && !self.enter_rules {
            return String::new();
        }
        let name = |op: u32| {
            tables::URING_OPS
                .get(op as usize)
                .map_or_else(|| op.to_string(), |n| n.to_string())
        };
        let mut s = format!(
            "io_uring rules: {} ({} always, {} never); ops audited: {}{}\n",
            self.rules.len(),
            self.rules.iter().filter(|r| r.always).count(),
            self.rules.iter().filter(|r| !r.always).count(),
            self.tracked.len(),
            if self.audit_skipped_ops {
                " (the ops the kernel skips included)"
            } else {
                " (the kernel's audit_skip ops never are)"
            }
        );
        for (&op, ids) in &self.by_op {
            let skipped = !self.tracked.contains(&op);
            s.push_str(&format!(
                "  {}: {} rule(s){}\n",
                name(op),
                ids.len(),
                if skipped {
                    " (never audited: the kernel skips it)"
                } else {
                    ""
                }
            ));
        }
        if self.enter_rules {
            s.push_str("  io_uring_enter exit rules judge the ops issued inline first\n");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::hook::Hook;
    use crate::plan::test_rules::plan;

    #[test]
    fn explain_and_hooks_of_io_uring_rules() {
        let p =
            plan("-a always,io_uring -S openat,statx -k o\n-a always,exit -F arch=b64 -S chmod\n")
                .unwrap();
        let e = p.explain();
        assert!(e.contains("io_uring rules: 1 (1 always, 0 never)"), "{e}");
        assert!(e.contains("  openat: 1 rule(s)\n"), "{e}");
        assert!(
            e.contains("  statx: 1 rule(s) (never audited: the kernel skips it)"),
            "{e}"
        );
        assert!(
            e.contains("tp_btf/io_uring:io_uring_complete by fa_uring_complete"),
            "{e}"
        );
        assert!(p.hooks.contains(&Hook::UringOps) && p.hooks.contains(&Hook::UringEnter));
        let shown: Vec<String> = p.attachments.iter().map(|a| a.to_string()).collect();
        assert!(shown.contains(
            &"tracepoint/syscalls:sys_exit_io_uring_enter by fa_syscall_exit".to_string()
        ));
        assert!(shown.contains(
            &"tracepoint/syscalls:sys_enter_io_uring_enter by fa_uring_enter".to_string()
        ));
        // A rule on io_uring_enter's exit sees it already: no second exit program.
        let p =
            plan("-a always,io_uring -S openat\n-a always,exit -F arch=b64 -S io_uring_enter\n")
                .unwrap();
        let exits = p
            .attachments
            .iter()
            .filter(|a| a.to_string().contains("sys_exit_io_uring_enter"))
            .count();
        assert_eq!(exits, 1);
        assert!(p.uring.enter_rules);
        // An always rule of the ia32 ABI alone records no native
        // io_uring_enter (whose inline ops are the ones followed).
        let p =
            plan("-a always,exit -F arch=b32 -S all\n-a never,exit -F arch=b64 -S all -F uid=5\n")
                .unwrap();
        assert!(!p.uring.enter_rules && p.uring.tracked.is_empty());
        assert!(!p.hooks.contains(&Hook::UringEnter) && !p.hooks.contains(&Hook::UringOps));
    }

    #[test]
    fn io_uring_rules_rank_by_where_they_were_written() {
        let p = plan("-a always,io_uring -S openat -k first\n-a always,exit -F arch=b64 -S chmod\n-a always,io_uring -S openat -k last\n")
            .unwrap();
        // Ids: exit rule 0, io_uring rules 1 and 2 (no task rules).
        let mut prio = p.rule_prio();
        prio.sort();
        assert_eq!(prio, vec![(0, 2), (1, 3), (2, 1)]);
        assert_eq!(p.rule_key(2), Some(b"last".to_vec()));
    }
}
