/* SPDX-License-Identifier: GPL-2.0 */
/* The small records audit_log_exit writes for particular syscalls,
 * read at the syscall's exit: SOCKADDR (sockaddr.bpf.h finds the
 * address), OBJ_PID, FD_PAIR (pipe, pipe2, socketpair: the
 * descriptors stored in the caller's array), MMAP (a file mapping's fd
 * and flags), OPENAT2 (the caller's struct open_how), CAPSET (the
 * caller's new capability sets), SOCKETCALL (ia32 socketcall's
 * arguments). */
#ifndef FA_SPECIAL_BPF_H
#define FA_SPECIAL_BPF_H

#include "maps.bpf.h"
#include "subject.bpf.h"
#include "sockaddr.bpf.h"
#include "execve.bpf.h"
#include "auxsample.bpf.h"
#include "lsm.bpf.h"

#define FA_MAP_ANONYMOUS 0x20

/* FD_PAIR: the two descriptors, from the array the kernel filled (set
 * after it stored them, so only on success). */
static __always_inline void send_fd_pair(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	__u32 nr = s->nr;
	int at = -1;
	if (s->compat) {
		if (nr == FA_NR32_pipe || nr == FA_NR32_pipe2)
			at = 0;
		else if (nr == FA_NR32_socketpair)
			at = 3;
	} else {
		if (nr == FA_NR64_pipe || nr == FA_NR64_pipe2)
			at = 0;
		else if (nr == FA_NR64_socketpair)
			at = 3;
	}
	if (at < 0 || !s->returned || s->ret != 0)
		return;
	__s32 fd[2];
	if (bpf_probe_read_user(fd, sizeof(fd), (void *)arg(s, at)))
		return;
	struct fa_fd_pair *r = aux_reserve(m, lost, AUDIT_FD_PAIR, sizeof(*r));
	if (!r)
		return;
	r->fd[0] = fd[0];
	r->fd[1] = fd[1];
	aux_submit(r);
}

/* MMAP: the kernel notes fd and flags of every mapping that is not
 * anonymous, before it looks the descriptor up (so failures too). */
static __always_inline void send_mmap(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	if (s->compat ? s->nr != FA_NR32_mmap2 : s->nr != FA_NR64_mmap)
		return;
	__u32 flags = (__u32)arg(s, 3);
	if (flags & FA_MAP_ANONYMOUS)
		return;
	struct pt_regs *regs = s->regs;
	__s32 fd = (__s32)regs_arg45_raw(regs, s->compat, 4);
	struct fa_mmap *r = aux_reserve(m, lost, AUDIT_MMAP, sizeof(*r));
	if (!r)
		return;
	r->fd = fd;
	r->flags = flags;
	aux_submit(r);
}

/* OPENAT2: struct open_how, noted once copied in (any later failure
 * keeps it). */
static __always_inline void send_openat2(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	if (s->compat ? s->nr != FA_NR32_openat2 : s->nr != FA_NR64_openat2)
		return;
	long ret = s->ret;
	__u64 size = arg(s, 3);
	if (ret == -EFAULT || ret == -E2BIG || size < 24)
		return;
	__u64 how[3];
	if (bpf_probe_read_user(how, sizeof(how), (void *)arg(s, 2)))
		return;
	struct fa_openat2 *r = aux_reserve(m, lost, AUDIT_OPENAT2, sizeof(*r));
	if (!r)
		return;
	r->flags = how[0];
	r->mode = how[1];
	r->resolve = how[2];
	aux_submit(r);
}

/* CAPSET: the new sets, noted just before they are committed (so only
 * on success), read from the credentials now in place. */
static __always_inline void send_capset(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	if (s->compat ? s->nr != FA_NR32_capset : s->nr != FA_NR64_capset)
		return;
	if (!s->returned || s->ret != 0)
		return;
	struct fa_capset *r = aux_reserve(m, lost, AUDIT_CAPSET, sizeof(*r));
	if (!r)
		return;
	struct task_struct *task = s->task;
	const struct cred *c = BPF_CORE_READ(task, cred);
	r->pid = s->tgid;
	r->pad = 0;
	read_caps(c, &r->caps);
	aux_submit(r);
}

/* SOCKADDR, when the syscall has an audited address. */
static __always_inline void send_sockaddr(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	__u32 len = 0;
	unsigned long addr = sockaddr_of(s, &len);
	if (!addr)
		return;
	struct fa_sockaddr *r = aux_reserve(m, lost, AUDIT_SOCKADDR, sizeof(*r));
	if (!r)
		return;
	__u64 n = len > FA_SOCKADDR_MAX ? FA_SOCKADDR_MAX : len;
	/* Keep the clamped copy as the size the verifier checks. */
	barrier_var(n);
	r->len = len;
	r->read = 0;
	if (n <= FA_SOCKADDR_MAX && bpf_probe_read_user(r->addr, n, (void *)addr) == 0)
		r->read = n;
	aux_submit(r);
}

/* SOCKETCALL: the ia32 socketcall's arguments, which it copies from the
 * caller's array (compat_sys_socketcall: as many 32-bit words as the
 * call takes, net/compat.c's nas[]) and notes before calling the
 * operation (audit_socketcall_compat): every outcome but EINVAL for a
 * call number out of range and EFAULT from that copy, which come first. */
static __always_inline void send_socketcall(struct subject *s, const struct fa_msg *m,
					    __u32 *lost)
{
	if (!s->compat || s->nr != FA_NR32_socketcall || !s->returned || s->ret == -ENOSYS)
		return;
	/* Words each call takes, SYS_SOCKET (1) to SYS_SENDMMSG (20). */
	static const __u8 nargs[21] = { 0, 3, 3, 3, 2, 3, 3, 3, 4, 4, 4,
					6, 6, 2, 5, 5, 3, 3, 4, 5, 4 };
	__u32 call = (__u32)arg(s, 0);
	if (call < 1 || call > 20)
		return;
	__u64 size = nargs[call] * sizeof(__u32);
	struct fa_socketcall *r = aux_reserve(m, lost, AUDIT_SOCKETCALL, sizeof(*r));
	if (!r)
		return;
	__builtin_memset(r->args, 0, sizeof(r->args));
	/* Checked and read in one register (the verifier follows that one). */
	barrier_var(size);
	if (size > sizeof(r->args)) {
		aux_discard(r);
		return;
	}
	barrier_var(size);
	if (bpf_probe_read_user(r->args, size, (void *)arg(s, 1))) {
		aux_discard(r);
		return;
	}
	r->nargs = size / sizeof(__u32);
	aux_submit(r);
}

/* OBJ_PID. The kernel notes each task a syscall signals (its
 * check_kill_permission, once the task is found and the signal number is
 * valid: sig 0 and refused signals too) when some exit rule names kill,
 * tkill or tgkill, and the task a ptrace attaches to, as the task is at
 * that moment (a child signalled while it execs shows the old comm).
 * fastaudit notes the target when the signal is generated
 * (signal:signal_generate, in the sender, right after the kernel's note),
 * and where none was generated (sig 0, a refused signal) finds the
 * target by the syscall's pid argument at the exit, with the
 * bpf_task_from_pid kfunc (Linux 6.2+), which tracepoint and tp_btf
 * programs may call (raw_tp ones may not: `task_lookup` is 0 then, and
 * no OBJ_PID is sent for those). Signals to a process group or to every
 * process (kill with pid <= 0), pidfd_send_signal and the ia32 ABI are
 * not followed. */
/* Weak: Linux 6.2+. Where the kernel lacks them, no OBJ_PID is sent. */
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;

#define FA_PTRACE_ATTACH 16
#define FA_PTRACE_SEIZE 0x4206

/* The pid argument naming the target of the syscall of s (0: none), and
 * the tgid it must belong to (tgkill, rt_tgsigqueueinfo; 0: any). */
static __always_inline __s32 obj_pid_target(struct subject *s, __s32 *tgid)
{
	__u32 nr = s->nr;
	long ret = s->ret;
	if (s->compat || !s->returned || ret == -ESRCH || ret == -EINVAL)
		return 0;
	if (nr == FA_NR64_ptrace) {
		__u64 req = arg(s, 0);
		return req == FA_PTRACE_ATTACH || req == FA_PTRACE_SEIZE ? (__s32)arg(s, 1) : 0;
	}
	if (!have_signal_rules)
		return 0;
	if (FA_SIGNAL_TO_FIRST_ARG64(nr))
		return (__s32)arg(s, 0);
	if (FA_SIGNAL_TO_THREAD64(nr)) {
		*tgid = (__s32)arg(s, 0);
		return (__s32)arg(s, 1);
	}
	return 0;
}

/* A signal syscall's target as its signal was generated, for the exit. */
struct signal_note {
	__u32 nr;        /* the syscall that sent it */
	__s32 tid;       /* the task it was sent to (its pid, not tgid) */
	struct fa_obj_pid obj;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct signal_note);
} signal_notes SEC(".maps");

/* Whether nr is a native syscall whose target OBJ_PID names. */
static __always_inline int is_signal_sender(__u32 nr)
{
	return FA_OBJ_PID_SENDER64(nr);
}

/* OBJ_PID's fields of task t, read now. */
static __always_inline void read_obj_pid(struct task_struct *t, struct fa_obj_pid *r)
{
	r->pid = BPF_CORE_READ(t, tgid);
	r->auid = BPF_CORE_READ(t, loginuid.val);
	r->uid = BPF_CORE_READ(t, real_cred, uid.val);
	r->ses = BPF_CORE_READ(t, sessionid);
	bpf_probe_read_kernel(r->comm, sizeof(r->comm), &t->comm);
	/* The target's objective label (security_task_getsecid_obj). */
	r->obj_len = read_lsm_label(BPF_CORE_READ(t, real_cred), r->obj);
}

/* signal:signal_generate (ctx: sig, info, task, group, result): in the
 * sender's native signal syscall, the task the signal goes to. */
static __always_inline int signal_sent_body(__u64 *ctx)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	if (cur->flags & PF_KTHREAD || current_compat(cur))
		return 0;
	__u32 nr = current_syscall_nr(cur);
	if (!is_signal_sender(nr))
		return 0;
	/* A sender no rule can record (Neo23x0 audits ptrace, not kill)
	 * needs no note: every signal it sends would pay a map update. */
	__u32 key = span_index(nr, 0);
	struct fa_span *span = bpf_map_lookup_elem(&spans, &key);
	if ((!span || !span->count) && !have_always_task)
		return 0;
	struct task_struct *t = (struct task_struct *)ctx[2];
	struct signal_note n = { .nr = nr, .tid = BPF_CORE_READ(t, pid) };
	read_obj_pid(t, &n.obj);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&signal_notes, &tid, &n, BPF_ANY);
	return 0;
}

/* OBJ_PID for the task the syscall signalled or attached to. */
static __always_inline void send_obj_pid(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	__s32 tgid = 0;
	__s32 pid = obj_pid_target(s, &tgid);
	if (pid <= 0)
		return;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct signal_note *n = bpf_map_lookup_elem(&signal_notes, &tid);
	if (n && n->nr == s->nr && n->tid == pid && (!tgid || n->obj.pid == (__u32)tgid)) {
		struct fa_obj_pid *r = aux_reserve(m, lost, AUDIT_OBJ_PID, sizeof(*r));
		if (r) {
			if (bpf_probe_read_kernel(r, sizeof(*r), &n->obj))
				aux_discard(r);
			else
				aux_submit(r);
		}
		bpf_map_delete_elem(&signal_notes, &tid);
		return;
	}
	if (!task_lookup || !bpf_ksym_exists(bpf_task_from_pid))
		return;
	struct task_struct *t = bpf_task_from_pid(pid);
	if (!t)
		return;
	if (!tgid || t->tgid == tgid) {
		struct fa_obj_pid *r = aux_reserve(m, lost, AUDIT_OBJ_PID, sizeof(*r));
		if (r) {
			read_obj_pid(t, r);
			aux_submit(r);
		}
	}
	bpf_task_release(t);
}

#endif
