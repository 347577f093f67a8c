/* SPDX-License-Identifier: GPL-2.0 */
/* io_uring ops: the context of a thread inside io_uring_enter, the
 * kernel's syscall-context state that the ops it issues inline share (its
 * state and rule priority, the names its ops' preps took, the requests
 * waiting for their turn), kept in the task's local storage, and the
 * name counts an op adds to a context. Apart because the senders, the
 * judging and the hooks all read it. */
#ifndef FA_URING_ENTER_BPF_H
#define FA_URING_ENTER_BPF_H

#include "uring_state.bpf.h"
#include "maps.bpf.h"
#include "rules.bpf.h"

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

#endif
