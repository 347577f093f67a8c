/* SPDX-License-Identifier: GPL-2.0 */
/* io_uring ops whose records travel under a stamp of the request's own
 * (uring_sq_reqs), sent before the op runs, which the attempt that ends
 * it takes, with the inodes it changed:
 * - a SQPOLL ring's, run by its thread: the thread's preps take names and
 *   addresses outside any audit context; sent when it prepares them;
 * - on kernels whose preps delay their names (uring_delayed_names()), an
 *   op an io-wq worker runs: the worker takes the names in its own
 *   context; sent when the request is queued for io-wq.
 * Apart from the senders it uses: only those ops pay for it. */
#ifndef FA_URING_SQPOLL_BPF_H
#define FA_URING_SQPOLL_BPF_H

#include "uring_state.bpf.h"
#include "uring_senders.bpf.h"
#include "objects.bpf.h"

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

/* Send what request req's (op `op`) records need under stamp `stamp`
 * of the current thread (its names, their lookups' inputs and the CWD;
 * or its address), and note them as the request's. */
__noinline int fa_uring_handoff(__u64 req, __u32 op, __u64 stamp)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct uring_sq_req at = {
		.stamp = stamp,
		.tid = tid,
	};
	if (op == FA_IORING_OP_CONNECT || op == FA_IORING_OP_BIND) {
		fa_uring_sockaddr(req, op, stamp);
	} else {
		__u32 lost = 0;
		struct fa_msg m = {
			.kind = FA_MSG_AUX,
			.tid = tid,
			.stamp = stamp,
		};
		send_cwd(bpf_get_current_task_btf(), &m, &lost);
		fa_uring_prep_names(req, op, 0, stamp);
		struct fa_aux_uring_punt *in = aux_reserve(&m, &lost, FA_AUX_URING_PUNT, sizeof(*in));
		if (in) {
			uring_lookup_inputs(in, req, op, 0);
			aux_submit(in);
		}
	}
	bpf_map_update_elem(&uring_sq_reqs, &req, &at, BPF_ANY);
	return 0;
}

/* The SQPOLL thread prepared request req (op `op`, audited by an
 * io_uring rule): hand its records off, and note the request as the one
 * whose inode changes follow. */
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
	__u64 stamp = bpf_ktime_get_ns();
	fa_uring_handoff(req, op, stamp);
	if (op != FA_IORING_OP_CONNECT && op != FA_IORING_OP_BIND) {
		struct uring_sq_run run = {
			.key = uring_work_key(req + bpf_core_field_offset(struct io_kiocb, work), op),
			.stamp = stamp,
		};
		bpf_map_update_elem(&uring_sq_current, &tid, &run, BPF_ANY);
	}
	return 0;
}

/* Whether request req is linked after the head of a chain being
 * submitted (its ring's submission state holds one) that is forced to
 * io-wq: the worker that runs the head runs it next. */
static __always_inline int uring_chain_head_async(struct io_kiocb *req)
{
	struct io_kiocb *head = BPF_CORE_READ(req, ctx, submit_state.link.head);
	return head && (BPF_CORE_READ(head, flags) & REQ_F_FORCE_ASYNC);
}

/* Request req (op `op`) is queued for io-wq: on a kernel whose preps
 * delay their names, the worker's attempt takes them in its own context
 * (a copy, after an inline attempt took the first): hand them off to it,
 * read now, before the worker completes them. Only a named op an
 * io_uring rule names can be recorded there. */
static __always_inline void uring_queued_names(struct io_kiocb *req, __u32 op, struct fa_span *span)
{
	if (uring_delayed_names() && have_uring_objs && span->count && uring_prep_names(op))
		fa_uring_handoff(req_number(req), op, bpf_ktime_get_ns());
}

/* The SQPOLL thread's request req (op `op`) whose records were sent
 * under *at: its attempt that ended with `ret` takes them if it is the
 * one they are for (a named op's last attempt: an -EAGAIN one looked
 * nothing up; an address's first, whose context holds it). */
static __always_inline int uring_sq_take(struct io_kiocb *req, __u32 op, long ret, struct uring_sq_req *at)
{
	int delayed = uring_delayed_names();
	if (!delayed && !BPF_CORE_READ(req, ctx, sq_data))
		return 0;
	__u64 k = req_number(req);
	struct uring_sq_req *found = bpf_map_lookup_elem(&uring_sq_reqs, &k);
	if (!found)
		return 0;
	/* Names delayed: the attempt took them first thing, -EAGAIN or not. */
	int addressed = op == FA_IORING_OP_CONNECT || op == FA_IORING_OP_BIND;
	if (ret == -EAGAIN && !addressed && !delayed)
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

#endif
