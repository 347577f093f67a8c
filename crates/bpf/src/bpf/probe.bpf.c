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
