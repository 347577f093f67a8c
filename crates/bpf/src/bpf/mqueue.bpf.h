/* SPDX-License-Identifier: GPL-2.0 */
/* The records of POSIX message queue syscalls (show_special in
 * kernel/auditsc.c; ipc/mqueue.c notes them): MQ_OPEN, MQ_SENDRECV,
 * MQ_NOTIFY, MQ_GETSETATTR, read at the syscall's exit from its
 * arguments and the caller's memory. Each is noted once the syscall has
 * copied in what it prints, before anything can fail, so the outcomes
 * that log are those where that copy (and the checks before the note)
 * passed: the copy is done again here, on the same memory (at entry for
 * mq_getsetattr, whose buffer the call may overwrite). Native syscalls
 * only: the ia32 ones (compat structures) are not followed. */
#ifndef FA_MQUEUE_BPF_H
#define FA_MQUEUE_BPF_H

#include "arch.bpf.h"
#include "subject.bpf.h"
#include "handover.bpf.h"
#include "auxsample.bpf.h"

#define FA_O_CREAT 0100
#define FA_O_NONBLOCK 04000
#define FA_MQ_PRIO_MAX 32768
#define FA_NSEC_PER_SEC 1000000000LL
#define FA_SIGEVENT_SIZE 64   /* sizeof(struct sigevent) */

/* The body of the syscall never ran: no message queue support
 * (CONFIG_POSIX_MQUEUE off: sys_ni_syscall), or a seccomp filter. */
static __always_inline int mq_ran(struct subject *s)
{
	return s->returned && s->ret != -ENOSYS;
}

/* MQ_OPEN: do_mq_open notes oflag, mode and the attributes before the
 * name is even read; SYSCALL_DEFINE4(mq_open) copied struct mq_attr in
 * first (EFAULT: no record). No attributes: zeros. */
static __always_inline void send_mq_open(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	struct fa_mq_open *r = aux_reserve(m, lost, AUDIT_MQ_OPEN, sizeof(*r));
	if (!r)
		return;
	__u64 attr = arg(s, 3);
	r->oflag = (__u32)arg(s, 1);
	r->mode = (__u16)arg(s, 2);   /* umode_t */
	if (attr) {
		if (bpf_probe_read_user(&r->attr, sizeof(r->attr), (void *)attr)) {
			aux_discard(r);
			return;
		}
	} else {
		__builtin_memset(&r->attr, 0, sizeof(r->attr));
	}
	aux_submit(r);
}

/* MQ_SENDRECV: noted after the timeout was copied in and found valid
 * (prepare_timeout: EFAULT, EINVAL before) and, for a send, the priority
 * checked (EINVAL before); a receive notes priority 0. No timeout: 0 0. */
static __always_inline void send_mq_sendrecv(struct subject *s, const struct fa_msg *m,
					     __u32 *lost, int send)
{
	__u32 prio = send ? (__u32)arg(s, 3) : 0;
	if (prio >= FA_MQ_PRIO_MAX)
		return;
	__s64 ts[2] = {};
	__u64 timeout = arg6(s, 4);
	if (timeout) {
		if (bpf_probe_read_user(ts, sizeof(ts), (void *)timeout))
			return;
		/* timespec64_valid */
		if (ts[0] < 0 || (__u64)ts[1] >= FA_NSEC_PER_SEC)
			return;
	}
	struct fa_mq_sendrecv *r = aux_reserve(m, lost, AUDIT_MQ_SENDRECV, sizeof(*r));
	if (!r)
		return;
	r->mqdes = (__s32)arg(s, 0);
	r->msg_prio = prio;
	r->msg_len = arg(s, 2);
	r->sec = ts[0];
	r->nsec = ts[1];
	aux_submit(r);
}

/* MQ_NOTIFY: do_mq_notify notes the descriptor and the signal number
 * first; the syscall copied the whole struct sigevent in before (EFAULT:
 * no record). No notification (deregistering): signal 0. */
static __always_inline void send_mq_notify(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	__s32 signo = 0;
	__u64 ev = arg(s, 1);
	if (ev) {
		/* The copy of all 64 bytes faults where the first or the last
		 * does (they span two pages at most); signo follows union sigval. */
		__u8 last;
		if (bpf_probe_read_user(&signo, sizeof(signo), (void *)(ev + 8)) ||
		    bpf_probe_read_user(&last, 1, (void *)ev) ||
		    bpf_probe_read_user(&last, 1, (void *)(ev + FA_SIGEVENT_SIZE - 1)))
			return;
	}
	struct fa_mq_notify *r = aux_reserve(m, lost, AUDIT_MQ_NOTIFY, sizeof(*r));
	if (!r)
		return;
	r->mqdes = (__s32)arg(s, 0);
	r->signo = signo;
	aux_submit(r);
}

/* mq_getsetattr's new attributes as the kernel copied them in, at entry:
 * the old attributes are copied out at the end, over them when the
 * caller gave one buffer for both. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fa_mq_entry);
} mq_entry SEC(".maps");

/* At mq_getsetattr's entry (its registers `regs`): keep the new
 * attributes, or that they could not be read. */
static __always_inline void save_mq_getsetattr(struct pt_regs *regs)
{
	__u64 attr = regs_arg(regs, 0, 1);
	if (!attr)
		return;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_mq_entry e = {};
	e.read = bpf_probe_read_user(&e.attr, sizeof(e.attr), (void *)attr) == 0;
	bpf_map_update_elem(&mq_entry, &tid, &e, BPF_ANY);
}

/* MQ_GETSETATTR: noted only when new attributes were given, copied in,
 * their flags valid (EINVAL before) and the descriptor a queue's (EBADF
 * before); nothing after the note fails but the copy of the old
 * attributes out (EFAULT). The attributes as read at entry; without an
 * entry (the hook attached during the call), from the caller's buffer. */
static __always_inline void send_mq_getsetattr(struct subject *s, const struct fa_msg *m,
					       __u32 *lost)
{
	long ret = s->ret;
	__u64 attr = arg(s, 1);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_mq_entry *e = bpf_map_lookup_elem(&mq_entry, &tid);
	if (!attr || (ret != 0 && ret != -EFAULT))
		goto out;
	struct fa_mq_getsetattr *r = aux_reserve(m, lost, AUDIT_MQ_GETSETATTR, sizeof(*r));
	if (!r)
		goto out;
	int unread;
	if (e) {
		unread = !e->read;
		r->attr = e->attr;
	} else {
		unread = bpf_probe_read_user(&r->attr, sizeof(r->attr), (void *)attr) != 0;
	}
	if (unread || (r->attr.flags & ~(__s64)FA_O_NONBLOCK)) {
		aux_discard(r);
		goto out;
	}
	r->mqdes = (__s32)arg(s, 0);
	r->pad = 0;
	aux_submit(r);
out:
	if (e && entry_args_consumable())
		bpf_map_delete_elem(&mq_entry, &tid);
}

/* The message queue record of the syscall of s, if it is one of them. */
static __always_inline void send_mq(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	__u32 nr = s->nr;
	if (s->compat || nr < FA_NR64_mq_open || nr > FA_NR64_mq_getsetattr || !mq_ran(s))
		return;
	if (nr == FA_NR64_mq_open)
		send_mq_open(s, m, lost);
	else if (nr == FA_NR64_mq_timedsend)
		send_mq_sendrecv(s, m, lost, 1);
	else if (nr == FA_NR64_mq_timedreceive)
		send_mq_sendrecv(s, m, lost, 0);
	else if (nr == FA_NR64_mq_notify)
		send_mq_notify(s, m, lost);
	else if (nr == FA_NR64_mq_getsetattr)
		send_mq_getsetattr(s, m, lost);
}

#endif
