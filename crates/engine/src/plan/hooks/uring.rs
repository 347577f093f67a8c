//! The hooks for io_uring ops: the io_uring tracepoints (tp_btf or raw_tp)
//! and io_uring_enter's entry and exit.

use super::programs::Twice;
use crate::plan::hook::{AttachPoint, Attachment, Hook};
use crate::plan::syscalls;
use fastaudit_bpf::programs as prog;

/// The io_uring tracepoints (uring_hooks.bpf.h says what each tells).
pub(super) const URING_OPS: [Twice; 4] = [
    Twice {
        tp_btf: prog::FA_URING_SUBMIT,
        raw_tp: prog::FA_RTP_URING_SUBMIT,
        category: "io_uring",
        tracepoint: "io_uring_submit_req",
        purpose: "io_uring ops submitted (an issue attempt follows)",
    },
    Twice {
        tp_btf: prog::FA_URING_QUEUE,
        raw_tp: prog::FA_RTP_URING_QUEUE,
        category: "io_uring",
        tracepoint: "io_uring_queue_async_work",
        purpose: "io_uring ops queued for io-wq",
    },
    Twice {
        tp_btf: prog::FA_URING_POLL,
        raw_tp: prog::FA_RTP_URING_POLL,
        category: "io_uring",
        tracepoint: "io_uring_poll_arm",
        purpose: "io_uring ops waiting for readiness (an attempt returned -EAGAIN)",
    },
    Twice {
        tp_btf: prog::FA_URING_COMPLETE,
        raw_tp: prog::FA_RTP_URING_COMPLETE,
        category: "io_uring",
        tracepoint: "io_uring_complete",
        purpose: "io_uring ops completed (the last attempt returned 0)",
    },
];

/// The io_uring hooks of a plan: the ops' tracepoints, and io_uring_enter
/// (its tracepoints) when the tracepoint kind works.
pub(super) fn uring_hooks(plan: &crate::plan::Plan) -> Vec<Hook> {
    match (plan.uring.active(), plan.kinds.tracepoint.usable()) {
        (false, _) => Vec::new(),
        (true, false) => vec![Hook::UringOps],
        (true, true) => vec![Hook::UringOps, Hook::UringEnter],
    }
}

/// io_uring_enter's entry (into `enters`) and, unless another hook of
/// `hooks` runs the end-of-syscall code for it already, its exit.
pub(super) fn uring_enter_attachments(
    target: fastaudit_rules::Target,
    hooks: &[Hook],
    enters: &mut Vec<Attachment>,
) -> Vec<Attachment> {
    let nr = syscalls::number(target.native, "io_uring_enter");
    enters.push(Attachment {
        program: prog::FA_URING_ENTER,
        point: AttachPoint::Syscall {
            tracepoint: "sys_enter_io_uring_enter".into(),
        },
        purpose: format!("nr {nr}, io_uring ops issued inline are judged in its context"),
    });
    let seen = hooks.iter().any(|h| {
        matches!(h, Hook::RawSyscallExit)
            || matches!(h, Hook::SyscallExit { nr: n, .. } if *n == nr)
    });
    if seen {
        return Vec::new();
    }
    vec![Attachment {
        program: prog::FA_SYSCALL_EXIT,
        point: AttachPoint::Syscall {
            tracepoint: "sys_exit_io_uring_enter".into(),
        },
        purpose: format!("nr {nr}, its SYSCALL after the URINGOP records of its inline ops"),
    }]
}
