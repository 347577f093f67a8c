/* SPDX-License-Identifier: GPL-2.0 */
/* Everything the BPF side knows about the architecture (x86_64 with its
 * ia32 compat ABI): which ABI a syscall came through, where its arguments
 * sit, and the syscall numbers that need special handling. Syscall
 * numbers come from audit_abi.h, generated from the syscall tables. */
#ifndef FA_ARCH_BPF_H
#define FA_ARCH_BPF_H

#define TS_COMPAT 0x0002        /* thread_info.status: an ia32 syscall */
#define PF_KTHREAD 0x00200000   /* task_struct.flags */
#define FA_PF_IO_WORKER 0x10    /* task_struct.flags: an io_uring thread (io-wq, SQPOLL) */
#define SYS_BIND 2              /* socketcall's call number of bind */

/* Whether the task's current syscall came through the ia32 ABI. */
static __always_inline __u32 task_compat(struct task_struct *t)
{
	return BPF_CORE_READ(t, thread_info.status) & TS_COMPAT ? 1 : 0;
}

/* As task_compat for the current task (bpf_get_current_task_btf's
 * trusted pointer): a direct load, not a probe read. The raw hooks'
 * first test, on every syscall. */
static __always_inline __u32 current_compat(struct task_struct *t)
{
	return t->thread_info.status & TS_COMPAT ? 1 : 0;
}

/* The current syscall's number, by direct loads (any program kind). */
static __always_inline __u32 current_syscall_nr(struct task_struct *t)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);
	return (__u32)r->orig_ax;
}

/* The audit arch of an ABI (the `arch` field and arch= tests). */
static __always_inline __u32 abi_arch(__u32 compat)
{
	return compat ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64;
}

/* Index of a syscall in the per-syscall maps (spans, sysclass, ...). */
static __always_inline __u32 span_index(__u32 nr, __u32 compat)
{
	return nr + (compat ? FA_NR_SYSCALLS : 0);
}

/* The syscall number in a task's saved registers. */
static __always_inline long regs_syscall_nr(struct pt_regs *r)
{
	return BPF_CORE_READ(r, orig_ax);
}

/* The register holding syscall argument n (0-3) of either ABI, whole:
 * what the kernel's SYSCALL record shows as a0-a3 (syscall_get_arguments
 * takes all 64 bits, also of an ia32 syscall a 64-bit process made with
 * int 0x80). */
static __always_inline __u64 regs_arg_raw(struct pt_regs *r, __u32 compat, int n)
{
	if (compat) {
		switch (n) {
		case 0: return BPF_CORE_READ(r, bx);
		case 1: return BPF_CORE_READ(r, cx);
		case 2: return BPF_CORE_READ(r, dx);
		default: return BPF_CORE_READ(r, si);
		}
	}
	switch (n) {
	case 0: return BPF_CORE_READ(r, di);
	case 1: return BPF_CORE_READ(r, si);
	case 2: return BPF_CORE_READ(r, dx);
	default: return BPF_CORE_READ(r, r10);
	}
}

/* Syscall argument n (0-3) as the syscall takes it: an ia32 syscall's
 * the register's low 32 bits. */
static __always_inline __u64 regs_arg(struct pt_regs *r, __u32 compat, int n)
{
	__u64 v = regs_arg_raw(r, compat, n);
	return compat ? (__u32)v : v;
}

/* open, openat, creat, openat2: their result is a file descriptor. */
static __always_inline int is_open(__u32 nr, __u32 compat)
{
	return compat ? (nr == FA_NR32_open || nr == FA_NR32_openat || nr == FA_NR32_creat ||
			 nr == FA_NR32_openat2)
		      : (nr == FA_NR64_open || nr == FA_NR64_openat || nr == FA_NR64_creat ||
			 nr == FA_NR64_openat2);
}

/* execve and execveat (the rules crate's syscall_sets::EXECS): their
 * registers are gone at exit. */
static __always_inline int is_exec(__u32 nr, __u32 compat)
{
	return compat ? FA_EXEC32(nr) : FA_EXEC64(nr);
}

/* utimensat and futimesat given no path (a1 NULL) change the times of
 * the file open on their fd: the kernel looks no name up (do_utimes_fd,
 * no audit_file), so the object is named in no PATH record and matches
 * no file watch, dir= or path= rule. */
static __always_inline int names_nothing(struct pt_regs *r, __u32 nr, __u32 compat)
{
	int times = compat ? (nr == FA_NR32_utimensat || nr == FA_NR32_utimensat_time64 ||
			      nr == FA_NR32_futimesat)
			   : (nr == FA_NR64_utimensat || nr == FA_NR64_futimesat);
	return times && regs_arg(r, compat, 1) == 0;
}

/* exit and exit_group (syscall_sets::NO_RETURN) end the task inside the
 * syscall: no exit hook ever sees them. */
static __always_inline int is_noreturn(__u32 nr, __u32 compat)
{
	return compat ? FA_NO_RETURN32(nr) : FA_NO_RETURN64(nr);
}

/* The write family (write, pwrite64, writev, pwritev, pwritev2): a write
 * to /proc/PID/loginuid makes the kernel's LOGIN record inside one. */
static __always_inline int is_write(__u32 nr, __u32 compat)
{
	return compat ? FA_LOGINUID_WRITE32(nr) : FA_LOGINUID_WRITE64(nr);
}

/* sendto, sendmsg of the native ABI: a message to kernel audit over its
 * netlink socket (auditctl) makes CONFIG_CHANGE inside the send. The ia32
 * ABI's (and socketcall's) are not followed: their CONFIG_CHANGE comes
 * alone. */
static __always_inline int is_send(__u32 nr, __u32 compat)
{
	return !compat && FA_AUDIT_CONFIG_SEND64(nr);
}

/* Whether syscall nr can make a companion (is_write or is_send): the
 * raw exit hook's first test lets these through. */
static __always_inline int may_be_companion(__u32 nr, __u32 compat, __u32 returned)
{
	return returned && (is_write(nr, compat) || is_send(nr, compat));
}

/* fork, vfork, clone, clone3: the child returns 0 from a syscall it
 * never entered. */
static __always_inline int is_fork(__u32 nr, __u32 compat)
{
	return compat ? (nr == FA_NR32_fork || nr == FA_NR32_vfork || nr == FA_NR32_clone ||
			 nr == FA_NR32_clone3)
		      : (nr == FA_NR64_fork || nr == FA_NR64_vfork || nr == FA_NR64_clone ||
			 nr == FA_NR64_clone3);
}

#endif
