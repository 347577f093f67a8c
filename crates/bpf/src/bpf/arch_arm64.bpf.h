/* SPDX-License-Identifier: GPL-2.0 */
/* arm64 with its AArch32 compat ABI: which ABI a syscall came through
 * and where its number and arguments sit in the saved registers. Included
 * by arch.bpf.h when clang is given -D__TARGET_ARCH_arm64; arch_x86.bpf.h
 * has the same functions for x86_64.
 *
 * pt_regs is user_pt_regs (regs[31], sp, pc, pstate), then orig_x0 and
 * syscallno. A syscall's arguments are in x0-x5, its number in
 * syscallno; x0 is overwritten by the return value, so argument 0 is
 * orig_x0 (saved at entry), as syscall_get_arguments reads it. An
 * AArch32 task's syscalls put r0-r6 in the same x0-x6 (upper halves
 * zero). */
#ifndef FA_ARCH_ARM64_BPF_H
#define FA_ARCH_ARM64_BPF_H

#ifndef FA_ARCH_BPF_H
#error "include arch.bpf.h, which picks the architecture's header"
#endif

/* thread_info.flags: an AArch32 task (arch/arm64/include/asm/
 * thread_info.h, 22 in Linux 6.1 and 6.12). Unlike x86's TS_COMPAT it
 * marks the task, not one syscall: an AArch32 task makes only compat
 * syscalls (syscall_get_arch and arch_trace_is_compat_syscall test it). */
#define FA_TIF_32BIT 22

/* Whether the task's syscalls come through the AArch32 ABI. */
static __always_inline __u32 task_compat(struct task_struct *t)
{
	return (BPF_CORE_READ(t, thread_info.flags) >> FA_TIF_32BIT) & 1;
}

/* As task_compat for the current task (bpf_get_current_task_btf's
 * trusted pointer): a direct load, not a probe read. The raw hooks'
 * first test, on every syscall. */
static __always_inline __u32 current_compat(struct task_struct *t)
{
	return (t->thread_info.flags >> FA_TIF_32BIT) & 1;
}

/* The current syscall's number, by direct loads (any program kind); ~0
 * outside a syscall. A user task's syscallno is NO_SYSCALL (-1) outside
 * a syscall, but a kernel thread's or an io_uring worker's saved
 * registers are zeroed (syscallno 0 is io_setup), so those are told
 * apart by their flags. */
static __always_inline __u32 current_syscall_nr(struct task_struct *t)
{
	if (t->flags & (PF_KTHREAD | FA_PF_IO_WORKER))
		return ~0U;
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);
	return (__u32)r->syscallno;
}

/* The audit arch of an ABI (the `arch` field and arch= tests). */
static __always_inline __u32 abi_arch(__u32 compat)
{
	return compat ? AUDIT_ARCH_ARM : AUDIT_ARCH_AARCH64;
}

/* The syscall number in a task's saved registers. */
static __always_inline long regs_syscall_nr(struct pt_regs *r)
{
	return BPF_CORE_READ(r, syscallno);
}

/* As regs_syscall_nr, by a direct load from a BTF pointer (tp_btf's
 * registers, bpf_task_pt_regs). */
static __always_inline __u32 regs_syscall_nr_direct(struct pt_regs *r)
{
	return (__u32)r->syscallno;
}

/* The register holding syscall argument n (0-3) of either ABI, whole:
 * what the kernel's SYSCALL record shows as a0-a3. */
static __always_inline __u64 regs_arg_raw(struct pt_regs *r, __u32 compat, int n)
{
	switch (n) {
	case 0: return BPF_CORE_READ(r, orig_x0);
	case 1: return BPF_CORE_READ(r, regs[1]);
	case 2: return BPF_CORE_READ(r, regs[2]);
	default: return BPF_CORE_READ(r, regs[3]);
	}
}

/* The register holding syscall argument 4 or 5 (n) of either ABI,
 * whole. */
static __always_inline __u64 regs_arg45_raw(struct pt_regs *r, __u32 compat, int n)
{
	return n == 4 ? BPF_CORE_READ(r, regs[4]) : BPF_CORE_READ(r, regs[5]);
}

/* Syscall argument 0 or 1 (n) of either ABI, whole, by a direct load
 * from a BTF pointer (bpf_task_pt_regs): what every write pays for. */
static __always_inline __u64 regs_arg01_direct(struct pt_regs *r, __u32 compat, int n)
{
	return n == 0 ? r->orig_x0 : r->regs[1];
}

/* A syscall's result as its exit sees it, from its function's return
 * value (fexit): an AArch32 syscall's is cut to 32 bits into x0
 * (invoke_syscall), which the exit's view (regs_return_value,
 * syscall_get_return_value) sign-extends. */
static __always_inline long syscall_function_ret(long ret, __u32 compat)
{
	return compat ? (long)(int)ret : ret;
}

/* The return address of a kprobe at a kernel function's entry (ctx: the
 * kprobe's registers): the link register, x30, before the prologue saves
 * it. */
static __always_inline __u64 kprobe_entry_caller(struct pt_regs *ctx)
{
	return ctx->regs[30];
}

#endif
