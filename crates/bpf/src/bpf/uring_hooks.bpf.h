/* SPDX-License-Identifier: GPL-2.0 */
/* io_uring operations (URINGOP records). The kernel audits each issue
 * attempt of an op (audit_uring_entry/exit around io_issue_sqe's
 * def->issue, skipping the audit_skip ops) with the attempt's return
 * value: 0, or -EAGAIN when the op could not finish without blocking and
 * is retried (from an io-wq worker, or after a poll wakeup). No hook sees
 * that call here (no kprobes or fentry), so the attempts are rebuilt from
 * the io_uring tracepoints: submit_req (an attempt follows, inline unless
 * the request is forced async), queue_async_work and poll_arm (the
 * attempt before them returned -EAGAIN, another follows), complete (the
 * last attempt returned 0). Rules: an attempt inside io_uring_enter is
 * judged as the kernel's syscall context does (the exit list for
 * io_uring_enter first, then the io_uring list, the state carried over
 * the syscall); elsewhere (io-wq, SQPOLL, task work after the syscall)
 * by the io_uring list alone.
 *
 * The headers by job: uring_state (maps, park state), uring_enter (the
 * io_uring_enter context), uring_senders (names, addresses, punts),
 * uring_sqpoll (SQPOLL rings), uring_judge (an attempt judged and sent),
 * uring_turn (its turn inside io_uring_enter); this one holds the
 * tracepoint bodies, which fastaudit.bpf.c makes programs of. */
#ifndef FA_URING_HOOKS_BPF_H
#define FA_URING_HOOKS_BPF_H

#include "uring_state.bpf.h"
#include "uring_enter.bpf.h"
#include "uring_senders.bpf.h"
#include "uring_sqpoll.bpf.h"
#include "uring_judge.bpf.h"
#include "uring_turn.bpf.h"

/* The op of request req and its index entry, if the op is audited:
 * every io_uring request pays this on each tracepoint, and most stop
 * here (NOPs, reads and the other ops the kernel skips). */
static __always_inline struct fa_span *req_span(struct io_kiocb *req, int typed, __u32 *op)
{
	*op = req_op(req, typed);
	return uring_span(*op);
}

/* Tracepoint bodies (tp_btf with typed = 1, raw_tp with 0). */
static __always_inline int uring_submit_body(__u64 *ctx, int typed)
{
	struct io_kiocb *req = (struct io_kiocb *)ctx[0];
	__u32 op;
	/* Every audited op: inside io_uring_enter one with no rule of its
	 * own is recorded once an earlier op made the syscall's state RECORD. */
	struct fa_span *span = req_span(req, typed, &op);
	if (!span)
		return 0;
	/* An earlier request at this address that ended without a
	 * completion event (IOSQE_CQE_SKIP_SUCCESS) may have left its state. */
	uring_unpark((__u64)req);
	struct uring_enter *in = uring_enter_current();
	if (in && in->pending)
		uring_ready_retry(in);
	if (in)
		uring_note_submit(in, req, op, span, typed);
	__u32 names = uring_prep_names(op);
	int addressed = op == FA_IORING_OP_CONNECT || op == FA_IORING_OP_BIND;
	if (!names && !addressed)
		return 0;
	/* Names delayed (uring_delayed_names()): the attempt that issues the
	 * op takes them. One linked after a chain's head forced to io-wq runs
	 * in that worker after it: handed its names now. One forced to io-wq
	 * itself: handed them when it is queued (uring_queued_names). */
	int delayed = names && uring_delayed_names();
	int chained = delayed && uring_chain_head_async(req);
	int queued = delayed && !chained && (req_flags(req, typed) & REQ_F_FORCE_ASYNC);
	int handed = span->count && have_uring_objs;
	if (!in) {
		/* An io thread's own context (a SQPOLL thread's preps): only
		 * the io_uring list judges its attempts. */
		struct task_struct *task = bpf_get_current_task_btf();
		if (handed && (task->flags & FA_PF_IO_WORKER) && chained)
			fa_uring_handoff(req_number(req), op, bpf_ktime_get_ns());
		else if (handed && (task->flags & FA_PF_IO_WORKER) && !queued)
			fa_uring_sq_submit(req_number(req), op);
		return 0;
	}
	if (addressed) {
		fa_uring_sockaddr(req_number(req), op, in->stamp);
		return 0;
	}
	if (chained && handed)
		fa_uring_handoff(req_number(req), op, bpf_ktime_get_ns());
	if (chained || queued)
		return 0;
	__u64 rk = req_number(req);
	fa_uring_prep_names(rk, op, in->names, in->stamp);
	/* Older kernels: a worker that runs it after an inline attempt fills
	 * in the syscall's entries (fa_uring_punted); with names delayed it
	 * takes a copy of its own instead. */
	if (!uring_delayed_names()) {
		struct uring_req_at at = {
			.index = in->names,
			.tid = (__u32)bpf_get_current_pid_tgid(),
			.stamp = in->stamp,
		};
		bpf_map_update_elem(&uring_req_names, &rk, &at, BPF_ANY);
	}
	in->names += names;
	return 0;
}

/* Queued for io-wq: after an inline attempt that returned -EAGAIN, or
 * forced async (no attempt yet). */
static __always_inline int uring_queue_body(__u64 *ctx, int typed)
{
	struct io_kiocb *req = (struct io_kiocb *)ctx[0];
	__u32 op;
	struct fa_span *span = req_span(req, typed, &op);
	if (!span)
		return 0;
	__u64 key = (__u64)req;
	__u32 *next = uring_parked_state(key);
	/* Not parked yet: still on its submission's path, where only a
	 * request not forced async had an (inline) attempt first. */
	if (next) {
		*next = URING_NEXT_WORKER;
		return 0;
	}
	/* A forced-async request stays unparked: every later tracepoint
	 * reads "not parked" and "queued for io-wq" alike for it. */
	__u64 flags = req_flags(req, typed);
	if (flags & REQ_F_FORCE_ASYNC) {
		uring_queued_names(req, op, span);
		return 0;
	}
	struct uring_enter *in = uring_enter_current();
	uring_pending_ended(in, req);
	struct uring_try t = {
		.req = req,
		.span = span,
		.in = in,
		.flags = flags,
		.op = op,
		.typed = typed,
		.first_inline = 1,
	};
	uring_attempts(&t, URING_ENDED_AGAIN, 0);
	/* After the inline attempt took what it was handed (a SQPOLL
	 * thread's), the worker's copy. */
	uring_queued_names(req, op, span);
	uring_park(key, 0, URING_NEXT_WORKER);
	return 0;
}

/* Waiting for readiness: the attempt before returned -EAGAIN; the next
 * runs from task work in the submitter once the file is ready. */
static __always_inline int uring_poll_body(__u64 *ctx, int typed)
{
	struct io_kiocb *req = (struct io_kiocb *)ctx[0];
	__u32 op;
	struct fa_span *span = req_span(req, typed, &op);
	if (!span)
		return 0;
	__u64 key = (__u64)req;
	__u32 *next = uring_parked_state(key);
	if (!next || *next != URING_NEXT_POLLED) {
		struct uring_enter *in = uring_enter_current();
		uring_pending_ended(in, req);
		struct uring_try t = {
			.req = req,
			.span = span,
			.in = in,
			.flags = req_flags(req, typed),
			.op = op,
			.typed = typed,
			.first_inline = !next,
		};
		uring_attempts(&t, URING_ENDED_AGAIN, 0);
		/* The map value may have moved under the calls above. */
		next = uring_parked_state(key);
	}
	uring_park(key, next, URING_NEXT_POLLED);
	return 0;
}

/* The request completed: its last attempt returned 0. One that tried a
 * poll it found ready at once (REQ_F_POLLED, no poll_arm) was retried at
 * once (from task work after an inline attempt, blocking in io-wq): the
 * attempt before returned -EAGAIN. */
static __always_inline int uring_complete_body(__u64 *ctx, int typed)
{
	/* The tracepoint passes the request as void *: typed loads need the
	 * BTF cast (bpf_rdonly_cast, Linux 6.2+; probe reads without). */
	if (!bpf_ksym_exists(bpf_rdonly_cast))
		typed = 0;
	struct io_kiocb *req = typed ? bpf_core_cast((void *)ctx[1], struct io_kiocb)
				     : (struct io_kiocb *)ctx[1];
	__u32 op;
	/* Untracked ops (nop, reads, ...) stop at the array lookup. */
	struct fa_span *span = req_span(req, typed, &op);
	if (!span)
		return 0;
	__u32 next = uring_unpark((__u64)req);
	/* Its result: in the CQE it passes (Linux 6.x), or before that an
	 * argument of its own (ctx, req, user_data, res, ...). */
	int res;
	if (uring_complete_res_arg) {
		res = (int)ctx[3];
	} else {
		struct io_uring_cqe *cqe = (struct io_uring_cqe *)ctx[2];
		res = BPF_CORE_READ(cqe, res);
	}
	/* A link cancelled (the request before it failed) was never issued:
	 * the kernel audits no attempt of it. */
	if (res == -ECANCELED && next == URING_NEXT_SUBMITTED)
		return 0;
	__u64 flags = req_flags(req, typed);
	int first_inline = next == URING_NEXT_SUBMITTED && !(flags & REQ_F_FORCE_ASYNC);
	struct uring_enter *in = uring_enter_current();
	/* Its inline attempt ended here: not left for uring_ready_retry (a
	 * compare of the address, which the inline op pays instead of that
	 * call at the syscall's end). */
	if (in && in->pending == (__u64)req)
		in->pending = 0;
	struct uring_try t = {
		.req = req,
		.span = span,
		.in = in,
		.flags = flags,
		.op = op,
		.typed = typed,
		.first_inline = first_inline,
		.next = next,
	};
	uring_attempts(&t, URING_ENDED_DONE, res);
	return 0;
}

#endif
