/* SPDX-License-Identifier: GPL-2.0 */
/* The syscall function bodies with preemption disabled where the kernel
 * preempts its own code (Debian's 7.3: lazy preemption). A program run
 * from a trampoline (fentry, fexit) runs with only migration disabled,
 * where a tracepoint's runs with preemption disabled; the bodies build
 * records in per-CPU scratch maps, which another task's program on the
 * same CPU overwrites if a body is preempted half-way. So there the
 * bodies run between bpf_preempt_disable() and bpf_preempt_enable()
 * (Linux 6.11), which the engine asks for (fn_preempt_guard) where its
 * probe (probe.bpf.c, fa_probe_preempt_guard) found the kfuncs and a
 * verifier that lets a body call its global functions in that region. */
#ifndef FA_PREEMPT_BPF_H
#define FA_PREEMPT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

extern void bpf_preempt_disable(void) __ksym __weak;
extern void bpf_preempt_enable(void) __ksym __weak;

/* Set by the engine where the kernel preempts and the probe loaded. */
const volatile __u32 fn_preempt_guard = 0;

/* Whether the bodies disable preemption: constants (rodata and the
 * kfunc's presence), so the verifier follows one side only, and kernels
 * without the kfuncs never see their calls. */
static __always_inline int fn_preempt_guarded(void)
{
	return fn_preempt_guard && bpf_ksym_exists(bpf_preempt_disable);
}

static __always_inline void fn_preempt_off(void)
{
	if (fn_preempt_guarded())
		bpf_preempt_disable();
}

static __always_inline void fn_preempt_on(void)
{
	if (fn_preempt_guarded())
		bpf_preempt_enable();
}

#endif
