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
 * by the io_uring list alone. */
#ifndef FA_URING_BPF_H
#define FA_URING_BPF_H

#define FA_PF_IO_WORKER 0x10   /* include/linux/sched.h */

/* Whether io_uring ops are audited, and whether exit rules can select
 * io_uring_enter (they judge inline ops first, as audit_filter_syscall). */
const volatile __u32 have_uring = 0;
const volatile __u32 uring_enter_rules = 0;

/* Per io_uring op: its candidate io_uring rules (flag FA_SPAN_URING_OP
 * set on every op audited at all). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_URING_OPS);
	__type(key, __u32);
	__type(value, struct fa_span);
} uring_spans SEC(".maps");

/* Where a tracked request's next issue attempt runs. */
enum uring_next {
	URING_NEXT_INLINE = 1,   /* nonblocking, in the task that issues it */
	URING_NEXT_WORKER = 2,   /* queued for io-wq: no inline attempt first */
	URING_NEXT_POLLED = 3,   /* from task work after a poll (its -EAGAIN sent) */
};

/* Requests with an issue attempt pending, by io_kiocb address. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u64);
	__type(value, __u32);
} uring_reqs SEC(".maps");

/* A thread inside io_uring_enter: the kernel's syscall-context state for
 * the ops issued inline (it persists over the syscall). */
struct uring_enter {
	__s64 state;      /* enum verdict, or the always rule that matched last */
	__u32 key_rule;   /* the last matching rule (the record's key) */
	__u32 recorded;   /* URINGOP records sent during the syscall */
	__u32 names;      /* file names the syscall's context holds (items=) */
	__u32 prio;       /* rule_prio of the last match (ctx->prio): 0 none */
};

/* Record a match of rule `rid` in the syscall context `in`. */
static __always_inline void uring_enter_matched(struct uring_enter *in, __s64 v, __u32 rid)
{
	in->state = v;
	if (v >= 0)
		in->key_rule = (__u32)v;
	__u32 *prio = bpf_map_lookup_elem(&rule_prio, &rid);
	in->prio = prio ? *prio : 0;
}

/* File names an op's prep takes with getname() in the submitting task:
 * they count in that syscall's context (items=). */
static __always_inline __u32 uring_prep_names(__u32 op)
{
	switch (op) {
	case 18: case 28: case 21: case 37: case 36: case 42: case 44:
		return 1;   /* openat, openat2, statx, mkdirat, unlinkat, setxattr, getxattr */
	case 35: case 38: case 39:
		return 2;   /* renameat, symlinkat, linkat */
	}
	return 0;
}

/* File names a successful op adds in an io thread's own context: each
 * audit_inode_child() finds no named parent there and adds two. An open
 * with O_CREAT (always run by io-wq) counts as creating its file. */
static __always_inline __u32 uring_worker_names(struct io_kiocb *req, __u32 op)
{
	if (op == 18 || op == 28) {
		/* struct io_open in the request's command area: file, dfd,
		 * file_slot, filename, then open_how's flags. */
		__u64 flags = 0;
		bpf_probe_read_kernel(&flags, sizeof(flags), (void *)req + 24);
		return flags & 0100 ? 4 : 0;   /* O_CREAT */
	}
	switch (op) {
	case 36: return 2;   /* unlinkat: the victim */
	case 37: return 4;   /* mkdirat: checked, then created */
	case 35: return 6;   /* renameat: old removed, new checked, new created */
	case 38: case 39: return 4;   /* symlinkat, linkat */
	}
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct uring_enter);
} uring_enter SEC(".maps");

static __always_inline struct fa_span *uring_span(__u32 op)
{
	if (op >= FA_URING_OPS)
		return 0;
	struct fa_span *span = bpf_map_lookup_elem(&uring_spans, &op);
	return span && (span->flags & FA_SPAN_URING_OP) ? span : 0;
}

/* The credentials the attempt runs with (current_cred() in
 * __io_issue_sqe): the request's own (a personality, or the submitter's
 * taken when it was queued for io-wq), the ring's for the SQPOLL thread,
 * else the task's. */
static __always_inline const struct cred *uring_cred(struct io_kiocb *req, struct task_struct *task)
{
	if (BPF_CORE_READ(req, flags) & REQ_F_CREDS)
		return BPF_CORE_READ(req, creds);
	struct io_ring_ctx *ctx = BPF_CORE_READ(req, ctx);
	struct io_sq_data *sqd = BPF_CORE_READ(ctx, sq_data);
	if (sqd && BPF_CORE_READ(sqd, thread) == task)
		return BPF_CORE_READ(ctx, sq_creds);
	return BPF_CORE_READ(task, cred);
}

/* Send a URINGOP event for the attempt of s (s->nr is the op). */
static __always_inline void uring_emit_op(struct subject *s, __u32 key_rule, __u32 flags, __u32 tid,
					  __u32 items)
{
	/* While a rule change overlaps two objects, only the active one
	 * writes URINGOP records (each object follows requests by itself). */
	if (!generation_active())
		return;
	struct fa_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count(FA_STAT_LOST);
		return;
	}
	const struct cred *c = s->cred;
	struct task_struct *task = s->task;
	ev->msg.kind = FA_MSG_EVENT;
	ev->msg.tid = tid;
	ev->msg.stamp = bpf_ktime_get_ns();
	ev->ret = s->ret;
	ev->syscall = s->nr;
	ev->rule = key_rule;
	ev->pid = s->tgid;
	ev->ppid = BPF_CORE_READ(task, real_parent, tgid);
	ev->flags = FA_EV_URINGOP | flags;
	ev->arch = 0;
	ev->proctitle_len = 0;
	ev->exe_len = 0;
	ev->generation = generation;
	ev->args[0] = items;
	read_ids(ev, c);
	count(FA_STAT_EMITTED);
	bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
}

/* One issue attempt of req ended with `ret` in the current task: judge it
 * and send its URINGOP if the rules (or the syscall's state) say so. */
static __always_inline void uring_attempt(struct io_kiocb *req, long ret, long res)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	if (tgid == self_tgid || bpf_map_lookup_elem(&never_task, &tid))
		return;
	__u32 op = BPF_CORE_READ(req, opcode);
	struct fa_span *span = uring_span(op);
	if (!span)
		return;
	struct task_struct *task = bpf_get_current_task_btf();
	struct uring_enter *in = bpf_map_lookup_elem(&uring_enter, &tid);
	struct fa_args zero = {};
	struct subject s = {
		.task = task,
		.ret = ret,
		.returned = 1,
		.tgid = tgid,
		.nr = op,
		.cred = uring_cred(req, task),
		/* io threads never made a syscall: no arch in their context */
		.no_arch = (BPF_CORE_READ(task, flags) & FA_PF_IO_WORKER) != 0,
	};
	if (!in) {
		/* Its own context: the io_uring list alone decides. */
		s.saved = &zero;
		__s64 v = span->count ? judge(&s, span) : VERDICT_NONE;
		if (v >= 0)
			uring_emit_op(&s, (__u32)v, 0, tid,
				      s.no_arch && ret == 0 && res >= 0 ? uring_worker_names(req, op) : 0);
		return;
	}
	/* Inside io_uring_enter: audit_filter_syscall on io_uring_enter,
	 * then (unless that made it RECORD) the io_uring list; a match sets
	 * the syscall's state, which a later op without a match keeps. */
	s.regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__s64 v = VERDICT_NONE;
	__u32 rid = 0;
	if (uring_enter_rules) {
		__u32 key = FA_NR64_io_uring_enter;
		struct fa_span *es = bpf_map_lookup_elem(&spans, &key);
		if (es && es->count)
			v = judge_above(&s, es, in->prio, &rid);
		if (v != VERDICT_NONE)
			uring_enter_matched(in, v, rid);
	}
	if (v < 0 && span->count) {
		__s64 u = judge_above(&s, span, in->prio, &rid);
		if (u != VERDICT_NONE)
			uring_enter_matched(in, u, rid);
	}
	if (in->state >= 0) {
		in->recorded += 1;
		uring_emit_op(&s, in->key_rule, FA_EV_URING_INLINE, tid, in->names);
	}
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
						      __u32 tid, __u32 *key_rule)
{
	struct uring_enter *in = bpf_map_lookup_elem(&uring_enter, &tid);
	if (!in)
		return URING_END_OTHER;
	struct uring_enter st = *in;
	bpf_map_delete_elem(&uring_enter, &tid);
	if (!st.recorded)
		return URING_END_OTHER;
	__u32 rid = 0;
	__s64 v = span && span->count ? judge_above(s, span, st.prio, &rid) : VERDICT_NONE;
	if (v != VERDICT_NONE)
		st.state = v;
	if (v >= 0)
		st.key_rule = (__u32)v;
	*key_rule = st.key_rule;
	return st.state >= 0 ? URING_END_RECORD : URING_END_NONE;
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
	ev->exe_len = 0;
	ev->generation = generation;
	ev->proctitle_len = 0;
	/* Not counted as emitted: it is no record (generated = logged + lost). */
	bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
}

/* The request's op and flags: `typed` (tp_btf: the verifier knows the
 * argument's type) loads them directly, else (raw_tp) with probe reads.
 * Every io_uring request pays this on submission and completion. */
static __always_inline __u32 req_op(struct io_kiocb *req, int typed)
{
	return typed ? req->opcode : BPF_CORE_READ(req, opcode);
}

static __always_inline __u64 req_flags(struct io_kiocb *req, int typed)
{
	return typed ? req->flags : BPF_CORE_READ(req, flags);
}

/* Tracepoint bodies (tp_btf with typed = 1, raw_tp with 0). */
static __always_inline int uring_submit_body(__u64 *ctx, int typed)
{
	struct io_kiocb *req = (struct io_kiocb *)ctx[0];
	__u32 op = req_op(req, typed);
	struct fa_span *span = uring_span(op);
	/* Every audited op: inside io_uring_enter one with no rule of its
	 * own is recorded once an earlier op made the syscall's state RECORD. */
	if (!span)
		return 0;
	__u64 key = (__u64)req;
	__u32 next = req_flags(req, typed) & REQ_F_FORCE_ASYNC ? URING_NEXT_WORKER : URING_NEXT_INLINE;
	bpf_map_update_elem(&uring_reqs, &key, &next, BPF_ANY);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct uring_enter *in = bpf_map_lookup_elem(&uring_enter, &tid);
	if (in)
		in->names += uring_prep_names(op);
	return 0;
}

/* Queued for io-wq: after an inline attempt that returned -EAGAIN, or
 * forced async (no attempt yet). */
static __always_inline int uring_queue_body(__u64 *ctx, int typed)
{
	struct io_kiocb *req = (struct io_kiocb *)ctx[0];
	__u64 key = (__u64)req;
	__u32 *next = bpf_map_lookup_elem(&uring_reqs, &key);
	if (!next)
		return 0;
	if (*next == URING_NEXT_INLINE)
		uring_attempt(req, -EAGAIN, 0);
	*next = URING_NEXT_WORKER;
	return 0;
}

/* Waiting for readiness: the attempt before returned -EAGAIN; the next
 * runs from task work in the submitter once the file is ready. */
static __always_inline int uring_poll_body(__u64 *ctx, int typed)
{
	struct io_kiocb *req = (struct io_kiocb *)ctx[0];
	__u64 key = (__u64)req;
	__u32 *next = bpf_map_lookup_elem(&uring_reqs, &key);
	if (!next)
		return 0;
	if (*next != URING_NEXT_POLLED)
		uring_attempt(req, -EAGAIN, 0);
	*next = URING_NEXT_POLLED;
	return 0;
}

/* The request completed: its last attempt returned 0. One that tried a
 * poll it found ready at once (REQ_F_POLLED, no poll_arm) was retried at
 * once (from task work after an inline attempt, blocking in io-wq): the
 * attempt before returned -EAGAIN. */
static __always_inline int uring_complete_body(__u64 *ctx, int typed)
{
	/* The tracepoint passes the request as void *: typed loads need the
	 * BTF cast (bpf_rdonly_cast). */
	struct io_kiocb *req = typed ? bpf_core_cast((void *)ctx[1], struct io_kiocb)
				     : (struct io_kiocb *)ctx[1];
	struct io_uring_cqe *cqe = (struct io_uring_cqe *)ctx[2];
	/* Untracked ops (nop, reads, ...) stop at the array lookup. */
	if (!uring_span(req_op(req, typed)))
		return 0;
	__u64 key = (__u64)req;
	__u32 *pending = bpf_map_lookup_elem(&uring_reqs, &key);
	if (!pending)
		return 0;
	__u32 next = *pending;
	bpf_map_delete_elem(&uring_reqs, &key);
	if (next != URING_NEXT_POLLED && (req_flags(req, typed) & REQ_F_POLLED))
		uring_attempt(req, -EAGAIN, 0);
	uring_attempt(req, 0, BPF_CORE_READ(cqe, res));
	return 0;
}

#endif
