/* SPDX-License-Identifier: GPL-2.0 */
/* Everything the BPF side knows about the architecture: which ABI a
 * syscall came through and where its arguments sit (arch_x86.bpf.h,
 * arch_arm64.bpf.h: x86_64 with ia32, arm64 with AArch32), and the
 * syscall numbers that need special handling. Syscall numbers come from
 * audit_abi.h, generated from the target's syscall tables: a call one
 * ABI lacks has a number no syscall has there, so its tests never match. */
#ifndef FA_ARCH_BPF_H
#define FA_ARCH_BPF_H

#define PF_KTHREAD 0x00200000   /* task_struct.flags */
#define FA_PF_IO_WORKER 0x10    /* task_struct.flags: an io_uring thread (io-wq, SQPOLL) */
#define SYS_BIND 2              /* socketcall's call number of bind */

/* The machine's part: task_compat, current_compat, current_syscall_nr,
 * abi_arch, regs_syscall_nr(_direct), regs_arg_raw, regs_arg45_raw,
 * regs_arg01_direct, syscall_function_ret, kprobe_entry_caller. Every
 * other header reaches registers through these. */
#if defined(__TARGET_ARCH_x86)
#include "arch_x86.bpf.h"
#elif defined(__TARGET_ARCH_arm64)
#include "arch_arm64.bpf.h"
#else
#error "fastaudit's BPF side is built for x86 or arm64 (-D__TARGET_ARCH_x86 or _arm64)"
#endif

/* Index of a syscall in the per-syscall maps (spans, sysclass, ...). */
static __always_inline __u32 span_index(__u32 nr, __u32 compat)
{
	return nr + (compat ? FA_NR_SYSCALLS : 0);
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
