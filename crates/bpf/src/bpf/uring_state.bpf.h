/* SPDX-License-Identifier: GPL-2.0 */
/* io_uring ops (uring_hooks.bpf.h has the whole story): what every
 * tracepoint reads first. The load-time switches, each op's index entry
 * (uring_spans), a request's op, flags and address as a number, and the
 * park state: where a request whose attempt returned -EAGAIN tries next
 * (uring_reqs, counted by uring_parked so that the common path skips the
 * hash). Apart because every other io_uring header uses it and it uses
 * none of them. */
#ifndef FA_URING_STATE_BPF_H
#define FA_URING_STATE_BPF_H

#include "maps.bpf.h"

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

/* A typed pointer as the plain number global functions take (read
 * through the stack, so the verifier forgets its type). */
static __always_inline __u64 req_number(struct io_kiocb *req)
{
	__u64 n = 0;
	bpf_probe_read_kernel(&n, sizeof(n), &req);
	return n;
}

#endif
