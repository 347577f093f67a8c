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

#include "arch.bpf.h"
#include "maps.bpf.h"
#include "dentry.bpf.h"
#include "subject.bpf.h"
#include "objects.bpf.h"
#include "rules.bpf.h"
#include "event.bpf.h"
#include "lsm.bpf.h"
#include "auxsample.bpf.h"
#include "paths.bpf.h"
#include "handover.bpf.h"

/* Whether io_uring ops are audited, and whether exit rules can select
 * io_uring_enter (they judge inline ops first, as audit_filter_syscall). */
const volatile __u32 have_uring = 0;
const volatile __u32 uring_enter_rules = 0;
/* io_uring_complete passes the result as an argument (before Linux 6.x's
 * CQE pointer): set by the engine from the kernel's BTF. */
const volatile __u32 uring_complete_res_arg = 0;

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
	URING_NEXT_SUBMITTED = 0, /* as submitted: inline, or io-wq if forced async */
	URING_NEXT_WORKER = 2,   /* queued for io-wq: no inline attempt first */
	URING_NEXT_POLLED = 3,   /* from task work after a poll (its -EAGAIN sent) */
};

/* Requests parked by io_uring_queue_async_work or io_uring_poll_arm, by
 * io_kiocb address. A request that never left its submission's path
 * (one attempt, then complete: the common case) has no entry: what its
 * submission said is in req->flags (REQ_F_FORCE_ASYNC, set by the prep
 * before io_uring_submit_req), so no map write is paid per op. LRU: the
 * write (~180 ns) is paid only on these slower paths (a poll, a retry in
 * io-wq), and an entry whose request never completed visibly (skipped
 * CQE, its io_kiocb not reused) cannot fill the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u64);
	__type(value, __u32);
} uring_reqs SEC(".maps");

/* An upper bound of the entries in uring_reqs (every insertion adds one,
 * a deletion that found its entry takes one; LRU evictions leave it
 * higher): while 0, submission and completion skip the hash. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} uring_parked SEC(".maps");

/* The parked count, or 0 when nothing can be parked. */
static __always_inline __u64 *uring_parked_count(void)
{
	__u32 k = 0;
	__u64 *n = bpf_map_lookup_elem(&uring_parked, &k);
	return n && *n ? n : 0;
}

/* The parked state of request `key` (0: not parked). */
static __always_inline __u32 *uring_parked_state(__u64 key)
{
	return uring_parked_count() ? bpf_map_lookup_elem(&uring_reqs, &key) : 0;
}

/* Park request `key` (its state `cur` if it has one) with `next`. */
static __always_inline void uring_park(__u64 key, __u32 *cur, __u32 next)
{
	if (cur) {
		*cur = next;
		return;
	}
	__u32 k = 0;
	__u64 *n = bpf_map_lookup_elem(&uring_parked, &k);
	if (!n)
		return;
	/* Counted before the entry exists, so the count never misses one. */
	__sync_fetch_and_add(n, 1);
	bpf_map_update_elem(&uring_reqs, &key, &next, BPF_ANY);
}

/* Take request `key`'s parked state off (URING_NEXT_SUBMITTED if none). */
static __always_inline __u32 uring_unpark(__u64 key)
{
	__u64 *n = uring_parked_count();
	if (!n)
		return URING_NEXT_SUBMITTED;
	__u32 *p = bpf_map_lookup_elem(&uring_reqs, &key);
	if (!p)
		return URING_NEXT_SUBMITTED;
	__u32 next = *p;
	if (bpf_map_delete_elem(&uring_reqs, &key) == 0)
		__sync_fetch_and_sub(n, 1);
	return next;
}

/* Requests submitted with IOSQE_CQE_SKIP_SUCCESS whose inline attempt
 * may have succeeded (no tracepoint sees that: no completion is posted),
 * judged as succeeded in their turn or at io_uring_enter's end. */
#define URING_SKIPS 4

/* An attempt's verdicts inside io_uring_enter: io_uring_enter's exit
 * list (v), then unless that made it RECORD the io_uring list (u), each
 * VERDICT_NONE or its match (and the matching rule: vrid, urid). */
struct uring_verdicts {
	__s64 v;
	__s64 u;
	__u32 vrid;
	__u32 urid;
};

struct uring_skip {
	__u64 req;    /* the request's address */
	__u32 due;    /* inline requests with a completion submitted before it */
	__u16 op;
	__u16 names;  /* the context's names up to its own (its URINGOP's items=) */
	struct uring_verdicts j;   /* judged at submission, as succeeded */
};

/* A thread inside io_uring_enter: the kernel's syscall-context state for
 * the ops issued inline (it persists over the syscall). */
struct uring_enter {
	__s64 state;      /* enum verdict, or the always rule that matched last */
	__u32 key_rule;   /* the last matching rule (the record's key) */
	__u32 recorded;   /* URINGOP records sent during the syscall */
	__u32 names;      /* file names the syscall's context holds (items=) */
	__u32 prio;       /* rule_prio of the last match (ctx->prio): 0 none */
	__u32 active;     /* inside io_uring_enter now (the storage outlives the call) */
	__u32 cwd_sent;   /* its CWD sent (with its first recorded op that follows a name) */
	__u64 stamp;      /* the syscall's event stamp: its names and address travel under it */
	/* The order of inline attempts, kept so that the attempts no
	 * tracepoint shows (skip[]) come between the others as the kernel's
	 * records do: those with a completion are judged when it is posted,
	 * which for inline ones is at the end of the submission, in order. */
	__u32 counted;    /* inline requests with a completion submitted */
	__u32 judged;     /* of those, judged */
	__u32 chained;    /* a linked chain was submitted: no order kept after it */
	__u32 nskip;      /* entries in skip[] */
	__u32 pending_op; /* the op of `pending` */
	/* The counted request submitted last whose inline attempt no
	 * tracepoint has ended yet (uring_ready_retry): 0 if none. */
	__u64 pending;
	struct uring_skip skip[URING_SKIPS];
};

/* The priority of rule rid (rule_prio; 0 none). */
static __always_inline __u32 rule_prio_of(__u32 rid)
{
	__u32 *prio = bpf_map_lookup_elem(&rule_prio, &rid);
	return prio ? *prio : 0;
}

/* Record a match of rule `rid` in the syscall context `in`. */
static __always_inline void uring_enter_matched(struct uring_enter *in, __s64 v, __u32 rid)
{
	in->state = v;
	if (v >= 0)
		in->key_rule = (__u32)v;
	in->prio = rule_prio_of(rid);
}

/* Whether thread tid is one a never,task rule exempted (no record, no
 * effect on its syscall's state). Asked only when an attempt would
 * change or send something. */
static __always_inline int uring_never_task(__u32 tid)
{
	return bpf_map_lookup_elem(&never_task, &tid) != 0;
}

/* File names an op's prep takes with getname() in the submitting task:
 * they count in that syscall's context (items=). */
static __always_inline __u32 uring_prep_names(__u32 op)
{
	switch (op) {
	case FA_IORING_OP_OPENAT: case FA_IORING_OP_OPENAT2: case FA_IORING_OP_STATX:
	case FA_IORING_OP_MKDIRAT: case FA_IORING_OP_UNLINKAT: case FA_IORING_OP_SETXATTR:
	case FA_IORING_OP_GETXATTR:
		return 1;
	case FA_IORING_OP_RENAMEAT: case FA_IORING_OP_SYMLINKAT: case FA_IORING_OP_LINKAT:
		return 2;
	}
	return 0;
}

/* File names a successful op adds in an io thread's own context: each
 * audit_inode_child() finds no named parent there and adds two. An open
 * with O_CREAT (always run by io-wq) counts as creating its file. */
static __always_inline __u32 uring_worker_names(struct io_kiocb *req, __u32 op)
{
	if (op == FA_IORING_OP_OPENAT || op == FA_IORING_OP_OPENAT2) {
		__u64 flags = BPF_CORE_READ((struct io_open *)req, how.flags);
		return flags & 0100 ? 4 : 0;   /* O_CREAT */
	}
	switch (op) {
	case FA_IORING_OP_UNLINKAT: return 2;   /* the victim */
	case FA_IORING_OP_MKDIRAT: return 4;    /* checked, then created */
	case FA_IORING_OP_RENAMEAT: return 6;   /* old removed, new checked, new created */
	case FA_IORING_OP_SYMLINKAT: case FA_IORING_OP_LINKAT: return 4;
	}
	return 0;
}

/* Per thread, in its task's local storage: a get is a few loads where a
 * hash update per io_uring_enter cost ~200 ns (LRU), and it goes with
 * the task. Entries stay between calls with `active` 0. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct uring_enter);
} uring_enter SEC(".maps");

/* The current thread's io_uring_enter context, if it is inside one. */
static __always_inline struct uring_enter *uring_enter_current(void)
{
	struct uring_enter *in = bpf_task_storage_get(&uring_enter, bpf_get_current_task_btf(), 0, 0);
	return in && in->active ? in : 0;
}

/* io_uring_enter begins for the current thread: a fresh context. */
static __always_inline void uring_enter_begin(void)
{
	struct uring_enter *in = bpf_task_storage_get(&uring_enter, bpf_get_current_task_btf(), 0,
						      BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!in)
		return;
	in->state = VERDICT_NONE;
	in->key_rule = 0;
	in->recorded = 0;
	in->names = 0;
	in->prio = 0;
	in->active = 1;
	in->cwd_sent = 0;
	in->stamp = bpf_ktime_get_ns();
	in->counted = 0;
	in->judged = 0;
	in->chained = 0;
	in->nskip = 0;
	in->pending = 0;
}

static __always_inline struct fa_span *uring_span(__u32 op)
{
	if (op >= FA_URING_OPS)
		return 0;
	struct fa_span *span = bpf_map_lookup_elem(&uring_spans, &op);
	return span && (span->flags & FA_SPAN_URING_OP) ? span : 0;
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

/* Send a URINGOP event for the attempt of s (s->nr is the op). */
static __always_inline void uring_emit_op(struct subject *s, __u32 key_rule, __u32 flags, __u32 tid,
					  __u32 items, __u64 stamp)
{
	/* While a rule change overlaps two objects, only the active one
	 * writes URINGOP records (each object follows requests by itself). */
	if (!generation_active())
		return;
	/* Room for the LSM label only where there can be one (the
	 * reservation's size must be a constant). */
	struct fa_event *ev = apparmor_blob_sizes_addr
				      ? bpf_ringbuf_reserve(&events, sizeof(*ev) + FA_SUBJ_MAX, 0)
				      : bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count(FA_STAT_LOST);
		return;
	}
	const struct cred *c = s->cred;
	ev->subj_len = apparmor_blob_sizes_addr ? read_lsm_label(c, (char *)(ev + 1)) : 0;
	struct task_struct *task = s->task;
	ev->msg.kind = FA_MSG_EVENT;
	ev->msg.tid = tid;
	ev->msg.stamp = stamp;
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
	bpf_ringbuf_submit(ev, event_wakeup());
}

/* A typed pointer as the plain number global functions take (read
 * through the stack, so the verifier forgets its type). */
static __always_inline __u64 req_number(struct io_kiocb *req)
{
	__u64 n = 0;
	bpf_probe_read_kernel(&n, sizeof(n), &req);
	return n;
}

/* The inodes the current io-wq worker changed running the request of
 * objects key `key`, their list closed (new inodes read again) by the
 * first of its readers; NULL if it noted none. */
static __always_inline struct fa_objs *uring_worker_objs(__u32 key)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_objs *h = bpf_map_lookup_elem(&objs, &tid);
	if (!h || !key)
		return 0;
	if (h->key == key)
		fa_objs_close(key, 0);
	return h->owner == key ? h : 0;
}

/* The CWD and objects of the op an io-wq worker ran for the request at
 * `req` (the objects it noted while running it: objects.bpf.h), sent
 * under its URINGOP's head as a syscall's are; FA_EV_AUX_LOST if one
 * found no room. SQPOLL rings' ops run by io-wq are not followed
 * (docs/differences.md); those the SQPOLL thread runs are (fa_uring_sq_submit). */
__noinline int fa_uring_worker_paths(__u64 req, __u64 stamp)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.stamp = stamp,
	};
	struct task_struct *task = bpf_get_current_task_btf();
	struct io_kiocb *r = (struct io_kiocb *)req;
	/* A SQPOLL ring's requests took their names outside any audit
	 * context: the worker's lookups add them, named (not followed). */
	if (!io_worker_key(task) || BPF_CORE_READ(r, ctx, sq_data))
		return 0;
	send_cwd(task, &m, &lost);
	__u32 key = uring_work_key((__u64)&r->work, BPF_CORE_READ(r, opcode));
	struct fa_objs *h = uring_worker_objs(key);
	if (!h)
		return lost;
	struct fa_objs *p = aux_reserve(&m, &lost, FA_AUX_OBJS, sizeof(*p));
	if (!p)
		return lost;
	bpf_probe_read_kernel(p, sizeof(*p), h);
	aux_submit(p);
	return lost;
}

/* The working directory of the current thread's io_uring_enter (its
 * context took it with its first name; it has not changed since: no op
 * changes it), under that syscall's stamp. */
__noinline int fa_uring_enter_cwd(__u64 stamp)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.stamp = stamp,
	};
	send_cwd(bpf_get_current_task_btf(), &m, &lost);
	return 0;
}

/* Newer kernels (Debian's 7.2 and 7.3) keep an op's names in a struct
 * delayed_filename, the struct filename * its prep took until the issue
 * completes it, where older ones (6.18 and before) hold that pointer
 * itself. The ops' layouts with that wrapper: */
struct delayed_filename___fa {
	struct filename *__incomplete_filename;
} __attribute__((preserve_access_index));
struct io_open___delayed { struct delayed_filename___fa filename; } __attribute__((preserve_access_index));
struct io_statx___delayed { struct delayed_filename___fa filename; } __attribute__((preserve_access_index));
struct io_mkdir___delayed { struct delayed_filename___fa filename; } __attribute__((preserve_access_index));
struct io_unlink___delayed { struct delayed_filename___fa filename; } __attribute__((preserve_access_index));
struct io_rename___delayed {
	struct delayed_filename___fa oldpath;
	struct delayed_filename___fa newpath;
} __attribute__((preserve_access_index));
struct io_link___delayed {
	struct delayed_filename___fa oldpath;
	struct delayed_filename___fa newpath;
} __attribute__((preserve_access_index));

/* Name `field` of op struct `type` at cmd, as this kernel holds it (a
 * field whose type does not match is absent to CO-RE: the wrapper's test
 * is false on older kernels, and the branch not taken is never verified). */
#define URING_NAME(type, cmd, field)                                                   \
	(bpf_core_field_exists(struct type##___delayed, field)                          \
		 ? BPF_CORE_READ((struct type##___delayed *)(cmd), field.__incomplete_filename) \
		 : BPF_CORE_READ((struct type *)(cmd), field))

/* Send the file names the prep of request `req` (op `op`) took, as the
 * io_uring_enter context of thread tid holds them from `index` on,
 * under that syscall's stamp. */
__noinline int fa_uring_prep_names(__u64 req, __u32 op, __u32 index, __u64 stamp)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.stamp = stamp,
	};
	struct filename *names[2] = {};
	void *cmd = (void *)req;
	switch (op) {
	case FA_IORING_OP_OPENAT:
	case FA_IORING_OP_OPENAT2:
		names[0] = URING_NAME(io_open, cmd, filename);
		break;
	case FA_IORING_OP_STATX:
		names[0] = URING_NAME(io_statx, cmd, filename);
		break;
	case FA_IORING_OP_MKDIRAT:
		names[0] = URING_NAME(io_mkdir, cmd, filename);
		break;
	case FA_IORING_OP_UNLINKAT:
		names[0] = URING_NAME(io_unlink, cmd, filename);
		break;
	case FA_IORING_OP_RENAMEAT:
		names[0] = URING_NAME(io_rename, cmd, oldpath);
		names[1] = URING_NAME(io_rename, cmd, newpath);
		break;
	case FA_IORING_OP_SYMLINKAT:
	case FA_IORING_OP_LINKAT:
		names[0] = URING_NAME(io_link, cmd, oldpath);
		names[1] = URING_NAME(io_link, cmd, newpath);
		break;
	default:
		/* setxattr, getxattr: their name is counted, not spelled. */
		break;
	}
	for (int i = 0; i < 2; i++) {
		if (i >= (int)uring_prep_names(op))
			break;
		struct name_out *o = name_out_get();
		if (!o)
			break;
		long len = names[i] ? bpf_probe_read_kernel_str(o->body.name, sizeof(o->body.name),
								BPF_CORE_READ(names[i], name))
				    : 0;
		o->body.index = index + i;
		o->body.len = len > 0 ? len - 1 : 0;
		name_output(&m, &lost, FA_AUX_URING_NAME, o);
	}
	return 0;
}

/* Where a named request submitted inside io_uring_enter has its names:
 * from its submission until an io-wq worker issues it. */
struct uring_req_at {
	__u32 index;   /* its first name's place among the syscall's names */
	__u32 tid;     /* the submitting thread */
	__u64 stamp;   /* its io_uring_enter's entry stamp */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct uring_req_at);
} uring_req_names SEC(".maps");

/* The inputs of request req's (op `op`) lookups into r, its names from
 * `index` on among its event's FA_AUX_URING_NAME ones. */
static __always_inline void uring_lookup_inputs(struct fa_aux_uring_punt *r, __u64 req, __u32 op,
						 __u32 index)
{
	void *cmd = (void *)req;
	r->index = index;
	r->op = op;
	r->open_flags = 0;
	r->dfd = AT_FDCWD;
	r->dfd2 = AT_FDCWD;
	r->pad = 0;
	switch (op) {
	case FA_IORING_OP_OPENAT:
	case FA_IORING_OP_OPENAT2:
		r->open_flags = BPF_CORE_READ((struct io_open *)cmd, how.flags);
		r->dfd = BPF_CORE_READ((struct io_open *)cmd, dfd);
		break;
	case FA_IORING_OP_STATX:
		r->dfd = BPF_CORE_READ((struct io_statx *)cmd, dfd);
		break;
	case FA_IORING_OP_MKDIRAT:
		r->dfd = BPF_CORE_READ((struct io_mkdir *)cmd, dfd);
		break;
	case FA_IORING_OP_UNLINKAT:
		r->dfd = BPF_CORE_READ((struct io_unlink *)cmd, dfd);
		break;
	case FA_IORING_OP_RENAMEAT:
		r->dfd = BPF_CORE_READ((struct io_rename *)cmd, old_dfd);
		r->dfd2 = BPF_CORE_READ((struct io_rename *)cmd, new_dfd);
		break;
	case FA_IORING_OP_SYMLINKAT:
	case FA_IORING_OP_LINKAT:
		r->dfd = BPF_CORE_READ((struct io_link *)cmd, old_dfd);
		r->dfd2 = BPF_CORE_READ((struct io_link *)cmd, new_dfd);
		break;
	}
}

/* An io-wq worker issued request req (op `op`): if it was submitted
 * inside an io_uring_enter (punted after an inline attempt, or linked
 * after one), the worker's lookups fill in that syscall's entries for its
 * names (shared through the struct filename), as long as the syscall has
 * not written its record yet: say where they are, under its stamp, so
 * user space can show them so. A request never issued (a cancelled link)
 * sends nothing. */
__noinline int fa_uring_punted(__u64 req, __u32 op, __u32 key)
{
	struct uring_req_at *at = bpf_map_lookup_elem(&uring_req_names, &req);
	if (!at)
		return 0;
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = at->tid,
		.stamp = at->stamp,
	};
	struct fa_aux_uring_punt *r = aux_reserve(&m, &lost, FA_AUX_URING_PUNT, sizeof(*r));
	if (!r)
		return 0;
	uring_lookup_inputs(r, req, op, at->index);
	aux_submit(r);
	bpf_map_delete_elem(&uring_req_names, &req);
	/* What the worker changed names what its lookups found (the
	 * directory, a link's source) even once the workload removed it. */
	struct fa_objs *h = uring_worker_objs(key);
	if (!h)
		return 0;
	struct fa_objs *p = aux_reserve(&m, &lost, FA_AUX_URING_PUNT_OBJS, sizeof(*p));
	if (!p)
		return 0;
	bpf_probe_read_kernel(p, sizeof(*p), h);
	aux_submit(p);
	return 0;
}

/* Where bind's prep copied the address in its request's async data
 * `data`: a struct io_async_msghdr's `addr`, or (a 2026 fix, backported
 * to stable kernels) the data itself. Nothing the BPF side can read
 * names the layout (the op table is no symbol without KALLSYMS_ALL), so
 * the first word tells: the message header starts with an iovec pointer
 * (NULL, or a kernel address), an address with its family. */
static __always_inline __u64 bind_addr_offset(void *data)
{
	__u64 w = 0;
	bpf_probe_read_kernel(&w, sizeof(w), data);
	__u16 family = (__u16)w;
	if (family && family < FA_AF_MAX && (w >> 48) != 0xffff)
		return 0;
	return bpf_core_field_offset(struct io_async_msghdr, addr);
}

/* SOCKADDR for a connect or bind request inside io_uring_enter: its
 * prep copied the address (move_addr_to_kernel, audit_sockaddr), so the
 * syscall's context holds it, whatever the attempts return. connect's is
 * read from the caller's memory, bind's from the copy its prep made (the
 * request keeps no pointer to the caller's). */
__noinline int fa_uring_sockaddr(__u64 req, __u32 op, __u64 stamp)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.stamp = stamp,
	};
	void *addr;
	int len, user = op == FA_IORING_OP_CONNECT;
	if (user) {
		struct io_connect *c = (struct io_connect *)req;
		addr = BPF_CORE_READ(c, addr);
		len = BPF_CORE_READ(c, addr_len);
	} else {
		void *data = BPF_CORE_READ((struct io_kiocb *)req, async_data);
		if (!bpf_core_field_exists(struct io_bind, addr_len) || !data)
			return 0;
		addr = data + bind_addr_offset(data);
		len = BPF_CORE_READ((struct io_bind *)req, addr_len);
	}
	if (!addr || len <= 0 || len > FA_SOCKADDR_MAX)
		return 0;
	struct fa_sockaddr *r = aux_reserve(&m, &lost, AUDIT_SOCKADDR, sizeof(*r));
	if (!r)
		return 0;
	__u64 n = len;
	barrier_var(n);
	r->len = len;
	r->read = 0;
	long err = n <= FA_SOCKADDR_MAX ? (user ? bpf_probe_read_user(r->addr, n, addr)
					       : bpf_probe_read_kernel(r->addr, n, addr))
				       : -1;
	if (err == 0)
		r->read = n;
	aux_submit(r);
	return 0;
}

/* The file an open issued inline inside io_uring_enter opened (fd
 * `res`), for the name at `index`: the kernel's lookup resolved that
 * name in the syscall's context. */
__noinline int fa_uring_opened(__u64 req, __s32 res, __u32 index, __u64 stamp, __u32 tid)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = tid,
		.stamp = stamp,
	};
	/* A fixed-file slot (file_slot set) is no descriptor. */
	if (BPF_CORE_READ((struct io_open *)req, file_slot))
		return 0;
	struct file *f = fd_file(bpf_get_current_task_btf(), res);
	if (!f)
		return 0;
	struct fa_aux_uring_obj *r = aux_reserve(&m, &lost, FA_AUX_URING_OBJ, sizeof(*r));
	if (!r)
		return 0;
	r->index = index;
	r->pad = 0;
	r->obj.flags = FA_OBJ_OPENED;
	r->obj.parent_ino = 0;
	r->obj.parent_dev = 0;
	r->obj.name_len = 0;
	r->obj.name[0] = 0;
	obj_fill(&r->obj, BPF_CORE_READ(f, f_inode), 0);
	aux_submit(r);
	return 0;
}

/* A request a SQPOLL thread prepared and sent names or an address for:
 * the stamp and thread they travel under, which the URINGOP of its
 * attempt takes (the thread's own, or an io-wq worker's). The thread's
 * preps take names outside any audit context; the attempt's lookups
 * then add them to its own context, named (uring_sq.rs in the engine
 * rebuilds those records). */
struct uring_sq_req {
	__u64 stamp;
	__u32 tid;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct uring_sq_req);
} uring_sq_reqs SEC(".maps");

/* Send the objects list h (of the request under `stamp` of SQPOLL
 * thread tid) as FA_AUX_OBJS; FA_EV_AUX_LOST if it found no room. */
static __always_inline __u32 uring_sq_send_objs(struct fa_objs *h, __u32 tid, __u64 stamp)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = tid,
		.stamp = stamp,
	};
	struct fa_objs *p = aux_reserve(&m, &lost, FA_AUX_OBJS, sizeof(*p));
	if (p) {
		bpf_probe_read_kernel(p, sizeof(*p), h);
		aux_submit(p);
	}
	return lost;
}

/* The SQPOLL thread's request `run` has run (its attempt ended, or the
 * thread prepares its next request): send what it changed, take its
 * note off. */
static __always_inline __u32 uring_sq_run_done(struct uring_sq_run *run, __u32 tid)
{
	__u32 lost = 0;
	struct fa_objs *h = uring_worker_objs(run->key);
	if (h) {
		lost = uring_sq_send_objs(h, tid, run->stamp);
		uring_worker_objs_done(run->key);
	}
	bpf_map_delete_elem(&uring_sq_current, &tid);
	return lost;
}

/* The SQPOLL thread prepared request req (op `op`, audited by an
 * io_uring rule): send what its records need under a stamp of its own
 * (its names, their lookups' inputs and the CWD; or its address), and
 * note the request as the one whose inode changes follow. */
__noinline int fa_uring_sq_submit(__u64 req, __u32 op)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct io_kiocb *r = (struct io_kiocb *)req;
	struct io_sq_data *sqd = BPF_CORE_READ(r, ctx, sq_data);
	if (!sqd || BPF_CORE_READ(sqd, thread) != task)
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	/* The request it prepared before has been issued. */
	struct uring_sq_run *prev = bpf_map_lookup_elem(&uring_sq_current, &tid);
	if (prev)
		uring_sq_run_done(prev, tid);
	struct uring_sq_req at = {
		.stamp = bpf_ktime_get_ns(),
		.tid = tid,
	};
	if (op == FA_IORING_OP_CONNECT || op == FA_IORING_OP_BIND) {
		fa_uring_sockaddr(req, op, at.stamp);
	} else {
		__u32 lost = 0;
		struct fa_msg m = {
			.kind = FA_MSG_AUX,
			.tid = tid,
			.stamp = at.stamp,
		};
		send_cwd(task, &m, &lost);
		fa_uring_prep_names(req, op, 0, at.stamp);
		struct fa_aux_uring_punt *in = aux_reserve(&m, &lost, FA_AUX_URING_PUNT, sizeof(*in));
		if (in) {
			uring_lookup_inputs(in, req, op, 0);
			aux_submit(in);
		}
		struct uring_sq_run run = {
			.key = uring_work_key(req + bpf_core_field_offset(struct io_kiocb, work), op),
			.stamp = at.stamp,
		};
		bpf_map_update_elem(&uring_sq_current, &tid, &run, BPF_ANY);
	}
	bpf_map_update_elem(&uring_sq_reqs, &req, &at, BPF_ANY);
	return 0;
}

/* The SQPOLL thread's request req (op `op`) whose records were sent
 * under *at: its attempt that ended with `ret` takes them if it is the
 * one they are for (a named op's last attempt: an -EAGAIN one looked
 * nothing up; an address's first, whose context holds it). */
static __always_inline int uring_sq_take(struct io_kiocb *req, __u32 op, long ret, struct uring_sq_req *at)
{
	if (!BPF_CORE_READ(req, ctx, sq_data))
		return 0;
	__u64 k = req_number(req);
	struct uring_sq_req *found = bpf_map_lookup_elem(&uring_sq_reqs, &k);
	if (!found)
		return 0;
	int addressed = op == FA_IORING_OP_CONNECT || op == FA_IORING_OP_BIND;
	if (ret == -EAGAIN && !addressed)
		return 0;
	*at = *found;
	bpf_map_delete_elem(&uring_sq_reqs, &k);
	return 1;
}

/* The attempt of request req (op `op`, CQE result `res`) whose records
 * travel under *at ended in the current thread (the SQPOLL thread, or
 * the io-wq worker it handed the request to): the objects it changed,
 * and the file an open opened; FA_EV_AUX_LOST if they found no room. */
__noinline int fa_uring_sq_end(__u64 req, __u32 op, __s32 res, __u64 stamp, __u32 sq_tid)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 lost = 0;
	if (tid == sq_tid) {
		struct uring_sq_run *run = bpf_map_lookup_elem(&uring_sq_current, &tid);
		if (run && run->stamp == stamp)
			lost = uring_sq_run_done(run, tid);
	} else {
		struct fa_objs *h = uring_worker_objs(io_worker_key(bpf_get_current_task_btf()));
		if (h)
			lost = uring_sq_send_objs(h, sq_tid, stamp);
	}
	if ((op == FA_IORING_OP_OPENAT || op == FA_IORING_OP_OPENAT2) && res >= 0)
		fa_uring_opened(req, res, 0, stamp, sq_tid);
	return lost;
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
		uring_emit_op(s, in->key_rule, FA_EV_URING_INLINE, tid, names, bpf_ktime_get_ns());
		/* The syscall's CWD record, once it holds a name and will be
		 * written: spelled only for a recorded io_uring_enter. */
		if (in->names && !in->cwd_sent) {
			in->cwd_sent = 1;
			fa_uring_enter_cwd(in->stamp);
		}
	}
}

/* One issue attempt of req (op `op`, its index entry `span`) ended with
 * `ret` in the current task, whose io_uring_enter context is `in`
 * (uring_enter_current(), which its caller took: NULL outside one):
 * judge it and send its URINGOP if the rules (or the syscall's state)
 * say so. */
static __always_inline void uring_attempt(struct io_kiocb *req, __u32 op, struct fa_span *span, long ret,
					  long res, int typed, struct uring_enter *in)
{
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
			uring_emit_op(&s, (__u32)v, lost, sq_named ? sq.tid : tid, items, stamp);
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
	ev->exe_len = 0;
	ev->subj_len = 0;
	ev->generation = generation;
	ev->proctitle_len = 0;
	/* Not counted as emitted: it is no record (generated = logged + lost). */
	bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
}

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
	if (!in) {
		/* An io thread's own context (a SQPOLL thread's preps): only
		 * the io_uring list judges its attempts. */
		struct task_struct *task = bpf_get_current_task_btf();
		if (span->count && have_uring_objs && (task->flags & FA_PF_IO_WORKER))
			fa_uring_sq_submit(req_number(req), op);
		return 0;
	}
	if (addressed) {
		fa_uring_sockaddr(req_number(req), op, in->stamp);
		return 0;
	}
	__u64 rk = req_number(req);
	fa_uring_prep_names(rk, op, in->names, in->stamp);
	struct uring_req_at at = {
		.index = in->names,
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.stamp = in->stamp,
	};
	bpf_map_update_elem(&uring_req_names, &rk, &at, BPF_ANY);
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
	if (flags & REQ_F_FORCE_ASYNC)
		return 0;
	struct uring_enter *in = uring_enter_current();
	uring_pending_ended(in, req);
	enum uring_turn turn = uring_turn_begin(in, req, flags, 1);
	uring_attempt(req, op, span, -EAGAIN, 0, typed, in);
	if (in)
		uring_turn_end(in, turn);
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
		enum uring_turn turn = uring_turn_begin(in, req, req_flags(req, typed), !next);
		uring_attempt(req, op, span, -EAGAIN, 0, typed, in);
		if (in)
			uring_turn_end(in, turn);
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
	enum uring_turn turn = uring_turn_begin(in, req, flags, first_inline);
	if (next != URING_NEXT_POLLED && (flags & REQ_F_POLLED))
		uring_attempt(req, op, span, -EAGAIN, 0, typed, in);
	/* An open that succeeded at its first, inline attempt resolved its
	 * name in io_uring_enter's context (the last one taken: the attempt
	 * follows its prep). */
	if ((op == FA_IORING_OP_OPENAT || op == FA_IORING_OP_OPENAT2) && res >= 0 && first_inline &&
	    in && in->names)
		fa_uring_opened(req_number(req), res, in->names - 1, in->stamp,
				(__u32)bpf_get_current_pid_tgid());
	uring_attempt(req, op, span, 0, res, typed, in);
	if (in)
		uring_turn_end(in, turn);
	return 0;
}

#endif
