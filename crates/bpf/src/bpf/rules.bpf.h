/* SPDX-License-Identifier: GPL-2.0 */
/* Rule evaluation with the kernel audit's semantics: each candidate rule
 * in order, every test must hold, the first matching rule decides
 * (always: record, never: do not). Field codes are the kernel's. */
#ifndef FA_RULES_BPF_H
#define FA_RULES_BPF_H

#include "arch.bpf.h"
#include "maps.bpf.h"
#include "dentry.bpf.h"
#include "subject.bpf.h"
#include "hits.bpf.h"
#include "objects.bpf.h"
#include "sockaddr.bpf.h"

/* The result of evaluating a list of candidate rules. */
enum verdict {
	VERDICT_NONE = -1,    /* no rule matched */
	VERDICT_NEVER = -2,   /* a never rule matched; >= 0: the always rule's id */
};

struct eval {
	struct subject *s;
	struct fa_rule *rule;
	__u32 start;
	__u32 ok;
	__s64 matched;   /* enum verdict, or the matching always rule */
	__u32 prio_floor; /* only rules of a higher priority can match (0: all) */
	__u32 rid;        /* the matching rule, always or never */
};

/* Per exit and io_uring rule: the kernel's priority (audit_rule.prio) as
 * a rank, higher for rules added earlier. Within one syscall context a
 * match only lets rules of a higher priority match after it (matters for
 * io_uring ops issued inline in io_uring_enter). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_MAX_RULES);
	__type(key, __u32);
	__type(value, __u32);
} rule_prio SEC(".maps");

/* The value of a field for the current syscall (its ids: cred_field). */
static __always_inline __u32 value_of(struct subject *s, __u32 field)
{
	struct task_struct *t = s->task;
	const struct cred *c = s->cred ? s->cred : BPF_CORE_READ(t, cred);
	switch (field) {
	case AUDIT_PID: return s->tgid;
	case AUDIT_PERS: return BPF_CORE_READ(t, personality);
	case AUDIT_ARCH: return s->no_arch ? 0 : abi_arch(s->compat);
	case AUDIT_PPID: return BPF_CORE_READ(t, real_parent, tgid);
	case AUDIT_LOGINUID_SET: return BPF_CORE_READ(t, loginuid.val) != (__u32)-1;
	case AUDIT_SESSIONID: return BPF_CORE_READ(t, sessionid);
	case AUDIT_EXIT: return (__u32)s->ret;
	case AUDIT_SUCCESS: return !failed(s->ret);
	case AUDIT_ARG0: return (__u32)arg(s, 0);
	case AUDIT_ARG1: return (__u32)arg(s, 1);
	case AUDIT_ARG2: return (__u32)arg(s, 2);
	case AUDIT_ARG3: return (__u32)arg(s, 3);
	}
	return cred_field(t, c, field);
}

/* An id field -C compares, of the task at `task` with credentials at
 * `cred` (addresses as numbers). */
static __always_inline __u32 id_of(__u64 task, __u64 cred, __u32 field)
{
	return cred_field((struct task_struct *)task, (const struct cred *)cred, field);
}

/* A -C test between two of the task's ids: the AUDIT_COMPARE_* id names
 * them (those with a file's owner come as FA_FIELD_OBJ_COMPARE,
 * objects.bpf.h). A global function of scalars: the verifier checks its
 * 25 cases once, not in every state of test_one. */
__noinline int fa_compare_fields(__u64 task, __u64 cred, __u32 which, __u32 op)
{
	__u32 a, b;
	switch (which) {
#define FA_COMPARE_CASE(id, l, r) case id: a = l; b = r; break;
	FA_COMPARE_PAIRS(FA_COMPARE_CASE)
#undef FA_COMPARE_CASE
	default: return 0;
	}
	return compare(id_of(task, cred, a), op, id_of(task, cred, b));
}

/* compare_fields for the syscall of s: its task's and credentials'
 * addresses, as numbers (read through the stack), to fa_compare_fields. */
static __always_inline int compare_fields(struct subject *s, __u32 which, __u32 op)
{
	struct task_struct *t = s->task;
	const struct cred *c = s->cred ? s->cred : BPF_CORE_READ(t, cred);
	__u64 ta = 0, ca = 0;
	bpf_probe_read_kernel(&ta, sizeof(ta), &t);
	bpf_probe_read_kernel(&ca, sizeof(ca), &c);
	return fa_compare_fields(ta, ca, which, op);
}

/* exe=: the task's executable is the one at index idx of the exes map. */
static __always_inline int exe_is(struct subject *s, __u32 idx)
{
	struct fa_exe *want = bpf_map_lookup_elem(&exes, &idx);
	if (!want)
		return 0;
	struct file *f = task_exe(s->task);
	if (!f)
		return 0;
	struct fa_inode_key k = inode_key(BPF_CORE_READ(f, f_inode));
	return k.ino == want->ino && k.dev == want->dev;
}

/* The watch permission an open's access mode asks for. */
static __always_inline __u32 acc_mode(__u64 flags)
{
	switch (flags & 3) {   /* O_ACCMODE */
	case 0: return AUDIT_PERM_READ;   /* O_RDONLY */
	case 1: return AUDIT_PERM_WRITE;  /* O_WRONLY */
	default: return AUDIT_PERM_READ | AUDIT_PERM_WRITE;
	}
}

/* The kernel's audit_match_perm, for every mask at once: the returned
 * bits P make `perm=mask` hold exactly when mask & P != 0. */
static __always_inline __u32 perm_bits(struct subject *s)
{
	__u32 key = span_index(s->nr, s->compat);
	__u32 *c = bpf_map_lookup_elem(&sysclass, &key);
	if (!c)
		return 0;
	__u32 cls = *c & 0xff;
	__u64 how = 0;
	switch (*c >> FA_PERM_KIND_SHIFT) {
	case FA_PERM_CLASS:
		return (cls & FA_CLASS_WRITE ? AUDIT_PERM_WRITE : 0) |
		       (cls & FA_CLASS_READ ? AUDIT_PERM_READ : 0) |
		       (cls & FA_CLASS_CHATTR ? AUDIT_PERM_ATTR : 0);
	case FA_PERM_OPEN: return acc_mode(arg(s, 1));
	case FA_PERM_OPENAT: return acc_mode(arg(s, 2));
	case FA_PERM_EXEC: return AUDIT_PERM_EXEC;
	case FA_PERM_OPENAT2:
		bpf_probe_read_user(&how, sizeof(how), (void *)arg(s, 2));
		return acc_mode(how);
	case FA_PERM_SOCKETCALL: return arg(s, 0) == SYS_BIND ? AUDIT_PERM_WRITE : 0;
	}
	return 0;
}

/* saddr_fam=: the syscall has an audited address of that family (else
 * the test fails, whatever its operator). A global function of scalars,
 * its subject rebuilt from the current task: the verifier checks it
 * once, alone, not in every state of test_one (the raw exit program
 * reached the 1M-instruction limit with it inlined). */
__noinline int fa_saddr_fam_test(__u32 op, __u32 value, __u64 ret, __u32 returned)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct subject s = {
		.task = task,
		.regs = regs,
		.ret = (long)ret,
		.returned = returned,
		.compat = task_compat(task),
		.nr = (__u32)regs_syscall_nr(regs),
	};
	__u32 fam = 0;
	return sockaddr_family(&s, &fam) && compare(fam, op, value);
}

static long test_one(__u32 i, struct eval *e)
{
	struct fa_rule *r = e->rule;
	if (!r)
		return 1;
	/* The loop count is at most FA_MAX_TESTS; mask the index behind a
	 * compiler barrier so the verifier sees the bound clang would drop. */
	__u32 idx = i;
	barrier_var(idx);
	idx &= FA_MAX_TESTS - 1;
	struct fa_test *t = &r->tests[idx];
	int ok;
	if (t->field == FA_FIELD_NEVER)
		ok = 0;
	else if (t->field & (FA_FIELD_OBJ | FA_FIELD_OBJ_COMPARE))
		ok = fa_objs_test(span_index(e->s->nr, e->s->compat), t->field, t->op, t->value);
	else if (t->field == AUDIT_FIELD_COMPARE)
		ok = compare_fields(e->s, t->value, t->op);
	else if (t->field == AUDIT_EXE)
		ok = exe_is(e->s, t->value) == (t->op == AUDIT_EQUAL);
	else if (t->field == AUDIT_WATCH || t->field == AUDIT_DIR)
		ok = e->s->has_hits && fa_has_hit(t->value);   /* the kernel ignores the operator */
	else if (t->field == AUDIT_PERM)
		ok = (t->value & e->s->perm) != 0;
	else if (t->field == AUDIT_SADDR_FAM)
		ok = fa_saddr_fam_test(t->op, t->value, (__u64)e->s->ret, e->s->returned);
	else if ((t->field == AUDIT_EXIT || t->field == AUDIT_SUCCESS) && !e->s->returned)
		ok = 0;   /* exit=, success=: no return value, the test fails whatever its operator */
	else
		ok = compare(value_of(e->s, t->field), t->op, t->value);
	if (!ok) {
		e->ok = 0;
		return 1;
	}
	return 0;
}

static long try_rule(__u32 i, struct eval *e)
{
	__u32 pos = e->start + i;
	__u32 *id = bpf_map_lookup_elem(&candidates, &pos);
	if (!id)
		return 1;
	__u32 rid = *id;
	if (e->prio_floor) {
		__u32 *prio = bpf_map_lookup_elem(&rule_prio, &rid);
		if (!prio || *prio <= e->prio_floor)
			return 0;
	}
	struct fa_rule *r = bpf_map_lookup_elem(&rules, &rid);
	if (!r)
		return 1;
	e->rule = r;
	e->ok = 1;
	bpf_loop(r->ntests < FA_MAX_TESTS ? r->ntests : FA_MAX_TESTS, test_one, e, 0);
	if (e->ok) {
		e->matched = r->always ? (__s64)rid : VERDICT_NEVER;
		e->rid = rid;
		return 1;
	}
	return 0;
}

/* The verdict of the candidate rules in span (first match decides) among
 * the rules of a priority above `floor` (0: all); the matching rule's id
 * (never rules included) goes to *rid. With `plain`, a syscall that
 * touched nothing watched judges only the rules without a path=, dir= or
 * watch test (the others cannot hold: a span of many watches judges a
 * few).
 *
 * A global function: the verifier checks the rule loop once, alone,
 * instead of in every state of its callers (inlined, it made the raw exit
 * program 700,000 instructions to verify: 2 s on this project's host,
 * minutes on an emulated Linux 6.1). Its arguments arrive as plain
 * memory, so the subject's pointers are numbers here: everything judged
 * reads through them (CORE reads). */
__noinline __s64 fa_judge(struct subject *s, struct fa_span *span, __u32 floor, __u32 *rid,
			  __u32 plain)
{
	if (!s || !span || !rid)
		return VERDICT_NONE;
	struct eval e = { .s = s, .start = span->start, .matched = VERDICT_NONE, .prio_floor = floor };
	__u32 count = span->count;
	if (plain && !s->has_hits && (span->flags & FA_SPAN_PATH_RULES)) {
		e.start = span->plain_start;
		count = span->plain_count;
	}
	bpf_loop(count, try_rule, &e, 0);
	*rid = e.rid;
	return e.matched;
}

/* fa_judge for the subject s, whose pointers are put back after: the
 * verifier takes the memory a global function was given as overwritten
 * with numbers, and the caller reads them after. (Copying the subject
 * instead took 80 bytes more of the call chain's 512.) */
static __always_inline __s64 judge_in(struct subject *s, struct fa_span *span, __u32 floor,
				      __u32 *rid, __u32 plain)
{
	struct task_struct *task = s->task;
	struct pt_regs *regs = s->regs;
	const struct cred *cred = s->cred;
	__s64 v = fa_judge(s, span, floor, rid, plain);
	s->task = task;
	s->regs = regs;
	s->cred = cred;
	return v;
}

/* The verdict of the candidate rules in span for the syscall of s. */
static __always_inline __s64 judge(struct subject *s, struct fa_span *span)
{
	__u32 rid = 0;
	return judge_in(s, span, 0, &rid, 1);
}

/* The same among rules of a priority above `floor`; the matching rule's
 * id goes to *rid (never rules included). */
static __always_inline __s64 judge_above(struct subject *s, struct fa_span *span, __u32 floor, __u32 *rid)
{
	return judge_in(s, span, floor, rid, 0);
}

#endif
