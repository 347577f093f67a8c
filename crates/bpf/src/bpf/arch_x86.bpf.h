/* SPDX-License-Identifier: GPL-2.0 */
/* x86_64 with its ia32 compat ABI: which ABI a syscall came through and
 * where its number and arguments sit in the saved registers. Included by
 * arch.bpf.h when clang is given -D__TARGET_ARCH_x86; arch_arm64.bpf.h
 * has the same functions for arm64. */
#ifndef FA_ARCH_X86_BPF_H
#define FA_ARCH_X86_BPF_H

#ifndef FA_ARCH_BPF_H
#error "include arch.bpf.h, which picks the architecture's header"
#endif

#define TS_COMPAT 0x0002        /* thread_info.status: an ia32 syscall */

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

/* The current syscall's number, by direct loads (any program kind); ~0
 * outside a syscall (kernel threads: orig_ax -1). */
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

/* The syscall number in a task's saved registers. */
static __always_inline long regs_syscall_nr(struct pt_regs *r)
{
	return BPF_CORE_READ(r, orig_ax);
}

/* As regs_syscall_nr, by a direct load from a BTF pointer (tp_btf's
 * registers, bpf_task_pt_regs). */
static __always_inline __u32 regs_syscall_nr_direct(struct pt_regs *r)
{
	return (__u32)r->orig_ax;
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

/* The register holding syscall argument 4 or 5 (n) of either ABI,
 * whole. */
static __always_inline __u64 regs_arg45_raw(struct pt_regs *r, __u32 compat, int n)
{
	if (compat)
		return n == 4 ? BPF_CORE_READ(r, di) : BPF_CORE_READ(r, bp);
	return n == 4 ? BPF_CORE_READ(r, r8) : BPF_CORE_READ(r, r9);
}

/* Syscall argument 0 or 1 (n) of either ABI, whole, by a direct load
 * from a BTF pointer (bpf_task_pt_regs): what every write pays for. */
static __always_inline __u64 regs_arg01_direct(struct pt_regs *r, __u32 compat, int n)
{
	if (compat)
		return n == 0 ? r->bx : r->cx;
	return n == 0 ? r->di : r->si;
}

/* A syscall's result as its exit sees it, from its function's return
 * value (fexit): both ABIs store the whole long in ax. */
static __always_inline long syscall_function_ret(long ret, __u32 compat)
{
	return ret;
}

/* The return address of a kprobe at a kernel function's entry (ctx: the
 * kprobe's registers): the call pushed it, so it is the stack's top. */
static __always_inline __u64 kprobe_entry_caller(struct pt_regs *ctx)
{
	__u64 caller = 0;
	bpf_probe_read_kernel(&caller, sizeof(caller), (void *)ctx->sp);
	return caller;
}

#endif
