//! The grouping of URINGOP events as the kernel writes them: inline ops
//! under their io_uring_enter's stamp, before its SYSCALL.

use crate::event::AuditEvent;
use crate::plan::Plan;
use fastaudit_bpf::types::{fa_event, fa_event_flag};
use fastaudit_records::UringOp;
use std::collections::BTreeMap;

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
        subj: &[u8],
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
                subj: (!subj.is_empty()).then(|| subj.to_vec()),
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
    use crate::plan::test_rules::plan;

    #[test]
    fn inline_uringops_wait_for_their_io_uring_enter() {
        use super::Groups;
        use crate::event::AuditEvent;
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
            syscall: fastaudit_records::Syscall {
                syscall: e.syscall,
                ..Default::default()
            },
            ..AuditEvent::default()
        };
        let mut g = Groups::default();
        let inline = f::FA_EV_URINGOP.0 | f::FA_EV_URING_INLINE.0;
        assert!(g.take(&p, &ev(7, inline, 18), &[], plain).is_none());
        assert!(g.take(&p, &ev(8, inline, 18), &[], plain).is_none());
        // Another thread's io_uring op of its own comes at once.
        let alone = g
            .take(&p, &ev(9, f::FA_EV_URINGOP.0, 37), &[], plain)
            .unwrap();
        assert!(alone.no_syscall && alone.uringops[0].op == 37);
        assert_eq!(alone.uringops[0].key, Some(b"o".to_vec()));
        let end = g
            .take(&p, &ev(7, f::FA_EV_URING_END.0, 426), &[], plain)
            .unwrap();
        assert!(!end.no_syscall && end.uringops.len() == 1 && end.syscall.syscall == 426);
        let none = f::FA_EV_URING_END.0 | f::FA_EV_NO_RECORD.0;
        let end = g.take(&p, &ev(8, none, 0), &[], plain).unwrap();
        assert!(end.no_syscall && end.uringops.len() == 1);
        assert!(
            g.take(&p, &ev(8, none, 0), &[], plain).is_none(),
            "nothing held: nothing to write"
        );
    }
}
