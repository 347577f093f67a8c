// SPDX-License-Identifier: GPL-2.0
/* fastaudit's kernel side: at syscall exit, find the syscall's candidate
 * rules in O(1), evaluate them in order with the kernel audit's exit-list
 * semantics (first match decides; never = do not record), and send a
 * matching syscall to user space through a ring buffer. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "fastaudit.h"

char LICENSE[] SEC("license") = "GPL";

#define AUDIT_ARCH_X86_64 0xC000003E
#define AUDIT_ARCH_I386 0x40000003
#define TS_COMPAT 0x0002
#define PF_KTHREAD 0x00200000

/* The engine's own process is never audited (as the kernel spares auditd). */
const volatile __u32 self_tgid = 0;
/* Whether the rules have path=/dir= watches, and dir= ones among them. */
const volatile __u32 have_watches = 0;
const volatile __u32 have_dirs = 0;
const volatile __u32 have_perm = 0;
/* Whether an always,task rule is loaded. */
const volatile __u32 have_recorded = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_MAX_RULES);
	__type(key, __u32);
	__type(value, struct fa_rule);
} rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * FA_NR_SYSCALLS + 1);
	__type(key, __u32);
	__type(value, struct fa_span);
} spans SEC(".maps");

/* Threads a `never` task rule matched when they were created: never
 * audited. Allocated per entry: preallocating a million would pin 80 MiB. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 20);
	__type(key, __u32);
	__type(value, __u8);
} unaudited SEC(".maps");

/* Threads an `always` task rule matched when they were created: every
 * syscall is recorded, whatever the exit rules say. The value is the
 * task rule, for the record's key (auditctl allows none on that list). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 20);
	__type(key, __u32);
	__type(value, __u32);
} recorded SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_MAX_CANDIDATES);
	__type(key, __u32);
	__type(value, __u32);
} candidates SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_MAX_EXES);
	__type(key, __u32);
	__type(value, struct fa_exe);
} exes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FA_RINGBUF_BYTES);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FA_NR_STATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* Entry arguments of exec syscalls in flight, per thread. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct fa_args);
} entry_args SEC(".maps");

/* Watched inodes (files, tree roots, mount roots inside trees). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FA_MAX_WATCHED);
	__type(key, struct fa_inode_key);
	__type(value, struct fa_watch);
} watched SEC(".maps");

/* Watched files by (parent directory, name). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FA_MAX_WATCHED);
	__type(key, struct fa_name_key);
	__type(value, __u32);
} watch_names SEC(".maps");

/* Watched files by path, and scratch space to read a path argument. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FA_MAX_WATCHED);
	__type(key, struct fa_path_key);
	__type(value, __u32);
} watch_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fa_path_key);
} path_scratch SEC(".maps");

/* Watched trees (dir=) by normalized path. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FA_MAX_WATCHED);
	__type(key, struct fa_path_key);
	__type(value, __u32);
} tree_paths SEC(".maps");

/* Scratch for spelling a failed syscall's path argument the one way the
 * watch tables hold paths: absolute, without "//", "." or "..". The loop
 * state lives here too, not on the stack: the verifier then sees unknown
 * values and checks each callback once, not once per iteration. */
#define FA_NORM_LEN 8192            /* base directory + argument */
#define FA_ARG_MAX 4096             /* PATH_MAX: a path argument, NUL included */
struct norm {
	char cat[FA_NORM_LEN];           /* base directory + "/" + argument */
	char out[FA_ARG_MAX];            /* normalized; its first FA_PATH_MAX
					  * bytes, zero-padded, are the key */
	struct dentry *dirs[FA_PATH_DEPTH];
	__u16 starts[FA_ARG_MAX / 2];    /* out offsets of kept components' '/' */
	struct dentry *d;                /* base walk: where it is */
	struct vfsmount *vm;
	__u32 depth;                     /* base directory components */
	__u32 pos;                       /* cat length */
	__u32 o;                         /* out length */
	__u32 comp;                      /* where the open component starts in out */
	__u32 sp;                        /* kept components */
	__u32 open;
	__u32 ok;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct norm);
} norm_scratch SEC(".maps");

/* Per span index (native syscalls): where the path arguments are. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * FA_NR_SYSCALLS);
	__type(key, __u32);
	__type(value, struct fa_path_args);
} path_args SEC(".maps");

/* Per thread: the watched objects its current syscall changed. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct fa_hits);
} hits SEC(".maps");

/* Per span index: how perm= judges the syscall (fa_perm_kind/class). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * FA_NR_SYSCALLS);
	__type(key, __u32);
	__type(value, __u32);
} sysclass SEC(".maps");

struct fa_perm_enums fa_perm_enums_layout = {};

/* Makes the event layout part of the object's BTF so the Rust skeleton
 * gets the type from this one definition. */
struct fa_event fa_event_layout = {};

struct subject {
	struct task_struct *task;
	struct pt_regs *regs;
	struct fa_args *saved;   /* entry arguments, when the registers are gone */
	long ret;
	__u32 returned;  /* 0: exit/exit_group, judged before it ends the task */
	__u32 compat;
	__u32 tgid;
	__u32 nr;
	__u32 perm;      /* perm_bits(), when perm= tests are loaded */
	/* Watched objects the syscall touched (the kernel's audit_names,
	 * reduced to the ones a rule can ask about), in the hits map: kept
	 * off the stack so the verifier does not track its contents. */
	struct fa_hits *names;
};

struct eval {
	struct subject *s;
	struct fa_rule *rule;
	__u32 start;
	__u32 ok;
	__s64 matched;
};

static __always_inline int compare(__u32 l, __u32 op, __u32 r)
{
	switch (op) {
	case FA_OP_EQ: return l == r;
	case FA_OP_NE: return l != r;
	case FA_OP_LT: return l < r;
	case FA_OP_LE: return l <= r;
	case FA_OP_GT: return l > r;
	case FA_OP_GE: return l >= r;
	case FA_OP_BIT_MASK: return (l & r) != 0;
	case FA_OP_BIT_TEST: return (l & r) == r;
	}
	return 0;
}

static __always_inline __u64 arg(struct subject *s, int n)
{
	struct pt_regs *r = s->regs;
	if (s->saved)
		return s->saved->a[n & 3];
	if (s->compat) {
		switch (n) {
		case 0: return (__u32)BPF_CORE_READ(r, bx);
		case 1: return (__u32)BPF_CORE_READ(r, cx);
		case 2: return (__u32)BPF_CORE_READ(r, dx);
		default: return (__u32)BPF_CORE_READ(r, si);
		}
	}
	switch (n) {
	case 0: return BPF_CORE_READ(r, di);
	case 1: return BPF_CORE_READ(r, si);
	case 2: return BPF_CORE_READ(r, dx);
	default: return BPF_CORE_READ(r, r10);
	}
}

/* The value of a field for the current syscall (kernel field numbers). */
static __always_inline __u32 value_of(struct subject *s, __u32 field)
{
	struct task_struct *t = s->task;
	const struct cred *c = BPF_CORE_READ(t, cred);
	switch (field) {
	case 0: return s->tgid;                                  /* pid */
	case 1: return BPF_CORE_READ(c, uid.val);
	case 2: return BPF_CORE_READ(c, euid.val);
	case 3: return BPF_CORE_READ(c, suid.val);
	case 4: return BPF_CORE_READ(c, fsuid.val);
	case 5: return BPF_CORE_READ(c, gid.val);
	case 6: return BPF_CORE_READ(c, egid.val);
	case 7: return BPF_CORE_READ(c, sgid.val);
	case 8: return BPF_CORE_READ(c, fsgid.val);
	case 9: return BPF_CORE_READ(t, loginuid.val);           /* auid */
	case 10: return BPF_CORE_READ(t, personality);
	case 11: return s->compat ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64;
	case 18: return BPF_CORE_READ(t, real_parent, tgid);     /* ppid */
	case 24: return BPF_CORE_READ(t, loginuid.val) != (__u32)-1; /* loginuid_set */
	case 25: return BPF_CORE_READ(t, sessionid);
	case 103: return (__u32)s->ret;                          /* exit */
	case 104: return !(s->ret >= -4095 && s->ret < 0);        /* success */
	case 200: return (__u32)arg(s, 0);
	case 201: return (__u32)arg(s, 1);
	case 202: return (__u32)arg(s, 2);
	case 203: return (__u32)arg(s, 3);
	}
	return 0;
}

/* AUDIT_COMPARE_* ids to the pair of fields they compare. */
static __always_inline int compare_fields(struct subject *s, __u32 which, __u32 op)
{
	__u32 a, b;
	switch (which) {
	case 10: a = 1; b = 9; break;   /* uid auid */
	case 11: a = 1; b = 2; break;   /* uid euid */
	case 12: a = 1; b = 4; break;   /* uid fsuid */
	case 13: a = 1; b = 3; break;   /* uid suid */
	case 14: a = 9; b = 4; break;   /* auid fsuid */
	case 15: a = 9; b = 3; break;   /* auid suid */
	case 16: a = 9; b = 2; break;   /* auid euid */
	case 17: a = 2; b = 3; break;   /* euid suid */
	case 18: a = 2; b = 4; break;   /* euid fsuid */
	case 19: a = 3; b = 4; break;   /* suid fsuid */
	case 20: a = 5; b = 6; break;   /* gid egid */
	case 21: a = 5; b = 8; break;   /* gid fsgid */
	case 22: a = 5; b = 7; break;   /* gid sgid */
	case 23: a = 6; b = 8; break;   /* egid fsgid */
	case 24: a = 6; b = 7; break;   /* egid sgid */
	case 25: a = 7; b = 8; break;   /* sgid fsgid */
	default: return 0;              /* object comparisons are refused by the compiler */
	}
	return compare(value_of(s, a), op, value_of(s, b));
}

static __always_inline int exe_is(struct subject *s, __u32 idx)
{
	struct fa_exe *want = bpf_map_lookup_elem(&exes, &idx);
	if (!want)
		return 0;
	struct task_struct *task = s->task;
	struct file *f = BPF_CORE_READ(task, mm, exe_file);
	if (!f)
		return 0;
	return BPF_CORE_READ(f, f_inode, i_ino) == want->ino &&
	       BPF_CORE_READ(f, f_inode, i_sb, s_dev) == want->dev;
}

static __always_inline int has_hit(struct fa_hits *h, __u32 id);

static __always_inline void hit_add(struct fa_hits *h, __u32 id)
{
	if (!id || has_hit(h, id))
		return;
	__u32 n = h->count;
	/* Hide the bound from clang so it indexes with an add the verifier
	 * can follow, not an OR into the stack pointer. */
	barrier_var(n);
	if (n < FA_MAX_HITS) {
		h->id[n] = id;
		h->count = n + 1;
	}
}

/* Unused slots are zero and ids are not: a straight-line scan keeps the
 * rule callback small for the verifier. */
static __always_inline int has_hit(struct fa_hits *h, __u32 id)
{
	int found = 0;
#pragma unroll
	for (int j = 0; j < FA_MAX_HITS; j++)
		found |= h->id[j] == id;
	return found;
}

static __always_inline void note_inode(struct fa_hits *h, struct inode *inode, int self)
{
	if (!inode)
		return;
	struct fa_inode_key k = {
		.ino = BPF_CORE_READ(inode, i_ino),
		.dev = BPF_CORE_READ(inode, i_sb, s_dev),
	};
	struct fa_watch *w = bpf_map_lookup_elem(&watched, &k);
	if (!w)
		return;
	if (self)
		hit_add(h, w->file_id);
	hit_add(h, w->dir_id);
}

struct dwalk {
	struct fa_hits *h;
	struct dentry *d;
	struct vfsmount *vm;
};

static long dwalk_step(__u32 i, struct dwalk *w)
{
	struct dentry *d = w->d;
	struct vfsmount *vm = w->vm;
	if (vm && d == BPF_CORE_READ(vm, mnt_root)) {
		struct mount *m = container_of(vm, struct mount, mnt);
		struct mount *parent = BPF_CORE_READ(m, mnt_parent);
		if (parent == m)
			return 1;
		d = BPF_CORE_READ(m, mnt_mountpoint);
		w->vm = &parent->mnt;
	} else {
		struct dentry *up = BPF_CORE_READ(d, d_parent);
		if (!up || up == d)
			return 1;
		d = up;
	}
	w->d = d;
	struct fa_hits *h = w->h;
	if (!h)
		return 1;
	note_inode(h, BPF_CORE_READ(d, d_inode), 0);
	return 0;
}

/* The object itself, then (for dir= watches) every ancestor, crossing
 * mount points when the mount is known, as audit_tree's marks cover a
 * whole subtree. Without a mount, the walk ends at the file system's
 * root; the engine marks mount roots inside trees for that case. */
static __always_inline void note_dentry(struct fa_hits *h, struct dentry *d, struct vfsmount *vm)
{
	if (!d)
		return;
	note_inode(h, BPF_CORE_READ(d, d_inode), 1);
	if (!have_dirs)
		return;
	struct dwalk w = { .h = h, .d = d, .vm = vm };
	bpf_loop(FA_DIR_DEPTH, dwalk_step, &w, 0);
}

static __always_inline struct file *fd_file(struct task_struct *t, long fd)
{
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	if (!fdt || fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = 0;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

/* open, openat, creat, openat2 in either ABI. */
static __always_inline int is_open(__u32 nr, __u32 compat)
{
	return compat ? (nr == 5 || nr == 295 || nr == 8 || nr == 437)
		      : (nr == 2 || nr == 257 || nr == 85 || nr == 437);
}

static __always_inline int is_exec(__u32 nr, __u32 compat);

struct follow {
	struct fa_hits *h;
	struct dentry *opened;
};

/* Whether dentry d now has a watched file's name in its directory; if
 * so, the watch moves to d's inode (it was created or renamed there). */
static __always_inline void follow_one(struct fa_hits *h, struct dentry *d)
{
	if (!d)
		return;
	struct fa_name_key k = {};
	struct dentry *parent = BPF_CORE_READ(d, d_parent);
	struct inode *pi = BPF_CORE_READ(parent, d_inode);
	struct inode *inode = BPF_CORE_READ(d, d_inode);
	__u32 len = BPF_CORE_READ(d, d_name.len);
	if (!pi || !inode || len == 0 || len >= FA_NAME_LEN)
		return;
	k.parent_ino = BPF_CORE_READ(pi, i_ino);
	k.parent_dev = BPF_CORE_READ(pi, i_sb, s_dev);
	k.len = len;
	bpf_probe_read_kernel(k.name, len & (FA_NAME_LEN - 1), BPF_CORE_READ(d, d_name.name));
	__u32 *id = bpf_map_lookup_elem(&watch_names, &k);
	if (!id)
		return;
	__u32 file_id = *id;
	hit_add(h, file_id);
	struct fa_inode_key ik = {
		.ino = BPF_CORE_READ(inode, i_ino),
		.dev = BPF_CORE_READ(inode, i_sb, s_dev),
	};
	struct fa_watch *w = bpf_map_lookup_elem(&watched, &ik);
	if (w) {
		w->file_id = file_id;
	} else {
		struct fa_watch nw = { .file_id = file_id };
		bpf_map_update_elem(&watched, &ik, &nw, BPF_ANY);
	}
}

static long follow_step(__u32 i, struct follow *f)
{
	struct fa_hits *h = f->h;
	if (!h)
		return 1;
	if (i < FA_MAX_MOVED)
		follow_one(h, (struct dentry *)h->moved[i & (FA_MAX_MOVED - 1)]);
	else
		follow_one(h, f->opened);
	return 0;
}

struct failed {
	struct fa_hits *h;
	struct task_struct *task;
	struct fa_path_args pa;
	__u64 args[4];
};

struct norm_ref {
	struct norm *n;
	struct fa_hits *h;
};

/* The base directory of a relative path, leaf first, up to the root and
 * across mount points. */
static long base_step(__u32 i, struct norm_ref *r)
{
	struct norm *n = r->n;
	if (!n)
		return 1;
	struct dentry *d = n->d;
	struct vfsmount *vm = n->vm;
	if (d == BPF_CORE_READ(vm, mnt_root)) {
		struct mount *m = container_of(vm, struct mount, mnt);
		struct mount *parent = BPF_CORE_READ(m, mnt_parent);
		if (parent == m) {
			n->ok = 1;
			return 1;
		}
		n->d = BPF_CORE_READ(m, mnt_mountpoint);
		n->vm = &parent->mnt;
		return 0;
	}
	struct dentry *up = BPF_CORE_READ(d, d_parent);
	__u32 depth = n->depth;
	if (up == d || depth >= FA_PATH_DEPTH)
		return 1;   /* a root without its mount, or too deep: give up */
	n->dirs[depth & (FA_PATH_DEPTH - 1)] = d;
	n->depth = depth + 1;
	n->d = up;
	return 0;
}

/* Append "/NAME" of the base directory's components, root first. */
static long cat_step(__u32 i, struct norm_ref *r)
{
	struct norm *n = r->n;
	if (!n || i >= n->depth)
		return 1;
	__u32 pos = n->pos;
	if (pos >= FA_ARG_MAX - FA_NAME_LEN - 2) {
		n->ok = 0;
		return 1;
	}
	n->cat[pos & (FA_ARG_MAX - 1)] = '/';
	pos++;
	struct dentry *d = n->dirs[(n->depth - 1 - i) & (FA_PATH_DEPTH - 1)];
	const unsigned char *name = BPF_CORE_READ(d, d_name.name);
	long len = bpf_probe_read_kernel_str(&n->cat[pos & (FA_ARG_MAX - 1)], FA_NAME_LEN, name);
	if (len <= 1 || len >= FA_NAME_LEN) {
		n->ok = 0;   /* unreadable or truncated: no exact spelling */
		return 1;
	}
	n->pos = pos + len - 1;
	return 0;
}

/* Close the component ending at n->o: drop "" and ".", pop on "..". */
static __always_inline void close_component(struct norm *n)
{
	__u32 comp = n->comp;
	__u32 clen = n->o - comp;
	char first = n->out[comp & (FA_ARG_MAX - 1)];
	char second = n->out[(comp + 1) & (FA_ARG_MAX - 1)];
	if (clen == 0 || (clen == 1 && first == '.')) {
		n->o = comp - 1;
	} else if (clen == 2 && first == '.' && second == '.') {
		n->o = comp - 1;
		if (n->sp > 0) {
			n->sp--;
			n->o = n->starts[n->sp & (FA_ARG_MAX / 2 - 1)];
		}
	} else {
		n->starts[n->sp & (FA_ARG_MAX / 2 - 1)] = comp - 1;
		n->sp++;
	}
}

static long norm_step(__u32 i, struct norm_ref *r)
{
	struct norm *n = r->n;
	if (!n)
		return 1;
	char ch = n->cat[i & (FA_NORM_LEN - 1)];
	if (ch == '/' || ch == 0) {
		if (n->open)
			close_component(n);
		if (ch == 0)
			return 1;
	}
	__u32 o = n->o;
	if (o >= FA_ARG_MAX - 1) {
		n->ok = 0;
		return 1;
	}
	n->out[o & (FA_ARG_MAX - 1)] = ch;
	n->o = o + 1;
	if (ch == '/') {
		n->comp = o + 1;
		n->open = 1;
	}
	return 0;
}

/* Zero the key part of `out` after the normalized path. */
static long zero_step(__u32 i, struct norm_ref *r)
{
	struct norm *n = r->n;
	if (!n)
		return 1;
	__u32 p = n->o + i;
	if (p >= FA_PATH_MAX)
		return 1;
	n->out[p & (FA_PATH_MAX - 1)] = 0;
	return 0;
}

/* Shorten the normalized path one byte at a time from its end; at each
 * '/' within the key's length, the directory before it may be a watched
 * tree (the bytes after it are zero by then). */
static long prefix_step(__u32 i, struct norm_ref *r)
{
	struct norm *n = r->n;
	struct fa_hits *h = r->h;
	if (!n || !h || i + 1 >= n->o)
		return 1;
	__u32 p = (n->o - 1 - i) & (FA_ARG_MAX - 1);
	char ch = n->out[p];
	n->out[p] = 0;
	if (ch == '/' && p < FA_PATH_MAX) {
		__u32 *id = bpf_map_lookup_elem(&tree_paths, n->out);
		if (id)
			hit_add(h, *id);
	}
	return 0;
}

/* A failed syscall's path argument, spelled absolute and normalized (the
 * base directory's path when relative), against watched files (the whole
 * path) and trees (the path or any directory above it). Lexical, as
 * written: a symlink followed by ".." is not resolved as the kernel would.
 * Arguments up to PATH_MAX are read whole: padding cannot hide a path. */
static __always_inline void normalized_hits(struct fa_hits *h, const void *upath,
					    struct dentry *base, struct vfsmount *bvm)
{
	__u32 zero = 0;
	struct norm *n = bpf_map_lookup_elem(&norm_scratch, &zero);
	if (!n || !h)
		return;
	struct norm_ref r = { .n = n, .h = h };
	n->pos = 0;
	n->depth = 0;
	if (base) {
		n->d = base;
		n->vm = bvm;
		n->ok = 0;
		bpf_loop(FA_PATH_DEPTH * 3, base_step, &r, 0);
		if (!n->ok)
			return;
		bpf_loop(FA_PATH_DEPTH, cat_step, &r, 0);
		__u32 pos = n->pos;
		if (!n->ok || pos >= FA_ARG_MAX - 1)
			return;
		n->cat[pos & (FA_ARG_MAX - 1)] = '/';
		n->pos = pos + 1;
	}
	__u32 at = n->pos;
	if (at >= FA_ARG_MAX)
		return;
	long len = bpf_probe_read_user_str(&n->cat[at & (FA_ARG_MAX - 1)], FA_ARG_MAX, upath);
	if (len <= 1 || n->cat[0] != '/')
		return;
	n->o = 0;
	n->comp = 0;
	n->sp = 0;
	n->open = 0;
	n->ok = 1;
	bpf_loop(FA_NORM_LEN, norm_step, &r, 0);
	if (!n->ok)
		return;
	if (n->o == 0) {
		n->out[0] = '/';
		n->o = 1;
	}
	__u32 *id;
	if (n->o < FA_PATH_MAX) {
		bpf_loop(FA_PATH_MAX, zero_step, &r, 0);
		id = bpf_map_lookup_elem(&watch_paths, n->out);
		if (id)
			hit_add(h, *id);
		if (have_dirs) {
			id = bpf_map_lookup_elem(&tree_paths, n->out);
			if (id)
				hit_add(h, *id);
		}
	}
	if (!have_dirs)
		return;
	__u32 whole = n->o;
	bpf_loop(FA_ARG_MAX, prefix_step, &r, 0);
	/* What is left is "/": a watch on the whole tree. */
	id = bpf_map_lookup_elem(&tree_paths, n->out);
	if (id && whole > 1)
		hit_add(h, *id);
}

/* One path argument of a failed syscall, spelled as the watch tables
 * hold paths; a plain name is also looked up by its directory's identity
 * (which holds even where the directory's path cannot be spelled). */
static long failed_step(__u32 i, struct failed *f)
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
		normalized_hits(h, upath, 0, 0);
		return 0;
	}
	struct task_struct *task = f->task;
	long dfd = di == FA_NO_DIRFD ? -100 : (int)f->args[di & 3];
	struct dentry *dir;
	struct vfsmount *vm;
	if (dfd == -100) {
		dir = BPF_CORE_READ(task, fs, pwd.dentry);
		vm = BPF_CORE_READ(task, fs, pwd.mnt);
	} else {
		struct file *file = fd_file(task, dfd);
		dir = file ? BPF_CORE_READ(file, f_path.dentry) : 0;
		vm = file ? BPF_CORE_READ(file, f_path.mnt) : 0;
	}
	if (!dir || !vm)
		return 0;
	normalized_hits(h, upath, dir, vm);
	struct inode *dino = BPF_CORE_READ(dir, d_inode);
	if (!dino || len - 1 >= FA_NAME_LEN)
		return 0;
	struct fa_name_key k = {
		.parent_ino = BPF_CORE_READ(dino, i_ino),
		.parent_dev = BPF_CORE_READ(dino, i_sb, s_dev),
		.len = len - 1,
	};
	bpf_probe_read_kernel(k.name, (len - 1) & (FA_NAME_LEN - 1), buf->path);
	__u32 *id = bpf_map_lookup_elem(&watch_names, &k);
	if (id)
		hit_add(h, *id);
	return 0;
}

/* A failed syscall changed nothing, but the kernel still names the object
 * when its lookup succeeded (EACCES, EPERM, EEXIST, ...). */
static __always_inline void failed_names(struct subject *s, __u32 key, struct fa_hits *h)
{
	long err = -s->ret;
	if (s->ret >= 0 || err == 2 || err == 20 || err == 36 || err == 40 || err == 14 || err == 9)
		return;
	struct fa_path_args *pa = bpf_map_lookup_elem(&path_args, &key);
	if (!pa || !pa->n)
		return;
	struct failed f = { .h = h, .task = s->task, .pa = *pa };
	for (int i = 0; i < 4; i++)
		f.args[i] = arg(s, i);
	bpf_loop(2, failed_step, &f, 0);
}

/* Objects a successful open or exec leaves behind: the opened file and
 * the new executable. Changes to inodes were noted as they happened. */
static __always_inline void collect_names(struct subject *s, struct fa_hits *names)
{
	struct file *f = 0;
	struct task_struct *task = s->task;
	if (is_open(s->nr, s->compat) && s->ret >= 0)
		f = fd_file(task, s->ret);
	else if (is_exec(s->nr, s->compat) && s->ret == 0)
		f = BPF_CORE_READ(task, mm, exe_file);
	struct follow fl = { .h = names };
	if (f) {
		fl.opened = BPF_CORE_READ(f, f_path.dentry);
		note_dentry(names, fl.opened, BPF_CORE_READ(f, f_path.mnt));
	}
	if (s->ret >= 0)
		bpf_loop(FA_MAX_MOVED + 1, follow_step, &fl, 0);
}

static __always_inline __u32 acc_mode(__u64 flags)
{
	switch (flags & 3) {
	case 0: return 4;   /* O_RDONLY: MAY_READ */
	case 1: return 2;   /* O_WRONLY: MAY_WRITE */
	default: return 6;
	}
}

/* The kernel's audit_match_perm, for every mask at once: the returned
 * bits P make `perm=mask` hold exactly when mask & P != 0. */
static __always_inline __u32 perm_bits(struct subject *s)
{
	__u32 key = s->nr + (s->compat ? FA_NR_SYSCALLS : 0);
	__u32 *c = bpf_map_lookup_elem(&sysclass, &key);
	if (!c)
		return 0;
	__u32 cls = *c & 0xff;
	__u64 how = 0;
	switch (*c >> FA_PERM_KIND_SHIFT) {
	case FA_PERM_CLASS:
		return (cls & FA_CLASS_WRITE ? 2 : 0) | (cls & FA_CLASS_READ ? 4 : 0) |
		       (cls & FA_CLASS_CHATTR ? 8 : 0);
	case FA_PERM_OPEN: return acc_mode(arg(s, 1));
	case FA_PERM_OPENAT: return acc_mode(arg(s, 2));
	case FA_PERM_EXEC: return 1;
	case FA_PERM_OPENAT2:
		bpf_probe_read_user(&how, sizeof(how), (void *)arg(s, 2));
		return acc_mode(how);
	case FA_PERM_SOCKETCALL: return arg(s, 0) == 2 ? 2 : 0;
	}
	return 0;
}

static long test_one(__u32 i, struct eval *e)
{
	struct fa_rule *r = e->rule;
	if (!r)
		return 1;
	/* The loop count is at most FA_MAX_TESTS; mask the index behind a
	 * compiler barrier so the verifier sees the bound clang would drop. */
	__u32 idx = i;
	barrier_var(idx);
	idx &= FA_MAX_TESTS - 1;
	struct fa_test *t = &r->tests[idx];
	int ok;
	if (t->field == FA_FIELD_NEVER)
		ok = 0;
	else if (t->field == 111)        /* field_compare */
		ok = compare_fields(e->s, t->value, t->op);
	else if (t->field == 112)        /* exe */
		ok = exe_is(e->s, t->value) == (t->op == FA_OP_EQ);
	else if (t->field == FA_FIELD_WATCH || t->field == FA_FIELD_DIR)
		ok = e->s->names && has_hit(e->s->names, t->value);   /* the kernel ignores the operator */
	else if (t->field == FA_FIELD_PERM)
		ok = (t->value & e->s->perm) != 0;
	else if ((t->field == 103 || t->field == 104) && !e->s->returned)
		ok = 0;   /* exit=, success=: no return value, the test fails whatever its operator */
	else
		ok = compare(value_of(e->s, t->field), t->op, t->value);
	if (!ok) {
		e->ok = 0;
		return 1;
	}
	return 0;
}

static long try_rule(__u32 i, struct eval *e)
{
	__u32 pos = e->start + i;
	__u32 *id = bpf_map_lookup_elem(&candidates, &pos);
	if (!id)
		return 1;
	__u32 rid = *id;
	struct fa_rule *r = bpf_map_lookup_elem(&rules, &rid);
	if (!r)
		return 1;
	e->rule = r;
	e->ok = 1;
	bpf_loop(r->ntests < FA_MAX_TESTS ? r->ntests : FA_MAX_TESTS, test_one, e, 0);
	if (e->ok) {
		e->matched = r->always ? (__s64)rid : -2;
		return 1;
	}
	return 0;
}

/* The command line as the kernel's audit_log_proctitle reads it: the
 * first FA_PROCTITLE_LEN bytes of the argument area. */
static __always_inline void read_proctitle(struct task_struct *task, struct fa_event *ev)
{
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	ev->proctitle_len = 0;
	if (!mm)
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

struct walk {
	struct dentry *d;
	struct vfsmount *vm;
	struct mount *m;
	struct fa_event *ev;
	__u32 n;
};

static long walk_step(__u32 i, struct walk *w)
{
	struct vfsmount *vm = w->vm;
	struct dentry *d = w->d;
	struct mount *m = w->m;
	struct dentry *root = BPF_CORE_READ(vm, mnt_root);
	if (d == root) {
		struct mount *parent = BPF_CORE_READ(m, mnt_parent);
		if (parent == m)
			return 1;
		w->d = BPF_CORE_READ(m, mnt_mountpoint);
		w->m = parent;
		w->vm = &parent->mnt;
		return 0;
	}
	struct dentry *up = BPF_CORE_READ(d, d_parent);
	if (up == d || w->n >= FA_PATH_DEPTH)
		return 1;
	const unsigned char *name = BPF_CORE_READ(d, d_name.name);
	__u32 slot = w->n & (FA_PATH_DEPTH - 1);
	bpf_probe_read_kernel_str(w->ev->exe_names[slot], FA_NAME_LEN, name);
	w->n++;
	w->d = up;
	return 0;
}

/* The executable's path components, walking dentries up to the root and
 * across mount points, as d_path does. Returns FA_EV_EXE_DELETED when
 * d_path would add " (deleted)": the dentry is unhashed and not a root. */
static __always_inline __u32 read_exe_path(struct file *f, struct fa_event *ev)
{
	ev->exe_depth = 0;
	if (!f)
		return 0;
	struct vfsmount *vm = BPF_CORE_READ(f, f_path.mnt);
	struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
	struct walk w = {
		.d = d,
		.vm = vm,
		.m = container_of(vm, struct mount, mnt),
		.ev = ev,
	};
	bpf_loop(FA_PATH_DEPTH * 2, walk_step, &w, 0);
	ev->exe_depth = w.n;
	int unhashed = !BPF_CORE_READ(d, d_hash.pprev);
	return unhashed && BPF_CORE_READ(d, d_parent) != d ? FA_EV_EXE_DELETED : 0;
}

/* execve and execveat in either ABI: their registers are gone at exit. */
static __always_inline int is_exec(__u32 nr, __u32 compat)
{
	return compat ? (nr == 11 || nr == 358) : (nr == 59 || nr == 322);
}

/* exit and exit_group (x86_64 60/231, ia32 1/252) end the task inside the
 * syscall: no exit hook ever sees them. */
static __always_inline int is_noreturn(__u32 nr, __u32 compat)
{
	return compat ? (nr == 1 || nr == 252) : (nr == 60 || nr == 231);
}

/* fork, vfork, clone, clone3 in either ABI. */
static __always_inline int is_fork(__u32 nr, __u32 compat)
{
	return compat ? (nr == 2 || nr == 190 || nr == 120 || nr == 435)
		      : (nr == 57 || nr == 58 || nr == 56 || nr == 435);
}

static __always_inline void save_entry_args(struct subject *s)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_args a;
	for (int i = 0; i < 4; i++)
		a.a[i] = arg(s, i);
	bpf_map_update_elem(&entry_args, &tid, &a, BPF_ANY);
}

static __always_inline void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);
	if (v)
		*v += 1;
}

struct names_ctx {
	struct subject *s;
	struct fa_hits *h;
	__u32 key;
};

static long names_step(__u32 i, struct names_ctx *c)
{
	struct fa_hits *h = c->h;
	if (!h)
		return 1;
	collect_names(c->s, h);
	failed_names(c->s, c->key, h);
	return 1;
}

/* The end of syscall `nr` of the current task: at its exit, or for
 * exit/exit_group (`returned` 0) at their entry, since they never return
 * and nothing they do before do_exit changes what a rule or record sees. */
static __always_inline int on_end(__u32 nr, long ret, __u32 returned)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (tgid == self_tgid || nr >= FA_NR_SYSCALLS)
		return 0;
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 compat = BPF_CORE_READ(task, thread_info.status) & TS_COMPAT ? 1 : 0;
	__u32 key = nr + (compat ? FA_NR_SYSCALLS : 0);
	struct fa_span *span = bpf_map_lookup_elem(&spans, &key);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	/* A task an always,task rule selected: every syscall is recorded and
	 * no exit rule is consulted (the kernel gives such a context the
	 * highest priority, which no rule's can beat). */
	__u32 *rec = have_recorded ? bpf_map_lookup_elem(&recorded, &tid) : 0;
	if ((!span || !span->count) && !rec)
		return 0;
	struct fa_span *judge = rec ? 0 : span;
	if (bpf_map_lookup_elem(&unaudited, &tid))
		return 0;
	/* A new task's first return (0 from fork/clone) ends no syscall it
	 * entered; the kernel audits only the parent's side. */
	if (returned && ret == 0 && is_fork(nr, compat))
		return 0;

	struct subject s = {
		.task = task,
		.regs = (struct pt_regs *)bpf_task_pt_regs(task),
		.ret = ret,
		.returned = returned,
		.compat = compat,
		.tgid = tgid,
		.nr = nr,
	};
	if (have_watches && returned && judge) {
		/* Take (and consume) what this syscall changed. */
		struct fa_hits *h = bpf_map_lookup_elem(&hits, &tid);
		if (!h && (span->flags & FA_SPAN_NAMES)) {
			struct fa_hits z = {};
			bpf_map_update_elem(&hits, &tid, &z, BPF_NOEXIST);
			h = bpf_map_lookup_elem(&hits, &tid);
		}
		if (h) {
			if (h->key != key) {
				/* Left by a syscall nobody judged: not this one's. */
				h->count = 0;
				for (int j = 0; j < FA_MAX_HITS; j++)
					h->id[j] = 0;
				for (int j = 0; j < FA_MAX_MOVED; j++)
					h->moved[j] = 0;
			}
			h->key = ~0u;
			s.names = h;
		}
	}

	/* For exec syscalls, the arguments saved at entry replace the
	 * registers (zero after a successful exec) before any rule looks. */
	struct fa_args saved = {};
	int have_saved = 0;
	if (is_exec(nr, compat)) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct fa_args *a = bpf_map_lookup_elem(&entry_args, &tid);
		if (a) {
			saved = *a;
			have_saved = 1;
			bpf_map_delete_elem(&entry_args, &tid);
		}
	}
	s.saved = have_saved ? &saved : 0;
	if (have_perm)
		s.perm = perm_bits(&s);
	/* Names are the expensive part: skip them when no rule asking about
	 * them can hold with this syscall's permission, unless something was
	 * created or renamed beside a watched file (the watch may have to
	 * follow it whatever the rules decide). */
	struct fa_hits *h = s.names;
	if (h && judge && (judge->flags & FA_SPAN_NAMES) &&
	    (judge->names_perm == ~0u || (s.perm & judge->names_perm) || h->moved[0])) {
		/* In a callback of its own: its many paths then do not
		 * multiply the states the rules are verified in. */
		struct names_ctx nc = { .s = &s, .h = h, .key = key };
		bpf_loop(1, names_step, &nc, 0);
	}

	struct eval e = { .s = &s, .matched = -1 };
	if (judge) {
		e.start = judge->start;
		bpf_loop(judge->count, try_rule, &e, 0);
	}
	/* The rule whose key the record carries: the matching exit rule's, or
	 * for a recorded task the task rule's (auditctl allows it none). */
	if (e.matched == -2 || (e.matched == -1 && !rec))
		return 0;
	__u32 key_rule = e.matched >= 0 ? (__u32)e.matched : *rec;

	struct fa_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count(FA_STAT_LOST);
		return 0;
	}
	const struct cred *c = BPF_CORE_READ(task, cred);
	ev->time_ns = bpf_ktime_get_ns();
	ev->ret = ret;
	for (int i = 0; i < 4; i++)
		ev->args[i] = arg(&s, i);
	struct file *exe = BPF_CORE_READ(task, mm, exe_file);
	__u32 deleted = read_exe_path(exe, ev);
	read_proctitle(task, ev);
	ev->exe_ino = exe ? BPF_CORE_READ(exe, f_inode, i_ino) : 0;
	ev->exe_dev = exe ? BPF_CORE_READ(exe, f_inode, i_sb, s_dev) : 0;
	ev->arch = compat ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64;
	ev->syscall = nr;
	ev->rule = key_rule;
	ev->pid = tgid;
	ev->tid = (__u32)bpf_get_current_pid_tgid();
	ev->ppid = BPF_CORE_READ(task, real_parent, tgid);
	ev->auid = BPF_CORE_READ(task, loginuid.val);
	ev->ses = BPF_CORE_READ(task, sessionid);
	ev->pers = BPF_CORE_READ(task, personality);
	ev->flags = (returned ? 0 : FA_EV_NO_RETURN) | deleted;
	ev->ids[0] = BPF_CORE_READ(c, uid.val);
	ev->ids[1] = BPF_CORE_READ(c, gid.val);
	ev->ids[2] = BPF_CORE_READ(c, euid.val);
	ev->ids[3] = BPF_CORE_READ(c, suid.val);
	ev->ids[4] = BPF_CORE_READ(c, fsuid.val);
	ev->ids[5] = BPF_CORE_READ(c, egid.val);
	ev->ids[6] = BPF_CORE_READ(c, sgid.val);
	ev->ids[7] = BPF_CORE_READ(c, fsgid.val);
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	struct tty_struct *tty = BPF_CORE_READ(task, signal, tty);
	if (tty)
		bpf_core_read_str(ev->tty, sizeof(ev->tty), &tty->name);
	else
		ev->tty[0] = 0;
	count(FA_STAT_EMITTED);
	bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
	return 0;
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
	if (BPF_CORE_READ(task, flags) & PF_KTHREAD)
		return 0;
	struct fa_hits local = {};
	struct hlist_node *alias = BPF_CORE_READ(inode, i_dentry.first);
	if (alias) {
		struct dentry *d = container_of(alias, struct dentry, d_u.d_alias);
		note_dentry(&local, d, 0);
		struct inode *pi = BPF_CORE_READ(d, d_parent, d_inode);
		struct fa_inode_key pk = {
			.ino = BPF_CORE_READ(pi, i_ino),
			.dev = BPF_CORE_READ(pi, i_sb, s_dev),
		};
		struct fa_watch *pw = pi ? bpf_map_lookup_elem(&watched, &pk) : 0;
		if (pw && pw->parent)
			local.moved[0] = (__u64)d;
	} else {
		note_inode(&local, inode, 1);
	}
	if (!local.count && !local.moved[0])
		return 0;
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	long nr = BPF_CORE_READ(regs, orig_ax);
	if (nr < 0 || nr >= FA_NR_SYSCALLS)
		return 0;
	__u32 compat = BPF_CORE_READ(task, thread_info.status) & TS_COMPAT ? 1 : 0;
	__u32 key = nr + (compat ? FA_NR_SYSCALLS : 0);
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

/* Every hook below but the per-syscall ones exists twice: as tp_btf
 * (typed, BTF-checked arguments; preferred) and as raw_tp (for kernels
 * that refuse tp_btf). The engine loads and attaches one of the two. */
#define TWICE(tp, name)                                                  \
	SEC("tp_btf/" #tp) int fa_##name(__u64 *ctx)                     \
	{ return name##_body(ctx); }                                     \
	SEC("raw_tp/" #tp) int fa_rtp_##name(__u64 *ctx)                 \
	{ return name##_body(ctx); }

static __always_inline int ctime_body(__u64 *ctx)
{
	return on_ctime((struct inode *)ctx[0]);
}

/* Task list: evaluated once for each new task (thread), with the new
 * task's credentials, as the kernel's audit_alloc/audit_filter_task do. */
static __always_inline int task_new_body(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[0];
	__u32 key = FA_TASK_SPAN;
	struct fa_span *span = bpf_map_lookup_elem(&spans, &key);
	if (!span || !span->count)
		return 0;
	struct subject s = { .task = task, .tgid = BPF_CORE_READ(task, tgid) };
	struct eval e = { .s = &s, .start = span->start, .matched = -1 };
	bpf_loop(span->count, try_rule, &e, 0);
	__u32 tid = BPF_CORE_READ(task, pid);
	if (e.matched == -2) {
		__u8 one = 1;
		bpf_map_update_elem(&unaudited, &tid, &one, BPF_ANY);
	} else if (e.matched >= 0) {
		__u32 rule = (__u32)e.matched;
		bpf_map_update_elem(&recorded, &tid, &rule, BPF_ANY);
	}
	return 0;
}

static __always_inline int task_exit_body(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[0];
	__u32 tid = BPF_CORE_READ(task, pid);
	bpf_map_delete_elem(&unaudited, &tid);
	if (have_recorded)
		bpf_map_delete_elem(&recorded, &tid);
	return 0;
}

/* Entry hook, attached only when exec syscalls (their arguments) or
 * exit/exit_group (judged here) are audited. */
static __always_inline int raw_enter_body(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];
	long id = (long)ctx[1];
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 compat = BPF_CORE_READ(task, thread_info.status) & TS_COMPAT ? 1 : 0;
	if (is_noreturn((__u32)id, compat))
		return on_end((__u32)id, 0, 0);
	if (!is_exec((__u32)id, compat))
		return 0;
	struct subject s = { .task = task, .regs = regs, .compat = compat };
	save_entry_args(&s);
	return 0;
}

/* Raw exit hook: every syscall of both ABIs. */
static __always_inline int raw_exit_body(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];
	long ret = (long)ctx[1];
	return on_end((__u32)BPF_CORE_READ(regs, orig_ax), ret, 1);
}

#define ctime_xchg_body ctime_body
#define ctime_skip_body ctime_body
#define ctime_set_body ctime_body
TWICE(ctime_ns_xchg, ctime_xchg)
TWICE(ctime_xchg_skip, ctime_skip)
TWICE(inode_set_ctime_to_ts, ctime_set)
TWICE(task_newtask, task_new)
TWICE(sched_process_exit, task_exit)
TWICE(sys_enter, raw_enter)
TWICE(sys_exit, raw_exit)

/* Probes: which hook kinds this kernel loads and attaches (fexit is the
 * zero-cost kind: a trampoline on the audited functions only). */
SEC("fexit/__x64_sys_chmod")
int BPF_PROG(fa_probe_fexit, struct pt_regs *regs, long ret)
{
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(fa_probe_tp_btf, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(fa_probe_raw_tp, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tracepoint")
int fa_syscall_enter(struct syscall_trace_enter *ctx)
{
	if (is_noreturn((__u32)ctx->nr, 0))
		return on_end((__u32)ctx->nr, 0, 0);
	struct task_struct *task = bpf_get_current_task_btf();
	struct subject s = { .task = task, .regs = (struct pt_regs *)bpf_task_pt_regs(task) };
	save_entry_args(&s);
	return 0;
}

/* Per-syscall hook, attached to syscalls:sys_exit_NAME for each audited
 * native syscall (these tracepoints never fire for compat syscalls). */
SEC("tracepoint")
int fa_syscall_exit(struct syscall_trace_exit *ctx)
{
	return on_end((__u32)ctx->nr, ctx->ret, 1);
}
