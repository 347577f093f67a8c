/* SPDX-License-Identifier: GPL-2.0 */
/* Hooks on each audited syscall's own kernel function (fexit on
 * `__x64_sys_openat`, fentry on `__ia32_compat_sys_execve`, ...): a
 * syscall no rule names runs no program at all, where the per-syscall
 * tracepoints and the raw hooks cost every syscall.
 *
 * A trampoline program is loaded for one function, and the exit's work
 * (on_end) takes the verifier a third of a second: loaded once per
 * function it would take that many times over. So each function gets a
 * stub of its own that tail-calls the body, loaded once. The kernel
 * joins by tail call only programs attached to functions of one
 * prototype, and the syscall functions have two (their one parameter is
 * named `regs`, or `__unused` for SYSCALL_DEFINE0): one body and one
 * body map per prototype group, the engine's PROTO_GROUPS. The engine
 * picks the stubs, sets each one's function before the load, puts each
 * body in its group's map, and attaches the stubs only. */
#ifndef FA_SYSCALL_FUNCTIONS_BPF_H
#define FA_SYSCALL_FUNCTIONS_BPF_H

/* The body a group's stubs tail-call (entry 0), one map per side and group. */
#define FA_BODY_MAP(name)                                                \
	struct {                                                         \
		__uint(type, BPF_MAP_TYPE_PROG_ARRAY);                   \
		__uint(max_entries, 1);                                  \
		__type(key, __u32);                                      \
		__type(value, __u32);                                    \
	} name SEC(".maps");
FA_BODY_MAP(fexit_body0)
FA_BODY_MAP(fexit_body1)
FA_BODY_MAP(fentry_body0)
FA_BODY_MAP(fentry_body1)
FA_BODY_MAP(fentry_end_body0)

/* The section of each family of stubs (fentry_end: exit and
 * exit_group's entries, whose body does the exit's work). */
#define FA_SECTION_fexit "fexit"
#define FA_SECTION_fentry "fentry"
#define FA_SECTION_fentry_end "fentry"

/* One stub: fa_fexit0_1c is fexit stub 0x1c of group 0. Its section has
 * no function: the engine sets it. */
#define FA_STUB(side, group, n)                                          \
	SEC(FA_SECTION_##side) int fa_##side##group##_##n(__u64 *ctx)    \
	{                                                                \
		bpf_tail_call(ctx, &side##_body##group, 0);              \
		return 0;                                                \
	}
#define FA_STUBS16(side, group, h)                                       \
	FA_STUB(side, group, h##0) FA_STUB(side, group, h##1)            \
	FA_STUB(side, group, h##2) FA_STUB(side, group, h##3)            \
	FA_STUB(side, group, h##4) FA_STUB(side, group, h##5)            \
	FA_STUB(side, group, h##6) FA_STUB(side, group, h##7)            \
	FA_STUB(side, group, h##8) FA_STUB(side, group, h##9)            \
	FA_STUB(side, group, h##a) FA_STUB(side, group, h##b)            \
	FA_STUB(side, group, h##c) FA_STUB(side, group, h##d)            \
	FA_STUB(side, group, h##e) FA_STUB(side, group, h##f)

#endif
