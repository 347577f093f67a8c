/* SPDX-License-Identifier: GPL-2.0 */
/* Files, inodes and dentries: identities and the one walk up the dentry
 * tree (as d_path walks it, crossing mount points), used for the
 * executable's path, for dir= ancestors and for a relative path's base
 * directory. As libbpf-tools' path_helpers.bpf.h and tracee's
 * common/filesystem.h. */
#ifndef FA_DENTRY_BPF_H
#define FA_DENTRY_BPF_H

#include "load.bpf.h"

#define AT_FDCWD -100   /* a dirfd meaning "the current directory" */

/* An inode's identity: the kernel's (i_ino, s_dev), as audit compares. */
static __always_inline struct fa_inode_key inode_key(struct inode *inode)
{
	struct super_block *sb = FA_GET(inode, struct inode, i_sb);
	struct fa_inode_key k = {
		.ino = FA_GET(inode, struct inode, i_ino),
		.dev = FA_GET(sb, struct super_block, s_dev),
	};
	return k;
}

/* struct dentry as newer kernels lay it out (Debian's 7.2 and 7.3): the
 * union that held d_alias is anonymous, so d_alias is reached without the
 * d_u of older kernels (6.18 and before), whose name no longer exists. */
struct dentry___alias_flat {
	struct hlist_node d_alias;
} __attribute__((preserve_access_index));

/* The dentry of an entry of an inode's alias list (i_dentry.first), as
 * this kernel places d_alias in struct dentry (NULL stays NULL). */
static __always_inline struct dentry *alias_dentry(struct hlist_node *alias)
{
	if (!alias)
		return 0;
	if (bpf_core_field_exists(struct dentry, d_u))
		return container_of(alias, struct dentry, d_u.d_alias);
	return (struct dentry *)((void *)alias -
				 bpf_core_field_offset(struct dentry___alias_flat, d_alias));
}

/* A dentry's inode (NULL: negative). */
static __always_inline struct inode *dentry_inode(struct dentry *d)
{
	return FA_GET(d, struct dentry, d_inode);
}

/* Where a walk up the dentry tree is: a dentry and, when known, its mount. */
struct walk_pos {
	struct dentry *d;
	struct vfsmount *vm;
};

enum walk_step {
	WALK_PARENT,  /* moved to the parent directory; the child was a component */
	WALK_MOUNT,   /* crossed from a mount's root to its mount point: no component */
	WALK_ROOT,    /* at the root of the mount tree: done */
	WALK_END,     /* a root with no mount known to cross: the walk cannot go on */
};

/* One step of d_path's walk from p->d towards the root. Without a mount
 * (p->vm NULL) the walk stays in the dentry's file system and ends at its
 * root with WALK_END. */
static __always_inline enum walk_step dentry_up(struct walk_pos *p)
{
	struct dentry *d = p->d;
	struct vfsmount *vm = p->vm;
	if (vm && d == FA_GET(vm, struct vfsmount, mnt_root)) {
		struct mount *m = container_of(vm, struct mount, mnt);
		struct mount *parent = BPF_CORE_READ(m, mnt_parent);
		if (parent == m)
			return WALK_ROOT;
		p->d = BPF_CORE_READ(m, mnt_mountpoint);
		p->vm = &parent->mnt;
		return WALK_MOUNT;
	}
	struct dentry *up = FA_GET(d, struct dentry, d_parent);
	if (!up || up == d)
		return WALK_END;
	p->d = up;
	return WALK_PARENT;
}

/* A step of a bpf_loop walk that spells a path leaf first (the working
 * directory, a relative path's base): SPELL_COMPONENT when it moved up
 * past a component, *child; else what the loop callback returns: 0 when
 * it crossed a mount (no component), 1 when the walk is over, with
 * *whole set when it reached the root (the path is complete). */
#define SPELL_COMPONENT -1
static __always_inline long spell_step(struct walk_pos *p, struct dentry **child, __u32 *whole)
{
	*child = p->d;
	switch (dentry_up(p)) {
	case WALK_PARENT:
		return SPELL_COMPONENT;
	case WALK_MOUNT:
		return 0;
	case WALK_ROOT:
		*whole = 1;
		return 1;
	default:
		return 1;   /* a root without its mount: give up */
	}
}

/* Whether d_path would add " (deleted)": the dentry is unhashed and not
 * a root. */
static __always_inline int dentry_deleted(struct dentry *d)
{
	return !FA_GET(d, struct dentry, d_hash.pprev) && FA_GET(d, struct dentry, d_parent) != d;
}

/* The open file behind a task's file descriptor, or NULL. */
static __always_inline struct file *fd_file(struct task_struct *t, long fd)
{
	struct files_struct *files = FA_GET(t, struct task_struct, files);
	struct fdtable *fdt = FA_GET(files, struct files_struct, fdt);
	if (!fdt || fd < 0 || fd >= FA_GET(fdt, struct fdtable, max_fds))
		return 0;
	struct file **fds = FA_GET(fdt, struct fdtable, fd);
	struct file *f = 0;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

/* The open file behind fd of the current task, by direct BTF loads (the
 * current task is trusted): cheaper than fd_file's probe-read chains, for
 * the checks every write or send pays (see "Hook costs"). */
static __always_inline struct file *current_fd_file(struct task_struct *task, int fd)
{
	struct files_struct *files = task->files;
	if (!files)
		return 0;
	struct fdtable *fdt = files->fdt;
	if (!fdt || fd < 0 || fd >= fdt->max_fds)
		return 0;
	struct file *fp = 0;
	bpf_probe_read_kernel(&fp, sizeof(fp), &fdt->fd[fd]);
	return fp;
}

/* The task's working directory (its dentry and mount). */
static __always_inline struct walk_pos task_pwd(struct task_struct *t)
{
	struct fs_struct *fs = FA_GET(t, struct task_struct, fs);
	struct walk_pos p = {
		.d = FA_GET(fs, struct fs_struct, pwd.dentry),
		.vm = FA_GET(fs, struct fs_struct, pwd.mnt),
	};
	return p;
}

/* The task's executable, or NULL (kernel threads). */
static __always_inline struct file *task_exe(struct task_struct *t)
{
	struct mm_struct *mm = FA_GET(t, struct task_struct, mm);
	return FA_GET(mm, struct mm_struct, exe_file);
}

#endif
