/* SPDX-License-Identifier: GPL-2.0 */
/* The PATH and CWD data of an event, sent before it (emit_aux): the
 * working directory spelled at exit, the path arguments read as strings
 * at exit (an exec's at entry: the old program's memory is gone at
 * exit), and the objects objects.bpf.h collected. User space builds the
 * CWD and PATH records from them. */
#ifndef FA_PATHS_BPF_H
#define FA_PATHS_BPF_H

#include "arch.bpf.h"
#include "maps.bpf.h"
#include "dentry.bpf.h"
#include "subject.bpf.h"
#include "objects.bpf.h"
#include "auxsample.bpf.h"

/* The working directory spelled leaf first from the end of buf (as
 * d_path builds it); state off the stack, as the normalizer's. */
struct cwd_build {
	char buf[2 * FA_NAME_MAX];   /* the path ends at FA_NAME_MAX; the rest is slack for the verifier */
	struct walk_pos pos;
	__u32 at;
	__u32 ok;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cwd_build);
} cwd_scratch SEC(".maps");

struct cwd_ref {
	struct cwd_build *c;
};

/* One component of the working directory, prepended. */
static long cwd_step(__u32 i, struct cwd_ref *r)
{
	struct cwd_build *c = r->c;
	if (!c)
		return 1;
	struct dentry *child;
	long next = spell_step(&c->pos, &child, &c->ok);
	if (next != SPELL_COMPONENT)
		return next;
	__u32 len = BPF_CORE_READ(child, d_name.len);
	__u32 at = c->at;
	if (len == 0 || len + 1 > at)
		return 1;   /* longer than PATH_MAX: not spelled */
	at -= len;
	barrier_var(at);
	bpf_probe_read_kernel(&c->buf[at & (FA_NAME_MAX - 1)], len & (FA_NAME_MAX - 1),
			      FA_GET(child, struct dentry, d_name.name));
	at -= 1;
	c->buf[at & (FA_NAME_MAX - 1)] = '/';
	c->at = at;
	return 0;
}

/* An auxiliary name sample being built: head and payload, sent with
 * only the bytes the name uses (a path is mostly far below PATH_MAX, and
 * a reservation would take all of it from the ring). */
struct name_out {
	struct fa_aux_head head;
	struct fa_aux_name body;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct name_out);
} name_scratch SEC(".maps");

static __always_inline struct name_out *name_out_get(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&name_scratch, &zero);
}

/* Send o (rec_type `type`, its body's name o->body.len bytes long) under
 * the event head m; as aux_reserve, a full ring counts and marks the
 * event. */
static __always_inline void name_output(const struct fa_msg *m, __u32 *lost, __u32 type,
					struct name_out *o)
{
	__u32 len = o->body.len;
	if (len > FA_NAME_MAX)
		len = FA_NAME_MAX;
	__u32 payload = offsetof(struct fa_aux_name, name) + len;
	o->head.msg = *m;
	o->head.msg.kind = FA_MSG_AUX;
	o->head.rec_type = type;
	o->head.len = payload;
	__u64 size = sizeof(o->head) + payload;
	if (size > sizeof(*o))
		size = sizeof(*o);
	if (bpf_ringbuf_output(&events, o, size, BPF_RB_NO_WAKEUP)) {
		count(FA_STAT_AUX_LOST);
		*lost = FA_EV_AUX_LOST;
	}
}

/* Spell the directory at (d, vm) as d_path does into o's name and
 * length; 0 when it cannot be (deeper than the walk, or unreachable). */
static __always_inline int spell_dir(struct dentry *d, struct vfsmount *vm, struct name_out *o)
{
	__u32 zero = 0;
	struct cwd_build *c = bpf_map_lookup_elem(&cwd_scratch, &zero);
	if (!c || !o || !d || !vm)
		return 0;
	c->pos.d = d;
	c->pos.vm = vm;
	c->at = FA_NAME_MAX;
	c->ok = 0;
	struct cwd_ref r = { .c = c };
	bpf_loop(FA_NAME_MAX / 2, cwd_step, &r, 0);
	if (!c->ok)
		return 0;
	__u32 at = c->at;
	__u32 len = FA_NAME_MAX - at;
	o->body.len = len;
	if (len == 0) {
		o->body.len = 1;
		o->body.name[0] = '/';
	} else {
		barrier_var(at);
		bpf_probe_read_kernel(o->body.name, len & (FA_NAME_MAX - 1), &c->buf[at & (FA_NAME_MAX - 1)]);
	}
	return 1;
}

/* Send the directory at `at` as aux record `kind` with `index`: the
 * working directory (FA_AUX_CWD; index 1 when it was removed, for
 * " (deleted)"), or the directory a dirfd-relative path argument starts
 * from (FA_AUX_NAME, FA_NAME_BASE + argument). */
static __always_inline void send_dir(struct walk_pos at, __u32 kind, __u32 index, const struct fa_msg *m,
				     __u32 *lost)
{
	struct name_out *o = name_out_get();
	if (!o || !spell_dir(at.d, at.vm, o))
		return;
	o->body.index = index;
	name_output(m, lost, kind, o);
}

/* Per thread in a chdir: the working directory it had at entry, which
 * the kernel's CWD record shows (its name lookup took it); entries are
 * taken at the exit. Allocated as used: most threads never chdir. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FA_EXEC_NAMES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct fa_aux_name);
} chdir_cwd SEC(".maps");

/* At a chdir's entry: keep the working directory, spelled. */
static __always_inline void save_chdir_cwd(struct task_struct *task)
{
	struct name_out *o = name_out_get();
	struct walk_pos pwd = task_pwd(task);
	if (!o || !spell_dir(pwd.d, pwd.vm, o))
		return;
	o->body.index = dentry_deleted(pwd.d);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&chdir_cwd, &tid, &o->body, BPF_ANY);
}

/* Send the working directory: a chdir's as it was at its entry. */
static __always_inline void send_cwd(struct task_struct *task, const struct fa_msg *m, __u32 *lost)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_aux_name *saved = bpf_map_lookup_elem(&chdir_cwd, &tid);
	if (saved) {
		struct name_out *o = name_out_get();
		if (o) {
			bpf_probe_read_kernel(&o->body, sizeof(o->body), saved);
			name_output(m, lost, FA_AUX_CWD, o);
		}
		bpf_map_delete_elem(&chdir_cwd, &tid);
		return;
	}
	struct walk_pos pwd = task_pwd(task);
	send_dir(pwd, FA_AUX_CWD, dentry_deleted(pwd.d), m, lost);
}

/* A path argument with a dirfd: its place among the arguments (0 or
 * 1), its user address and its dirfd argument. */
struct path_arg {
	__u64 addr;
	long dfd;
	__u32 i;
};

/* Send the directory path argument p is relative to, when it is
 * relative to an open directory rather than the working directory:
 * user space resolves a failed syscall's names against it (the task's
 * fd may be gone by then). */
static __always_inline void send_base(struct task_struct *task, struct path_arg p, const struct fa_msg *m,
				      __u32 *lost)
{
	__u64 addr = p.addr;
	long dfd = p.dfd;
	char first = 0;
	if (dfd == AT_FDCWD || !addr || bpf_probe_read_user(&first, 1, (const void *)addr) || first == '/')
		return;
	struct file *f = fd_file(task, dfd);
	if (!f)
		return;
	struct walk_pos at = {
		.d = BPF_CORE_READ(f, f_path.dentry),
		.vm = BPF_CORE_READ(f, f_path.mnt),
	};
	send_dir(at, FA_AUX_NAME, FA_NAME_BASE + p.i, m, lost);
}

/* Send a name as `index`: from user memory, or (an exec's) from the
 * copy taken at entry. */
static __always_inline void send_name_from(const struct fa_msg *m, __u32 *lost, __u32 index,
					   const void *user, const void *kernel)
{
	struct name_out *o = name_out_get();
	if (!o)
		return;
	long len = kernel ? bpf_probe_read_kernel_str(o->body.name, sizeof(o->body.name), kernel)
			  : bpf_probe_read_user_str(o->body.name, sizeof(o->body.name), user);
	/* An empty name (glibc's fstat: newfstatat(fd, "", AT_EMPTY_PATH))
	 * reads as 0 bytes on Linux 6.1, not as its NUL: still a name there. */
	char first = 1;
	if (len <= 0 && user && !bpf_probe_read_user(&first, 1, user) && !first) {
		o->body.name[0] = 0;
		len = 1;
	}
	if (len <= 0)
		return;
	o->body.index = index;
	o->body.len = len - 1;
	name_output(m, lost, FA_AUX_NAME, o);
}

/* Send path argument i, at user address `addr` (an exec's file name:
 * the copy taken before its old memory went; with none, a failed exec's
 * own, still there; `addr` 0 for a successful one). */
static __always_inline void send_name(__u32 exec, const struct fa_msg *m, __u32 *lost, __u32 i,
				      __u64 addr)
{
	if (exec) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct fa_exec_name *en = bpf_map_lookup_elem(&exec_names, &tid);
		if (en) {
			send_name_from(m, lost, i, 0, en->name);
			bpf_map_delete_elem(&exec_names, &tid);
			return;
		}
		/* A failed exec with nothing saved (an ia32 one fails before
		 * sched_prepare_exec, and no entry hook saw it): its memory is
		 * the caller's still. */
		if (!addr)
			return;
	}
	send_name_from(m, lost, i, (const void *)addr, 0);
}

/* The PATH and CWD data of the current syscall (span index key; its
 * event's stamp; the user addresses of its path arguments): the working
 * directory, the names (and a symlink's target, which the kernel names
 * too, as index 2), the objects. Returns FA_EV_AUX_LOST if one found no
 * room. A global function of scalars: the verifier checks it once,
 * alone, not in every state of its caller (which is why the choices
 * below are made here, not there). */
__noinline int fa_emit_paths(__u32 key, __u64 stamp, __u64 path0, __u64 path1)
{
	__u32 lost = 0;
	struct fa_path_args *pa = bpf_map_lookup_elem(&path_args, &key);
	if (!names_objects(pa))
		return 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.stamp = stamp,
	};
	__u32 compat = key >= FA_NR_SYSCALLS;
	__u32 nr = compat ? key - FA_NR_SYSCALLS : key;
	__u32 exec = is_exec(nr, compat);
	struct task_struct *task = bpf_get_current_task_btf();
	send_cwd(task, &m, &lost);
	if (pa->n)
		send_name(exec, &m, &lost, 0, path0);
	if (pa->n > 1)
		send_name(exec, &m, &lost, 1, path1);
	/* The dirfd arguments, from the registers (a successful exec's are
	 * gone, but its names are not sent from user memory: path0 is 0). */
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	/* A message queue's name: no path (watches never see it). */
	if (pa->fd0 == FA_MQ_NAME)
		send_name_from(&m, &lost, 0, (const void *)regs_arg(regs, compat, 0), 0);
	__u8 di0 = pa->dirfd[0], di1 = pa->dirfd[1];
	if (pa->n && di0 != FA_NO_DIRFD)
		send_base(task, (struct path_arg){ path0, (int)regs_arg(regs, compat, di0 & 3), 0 }, &m, &lost);
	if (pa->n > 1 && di1 != FA_NO_DIRFD)
		send_base(task, (struct path_arg){ path1, (int)regs_arg(regs, compat, di1 & 3), 1 }, &m, &lost);
	if (compat ? nr == FA_NR32_symlink || nr == FA_NR32_symlinkat
		   : nr == FA_NR64_symlink || nr == FA_NR64_symlinkat)
		send_name_from(&m, &lost, 2, (const void *)regs_arg(regs, compat, 0), 0);
	__u32 tid = m.tid;
	struct fa_objs *h = bpf_map_lookup_elem(&objs, &tid);
	if (!h || h->owner != key)
		return lost;
	struct fa_objs *p = aux_reserve(&m, &lost, FA_AUX_OBJS, sizeof(*p));
	if (!p)
		return lost;
	bpf_probe_read_kernel(p, sizeof(*p), h);
	aux_submit(p);
	return lost;
}

/* Whether the syscall of s is a native connect or bind to a named
 * AF_UNIX socket: the kernel looks its path up (unix_find_bsd,
 * unix_bind_bsd), naming it with the working directory; user space
 * builds the PATH items from the SOCKADDR record. Abstract names (a
 * leading NUL) are no path. */
static __always_inline int unix_path_lookup(struct subject *s)
{
	if (s->compat || (s->nr != FA_NR64_connect && s->nr != FA_NR64_bind) || arg(s, 2) < 3)
		return 0;
	__u8 head[3] = {};
	if (bpf_probe_read_user(head, sizeof(head), (const void *)arg(s, 1)))
		return 0;
	return head[0] == 1 /* AF_UNIX */ && head[1] == 0 && head[2] != 0;
}

/* FA_AUX_STAT with len bytes of the stat buffer at user address buf. */
static __always_inline void send_statbuf_at(const struct fa_msg *m, __u32 *lost, __u64 buf,
					    __u32 statx, __u32 len)
{
	struct fa_aux_stat *r = aux_reserve(m, lost, FA_AUX_STAT, sizeof(*r));
	if (!r)
		return;
	r->statx = statx;
	r->len = 0;
	if (!bpf_probe_read_user(r->data, len, (const void *)buf))
		r->len = len;
	aux_submit(r);
}

/* FA_AUX_STAT for a successful stat of s: the buffer it filled (struct
 * stat: its first 48 bytes hold dev, ino, mode, uid, gid, rdev; struct
 * statx). Of a compat ABI's calls only statx: struct statx has one
 * layout on every ABI, its compat struct stat layouts differ (not read).
 * Each case reads with a constant length of its own, which leaves the
 * verifier no merged length to track. */
static __always_inline void send_statbuf(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	if (s->ret < 0)
		return;
	struct pt_regs *regs = s->regs; /* CO-RE reads need a plain local */
	if (s->compat) {
		/* argument 4, a 32-bit pointer */
		if (s->nr == FA_NR32_statx)
			send_statbuf_at(m, lost, (__u32)regs_arg45_raw(regs, 1, 4), 1, FA_STATBUF_MAX);
		return;
	}
	switch (s->nr) {
	case FA_NR64_stat:
	case FA_NR64_lstat:
		send_statbuf_at(m, lost, arg(s, 1), 0, 48);
		return;
	case FA_NR64_newfstatat:
		send_statbuf_at(m, lost, arg(s, 2), 0, 48);
		return;
	case FA_NR64_statx:
		send_statbuf_at(m, lost, regs_arg45_raw(regs, 0, 4), 1, FA_STATBUF_MAX);
		return;
	}
}

/* emit_aux's sender: the addresses fa_emit_paths reads names from. */
static __always_inline void emit_paths(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	if (unix_path_lookup(s)) {
		send_cwd(s->task, m, lost);
		return;
	}
	if (!have_objs)
		return;
	__u32 key = span_index(s->nr, s->compat);
	struct fa_path_args *pa = bpf_map_lookup_elem(&path_args, &key);
	if (!names_objects(pa))
		return;
	__u64 p0 = arg(s, pa->path[0] & 3), p1 = arg(s, pa->path[1] & 3);
	/* A successful exec's old memory is gone: only the copy saved before. */
	if (is_exec(s->nr, s->compat) && s->ret >= 0)
		p0 = p1 = 0;
	*lost |= fa_emit_paths(key, m->stamp, p0, p1);
	send_statbuf(s, m, lost);
}

/* At an exec's entry: keep its file name (the old program's memory is
 * gone at exit). */
static __always_inline void save_exec_name(struct pt_regs *regs, __u32 compat, __u32 nr)
{
	if (!have_objs)
		return;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	/* Any value of the right size starts the entry: the name is written over. */
	struct fa_exec_name *en = bpf_map_lookup_elem(&exec_names, &tid);
	if (!en) {
		struct name_out *o = name_out_get();
		if (!o)
			return;
		bpf_map_update_elem(&exec_names, &tid, o->body.name, BPF_ANY);
		en = bpf_map_lookup_elem(&exec_names, &tid);
		if (!en)
			return;
	}
	int ai = (compat ? nr == FA_NR32_execveat : nr == FA_NR64_execveat) ? 1 : 0;
	if (bpf_probe_read_user_str(en->name, sizeof(en->name), (const void *)regs_arg(regs, compat, ai)) < 0)
		en->name[0] = 0;
}

#endif
