// SPDX-License-Identifier: GPL-2.0
/* Probes: which hook kinds this kernel loads and attaches (fexit is the
 * zero-cost kind: a trampoline on the audited functions only), on a
 * syscall every target has natively (arm64 has no chmod). An object of
 * their own: loading them from fastaudit.bpf.o cost ~40 ms more per probe
 * (libbpf relocates that object's shared functions whatever is loaded),
 * this one ~10 ms. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "audit_abi.h"

SEC("fexit/" FA_SYSCALL_FN_PREFIX "fchmodat")
int BPF_PROG(fa_probe_fexit, struct pt_regs *regs, long ret)
{
	return 0;
}

/* Where the kernel preempts its own code the syscall function bodies
 * run with preemption disabled (preempt.bpf.h): this loads where the
 * kfuncs exist (Linux 6.11) and the verifier lets a global function be
 * called in that region, as the bodies call theirs. */
extern void bpf_preempt_disable(void) __ksym __weak;
extern void bpf_preempt_enable(void) __ksym __weak;

__noinline int fa_probe_guarded(void)
{
	return bpf_get_prandom_u32() & 1;
}

SEC("fexit/" FA_SYSCALL_FN_PREFIX "fchmodat")
int BPF_PROG(fa_probe_preempt_guard, struct pt_regs *regs, long ret)
{
	bpf_preempt_disable();
	fa_probe_guarded();
	bpf_preempt_enable();
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

char LICENSE[] SEC("license") = "GPL";
