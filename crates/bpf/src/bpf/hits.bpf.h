/* SPDX-License-Identifier: GPL-2.0 */
/* Watched objects a syscall touched (the kernel's audit_names, reduced
 * to what a path= or dir= rule can ask about), kept per thread in the
 * hits map and matched by inode identity, as audit_watch and audit_tree
 * compare inodes, not names. */
#ifndef FA_HITS_BPF_H
#define FA_HITS_BPF_H

#include "maps.bpf.h"
#include "dentry.bpf.h"

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

/* has_hit on the current thread's hits, as a global function: checked
 * once by the verifier, not in every state of the rule callback (the
 * eight compares' exact results multiplied its states; the raw exit
 * program reached the 1M limit). */
__noinline int fa_has_hit(__u32 id)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_hits *h = bpf_map_lookup_elem(&hits, &tid);
	return h && has_hit(h, id);
}

/* Whether thread tid's syscall touched any watched object. */
static __always_inline __u32 hits_any(__u32 tid)
{
	struct fa_hits *h = bpf_map_lookup_elem(&hits, &tid);
	return h && h->count;
}

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

/* Forget hits left by an earlier syscall. */
static __always_inline void hits_clear(struct fa_hits *h)
{
	h->count = 0;
	for (int j = 0; j < FA_MAX_HITS; j++)
		h->id[j] = 0;
	for (int j = 0; j < FA_MAX_MOVED; j++)
		h->moved[j] = 0;
}

/* The watch on inode (as a file only when `self`: a directory above a
 * file is a hit for dir= watches only). */
static __always_inline void note_inode(struct fa_hits *h, struct inode *inode, int self)
{
	if (!inode)
		return;
	struct fa_inode_key k = inode_key(inode);
	struct fa_watch *w = bpf_map_lookup_elem(&watched, &k);
	if (!w)
		return;
	if (self)
		hit_add(h, w->file_id);
	hit_add(h, w->dir_id);
}

struct ancestors {
	struct fa_hits *h;
	struct walk_pos pos;
};

static long ancestor_step(__u32 i, struct ancestors *a)
{
	enum walk_step s = dentry_up(&a->pos);
	if (s != WALK_PARENT && s != WALK_MOUNT)
		return 1;
	struct fa_hits *h = a->h;
	if (!h)
		return 1;
	/* CO-RE reads need the pointer in a local, not a context field. */
	struct dentry *d = a->pos.d;
	note_inode(h, dentry_inode(d), 0);
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
	note_inode(h, dentry_inode(d), 1);
	if (!have_dirs)
		return;
	struct ancestors a = { .h = h, .pos = { .d = d, .vm = vm } };
	bpf_loop(FA_DIR_DEPTH, ancestor_step, &a, 0);
}

/* A watched file's name in the directory `dir` (by identity), as the
 * watch_by_parent_name map holds it; 0 when the name cannot be a key. */
static __always_inline int name_key(struct fa_name_key *k, struct inode *dir, __u32 len)
{
	if (!dir || len == 0 || len >= FA_NAME_LEN)
		return 0;
	struct fa_inode_key dk = inode_key(dir);
	k->parent_ino = dk.ino;
	k->parent_dev = dk.dev;
	k->len = len;
	return 1;
}

/* Whether dentry d now has a watched file's name in its directory; if
 * so, the watch moves to d's inode (it was created or renamed there), as
 * the kernel's audit_watch follows fsnotify events on the parent. */
static __always_inline void follow_one(struct fa_hits *h, struct dentry *d)
{
	if (!d)
		return;
	struct fa_name_key k = {};
	struct inode *inode = dentry_inode(d);
	__u32 len = FA_GET(d, struct dentry, d_name.len);
	struct dentry *parent = FA_GET(d, struct dentry, d_parent);
	if (!inode || !name_key(&k, dentry_inode(parent), len))
		return;
	/* name_key bounded len, but clang would drop the mask the verifier
	 * needs as the bound: hide its value. */
	barrier_var(len);
	bpf_probe_read_kernel(k.name, len & (FA_NAME_LEN - 1), FA_GET(d, struct dentry, d_name.name));
	__u32 *id = bpf_map_lookup_elem(&watch_by_parent_name, &k);
	if (!id)
		return;
	__u32 file_id = *id;
	hit_add(h, file_id);
	struct fa_inode_key ik = inode_key(inode);
	struct fa_watch *w = bpf_map_lookup_elem(&watched, &ik);
	if (w) {
		w->file_id = file_id;
	} else {
		struct fa_watch nw = { .file_id = file_id };
		bpf_map_update_elem(&watched, &ik, &nw, BPF_ANY);
	}
}

struct follow {
	struct fa_hits *h;
	struct dentry *opened;
};

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

#endif
