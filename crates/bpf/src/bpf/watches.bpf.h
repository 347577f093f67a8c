/* SPDX-License-Identifier: GPL-2.0 */
/* File watches (-w, path=, dir=): which watched objects the current
 * syscall touched. Changes are noted as they happen (inode ctime
 * tracepoints), what a successful open or exec leaves behind is read at
 * exit, and a failed syscall's path arguments are matched by name. */
#ifndef FA_WATCHES_BPF_H
#define FA_WATCHES_BPF_H

#include "arch.bpf.h"
#include "maps.bpf.h"
#include "dentry.bpf.h"
#include "subject.bpf.h"
#include "hits.bpf.h"
#include "objects.bpf.h"
#include "pathnorm.bpf.h"

struct failed_args {
	struct fa_hits *h;
	struct task_struct *task;
	struct fa_path_args pa;
	__u64 args[4];
};

/* The directory a relative path argument starts from: the cwd, or the
 * directory open on dirfd. */
static __always_inline struct walk_pos path_base(struct task_struct *task, long dfd)
{
	struct walk_pos p = {};
	if (dfd == AT_FDCWD) {
		p = task_pwd(task);
	} else {
		struct file *file = fd_file(task, dfd);
		p.d = file ? FA_GET(file, struct file, f_path.dentry) : 0;
		p.vm = file ? FA_GET(file, struct file, f_path.mnt) : 0;
	}
	return p;
}

/* failed_step's name key, kept off its stack: failed_step's frame is on
 * the call chain down to fa_normalized_hits' loop callbacks, which kernels
 * before 6.13 bound at 512 bytes in all. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fa_name_key);
} failed_name_key SEC(".maps");

/* One path argument of a failed syscall, spelled as the watch tables
 * hold paths; a plain name is also looked up by its directory's identity
 * (which holds even where the directory's path cannot be spelled). */
static long failed_step(__u32 i, struct failed_args *f)
{
	struct fa_hits *h = f->h;
	if (!h || i >= f->pa.n || i >= 2)
		return 1;
	__u32 zero = 0;
	struct fa_path_key *buf = bpf_map_lookup_elem(&path_scratch, &zero);
	if (!buf)
		return 1;
	__builtin_memset(buf, 0, sizeof(*buf));
	__u32 slot = i;
	barrier_var(slot);
	slot &= 1;
	__u8 pi = f->pa.path[slot];
	__u8 di = f->pa.dirfd[slot];
	const void *upath = (const void *)f->args[pi & 3];
	long len = bpf_probe_read_user_str(buf->path, sizeof(buf->path), upath);
	if (len <= 1)
		return 0;
	if (buf->path[0] == '/') {
		fa_normalized_hits(h, (__u64)upath, 0, 0, 0);
		return 0;
	}
	long dfd = di == FA_NO_DIRFD ? AT_FDCWD : (int)f->args[di & 3];
	struct walk_pos base = path_base(f->task, dfd);
	if (!base.d || !base.vm)
		return 0;
	struct dentry *dir = base.d;   /* CO-RE reads need a plain local */
	fa_normalized_hits(h, (__u64)upath, as_number(dir), as_number(base.vm), 0);
	struct fa_name_key *k = bpf_map_lookup_elem(&failed_name_key, &zero);
	if (!k)
		return 0;
	__builtin_memset(k, 0, sizeof(*k));   /* the whole key is hashed */
	if (!name_key(k, BPF_CORE_READ(dir, d_inode), len - 1))
		return 0;
	barrier_var(len);   /* keep the mask: it is the verifier's bound */
	bpf_probe_read_kernel(k->name, (len - 1) & (FA_NAME_LEN - 1), buf->path);
	__u32 *id = bpf_map_lookup_elem(&watch_by_parent_name, k);
	if (id)
		hit_add(h, *id);
	return 0;
}

/* Whether the kernel's lookup found the object although the syscall
 * failed (EACCES, EPERM, EEXIST, ...): then it still names the object.
 * These errnos say the path itself did not resolve. */
static __always_inline int lookup_found(long err)
{
	return err != ENOENT && err != ENOTDIR && err != ENAMETOOLONG && err != ELOOP &&
	       err != EFAULT && err != EBADF;
}

/* A failed syscall changed nothing, but the kernel still names the object
 * when its lookup succeeded. */
static __always_inline void failed_names(struct subject *s, __u32 key, struct fa_hits *h)
{
	if (s->ret >= 0 || !lookup_found(-s->ret))
		return;
	struct fa_path_args *pa = bpf_map_lookup_elem(&path_args, &key);
	if (!pa || !pa->n)
		return;
	struct failed_args f = { .h = h, .task = s->task, .pa = *pa };
	for (int i = 0; i < 4; i++)
		f.args[i] = arg(s, i);
	bpf_loop(2, failed_step, &f, 0);
}

/* A successful exec also named the file it was given, which is not the
 * executable it left when that file was a script (or binfmt_misc's): the
 * kernel names the script too. Its inode is gone by the exit, so the name
 * saved at entry is matched, spelled as for a failed syscall. */
static __always_inline void exec_name_hits(struct subject *s, struct fa_hits *names)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_exec_name *en = bpf_map_lookup_elem(&exec_names, &tid);
	if (!en || !en->name[0])
		return;
	if (en->name[0] == '/') {
		fa_normalized_hits(names, as_number(en->name), 0, 0, 1);
		return;
	}
	int at = s->compat ? s->nr == FA_NR32_execveat : s->nr == FA_NR64_execveat;
	long dfd = at ? (int)arg(s, 0) : AT_FDCWD;
	struct walk_pos base = path_base(s->task, dfd);
	if (!base.d || !base.vm)
		return;
	struct dentry *dir = base.d;   /* CO-RE reads need a plain local */
	fa_normalized_hits(names, as_number(en->name), as_number(dir), as_number(base.vm), 1);
}

/* The file the current syscall's (span index key) descriptor argument
 * names, if it names one (path_args' fd0), into names. A global
 * function: inline in collect_names its branches multiplied the states
 * the rest of the walk is verified in (11k more instructions). */
__noinline int fa_fd_file_hit(__u32 key, struct fa_hits *names)
{
	struct fa_path_args *pa = bpf_map_lookup_elem(&path_args, &key);
	if (!pa || !pa->fd0 || !names)
		return 0;
	struct file *f = named_fd_file(bpf_get_current_task_btf(), pa, key >= FA_NR_SYSCALLS);
	if (f)
		note_dentry(names, FA_GET(f, struct file, f_path.dentry), FA_GET(f, struct file, f_path.mnt));
	return 0;
}

/* Objects a successful open or exec leaves behind: the opened file and
 * the new executable; and the file a descriptor argument names (fchmod,
 * fgetxattr, ...: a bad or O_PATH descriptor, EBADF, names none).
 * Changes to inodes were noted as they happened. */
static __always_inline void collect_names(struct subject *s, const __u32 *key, struct fa_hits *names)
{
	struct file *f = 0;
	struct task_struct *task = s->task;
	if (is_open(s->nr, s->compat) && s->ret >= 0) {
		f = fd_file(task, s->ret);
	} else if (is_exec(s->nr, s->compat) && s->ret == 0) {
		f = task_exe(task);
	} else if (s->ret != -EBADF) {
		fa_fd_file_hit(*key, names);
	}
	struct follow fl = { .h = names };
	if (f) {
		fl.opened = FA_GET(f, struct file, f_path.dentry);
		note_dentry(names, fl.opened, FA_GET(f, struct file, f_path.mnt));
	}
	if (f && is_exec(s->nr, s->compat))
		exec_name_hits(s, names);
	if (s->ret >= 0)
		bpf_loop(FA_MAX_MOVED + 1, follow_step, &fl, 0);
}

struct names_ctx {
	struct subject *s;
	__u32 tid;
	__u32 key;
};

static long names_step(__u32 i, struct names_ctx *c)
{
	struct fa_hits *h = bpf_map_lookup_elem(&hits, &c->tid);
	if (!h)
		return 1;
	collect_names(c->s, &c->key, h);
	failed_names(c->s, c->key, h);
	return 1;
}

/* Everything the syscall touched, into thread tid's hits. In a callback
 * of its own: its many paths then do not multiply the states the rules
 * are verified in. */
static __always_inline void gather_hits(struct subject *s, __u32 key, __u32 tid)
{
	struct names_ctx nc = { .s = s, .tid = tid, .key = key };
	bpf_loop(1, names_step, &nc, 0);
}

/* Take (and consume) what the thread's current syscall (span index key)
 * changed; a fresh entry when the syscall's rules test names. */
static __always_inline struct fa_hits *take_hits(__u32 tid, __u32 key, int wanted)
{
	struct fa_hits *h = bpf_map_lookup_elem(&hits, &tid);
	if (!h && wanted) {
		struct fa_hits z = {};
		h = lookup_or_try_init(&hits, &tid, &z);
	}
	if (!h)
		return 0;
	if (h->key != key)
		hits_clear(h);   /* left by a syscall nobody judged: not this one's */
	h->key = ~0u;
	return h;
}

/* A watched inode's ctime changes: it is being modified (chmod, chown,
 * xattrs, truncate, link, unlink, rename, create in a directory). Note it
 * for the current thread's syscall, to be judged at its exit. */
static __always_inline int on_ctime(struct inode *inode)
{
	__u64 id = bpf_get_current_pid_tgid();
	if ((id >> 32) == self_tgid || !inode)
		return 0;
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tflags = BPF_CORE_READ(task, flags);
	if (tflags & PF_KTHREAD)
		return 0;
	/* io_uring threads make no syscalls: their notes are the requests'. */
	if (tflags & FA_PF_IO_WORKER) {
		if (have_uring_objs)
			objs_note_uring(task, inode);
		return 0;
	}
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u32 compat = task_compat(task);
	if (names_nothing(regs, (__u32)regs_syscall_nr(regs), compat))
		return 0;
	objs_note_changed(task, inode);
	if (!have_watches)
		return 0;
	struct fa_hits local = {};
	struct hlist_node *alias = BPF_CORE_READ(inode, i_dentry.first);
	if (alias) {
		struct dentry *d = alias_dentry(alias);
		note_dentry(&local, d, 0);
		struct inode *pi = BPF_CORE_READ(d, d_parent, d_inode);
		struct fa_inode_key pk = inode_key(pi);
		struct fa_watch *pw = pi ? bpf_map_lookup_elem(&watched, &pk) : 0;
		if (pw && pw->parent)
			local.moved[0] = (__u64)d;
	} else {
		note_inode(&local, inode, 1);
	}
	if (!local.count && !local.moved[0])
		return 0;
	long nr = regs_syscall_nr(regs);
	if (nr < 0 || nr >= FA_NR_SYSCALLS)
		return 0;
	__u32 key = span_index(nr, compat);
	__u32 tid = (__u32)id;
	struct fa_hits *h = bpf_map_lookup_elem(&hits, &tid);
	if (!h || h->key != key) {
		local.key = key;
		bpf_map_update_elem(&hits, &tid, &local, BPF_ANY);
		return 0;
	}
	for (int j = 0; j < FA_MAX_HITS; j++) {
		if (j >= local.count)
			break;
		hit_add(h, local.id[j]);
	}
	if (local.moved[0]) {
		if (!h->moved[0])
			h->moved[0] = local.moved[0];
		else if (!h->moved[1] && h->moved[0] != local.moved[0])
			h->moved[1] = local.moved[0];
	}
	return 0;
}

#endif
