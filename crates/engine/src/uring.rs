//! The io_uring list (`-a always|never,io_uring -S op,...`, the kernel's
//! AUDIT_FILTER_URING_EXIT): its rules compiled per op, the ops tracked
//! (the kernel never audits its `audit_skip` ops unless asked), the map
//! image, and the grouping of URINGOP events as the kernel writes them
//! (inline ops under their io_uring_enter's stamp, before its SYSCALL).
//!
//! The BPF side (`uring.bpf.h`) rebuilds each issue attempt of an op from
//! the io_uring tracepoints and judges it with the credentials it runs
//! with (a personality's or the submitter's for io-wq, the ring creator's
//! for SQPOLL), first match deciding.

use crate::plan::Plan;
use crate::rule::{compile_rule, unsupported, CompileError, CompiledRule, RulePaths};
use crate::runtime::AuditEvent;
use fastaudit_bpf::types::{fa_event, fa_event_flag};
use fastaudit_bpf::types::{fa_limit, fa_span, fa_span_flag};
use fastaudit_records::UringOp;
use fastaudit_rules::abi::field;
use fastaudit_rules::tables;
use fastaudit_rules::Loaded;
use std::collections::BTreeMap;

/// io_uring op numbers the BPF side indexes (`FA_URING_OPS`).
pub const URING_OPS: u32 = fa_limit::FA_URING_OPS.0;

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

/// Compile one io_uring-list rule into `plan.uring`.
pub(crate) fn add_rule(
    plan: &mut Plan,
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
    let idx = plan.uring.rules.len() as u32;
    for op in (0..URING_OPS).filter(|&op| r.has_syscall(op)) {
        plan.uring.by_op.entry(op).or_default().push(idx);
    }
    plan.uring.rules.push(compiled);
    Ok(())
}

/// Decide the tracked ops once every rule is in.
pub(crate) fn finish(plan: &mut Plan, audit_skipped_ops: bool) {
    let u = &mut plan.uring;
    u.audit_skipped_ops = audit_skipped_ops;
    u.enter_rules = plan
        .by_syscall
        .get(&crate::syscalls::x86_64("io_uring_enter"))
        .is_some_and(|ids| ids.iter().any(|&i| plan.exit_rules[i as usize].always));
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

impl Plan {
    /// `rule_prio`: each exit and io_uring rule's rank in the kernel's
    /// priority (rules added earlier rank higher; added = written, in file
    /// and line order), for the io_uring ops judged inside io_uring_enter.
    pub fn rule_prio(&self) -> Vec<(u32, u32)> {
        if !self.uring.active() {
            return Vec::new();
        }
        let first_uring = (self.exit_rules.len() + self.task_rules.len()) as u32;
        let mut all: Vec<(u32, &fastaudit_rules::Origin)> = self
            .exit_rules
            .iter()
            .enumerate()
            .map(|(i, r)| (i as u32, &r.origin))
            .chain(
                self.uring
                    .rules
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (first_uring + i as u32, &r.origin)),
            )
            .collect();
        all.sort_by(|a, b| (&a.1.file, a.1.line).cmp(&(&b.1.file, b.1.line)));
        let n = all.len() as u32;
        all.iter()
            .enumerate()
            .map(|(pos, &(id, _))| (id, n - pos as u32))
            .collect()
    }

    /// The key of rule `id` (exit rules, task rules, io_uring rules, in
    /// that order; `FA_NO_RULE` and beyond: none).
    pub fn rule_key(&self, id: u32) -> Option<Vec<u8>> {
        self.exit_rules
            .iter()
            .chain(&self.task_rules)
            .chain(&self.uring.rules)
            .nth(id as usize)
            .and_then(|r| r.key.clone())
    }
}

/// URINGOP events made inside an io_uring_enter, held per thread until
/// that syscall's end, so that they are written as the kernel writes
/// them: first, under the syscall's stamp, before its SYSCALL.
#[derive(Default)]
pub struct Groups {
    held: BTreeMap<u32, Vec<UringOp>>,
}

impl Groups {
    /// The audit event `ev` completes, if any: a URINGOP of its own, an
    /// io_uring_enter with the ops it held, or an event io_uring has
    /// nothing to do with (`assemble`d as usual).
    pub(crate) fn take(
        &mut self,
        plan: &Plan,
        ev: &fa_event,
        assemble: impl FnOnce(&fa_event) -> AuditEvent,
    ) -> Option<AuditEvent> {
        let flag = |f: fa_event_flag| ev.flags & f.0 != 0;
        if flag(fa_event_flag::FA_EV_URINGOP) {
            let op = UringOp {
                op: ev.syscall,
                exit: Some(ev.ret),
                items: ev.args[0] as u32,
                ppid: ev.ppid as i32,
                pid: ev.pid as i32,
                ids: ev.ids,
                subj: None,
                key: plan.rule_key(ev.rule),
            };
            if flag(fa_event_flag::FA_EV_URING_INLINE) {
                self.held.entry(ev.msg.tid).or_default().push(op);
                return None;
            }
            let mut out = assemble(ev);
            out.uringops = vec![op];
            out.no_syscall = true;
            return Some(out);
        }
        if !flag(fa_event_flag::FA_EV_URING_END) {
            return Some(assemble(ev));
        }
        let ops = self.held.remove(&ev.msg.tid).unwrap_or_default();
        let mut out = assemble(ev);
        out.no_syscall = flag(fa_event_flag::FA_EV_NO_RECORD);
        out.uringops = ops;
        (!out.no_syscall || !out.uringops.is_empty()).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::hooks::Hook;
    use crate::test_rules::plan;

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
    }

    #[test]
    fn inline_uringops_wait_for_their_io_uring_enter() {
        use super::Groups;
        use crate::runtime::AuditEvent;
        use fastaudit_bpf::types::{fa_event, fa_event_flag as f};
        let p = plan("-a always,io_uring -S openat -k o\n").unwrap();
        let ev = |tid: u32, flags: u32, op: u32| {
            let mut e = fa_event::default();
            e.msg.tid = tid;
            e.flags = flags;
            e.syscall = op;
            e.rule = 0;
            e
        };
        // Stands for assemble: only what the grouping sets is looked at.
        let plain = |e: &fa_event| AuditEvent {
            sec: 0,
            msec: 0,
            syscall: fastaudit_records::Syscall {
                syscall: e.syscall,
                ..Default::default()
            },
            cmdline: Vec::new(),
            companion: false,
            aux: Vec::new(),
            aux_lost: false,
            uringops: Vec::new(),
            no_syscall: false,
        };
        let mut g = Groups::default();
        let inline = f::FA_EV_URINGOP.0 | f::FA_EV_URING_INLINE.0;
        assert!(g.take(&p, &ev(7, inline, 18), plain).is_none());
        assert!(g.take(&p, &ev(8, inline, 18), plain).is_none());
        // Another thread's io_uring op of its own comes at once.
        let alone = g.take(&p, &ev(9, f::FA_EV_URINGOP.0, 37), plain).unwrap();
        assert!(alone.no_syscall && alone.uringops[0].op == 37);
        assert_eq!(alone.uringops[0].key, Some(b"o".to_vec()));
        let end = g
            .take(&p, &ev(7, f::FA_EV_URING_END.0, 426), plain)
            .unwrap();
        assert!(!end.no_syscall && end.uringops.len() == 1 && end.syscall.syscall == 426);
        let none = f::FA_EV_URING_END.0 | f::FA_EV_NO_RECORD.0;
        let end = g.take(&p, &ev(8, none, 0), plain).unwrap();
        assert!(end.no_syscall && end.uringops.len() == 1);
        assert!(
            g.take(&p, &ev(8, none, 0), plain).is_none(),
            "nothing held: nothing to write"
        );
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
