/* SPDX-License-Identifier: GPL-2.0 */
/* io_uring ops: one issue attempt judged and sent. Its subject (the
 * credentials it runs with), the verdicts inside io_uring_enter (that
 * syscall's exit list, then the io_uring list, above the context's
 * priority) and their effect on the syscall's state, the io_uring list
 * alone elsewhere, and the URINGOP event. Apart from the turn-keeping
 * (uring_turn.bpf.h) that decides when an attempt is judged. */
#ifndef FA_URING_JUDGE_BPF_H
#define FA_URING_JUDGE_BPF_H

#include "uring_state.bpf.h"
#include "uring_enter.bpf.h"
#include "uring_senders.bpf.h"
#include "uring_sqpoll.bpf.h"
#include "subject.bpf.h"
#include "rules.bpf.h"
#include "event.bpf.h"
#include "lsm.bpf.h"
#include "handover.bpf.h"

/* The credentials the attempt runs with (current_cred() in
 * __io_issue_sqe): the request's own (a personality, or the submitter's
 * taken when it was queued for io-wq), the ring's for the SQPOLL thread,
 * else the task's. */
static __always_inline const struct cred *uring_cred(struct io_kiocb *req, struct task_struct *task, int typed)
{
	if (typed) {
		/* The choice by direct loads (tp_btf), the pointer itself by
		 * one probe read: a number, as the rules' code takes it. */
		if (req->flags & REQ_F_CREDS)
			return BPF_CORE_READ(req, creds);
		struct io_ring_ctx *ctx = req->ctx;
		struct io_sq_data *sqd = ctx->sq_data;
		if (sqd && sqd->thread == task)
			return BPF_CORE_READ(ctx, sq_creds);
		return BPF_CORE_READ(task, cred);
	}
	if (BPF_CORE_READ(req, flags) & REQ_F_CREDS)
		return BPF_CORE_READ(req, creds);
	struct io_ring_ctx *ctx = BPF_CORE_READ(req, ctx);
	struct io_sq_data *sqd = BPF_CORE_READ(ctx, sq_data);
	if (sqd && BPF_CORE_READ(sqd, thread) == task)
		return BPF_CORE_READ(ctx, sq_creds);
	return BPF_CORE_READ(task, cred);
}

/* What a URINGOP event says besides its subject: the thread and stamp
 * it travels under, the rule whose key it carries, its flags beside
 * FA_EV_URINGOP, and its items= (the names its context holds). */
struct uring_op_head {
	__u32 key_rule;
	__u32 flags;
	__u32 tid;
	__u32 items;
	__u64 stamp;
};

/* Send a URINGOP event for the attempt of s (s->nr is the op). */
static __always_inline void uring_emit_op(struct subject *s, const struct uring_op_head *h)
{
	/* Its fields read once, as values (the calls below cannot change
	 * them). */
	__u32 key_rule = h->key_rule, flags = h->flags, tid = h->tid, items = h->items;
	__u64 stamp = h->stamp;
	/* While a rule change overlaps two objects, only the active one
	 * writes URINGOP records (each object follows requests by itself). */
	if (!generation_active())
		return;
	/* Room for the LSM label only where there can be one (the
	 * reservation's size must be a constant). */
	struct fa_event *ev = lsm_labels_read()
				      ? bpf_ringbuf_reserve(&events, sizeof(*ev) + FA_SUBJ_MAX, 0)
				      : bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count(FA_STAT_LOST);
		return;
	}
	const struct cred *c = s->cred;
	ev->subj_len = lsm_labels_read() ? read_lsm_label(c, (char *)(ev + 1)) : 0;
	struct task_struct *task = s->task;
	ev->msg.kind = FA_MSG_EVENT;
	ev->msg.tid = tid;
	ev->msg.stamp = stamp;
	ev->ret = s->ret;
	ev->syscall = s->nr;
	ev->rule = key_rule;
	ev->pid = s->tgid;
	ev->ppid = BPF_CORE_READ(task, real_parent, tgid);
	ev->cgroup = task_cgroup_id(task);
	ev->flags = FA_EV_URINGOP | flags;
	ev->arch = 0;
	ev->proctitle_len = 0;
	ev->exe_len = 0;
	ev->generation = generation;
	ev->args[0] = items;
	read_ids(ev, c);
	count(FA_STAT_EMITTED);
	bpf_ringbuf_submit(ev, event_wakeup());
}

/* The verdicts of the attempt of s (its op's index entry `span`) in
 * io_uring_enter context `in`: audit_filter_syscall on io_uring_enter,
 * then (unless that made it RECORD) the io_uring list, each above the
 * context's priority (ctx->prio). */
static __always_inline void uring_judge_in(struct subject *s, struct fa_span *span, struct uring_enter *in,
					   struct uring_verdicts *j)
{
	__u32 prio = in->prio;
	j->v = VERDICT_NONE;
	j->u = VERDICT_NONE;
	j->vrid = 0;
	j->urid = 0;
	if (uring_enter_rules) {
		__u32 key = FA_NR64_io_uring_enter;
		struct fa_span *es = bpf_map_lookup_elem(&spans, &key);
		if (es && es->count)
			j->v = judge_above(s, es, prio, &j->vrid);
		if (j->v != VERDICT_NONE)
			prio = rule_prio_of(j->vrid);
	}
	if (j->v < 0 && span->count)
		j->u = judge_above(s, span, prio, &j->urid);
}

/* Apply verdicts j of the attempt of s in context `in` (thread tid): a
 * match sets the syscall's state, which a later op without a match
 * keeps; in a recording state its URINGOP is sent, counting `names`. */
static __always_inline void uring_apply_in(struct subject *s, struct uring_enter *in,
					   const struct uring_verdicts *j, __u32 tid, __u32 names)
{
	if (j->v == VERDICT_NONE && j->u == VERDICT_NONE && in->state < 0)
		return;
	if (uring_never_task(tid))
		return;
	if (j->v != VERDICT_NONE)
		uring_enter_matched(in, j->v, j->vrid);
	if (j->u != VERDICT_NONE)
		uring_enter_matched(in, j->u, j->urid);
	if (in->state >= 0) {
		in->recorded += 1;
		struct uring_op_head h = {
			.key_rule = in->key_rule,
			.flags = FA_EV_URING_INLINE,
			.tid = tid,
			.items = names,
			.stamp = bpf_ktime_get_ns(),
		};
		uring_emit_op(s, &h);
		/* The syscall's CWD record, once it holds a name and will be
		 * written: spelled only for a recorded io_uring_enter. */
		if (in->names && !in->cwd_sent) {
			in->cwd_sent = 1;
			fa_uring_enter_cwd(in->stamp);
		}
	}
}

/* A request as one tracepoint shows it, with what judging its attempts
 * takes (uring_attempt, uring_attempts). */
struct uring_try {
	struct io_kiocb *req;
	struct fa_span *span;     /* its op's index entry */
	/* The current task's io_uring_enter context (uring_enter_current(),
	 * which the tracepoint took): NULL outside one. */
	struct uring_enter *in;
	__u64 flags;              /* req->flags (uring_turn_begin) */
	__u32 op;
	int typed;                /* tp_btf: its fields by direct loads */
	int first_inline;         /* its first attempt, on its submission's inline path */
	__u32 next;               /* at its completion, where it was parked (enum uring_next) */
};

/* One issue attempt of request t->req ended with `ret` (and CQE result
 * `res`) in the current task: judge it and send its URINGOP if the
 * rules (or the syscall's state) say so. */
static __always_inline void uring_attempt(const struct uring_try *t, long ret, long res)
{
	struct io_kiocb *req = t->req;
	struct fa_span *span = t->span;
	struct uring_enter *in = t->in;
	__u32 op = t->op;
	int typed = t->typed;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	if (tgid == self_tgid)
		return;
	/* In a context of its own, an op no io_uring rule names is never
	 * recorded: stop before reading anything. */
	if (!in && !span->count)
		return;
	struct task_struct *task = bpf_get_current_task_btf();
	struct subject s = {
		.task = task,
		.ret = ret,
		.returned = 1,
		.tgid = tgid,
		.nr = op,
		.cred = uring_cred(req, task, typed),
		/* io threads never made a syscall: no arch in their context */
		.no_arch = (task->flags & FA_PF_IO_WORKER) != 0,
	};
	if (!in) {
		/* Its own context: the io_uring list alone decides. */
		s.has_saved = 1;   /* no arguments: zeros */
		__s64 v = span->count ? judge(&s, span) : VERDICT_NONE;
		__u32 key = s.no_arch && have_uring_objs ? uring_work_key(req_number(req) +
					bpf_core_field_offset(struct io_kiocb, work), op) : 0;
		if (s.no_arch && have_uring_objs)
			fa_uring_punted(req_number(req), op, key);
		/* The attempt of a request a SQPOLL thread sent names or an
		 * address for: its URINGOP travels under their stamp and thread
		 * (user space counts its items=). */
		struct uring_sq_req sq = {};
		int sq_named = s.no_arch && have_uring_objs && uring_sq_take(req, op, ret, &sq);
		if (v >= 0 && !uring_never_task(tid)) {
			__u32 items = !sq_named && s.no_arch && ret == 0 && res >= 0 ? uring_worker_names(req, op) : 0;
			__u64 stamp = sq_named ? sq.stamp : bpf_ktime_get_ns();
			__u32 lost = 0;
			if (sq_named)
				lost = fa_uring_sq_end(req_number(req), op, res, stamp, sq.tid);
			else if (items)
				lost = fa_uring_worker_paths(req_number(req), stamp);
			struct uring_op_head h = {
				.key_rule = (__u32)v,
				.flags = lost,
				.tid = sq_named ? sq.tid : tid,
				.items = items,
				.stamp = stamp,
			};
			uring_emit_op(&s, &h);
		}
		if (key)
			uring_worker_objs_done(key);
		return;
	}
	/* Inside io_uring_enter: audit_filter_syscall on io_uring_enter,
	 * then (unless that made it RECORD) the io_uring list; a match sets
	 * the syscall's state, which a later op without a match keeps. */
	s.regs = (struct pt_regs *)bpf_task_pt_regs(task);
	/* Judged first, applied after: most attempts match nothing in a
	 * context that does not record, and then have nothing to apply or
	 * send, so they skip the never_task lookup. */
	struct uring_verdicts j;
	uring_judge_in(&s, span, in, &j);
	uring_apply_in(&s, in, &j, tid, in->names);
}

#endif
