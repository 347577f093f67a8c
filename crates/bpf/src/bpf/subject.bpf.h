/* SPDX-License-Identifier: GPL-2.0 */
/* The syscall being judged: the task, its registers or saved entry
 * arguments, its result, and small getters rules and records share. */
#ifndef FA_SUBJECT_BPF_H
#define FA_SUBJECT_BPF_H

#include "arch.bpf.h"
#include "load.bpf.h"

/* No padding: fa_judge, a global function, gets it as memory, which the
 * verifier lets it read only where the caller initialized every byte (an
 * initializer zeroes named members, `spare` too, not padding). Flags are
 * bytes: it sits in the frame of every hook at the top of the deepest
 * call chains (512 bytes for a whole chain before Linux 6.13). */
struct subject {
	struct task_struct *task;
	struct pt_regs *regs;
	long ret;
	/* The credentials judged and recorded when not the task's own (an
	 * io_uring op runs with the request's or the ring's). */
	const struct cred *cred;
	__u32 tgid;
	__u32 nr;
	__u32 perm;      /* perm_bits(), when perm= tests are loaded */
	__u8 returned;   /* 0: exit/exit_group, judged before it ends the task */
	__u8 compat;
	/* The thread's entry of the hits map (watched objects the syscall
	 * touched) was taken for this syscall. A flag, not the entry's
	 * address: a pointer that may be NULL made the verifier check every
	 * later path twice, states that never prune (~640,000 of the raw
	 * exit program's 842,000 instructions with one watch). */
	__u8 has_hits;
	__u8 no_arch;    /* an io thread's context: arch= reads 0 */
	/* The arguments are the entry's in `saved` (exec clears the
	 * registers; an io_uring op has none: zeros). Held here, not behind
	 * a pointer, so that fa_judge, which gets the subject as plain
	 * memory, reads them. */
	__u8 has_saved;
	__u8 spare[7];
	struct fa_args saved;
};

/* Syscall argument n (0-3): the entry arguments where they were saved
 * (exec clears the registers), else the registers. */
static __always_inline __u64 arg(struct subject *s, int n)
{
	if (s->has_saved)
		return s->compat ? (__u32)s->saved.a[n & 3] : s->saved.a[n & 3];
	return regs_arg(s->regs, s->compat, n);
}

/* Argument register n (0-3) whole, as the SYSCALL record shows it (the
 * saved entry arguments where the registers are gone). */
static __always_inline __u64 record_arg(struct subject *s, int n)
{
	if (s->has_saved)
		return s->saved.a[n & 3];
	return regs_arg_raw(s->regs, s->compat, n);
}

/* Syscall argument n (0-5), either ABI. */
static __always_inline __u64 arg6(struct subject *s, int n)
{
	if (n < 4)
		return arg(s, n);
	struct pt_regs *r = s->regs;
	if (s->compat)
		return (__u32)regs_arg45_raw(r, 1, n);
	return regs_arg45_raw(r, 0, n);
}

/* An id of task t with credentials c, by its field code: the uid..fsgid
 * and loginuid rule fields, which -C and object comparisons name too (0
 * for another field). */
static __always_inline __u32 cred_field(struct task_struct *t, const struct cred *c, __u32 field)
{
	switch (field) {
	case AUDIT_UID: return FA_GET(c, struct cred, uid.val);
	case AUDIT_EUID: return FA_GET(c, struct cred, euid.val);
	case AUDIT_SUID: return FA_GET(c, struct cred, suid.val);
	case AUDIT_FSUID: return FA_GET(c, struct cred, fsuid.val);
	case AUDIT_GID: return FA_GET(c, struct cred, gid.val);
	case AUDIT_EGID: return FA_GET(c, struct cred, egid.val);
	case AUDIT_SGID: return FA_GET(c, struct cred, sgid.val);
	case AUDIT_FSGID: return FA_GET(c, struct cred, fsgid.val);
	case AUDIT_LOGINUID: return FA_GET(t, struct task_struct, loginuid.val);
	}
	return 0;
}

#define MAX_ERRNO 4095   /* include/linux/err.h */

/* Whether the result is an error (-MAX_ERRNO..-1), as the kernel's
 * success= judges it. */
static __always_inline int failed(long ret)
{
	return ret >= -MAX_ERRNO && ret < 0;
}

/* The kernel's audit_comparator on 32-bit values. */
static __always_inline int compare_inline(__u32 l, __u32 op, __u32 r)
{
	switch (op) {
	case AUDIT_EQUAL: return l == r;
	case AUDIT_NOT_EQUAL: return l != r;
	case AUDIT_LESS_THAN: return l < r;
	case AUDIT_LESS_THAN_OR_EQUAL: return l <= r;
	case AUDIT_GREATER_THAN: return l > r;
	case AUDIT_GREATER_THAN_OR_EQUAL: return l >= r;
	case AUDIT_BIT_MASK: return (l & r) != 0;
	case AUDIT_BIT_TEST: return (l & r) == r;
	}
	return 0;
}

/* compare_inline as a global function: the verifier checks its eight
 * operators once, instead of once more in every state of every rule
 * callback that compares (the raw exit program was at the
 * 1M-instruction limit with them inlined). */
__noinline int compare(__u32 l, __u32 op, __u32 r)
{
	return compare_inline(l, op, r);
}

#endif
