/* SPDX-License-Identifier: GPL-2.0 */
/* io_uring ops inside io_uring_enter: each attempt judged in its turn,
 * as the kernel's records come. The requests whose success no
 * tracepoint shows (IOSQE_CQE_SKIP_SUCCESS) wait in the context and are
 * sent as succeeded when their turn comes; an inline attempt whose poll
 * was ready at once is judged at the next submission or the syscall's
 * end; and the syscall's end decides whether its SYSCALL record follows
 * the ops' URINGOP records. Apart from the judging it orders. */
#ifndef FA_URING_TURN_BPF_H
#define FA_URING_TURN_BPF_H

#include "uring_state.bpf.h"
#include "uring_enter.bpf.h"
#include "uring_judge.bpf.h"
#include "event.bpf.h"
#include "handover.bpf.h"

/* The attempt of waiting request e (uring_skip), as succeeded: no
 * completion was posted for it, so its inline attempt returned 0; an
 * open's file is the descriptor in its result. Its verdicts were taken
 * at submission (the judging needs a frame this one's callers cannot
 * add under theirs); its URINGOP counts the names taken up to its own,
 * as when the kernel wrote it. */
static __always_inline void uring_skip_emit(struct uring_enter *in, struct uring_skip *e)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct io_kiocb *req = (struct io_kiocb *)e->req;
	struct task_struct *task = bpf_get_current_task_btf();
	int res = BPF_CORE_READ(req, cqe.res);
	if ((e->op == FA_IORING_OP_OPENAT || e->op == FA_IORING_OP_OPENAT2) && res >= 0 && e->names)
		fa_uring_opened(e->req, res, e->names - 1, in->stamp, (__u32)id);
	struct subject s = {
		.task = task,
		.ret = 0,
		.returned = 1,
		.tgid = id >> 32,
		.nr = e->op,
		.cred = uring_cred(req, task, 0),
	};
	uring_apply_in(&s, in, &e->j, (__u32)id, e->names);
}

/* Send, as succeeded, the current io_uring_enter's waiting requests
 * whose turn has come: from the first, those due at most `upto`; with
 * `stop` (a waiting request whose own attempt the caller judges), those
 * before it, and it is taken off without being sent here. A function of
 * its own, with no rule checks under it: its frame and its callers' stay
 * within the 512 bytes kernels before 6.13 allow a call chain. */
__noinline int fa_uring_skips_flush(__u32 upto, __u64 stop)
{
	struct uring_enter *in = uring_enter_current();
	if (!in)
		return 0;
	__u32 n = in->nskip < URING_SKIPS ? in->nskip : URING_SKIPS;
	__u32 end = n;
	if (stop) {
		end = URING_SKIPS + 1;
		for (__u32 i = 0; i < URING_SKIPS && i < n; i++) {
			if (in->skip[i].req == stop) {
				end = i;
				break;
			}
		}
		/* Not waiting here: whose turn has come is not known. */
		if (end > URING_SKIPS)
			return 0;
	}
	__u32 done = 0;
	for (__u32 i = 0; i < URING_SKIPS && i < end; i++) {
		if (in->skip[i].due > upto)
			break;
		uring_skip_emit(in, &in->skip[i]);
		done = i + 1;
	}
	if (stop && done == end)
		done = end + 1;
	for (__u32 i = 0; i < URING_SKIPS; i++) {
		__u32 j = i + done;
		if (j >= n)
			break;
		in->skip[i] = in->skip[j & (URING_SKIPS - 1)];
	}
	in->nskip = n > done ? n - done : 0;
	return 0;
}

/* Ops io_uring retries after a poll when their attempt returns -EAGAIN
 * (pollin or pollout in the kernel's op table): the others (opens,
 * closes, renames...) go to io-wq instead, which a tracepoint shows. */
static __always_inline int uring_op_may_poll(__u32 op)
{
	switch (op) {
	case FA_IORING_OP_READV: case FA_IORING_OP_WRITEV: case FA_IORING_OP_READ_FIXED:
	case FA_IORING_OP_WRITE_FIXED: case FA_IORING_OP_SENDMSG: case FA_IORING_OP_RECVMSG:
	case FA_IORING_OP_ACCEPT: case FA_IORING_OP_CONNECT: case FA_IORING_OP_READ:
	case FA_IORING_OP_WRITE: case FA_IORING_OP_SEND: case FA_IORING_OP_RECV:
	case FA_IORING_OP_SPLICE: case FA_IORING_OP_TEE: case FA_IORING_OP_SEND_ZC:
	case FA_IORING_OP_SENDMSG_ZC: case FA_IORING_OP_READ_MULTISHOT: case FA_IORING_OP_RECV_ZC:
	case FA_IORING_OP_EPOLL_WAIT: case FA_IORING_OP_READV_FIXED: case FA_IORING_OP_WRITEV_FIXED:
	case FA_IORING_OP_URING_CMD:
		return 1;
	}
	return 0;
}

/* A request submitted inside io_uring_enter (its flags): counted if its
 * attempt is inline and posts a completion, kept waiting if it posts
 * none when it succeeds (IOSQE_CQE_SKIP_SUCCESS). A linked chain's
 * attempts run in the chain's order, later: no order is kept after one,
 * and its skipped successes are not followed. Forced-async requests run
 * in io-wq, in a context of their own; the kernel's records of their
 * skipped successes follow no order one can rebuild either. */
static __always_inline void uring_note_submit(struct uring_enter *in, struct io_kiocb *req, __u32 op,
					      struct fa_span *span, int typed)
{
	if (in->chained)
		return;
	__u64 flags = req_flags(req, typed);
	if (flags & (REQ_F_LINK | REQ_F_HARDLINK)) {
		in->chained = 1;
		return;
	}
	if (flags & REQ_F_FORCE_ASYNC)
		return;
	if (!(flags & REQ_F_CQE_SKIP)) {
		in->counted += 1;
		/* Only an op io_uring can poll for may find its poll ready. */
		in->pending = uring_op_may_poll(op) ? req_number(req) : 0;
		in->pending_op = op;
		return;
	}
	__u32 n = in->nskip;
	if (n >= URING_SKIPS)
		return;
	/* Keep the mask: it is the bound older verifiers check (the test
	 * alone is lost on a copy spilled before it). */
	barrier_var(n);
	struct uring_skip *e = &in->skip[n & (URING_SKIPS - 1)];
	__u64 id = bpf_get_current_pid_tgid();
	if ((id >> 32) == self_tgid)
		return;
	struct task_struct *task = bpf_get_current_task_btf();
	/* Judged now as the attempt that succeeds: the same subject (the
	 * credentials were taken at prep), op and outcome; the context's
	 * priority is today's (a match between now and its turn that raised
	 * it would be missed). */
	struct subject s = {
		.task = task,
		.regs = (struct pt_regs *)bpf_task_pt_regs(task),
		.ret = 0,
		.returned = 1,
		.tgid = id >> 32,
		.nr = op,
		.cred = uring_cred(req, task, typed),
	};
	uring_judge_in(&s, span, in, &e->j);
	e->req = req_number(req);
	e->due = in->counted;
	e->op = op;
	e->names = in->names + uring_prep_names(op);
	in->nskip = (n & (URING_SKIPS - 1)) + 1;
}

/* How an attempt judged inside io_uring_enter stands to the waiting
 * requests (uring_turn_begin/end). */
enum uring_turn {
	URING_TURN_NONE = 0,    /* not inside io_uring_enter */
	URING_TURN_COUNTED = 1, /* the first attempt of a counted request */
	URING_TURN_OTHER = 2,
};

/* Before the attempt of request req (flags; `first_inline`: its first,
 * on its submission's inline path) is judged: the waiting requests
 * submitted before it are (those due after the counted requests judged
 * so far; once its turn has passed, those due after it wait for the
 * next attempt or the syscall's end). After its submission's attempts,
 * the others (a poll's retry, a worker's completion run as task work)
 * follow all. */
static __always_inline enum uring_turn uring_turn_begin(struct uring_enter *in, struct io_kiocb *req,
							__u64 flags, int first_inline)
{
	if (!in)
		return URING_TURN_NONE;
	if (first_inline && !in->chained && !(flags & REQ_F_CQE_SKIP)) {
		if (in->nskip)
			fa_uring_skips_flush(in->judged, 0);
		return URING_TURN_COUNTED;
	}
	if (in->nskip)
		fa_uring_skips_flush(~0U, (flags & REQ_F_CQE_SKIP) && first_inline ? req_number(req) : 0);
	return URING_TURN_OTHER;
}

/* After it: a counted request's turn has passed. */
static __always_inline void uring_turn_end(struct uring_enter *in, enum uring_turn turn)
{
	if (turn == URING_TURN_COUNTED)
		in->judged += 1;
}

/* Request req's inline attempt was seen to end with -EAGAIN (a poll armed,
 * a punt to io-wq): it is no longer left for uring_ready_retry. */
static __always_inline void uring_pending_ended(struct uring_enter *in, struct io_kiocb *req)
{
	if (in && in->pending && in->pending == req_number(req))
		in->pending = 0;
}

/* What ended the attempts a tracepoint shows (uring_attempts). */
enum uring_ended {
	URING_ENDED_AGAIN = 1,  /* an attempt that returned -EAGAIN (a punt, a poll armed) */
	URING_ENDED_DONE = 2,   /* the completion: the last attempt returned 0 */
};

/* The attempts of request t->req that one tracepoint ends, judged in its
 * turn among the waiting requests (uring_turn_begin/end): one that
 * returned -EAGAIN, or at the completion (CQE result `res`) the last,
 * after an -EAGAIN one when a poll was found ready at once (REQ_F_POLLED
 * with no io_uring_poll_arm: not parked as polled). That test comes
 * after the turn's start, as the judging does. */
static __always_inline void uring_attempts(const struct uring_try *t, enum uring_ended ended, long res)
{
	struct uring_enter *in = t->in;
	struct io_kiocb *req = t->req;
	__u64 flags = t->flags;
	__u32 op = t->op, next = t->next;
	int first_inline = t->first_inline;
	enum uring_turn turn = uring_turn_begin(in, req, flags, first_inline);
	if (ended == URING_ENDED_AGAIN ||
	    (next != URING_NEXT_POLLED && (flags & REQ_F_POLLED)))
		uring_attempt(t, -EAGAIN, 0);
	if (ended == URING_ENDED_DONE) {
		/* An open that succeeded at its first, inline attempt resolved
		 * its name in io_uring_enter's context (the last one taken:
		 * the attempt follows its prep). */
		if ((op == FA_IORING_OP_OPENAT || op == FA_IORING_OP_OPENAT2) && res >= 0 &&
		    first_inline && in && in->names)
			fa_uring_opened(req_number(req), res, in->names - 1, in->stamp,
					(__u32)bpf_get_current_pid_tgid());
		uring_attempt(t, 0, res);
	}
	if (in)
		uring_turn_end(in, turn);
}

/* Room for uring_ready_retry's subject and verdicts, off the stack. */
struct uring_scratch {
	struct subject s;
	struct uring_verdicts j;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uring_scratch);
} uring_scratch SEC(".maps");

/* uring_ready_retry's first part, in a frame of its own beside the
 * judging's: whether the request left in `pending` had its attempt end
 * in a ready poll (then the attempt's subject is in uring_scratch and
 * the request is parked as polled, and its op + 1 is returned; else 0). */
static __noinline __u32 uring_retry_setup(struct uring_enter *in)
{
	__u64 key = in->pending;
	__u32 op = in->pending_op;
	in->pending = 0;
	struct io_kiocb *req = (struct io_kiocb *)key;
	/* An attempt that completed has left its request to be reused, by
	 * an op no rule audits (which submits unseen) or by an audited one
	 * (which took `pending` over): the op tells the first apart. */
	if (BPF_CORE_READ(req, opcode) != op || !(BPF_CORE_READ(req, flags) & REQ_F_POLLED) ||
	    uring_parked_state(key))
		return 0;
	__u32 k = 0;
	struct uring_scratch *sc = bpf_map_lookup_elem(&uring_scratch, &k);
	if (!sc || !uring_span(op))
		return 0;
	__u64 id = bpf_get_current_pid_tgid();
	if ((id >> 32) == self_tgid)
		return 0;
	struct task_struct *task = bpf_get_current_task_btf();
	__builtin_memset(&sc->s, 0, sizeof(sc->s));
	sc->s.task = task;
	sc->s.regs = (struct pt_regs *)bpf_task_pt_regs(task);
	sc->s.ret = -EAGAIN;
	sc->s.returned = 1;
	sc->s.tgid = id >> 32;
	sc->s.nr = op;
	sc->s.cred = uring_cred(req, task, 0);
	/* Its completion judges the retry alone. */
	uring_park(key, 0, URING_NEXT_POLLED);
	return op + 1;
}

/* Its sending, in a frame of its own too. */
static __noinline int uring_retry_apply(struct uring_enter *in, struct uring_scratch *sc)
{
	uring_apply_in(&sc->s, in, &sc->j, (__u32)bpf_get_current_pid_tgid(), in->names);
	return 0;
}

/* The inline attempt of the request submitted last in io_uring_enter
 * context `in` that no tracepoint has ended yet, if it returned -EAGAIN
 * and the poll io_uring then armed found its file ready at once
 * (REQ_F_POLLED with no io_uring_poll_arm: a nonblocking connect on
 * loopback, an accept or receive whose data came meanwhile): its retry
 * is queued as task work, which may run only after io_uring_enter has
 * returned. The kernel judged and recorded that attempt inside the
 * syscall, in its event (a match there makes the syscall's SYSCALL,
 * SOCKADDR and PROCTITLE written too), so it is judged here, at the
 * next submission or the syscall's end, before any later attempt; the
 * request is parked as polled, so that its completion judges only the
 * retry. A request whose attempt armed a poll or went to io-wq
 * (uring_pending_ended), or that completed (uring_complete_body), was
 * taken off by then; one that returned without a completion
 * (IOU_ISSUE_SKIP_COMPLETE) has no REQ_F_POLLED and is let be. Its own frame, a small one (the subject is in
 * uring_scratch): its callers' frames and the judging's fit in the 512
 * bytes kernels before Linux 6.13 allow a call chain. */
static __noinline int uring_ready_retry(struct uring_enter *in)
{
	__u32 op = uring_retry_setup(in);
	if (!op--)
		return 0;
	struct fa_span *span = uring_span(op);
	__u32 k = 0;
	struct uring_scratch *sc = bpf_map_lookup_elem(&uring_scratch, &k);
	if (!span || !sc)
		return 0;
	/* Judged in its turn: the first attempt of a counted request. */
	enum uring_turn turn = uring_turn_begin(in, 0, 0, 1);
	uring_judge_in(&sc->s, span, in, &sc->j);
	uring_retry_apply(in, sc);
	uring_turn_end(in, turn);
	return 0;
}

/* The current io_uring_enter's request left by uring_ready_retry, if
 * any: judged now (a call with no frame of its own when there is none). */
static __always_inline void uring_ready_check(void)
{
	struct uring_enter *in = uring_enter_current();
	if (in && in->pending)
		uring_ready_retry(in);
}

/* How io_uring_enter ends for a thread (uring_enter_end). */
enum uring_end {
	URING_END_OTHER = 0,    /* no URINGOP made inside: judged as any syscall */
	URING_END_RECORD = 1,   /* its SYSCALL follows the URINGOP records */
	URING_END_NONE = 2,     /* the URINGOP records stand alone */
};

/* The end of io_uring_enter: for a thread whose inline ops made URINGOP
 * records, the kernel writes the syscall's SYSCALL (and PROCTITLE) under
 * their stamp if its state is still RECORD after the exit list has
 * judged the syscall itself (with the priority floor of the ops' last
 * match). s is the syscall's subject; *key_rule gets the record's key. */
static __always_inline enum uring_end uring_enter_end(struct subject *s, struct fa_span *span,
						      __u32 tid, __u32 *key_rule, __u64 *stamp)
{
	struct uring_enter *in = uring_enter_current();
	if (!in)
		return URING_END_OTHER;
	/* The skipped successes still waiting were issued before it ends. */
	if (in->nskip)
		fa_uring_skips_flush(~0U, 0);
	in->active = 0;
	if (!in->recorded)
		return URING_END_OTHER;
	*stamp = in->stamp;
	__s64 state = in->state;
	__u32 rule = in->key_rule;
	__u32 rid = 0;
	__s64 v = span && span->count ? judge_above(s, span, in->prio, &rid) : VERDICT_NONE;
	if (v != VERDICT_NONE)
		state = v;
	if (v >= 0)
		rule = (__u32)v;
	*key_rule = rule;
	return state >= 0 ? URING_END_RECORD : URING_END_NONE;
}

/* Close the URINGOP records of thread tid's io_uring_enter without a
 * SYSCALL record. */
static __always_inline void uring_emit_end_marker(__u32 tgid, __u32 tid)
{
	if (!generation_active())
		return;
	struct fa_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count(FA_STAT_LOST);
		return;
	}
	ev->msg.kind = FA_MSG_EVENT;
	ev->msg.tid = tid;
	ev->msg.stamp = bpf_ktime_get_ns();
	ev->flags = FA_EV_URING_END | FA_EV_NO_RECORD;
	ev->pid = tgid;
	ev->cgroup = 0;
	ev->exe_len = 0;
	ev->subj_len = 0;
	ev->generation = generation;
	ev->proctitle_len = 0;
	/* Not counted as emitted: it is no record (generated = logged + lost). */
	bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
}

#endif
