/* SPDX-License-Identifier: GPL-2.0 */
/* A failed syscall's path argument spelled the one way the watch tables
 * hold paths (absolute, normalized), and looked up in them: failed
 * syscalls change no inode, so their names are all there is to match. */
#ifndef FA_PATHNORM_BPF_H
#define FA_PATHNORM_BPF_H

#include "maps.bpf.h"
#include "dentry.bpf.h"
#include "hits.bpf.h"

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
	struct walk_pos base;            /* base directory walk: where it is */
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
	struct dentry *child;
	long next = spell_step(&n->base, &child, &n->ok);
	if (next != SPELL_COMPONENT)
		return next;
	__u32 depth = n->depth;
	if (depth >= FA_PATH_DEPTH)
		return 1;   /* too deep: give up */
	n->dirs[depth & (FA_PATH_DEPTH - 1)] = child;
	n->depth = depth + 1;
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
					    struct dentry *base, struct vfsmount *bvm, __u32 kernel)
{
	__u32 zero = 0;
	struct norm *n = bpf_map_lookup_elem(&norm_scratch, &zero);
	if (!n || !h)
		return;
	struct norm_ref r = { .n = n, .h = h };
	n->pos = 0;
	n->depth = 0;
	if (base) {
		n->base.d = base;
		n->base.vm = bvm;
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
	long len = kernel ? bpf_probe_read_kernel_str(&n->cat[at & (FA_ARG_MAX - 1)], FA_ARG_MAX, upath)
			  : bpf_probe_read_user_str(&n->cat[at & (FA_ARG_MAX - 1)], FA_ARG_MAX, upath);
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

/* A pointer as a plain number, read through the stack: the verifier lets
 * a global function take numbers, not typed pointers (BTF, map values). */
static __always_inline __u64 as_number(const void *p)
{
	__u64 v = 0;
	bpf_probe_read_kernel(&v, sizeof(v), &p);
	return v;
}

/* normalized_hits as a global function: the verifier checks it once, on
 * its own, not again in every state of the callbacks that call it
 * (failed_step, exec_name_hits). Inline there, its five loops made Linux
 * 7.3's verifier go past its 1M-instruction limit on the raw exit program
 * (STIG's rules: failed_step alone 705k instructions); 6.1 verified
 * 590k. Pointers pass as numbers (as_number): the callees store them in
 * map memory and read through them with probe reads or BTF casts anyway. */
__noinline int fa_normalized_hits(struct fa_hits *h, __u64 upath, __u64 base, __u64 bvm,
				  __u32 kernel)
{
	normalized_hits(h, (const void *)upath, (struct dentry *)base, (struct vfsmount *)bvm,
			kernel);
	return 0;
}

#endif
