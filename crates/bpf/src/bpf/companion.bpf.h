/* SPDX-License-Identifier: GPL-2.0 */
/* Companions: syscalls during which the kernel writes a record of its own
 * that stock audit follows with the syscall's SYSCALL and PROCTITLE
 * records (a task with an audit context gets them at the syscall's exit;
 * under fastaudit tasks have none). Today: a write to the writer's own
 * /proc/PID/loginuid, which makes LOGIN. */
#ifndef FA_COMPANION_BPF_H
#define FA_COMPANION_BPF_H

#define PROC_SUPER_MAGIC 0x9fa0

/* Whether the write that just returned `ret` reached audit_set_loginuid,
 * which writes LOGIN (res=0 when it refuses the change, with EPERM):
 * proc_loginuid_write on a proc `loginuid` file of the writing thread
 * itself. Writing another task's loginuid, a partial write or a bad
 * number fail before any record (EPERM, EINVAL, ...). */
static __always_inline int loginuid_written(struct task_struct *task, __u32 compat, long ret)
{
	if (ret < 0 && ret != -EPERM)
		return 0;
	/* Every write pays this much: direct BTF loads (task is the trusted
	 * current task), not probe-read chains (see "Hook costs"). */
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	int fd = compat ? (int)regs->bx : (int)regs->di;
	struct files_struct *files = task->files;
	if (!files)
		return 0;
	struct fdtable *fdt = files->fdt;
	if (!fdt || fd < 0 || fd >= fdt->max_fds)
		return 0;
	struct file *fp = 0;
	bpf_probe_read_kernel(&fp, sizeof(fp), &fdt->fd[fd]);
	if (!fp)
		return 0;
	struct file *f = bpf_core_cast(fp, struct file);
	struct inode *inode = f->f_inode;
	if (!inode || inode->i_sb->s_magic != PROC_SUPER_MAGIC)
		return 0;
	/* A proc file: the rare path from here on. */
	const unsigned char *name = BPF_CORE_READ(fp, f_path.dentry, d_name.name);
	char got[10] = {};
	if (bpf_probe_read_kernel_str(got, sizeof(got), name) != 9)
		return 0;
	const char want[] = "loginuid";
	for (int i = 0; i < 8; i++)
		if (got[i] != want[i])
			return 0;
	if (ret >= 0)
		return 1;
	/* EPERM: from audit_set_loginuid only if the file is the thread's own
	 * (proc_loginuid_write's first refusal comes before any record). */
	struct proc_inode *pi = container_of(BPF_CORE_READ(fp, f_inode), struct proc_inode, vfs_inode);
	return BPF_CORE_READ(pi, pid) == BPF_CORE_READ(task, thread_pid);
}

/* Whether the syscall nr that returned ret needs a companion event: a
 * loginuid write (checked last: the number test is the cheap one), by a
 * task without a kernel audit context unless companion_with_context. */
static __always_inline int wants_companion(struct task_struct *task, __u32 nr, __u32 compat,
					   long ret, __u32 returned)
{
	if (!returned || !is_write(nr, compat))
		return 0;
	if (!companion_with_context && task->audit_context)
		return 0;
	return loginuid_written(task, compat, ret);
}

#endif
