/* SPDX-License-Identifier: GPL-2.0 */
/* Building the event user space turns into SYSCALL and PROCTITLE
 * records: what the kernel's audit_log_exit reads from the task. */
#ifndef FA_EVENT_BPF_H
#define FA_EVENT_BPF_H

#include "arch.bpf.h"
#include "maps.bpf.h"
#include "dentry.bpf.h"
#include "subject.bpf.h"
#include "proctitle.bpf.h"
#include "cgroup.bpf.h"

#define FA_SIGKILL 9 /* on every architecture */

/* Whether the task has a fatal signal pending: SIGKILL queued to it, as
 * it is for any signal whose default action kills the whole group. */
static __always_inline bool fatal_signal_pending_in(struct task_struct *task)
{
	unsigned long first = BPF_CORE_READ(task, pending.signal.sig[0]);
	return first & (1UL << (FA_SIGKILL - 1));
}

/* The command line as the kernel's get_cmdline reads it for
 * audit_log_proctitle: the first FA_PROCTITLE_LEN bytes of the argument
 * area. It reads through get_user_pages, which gives up before the first
 * page while the reader (the task itself) has a fatal signal pending: a
 * process killed before its syscall's record (`sleep 5 & kill $!` during
 * the exec) gets `proctitle="(null)"` from the kernel, and so here. */
static __always_inline void read_cmdline(struct task_struct *task, struct fa_event *ev)
{
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	ev->proctitle_len = 0;
	if (!mm || fatal_signal_pending_in(task))
		return;
	unsigned long start = BPF_CORE_READ(mm, arg_start);
	unsigned long end = BPF_CORE_READ(mm, arg_end);
	unsigned long len = end - start;
	if (end <= start)
		return;
	if (len > FA_PROCTITLE_LEN)
		len = FA_PROCTITLE_LEN;
	if (bpf_probe_read_user(ev->proctitle, len & (FA_PROCTITLE_LEN * 2 - 1) & 0xff, (void *)start) == 0)
		ev->proctitle_len = len;
}

/* PROCTITLE's command line: the one the task's first record showed
 * (proctitle.bpf.h), else read now. */
static __always_inline void read_proctitle(struct task_struct *task, struct fa_event *ev)
{
	long cached = cached_proctitle(task, ev->proctitle);
	if (cached >= 0) {
		ev->proctitle_len = cached;
		return;
	}
	read_cmdline(task, ev);
	cache_proctitle(task, ev->proctitle, ev->proctitle_len);
}

/* The credentials' ids in SYSCALL's (and URINGOP's) order: uid gid euid
 * suid fsuid egid sgid fsgid. */
static __always_inline void read_ids(struct fa_event *ev, const struct cred *c)
{
	ev->ids[0] = FA_GET(c, struct cred, uid.val);
	ev->ids[1] = FA_GET(c, struct cred, gid.val);
	ev->ids[2] = FA_GET(c, struct cred, euid.val);
	ev->ids[3] = FA_GET(c, struct cred, suid.val);
	ev->ids[4] = FA_GET(c, struct cred, fsuid.val);
	ev->ids[5] = FA_GET(c, struct cred, egid.val);
	ev->ids[6] = FA_GET(c, struct cred, sgid.val);
	ev->ids[7] = FA_GET(c, struct cred, fsgid.val);
}

struct exe_walk {
	struct walk_pos pos;
	char *buf;      /* a fa_exe_buf's bytes */
	__u32 at;       /* the path built so far is buf[at .. FA_EXE_MAX) */
	__u32 too_long; /* it cannot be built whole */
};

/* One component of the executable's path, put in front of the others. */
static long exe_walk_step(__u32 i, struct exe_walk *w)
{
	struct dentry *child = w->pos.d;
	enum walk_step s = dentry_up(&w->pos);
	if (s == WALK_MOUNT)
		return 0;
	if (s == WALK_ROOT)
		return 1;
	__u32 len = BPF_CORE_READ(child, d_name.len);
	/* A walk that cannot reach the root, a name longer than NAME_MAX or
	 * a path past FA_EXE_MAX bytes: no shorter path may stand for it. */
	if (s != WALK_PARENT || len == 0 || len > 255 || len + 1 > w->at) {
		w->too_long = 1;
		return 1;
	}
	w->at -= len;
	const unsigned char *name = FA_GET(child, struct dentry, d_name.name);
	if (bpf_probe_read_kernel(&w->buf[w->at & (FA_EXE_MAX - 1)], len & 0xff, name)) {
		w->too_long = 1;
		return 1;
	}
	w->at -= 1;
	w->buf[w->at & (FA_EXE_MAX - 1)] = '/';
	return 0;
}

/* The executable's path as d_path spells it, built in buf[*at ..
 * FA_EXE_MAX); returns FA_EV_EXE_DELETED when d_path would add
 * " (deleted)", FA_EV_EXE_TOO_LONG when it cannot be given whole. */
static __always_inline __u32 read_exe_path(struct file *f, char *buf, __u32 *at)
{
	*at = FA_EXE_MAX;
	if (!f)
		return 0;
	struct walk_pos start = {
		.d = FA_GET(f, struct file, f_path.dentry),
		.vm = FA_GET(f, struct file, f_path.mnt),
	};
	struct exe_walk w = { .pos = start, .buf = buf, .at = FA_EXE_MAX };
	/* Each step is one component or one mount crossing; a path of
	 * FA_EXE_MAX bytes has at most FA_EXE_MAX / 2 components. */
	bpf_loop(FA_EXE_MAX, exe_walk_step, &w, 0);
	if (w.too_long)
		return FA_EV_EXE_TOO_LONG;
	*at = w.at;
	return dentry_deleted(start.d) ? FA_EV_EXE_DELETED : 0;
}

/* Fill an event for the syscall of s, whose record carries rule key_rule
 * (all but its head, fa_msg, which emit() writes). */
static __always_inline void fill_event(struct fa_event *ev, struct subject *s, __u32 key_rule)
{
	struct task_struct *task = s->task;
	const struct cred *c = FA_GET(task, struct task_struct, cred);
	ev->ret = s->ret;
	for (int i = 0; i < 4; i++)
		ev->args[i] = record_arg(s, i);
	read_proctitle(task, ev);
	ev->arch = abi_arch(s->compat);
	ev->syscall = s->nr;
	ev->rule = key_rule;
	ev->pid = s->tgid;
	struct task_struct *parent = FA_GET(task, struct task_struct, real_parent);
	ev->ppid = FA_GET(parent, struct task_struct, tgid);
	ev->auid = FA_GET(task, struct task_struct, loginuid.val);
	ev->ses = FA_GET(task, struct task_struct, sessionid);
	ev->pers = FA_GET(task, struct task_struct, personality);
	ev->cgroup = task_cgroup_id(task);
	ev->flags = s->returned ? 0 : FA_EV_NO_RETURN;
	read_ids(ev, c);
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	struct signal_struct *sig = FA_GET(task, struct task_struct, signal);
	struct tty_struct *tty = FA_GET(sig, struct signal_struct, tty);
	if (tty)
		bpf_core_read_str(ev->tty, sizeof(ev->tty), &tty->name);
	else
		ev->tty[0] = 0;
}

#endif
