/* SPDX-License-Identifier: GPL-2.0 */
/* The objects a syscall names (the kernel's audit_names), for the PATH
 * and CWD records and for the rule fields that judge them (obj_uid,
 * obj_gid, inode, filetype, devmajor, devminor, -C with obj_*). No hook
 * sees the kernel's path lookup, so objects come from what can be seen:
 * inodes whose ctime changes during the syscall (noted as it happens,
 * with their attributes at that moment), the file an open returned (and
 * its directory when the open created it), the executable an exec left
 * and its ELF interpreter; paths.bpf.h sends them with the path arguments and the working
 * directory; user space builds the records. */
#ifndef FA_OBJECTS_BPF_H
#define FA_OBJECTS_BPF_H

#include "arch.bpf.h"
#include "maps.bpf.h"
#include "dentry.bpf.h"
#include "subject.bpf.h"

/* Whether objects are collected: some rule can record a native syscall
 * that names paths (engine: Plan::names_paths). */
const volatile __u32 have_objs = 0;
/* Whether io-wq workers' inode changes are noted: io_uring ops are
 * audited, and an op a worker ran has PATH records of its own. */
const volatile __u32 have_uring_objs = 0;
/* file->f_mode's FMODE_BACKING on this kernel (0: no backing files). */
const volatile __u32 fmode_backing = 0;

#define FA_FMODE_CREATED 0x100000   /* file->f_mode: the open created it */
#define FA_MINORBITS 20             /* kernel dev_t: major << 20 | minor */

/* Per thread: the objects its current syscall named so far. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fa_objs);
} objs SEC(".maps");

/* A zeroed struct fa_objs to start a thread's entry from (too big for
 * the stack). Never written. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fa_objs);
} objs_zero SEC(".maps");

/* Per thread: the file name an exec was given, read at its entry. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_EXEC_NAMES);
	__type(key, __u32);
	__type(value, struct fa_exec_name);
} exec_names SEC(".maps");

/* The attributes of inode (and, with a dentry, its name and parent). */
static __always_inline void obj_fill(struct fa_obj *o, struct inode *inode, struct dentry *d)
{
	struct fa_inode_key k = inode_key(inode);
	o->ino = k.ino;
	o->dev = k.dev;
	o->mode = FA_GET(inode, struct inode, i_mode);
	o->uid = FA_GET(inode, struct inode, i_uid.val);
	o->gid = FA_GET(inode, struct inode, i_gid.val);
	o->rdev = FA_GET(inode, struct inode, i_rdev);
	if (!d)
		return;
	struct inode *pi = dentry_inode(FA_GET(d, struct dentry, d_parent));
	if (pi) {
		struct fa_inode_key pk = inode_key(pi);
		o->parent_ino = pk.ino;
		o->parent_dev = pk.dev;
	}
	o->name_len = FA_GET(d, struct dentry, d_name.len);
	bpf_probe_read_kernel_str(o->name, sizeof(o->name), FA_GET(d, struct dentry, d_name.name));
	o->flags |= FA_OBJ_ALIAS;
}


/* The thread's entry, started afresh for span index key if it held
 * another syscall's objects. */
static __always_inline struct fa_objs *objs_for(__u32 tid, __u32 key)
{
	struct fa_objs *h = bpf_map_lookup_elem(&objs, &tid);
	if (!h) {
		__u32 zero = 0;
		struct fa_objs *z = bpf_map_lookup_elem(&objs_zero, &zero);
		if (!z)
			return 0;
		h = lookup_or_try_init(&objs, &tid, z);
		if (!h)
			return 0;
	}
	if (h->key != key) {
		h->key = key;
		h->count = 0;
		h->unknown = 0;
		for (int j = 0; j < FA_MAX_OBJS; j++)
			h->fresh[j] = 0;
	}
	return h;
}


#define FA_AT_BASE 7          /* auxv: where the ELF interpreter is mapped */
#define FA_AUXV_WORDS 56       /* mm_struct.saved_auxv */

/* The new program's auxiliary vector, copied to look for AT_BASE. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, unsigned long[FA_AUXV_WORDS]);
} auxv_scratch SEC(".maps");

struct vma_file {
	struct file *file;
};

static long vma_file_of(struct task_struct *task, struct vm_area_struct *vma, struct vma_file *c)
{
	c->file = BPF_CORE_READ(vma, vm_file);
	return 0;
}


/* Add the inode at address `inode` (its dentry at `dentry`, or 0) with
 * `flags` to the current thread's objects of span index key, once: an
 * inode seen again keeps its first attributes (those before the syscall
 * changed it further) and gains the flags and, if it had none, the
 * dentry. Global functions of scalars (here and below): the verifier
 * checks each once, alone, not in every state of their callers. */
__noinline int fa_objs_add(__u32 key, __u64 inode_addr, __u64 dentry_addr, __u32 flags)
{
	struct inode *inode = (struct inode *)inode_addr;
	struct dentry *d = (struct dentry *)dentry_addr;
	struct fa_objs *h = objs_for((__u32)bpf_get_current_pid_tgid(), key);
	if (!h || !inode)
		return 0;
	struct fa_inode_key ik = inode_key(inode);
	__u64 ino = ik.ino;
	__u32 dev = ik.dev;
	for (int j = 0; j < FA_MAX_OBJS; j++) {
		if (j >= h->count)
			break;
		struct fa_obj *o = &h->o[j];
		if (o->ino == ino && o->dev == dev) {
			o->flags |= flags;
			if (d && !(o->flags & FA_OBJ_ALIAS))
				obj_fill(o, inode, d);
			return 0;
		}
	}
	__u32 n = h->count;
	if (n >= FA_MAX_OBJS)
		return 0;
	barrier_var(n);   /* keep the mask: it is the verifier's bound */
	n &= FA_MAX_OBJS - 1;
	struct fa_obj *o = &h->o[n];
	o->flags = flags;
	o->parent_ino = 0;
	o->parent_dev = 0;
	o->name_len = 0;
	o->name[0] = 0;
	obj_fill(o, inode, d);
	h->fresh[n] = d ? 0 : inode_addr;
	h->count = n + 1;
	return 0;
}

/* Note inode (its first dentry, if it has one yet) as changed, among
 * the current thread's objects for key. */
static __always_inline void objs_note(struct inode *inode, __u32 key)
{
	struct hlist_node *alias = BPF_CORE_READ(inode, i_dentry.first);
	struct dentry *d = alias_dentry(alias);
	/* The tracepoint's inode is a typed pointer; fa_objs_add takes
	 * addresses as plain numbers (read through the stack). */
	__u64 ia = 0;
	bpf_probe_read_kernel(&ia, sizeof(ia), &inode);
	fa_objs_add(key, ia, (__u64)d, FA_OBJ_CHANGED);
}

/* An inode's ctime changes inside the current syscall (chmod, chown,
 * link, unlink, rename, create, truncate, setxattr): note it, with its
 * attributes now, if the syscall has candidate rules. */
static __always_inline void objs_note_changed(struct task_struct *task, struct inode *inode)
{
	if (!have_objs)
		return;
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	long nr = regs_syscall_nr(regs);
	if (nr < 0 || nr >= FA_NR_SYSCALLS)
		return;
	__u32 key = span_index(nr, task_compat(task));
	struct fa_span *span = bpf_map_lookup_elem(&spans, &key);
	if (!span || !span->count)
		return;
	objs_note(inode, key);
}

/* The objects key of the io_uring request whose io_wq_work is at
 * `work`, of op `op`: above every span index, and another for each
 * request address and op. Requests are recycled, so the notes are also
 * dropped when a worker's request ends (uring_worker_objs_done). */
static __always_inline __u32 uring_work_key(__u64 work, __u32 op)
{
	return 0x80000000u | (((__u32)(work >> 3) ^ (op << 22)) & 0x7fffffffu);
}

/* The objects key of the request the current io-wq worker runs (0: the
 * task is no io-wq worker, e.g. the SQPOLL thread, or runs none). */
static __always_inline __u32 io_worker_key(struct task_struct *task)
{
	struct io_worker *w = (struct io_worker *)BPF_CORE_READ(task, worker_private);
	if (!w || BPF_CORE_READ(w, task) != task)
		return 0;
	struct io_wq_work *work = BPF_CORE_READ(w, cur_work);
	if (!work)
		return 0;
	struct io_kiocb *req = (void *)work - bpf_core_field_offset(struct io_kiocb, work);
	return uring_work_key((__u64)work, BPF_CORE_READ(req, opcode));
}

/* A request the current io-wq worker ran ended: its notes are no later
 * request's (a recycled request at the same address, say). */
static __always_inline void uring_worker_objs_done(__u32 key)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_objs *h = bpf_map_lookup_elem(&objs, &tid);
	if (h && (h->key == key || h->owner == key)) {
		h->key = ~0u;
		h->owner = ~0u;
	}
}

/* The request a SQPOLL thread runs, by its tid: set when the thread
 * prepares a request whose names it sends (its objects key and event
 * stamp), taken when the attempt ends or the next request is prepared. */
struct uring_sq_run {
	__u32 key;
	__u32 pad;
	__u64 stamp;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct uring_sq_run);
} uring_sq_current SEC(".maps");

/* An inode changes in an io_uring thread: an io-wq worker's notes are
 * the objects of the request it runs (it makes no syscalls), a SQPOLL
 * thread's those of the request it prepared last. */
static __always_inline void objs_note_uring(struct task_struct *task, struct inode *inode)
{
	__u32 key = io_worker_key(task);
	if (!key) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct uring_sq_run *run = bpf_map_lookup_elem(&uring_sq_current, &tid);
		key = run ? run->key : 0;
	}
	if (key)
		objs_note(inode, key);
}

/* The dentry a mapped file was opened by, which the kernel's PATH
 * records name. On overlayfs (container and live-system roots) a mapping
 * holds the file underneath: on Linux 6.1 one whose f_path is still the
 * overlay's, on 6.6+ a backing file, whose f_path is the real file's and
 * user_path the overlay's (FMODE_BACKING's bit moved in 6.14: user space
 * gives it, 0 before 6.6). */
static __always_inline struct dentry *user_dentry(struct file *f)
{
	if (fmode_backing && bpf_core_type_exists(struct backing_file) &&
	    (BPF_CORE_READ(f, f_mode) & fmode_backing)) {
		struct backing_file *bf = (void *)f;
		return BPF_CORE_READ(bf, user_path.dentry);
	}
	return BPF_CORE_READ(f, f_path.dentry);
}

/* The ELF interpreter the current task's exec mapped (the kernel names
 * it after the executable): the file of the mapping at the new
 * program's AT_BASE. */
__noinline int fa_objs_add_loader(__u32 key)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 zero = 0;
	unsigned long *auxv = bpf_map_lookup_elem(&auxv_scratch, &zero);
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	if (!auxv || !mm)
		return 0;
	if (bpf_probe_read_kernel(auxv, FA_AUXV_WORDS * sizeof(unsigned long), &mm->saved_auxv))
		return 0;
	unsigned long base = 0;
	for (int i = 0; i + 1 < FA_AUXV_WORDS; i += 2) {
		if (auxv[i] == 0)
			break;
		if (auxv[i] == FA_AT_BASE) {
			base = auxv[i + 1];
			break;
		}
	}
	if (!base)
		return 0;   /* a static program: no interpreter */
	struct vma_file c = {};
	if (bpf_find_vma(task, base, vma_file_of, &c, 0) || !c.file)
		return 0;
	struct dentry *d = user_dentry(c.file);
	return fa_objs_add(key, (__u64)BPF_CORE_READ(d, d_inode), (__u64)d, FA_OBJ_LOADER);
}

/* Close the current thread's list for span index key: new inodes read
 * again (their attributes as the syscall left them), `unknown` names
 * without an inode, and the list marked as the syscall's. */
__noinline int fa_objs_close(__u32 key, __u32 unknown)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_objs *h = bpf_map_lookup_elem(&objs, &tid);
	if (!h)
		return 0;
	for (int j = 0; j < FA_MAX_OBJS; j++) {
		if (j >= h->count)
			break;
		struct inode *fresh = (struct inode *)h->fresh[j];
		if (fresh) {
			struct fa_obj *o = &h->o[j];
			__u32 flags = o->flags;
			obj_fill(o, fresh, 0);
			o->flags = flags;
			h->fresh[j] = 0;
		}
	}
	h->unknown = unknown;
	h->owner = key;
	h->key = ~0u;   /* consumed: a later syscall starts afresh */
	return 0;
}

#define FA_MQUEUE_MAGIC 0x19800202   /* the mqueue file system's s_magic */

/* The file the current syscall's descriptor argument 0 names (path_args
 * entry pa), or NULL. */
static __always_inline struct file *named_fd_file(struct task_struct *task,
						   const struct fa_path_args *pa, __u32 compat)
{
	if (pa->fd0 == FA_MQ_NAME)
		return 0;
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct file *f = fd_file(task, (int)regs_arg(regs, compat, 0));
	if (f && pa->fd0 == FA_FD_MQUEUE &&
	    BPF_CORE_READ(f, f_inode, i_sb, s_magic) != FA_MQUEUE_MAGIC)
		return 0;
	return f;
}

/* Whether the path_args entry pa names anything: paths, or the file of
 * a descriptor argument. */
static __always_inline int names_objects(const struct fa_path_args *pa)
{
	return pa && (pa->n || pa->fd0);
}

/* The objects of the current syscall (span index key, result ret), with
 * what its result leaves to see: the opened file (and its directory when
 * created), the executable and its ELF interpreter, the directory a
 * chdir or chroot reached, the file a descriptor argument names. */
__noinline int fa_objs_gather(__u32 key, __u64 ret)
{
	struct fa_path_args *pa = bpf_map_lookup_elem(&path_args, &key);
	if (!names_objects(pa))
		return 0;
	/* Start the list afresh if it holds another syscall's objects. */
	if (!objs_for((__u32)bpf_get_current_pid_tgid(), key))
		return 0;
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 compat = key >= FA_NR_SYSCALLS;
	__u32 nr = compat ? key - FA_NR_SYSCALLS : key;
	long r = (long)ret;
	struct file *f = 0;
	__u32 flags = 0;
	if (is_open(nr, compat) && r >= 0) {
		f = fd_file(task, r);
		flags = FA_OBJ_OPENED;
	} else if (pa->fd0 == FA_MQ_NAME) {
		/* mq_open's queue (created by it if the ctime hook noted it). */
		f = r >= 0 ? fd_file(task, r) : 0;
		flags = FA_OBJ_FILE;
	} else if (is_exec(nr, compat) && r == 0) {
		f = task_exe(task);
		flags = FA_OBJ_EXEC;
	} else if (r == 0 && (compat ? nr == FA_NR32_chdir || nr == FA_NR32_chroot
				     : nr == FA_NR64_chdir || nr == FA_NR64_chroot)) {
		/* The directory it looked up: gone from the name by the time
		 * user space could look (removed, renamed), not from here. */
		int root = compat ? nr == FA_NR32_chroot : nr == FA_NR64_chroot;
		struct dentry *d = root ? BPF_CORE_READ(task, fs, root.dentry)
					: BPF_CORE_READ(task, fs, pwd.dentry);
		fa_objs_add(key, (__u64)BPF_CORE_READ(d, d_inode), (__u64)d, FA_OBJ_FS_DIR);
	} else if (pa->fd0) {
		/* The descriptor's file as the table holds it at the exit
		 * (another thread may have replaced it since: not followed);
		 * if the syscall changed it, the ctime hook noted it first,
		 * with the attributes before the change, which fa_objs_add
		 * keeps. */
		f = named_fd_file(task, pa, compat);
		flags = FA_OBJ_FILE;
	}
	if (f) {
		struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
		struct inode *inode = BPF_CORE_READ(f, f_inode);
		if (flags == FA_OBJ_OPENED && (BPF_CORE_READ(f, f_mode) & FA_FMODE_CREATED)) {
			struct dentry *pd = BPF_CORE_READ(d, d_parent);
			fa_objs_add(key, (__u64)BPF_CORE_READ(pd, d_inode), (__u64)pd, FA_OBJ_PARENT);
			flags |= FA_OBJ_CREATED;
		}
		fa_objs_add(key, (__u64)inode, (__u64)d, flags);
		if (flags == FA_OBJ_EXEC)
			fa_objs_add_loader(key);
	}
	return fa_objs_close(key, failed(r) ? pa->n : 0);
}

/* The syscall of thread tid will not be recorded: what inode changes
 * noted for it is not its next syscall's (objs_for starts afresh). */
static __always_inline void objs_drop(__u32 tid)
{
	if (!have_objs)
		return;
	struct fa_objs *h = bpf_map_lookup_elem(&objs, &tid);
	if (h)
		h->key = ~0u;
}

/* objs_gather for the syscall of s. */
static __always_inline void objs_gather(struct subject *s, __u32 key)
{
	if (have_objs)
		fa_objs_gather(key, (__u64)s->ret);
}

/* An object field's value for object o. */
static __always_inline __u32 obj_value(struct fa_obj *o, __u32 field)
{
	switch (field) {
	case AUDIT_INODE: return (__u32)o->ino;
	case AUDIT_DEVMAJOR: return o->dev >> FA_MINORBITS;
	case AUDIT_DEVMINOR: return o->dev & ((1u << FA_MINORBITS) - 1);
	case AUDIT_OBJ_UID: return o->uid;
	case AUDIT_OBJ_GID: return o->gid;
	}
	return 0;
}

struct obj_test {
	__u32 field;   /* AUDIT_FILETYPE, or a field obj_value knows */
	__u32 op;
	__u32 value;
	__u32 task_left;
	__u32 any;
};

/* The test being run, off the stack: the verifier then sees unknown
 * values and checks the callback once, not once per call site. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct obj_test);
} obj_test_scratch SEC(".maps");

struct obj_test_ref {
	struct obj_test *t;
	struct fa_objs *h;   /* pointers keep their type on the stack, not in a map */
};

/* Whether the test holds for object o (the names that named no inode:
 * o NULL). Inline in obj_test_step, which the verifier checks once, in
 * fa_objs_test, a global function: a frame of its own would take 32
 * bytes more of the deepest call chain's 512 (kernels before 6.13). */
static __always_inline int obj_holds(struct obj_test *t, struct fa_obj *o)
{
	if (!t)
		return 0;
	if (t->field == AUDIT_FILETYPE)
		return o && (o->mode & FA_S_IFMT) == t->value;
	__u32 ov = t->field == AUDIT_INODE ? ~0u : 0;
	if (o)
		ov = obj_value(o, t->field);
	__u32 l = t->task_left ? t->value : ov, r = t->task_left ? ov : t->value;
	return compare_inline(l, t->op, r);
}

/* One name against the test. */
static long obj_test_step(__u32 j, struct obj_test_ref *r)
{
	struct obj_test *t = r->t;
	struct fa_objs *h = r->h;
	if (!t || !h || j > h->count || j >= FA_MAX_OBJS + 1)
		return 1;
	if (j == h->count) {
		/* The names that named no inode, after the others. */
		if (h->unknown)
			t->any |= obj_holds(t, 0);
		return 1;
	}
	__u32 idx = j;
	barrier_var(idx);   /* keep the mask: it is the verifier's bound */
	idx &= FA_MAX_OBJS - 1;
	t->any |= obj_holds(t, &h->o[idx]);
	return 0;
}

/* The current task's value of a field an object comparison names. */
static __always_inline __u32 task_field(__u32 field)
{
	struct task_struct *t = bpf_get_current_task_btf();
	return cred_field(t, BPF_CORE_READ(t, cred), field);
}

/* An object test (`code`: FA_FIELD_OBJ | field, or FA_FIELD_OBJ_COMPARE
 * | task field << 8 | owner field) as audit_filter_rules runs it over
 * ctx->names_list: it holds when it holds for some name. A field test
 * is `obj OP value`; a -C comparison `task-field OP obj-owner`. Names
 * whose lookup named no inode count with the kernel's unset inode (-1)
 * and zero ids; filetype= skips them, and the kernel applies its != by
 * negating, whatever the operator. `key` is the syscall's span index.
 * A global function of scalars: the verifier checks it once, alone, not
 * in every state of the rule callbacks that call it. */
__noinline int fa_objs_test(__u32 key, __u32 code, __u32 op, __u32 value)
{
	__u32 zero = 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct obj_test *t = bpf_map_lookup_elem(&obj_test_scratch, &zero);
	struct fa_objs *h = bpf_map_lookup_elem(&objs, &tid);
	if (!t)
		return 0;
	__u32 field = code & 0xff;
	t->task_left = 0;
	if (code & FA_FIELD_OBJ_COMPARE) {
		value = task_field((code >> 8) & 0xff);
		t->task_left = 1;
	}
	t->field = field;
	t->op = op;
	t->value = value;
	t->any = 0;
	if (h && h->owner == key) {
		struct obj_test_ref r = { .t = t, .h = h };
		bpf_loop(FA_MAX_OBJS + 1, obj_test_step, &r, 0);
	}
	if (field == AUDIT_FILETYPE && op == AUDIT_NOT_EQUAL)
		return !t->any;
	return t->any;
}

#endif
