/* SPDX-License-Identifier: GPL-2.0 */
/* Companions: syscalls during which the kernel writes a record of its own
 * that stock audit follows with the syscall's SYSCALL and PROCTITLE
 * records (a task with an audit context gets them at the syscall's exit;
 * under fastaudit tasks have none): a write to the writer's own
 * /proc/PID/loginuid, which makes LOGIN, and a message to kernel audit
 * over netlink that changes its rules or status (CONFIG_CHANGE; stock
 * audit adds the send's SOCKADDR). */
#ifndef FA_COMPANION_BPF_H
#define FA_COMPANION_BPF_H

#include "arch.bpf.h"
#include "maps.bpf.h"
#include "dentry.bpf.h"

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
	/* Every write pays this much: direct BTF loads throughout. */
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	int fd = (int)regs_arg01_direct(regs, compat, 0);
	struct file *fp = current_fd_file(task, fd);
	if (!fp)
		return 0;
	if (bpf_ksym_exists(bpf_rdonly_cast)) {
		struct file *f = bpf_core_cast(fp, struct file);
		struct inode *inode = f->f_inode;
		if (!inode || inode->i_sb->s_magic != PROC_SUPER_MAGIC)
			return 0;
	} else {
		/* No BTF casts (before Linux 6.2): probe reads. */
		struct inode *inode = BPF_CORE_READ(fp, f_inode);
		if (!inode || BPF_CORE_READ(inode, i_sb, s_magic) != PROC_SUPER_MAGIC)
			return 0;
	}
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

#define AF_NETLINK 16
#define NETLINK_AUDIT 9
#define S_IFSOCK 0140000

/* Whether a native sendto/sendmsg that returned ret handed kernel audit a
 * message that makes a record inside the send (audit_receive_msg):
 * FA_CONFIG_CHANGE_MSG, from the rules crate's abi::config_msg (AUDIT_SET
 * makes one CONFIG_CHANGE per field it sets; SET_FEATURE a
 * FEATURE_CHANGE). Not GET, LIST_RULES, USER_* (those have no record,
 * or one without a context). Only the first
 * netlink message of the send is looked at (auditctl sends one). */
static __always_inline int audit_config_sent(struct task_struct *task, __u32 nr, long ret)
{
	if (ret < 0)
		return 0;
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct file *fp = current_fd_file(task, (int)regs_arg01_direct(regs, 0, 0));
	if (!fp)
		return 0;
	if (bpf_ksym_exists(bpf_rdonly_cast)) {
		struct file *f = bpf_core_cast(fp, struct file);
		struct inode *inode = f->f_inode;
		if (!inode || (inode->i_mode & FA_S_IFMT) != S_IFSOCK)
			return 0;
		struct socket *sock = bpf_core_cast(f->private_data, struct socket);
		struct sock *sk = sock->sk;
		if (!sk || sk->__sk_common.skc_family != AF_NETLINK ||
		    sk->sk_protocol != NETLINK_AUDIT)
			return 0;
	} else {
		/* No BTF casts (before Linux 6.2): probe reads. */
		struct inode *inode = BPF_CORE_READ(fp, f_inode);
		if (!inode || (BPF_CORE_READ(inode, i_mode) & FA_S_IFMT) != S_IFSOCK)
			return 0;
		struct socket *sock = BPF_CORE_READ(fp, private_data);
		struct sock *sk = BPF_CORE_READ(sock, sk);
		if (!sk || BPF_CORE_READ(sk, __sk_common.skc_family) != AF_NETLINK ||
		    BPF_CORE_READ(sk, sk_protocol) != NETLINK_AUDIT)
			return 0;
	}
	/* The message: sendto's buffer, or sendmsg's first iovec's. */
	const void *buf = (const void *)regs_arg01_direct(regs, 0, 1);
	if (nr == FA_NR64_sendmsg) {
		const void *iov = 0;
		if (bpf_probe_read_user(&iov, sizeof(iov), buf + 16) || !iov ||
		    bpf_probe_read_user(&buf, sizeof(buf), iov))
			return 0;
	}
	__u16 type = 0;
	if (!buf || bpf_probe_read_user(&type, sizeof(type), buf + 4))
		return 0;
	return FA_CONFIG_CHANGE_MSG(type);
}

/* Whether the syscall nr that returned ret needs a companion event: a
 * loginuid write or an audit config send (checked last: the number test
 * is the cheap one), by a task without a kernel audit context unless
 * companion_with_context. */
static __always_inline int wants_companion(struct task_struct *task, __u32 nr, __u32 compat,
					   long ret, __u32 returned)
{
	if (!returned)
		return 0;
	int write = is_write(nr, compat);
	if (!write && !is_send(nr, compat))
		return 0;
	if (!companion_with_context && task->audit_context)
		return 0;
	return write ? loginuid_written(task, compat, ret) : audit_config_sent(task, nr, ret);
}

#endif
