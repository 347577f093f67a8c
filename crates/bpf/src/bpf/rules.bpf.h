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
	switch (field) {
	case AUDIT_PID: return s->tgid;
	case AUDIT_PERS: return FA_GET(t, struct task_struct, personality);
	case AUDIT_ARCH: return s->no_arch ? 0 : abi_arch(s->compat);
	case AUDIT_PPID: {
		struct task_struct *parent = FA_GET(t, struct task_struct, real_parent);
		return FA_GET(parent, struct task_struct, tgid);
	}
	case AUDIT_LOGINUID_SET: return FA_GET(t, struct task_struct, loginuid.val) != (__u32)-1;
	case AUDIT_SESSIONID: return FA_GET(t, struct task_struct, sessionid);
	case AUDIT_EXIT: return (__u32)s->ret;
	case AUDIT_SUCCESS: return !failed(s->ret);
	case AUDIT_ARG0: return (__u32)arg(s, 0);
	case AUDIT_ARG1: return (__u32)arg(s, 1);
	case AUDIT_ARG2: return (__u32)arg(s, 2);
	case AUDIT_ARG3: return (__u32)arg(s, 3);
	}
	/* Read here, not above: most tests need no credentials. */
	const struct cred *c = s->cred ? s->cred : FA_GET(t, struct task_struct, cred);
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
	const struct cred *c = s->cred ? s->cred : FA_GET(t, struct task_struct, cred);
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

/* What a span's gates tell before anything is gathered (prejudge), in
 * one register (a struct on the stack put on_end over the 512 bytes
 * kernels before 6.13 allow a call chain): */
#define PJ_POS_MASK 0xffffffull        /* bits 0-23: judge from this position (fa_judge) */
#define PJ_PLAIN_SHIFT 24              /* bits 24-47: ... of the plain candidates */
#define PJ_NEEDS_SHIFT 48              /* FA_GATE_NAMES | FA_GATE_OBJS: worth gathering */
#define PJ_DECIDED (1ull << 51)        /* the gates decided: nothing to gather or judge */
#define PJ_ALWAYS (1ull << 52)         /* ... an always rule, its id in bits 0-23 */
#define PJ_NEVER (1ull << 53)          /* ... a never rule (neither: no rule can match) */
/* Nothing known: judge every candidate, gather what the span's flags say. */
#define PJ_UNKNOWN ((__u64)(FA_GATE_NAMES | FA_GATE_OBJS) << PJ_NEEDS_SHIFT)
/* fa_judge's `from`: where to start (PJ_POS_MASK bits, and the plain
 * candidates' position above PJ_PLAIN_SHIFT), and whether a syscall that
 * touched nothing watched judges only the plain candidates. */
#define FJ_PLAIN (1ull << PJ_NEEDS_SHIFT)

/* The verdict of the candidate rules in span (first match decides) among
 * the rules of a priority above `floor` (0: all), from the position
 * `from` gives (no rule before it can match: the gates said so); the
 * matching rule's id (never rules included) goes to *rid. With FJ_PLAIN,
 * a syscall that touched nothing watched judges only the rules without a
 * path=, dir= or watch test (the others cannot hold: a span of many
 * watches judges a few).
 *
 * A global function: the verifier checks the rule loop once, alone,
 * instead of in every state of its callers (inlined, it made the raw exit
 * program 700,000 instructions to verify: 2 s on this project's host,
 * minutes on an emulated Linux 6.1). Its arguments arrive as plain
 * memory, so the subject's pointers are numbers here: everything judged
 * reads through them (CORE reads). */
__noinline __s64 fa_judge(struct subject *s, struct fa_span *span, __u32 floor, __u32 *rid,
			  __u64 from)
{
	if (!s || !span || !rid)
		return VERDICT_NONE;
	__u32 at = from & PJ_POS_MASK, plain_at = (from >> PJ_PLAIN_SHIFT) & PJ_POS_MASK;
	if (at >= span->count)
		return VERDICT_NONE;
	struct eval e = { .s = s, .start = span->start + at, .matched = VERDICT_NONE, .prio_floor = floor };
	__u32 count = span->count - at;
	if ((from & FJ_PLAIN) && !s->has_hits && (span->flags & FA_SPAN_PATH_RULES)) {
		if (plain_at >= span->plain_count)
			return VERDICT_NONE;
		e.start = span->plain_start + plain_at;
		count = span->plain_count - plain_at;
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
				      __u32 *rid, __u64 from)
{
	struct task_struct *task = s->task;
	struct pt_regs *regs = s->regs;
	const struct cred *cred = s->cred;
	__s64 v = fa_judge(s, span, floor, rid, from);
	s->task = task;
	s->regs = regs;
	s->cred = cred;
	return v;
}

/* The verdict of the candidate rules in span for the syscall of s, from
 * position `at` of its candidates (`plain_at` of its plain ones). */
static __always_inline __s64 judge_from(struct subject *s, struct fa_span *span, __u32 at,
					__u32 plain_at)
{
	__u32 rid = 0;
	__u64 from = (at & PJ_POS_MASK) | ((__u64)(plain_at & PJ_POS_MASK) << PJ_PLAIN_SHIFT);
	return judge_in(s, span, 0, &rid, from | FJ_PLAIN);
}

/* The verdict of all the candidate rules in span. */
static __always_inline __s64 judge(struct subject *s, struct fa_span *span)
{
	return judge_from(s, span, 0, 0);
}

/* The same among rules of a priority above `floor`; the matching rule's
 * id goes to *rid (never rules included). */
static __always_inline __s64 judge_above(struct subject *s, struct fa_span *span, __u32 floor, __u32 *rid)
{
	return judge_in(s, span, floor, rid, 0);
}

/* A test of the current task's ids or attributes (pid, auid, uid...,
 * sessionid, personality, ppid), as a global function of scalars: the
 * verifier checks its cases once, not in every state of the gates. */
__noinline int fa_task_test(__u32 field, __u32 op, __u32 value)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct subject s = { .task = task };
	if (field == AUDIT_PID)
		s.tgid = BPF_CORE_READ(task, tgid);
	return compare(value_of(&s, field), op, value);
}

/* A quick test (a gate's): of the syscall's result, arguments, ids or
 * permission, nothing gathered. On the syscall's own task only (its
 * credentials are the task's). */
static __always_inline int quick_test(struct subject *s, struct fa_test *t, __u32 *auid)
{
	__u32 f = t->field;
	__u64 v;
	/* The audit uid most gates test, read once for them all. */
	if (f == AUDIT_LOGINUID || f == AUDIT_LOGINUID_SET) {
		if (*auid == ~0u - 1) {
			struct task_struct *task = s->task;   /* CO-RE reads need a plain local */
			*auid = FA_GET(task, struct task_struct, loginuid.val);
		}
		v = f == AUDIT_LOGINUID ? *auid : *auid != ~0u;
		return compare((__u32)v, t->op, t->value);
	}
	switch (f) {
	case FA_FIELD_NEVER: return 0;
	case AUDIT_PERM: return (t->value & s->perm) != 0;
	case AUDIT_EXIT:
	case AUDIT_SUCCESS:
		if (!s->returned)
			return 0;   /* no return value: fails whatever its operator */
		v = f == AUDIT_EXIT ? (__u32)s->ret : !failed(s->ret);
		break;
	case AUDIT_ARCH: v = abi_arch(s->compat); break;
	case AUDIT_ARG0: v = arg(s, 0); break;
	case AUDIT_ARG1: v = arg(s, 1); break;
	case AUDIT_ARG2: v = arg(s, 2); break;
	case AUDIT_ARG3: v = arg(s, 3); break;
	default: return fa_task_test(f, t->op, t->value);
	}
	return compare((__u32)v, t->op, t->value);
}

static __always_inline __s64 pj_verdict(__u64 pj)
{
	if (pj & PJ_ALWAYS)
		return (__s64)(pj & PJ_POS_MASK);
	return pj & PJ_NEVER ? VERDICT_NEVER : VERDICT_NONE;
}

/* What is worth gathering: nothing once decided. */
static __always_inline __u32 pj_needs(__u64 pj)
{
	if (pj & PJ_DECIDED)
		return 0;
	return (pj >> PJ_NEEDS_SHIFT) & (FA_GATE_NAMES | FA_GATE_OBJS);
}

struct gate_eval {
	struct subject *s;
	__u32 start;
	__u32 first;        /* the first passing gate's rule position (~0: none) */
	__u32 first_flags;
	__u32 plain_first;
	__u32 needs;
	__u32 auid;         /* the task's, once read (~0 - 1: not yet) */
};

/* Gates come in the order of their first rules: the first that passes
 * names the first rule that can match; a passing gate whose first rule
 * has no other test is that rule's match, and no later rule matters. */
static long gate_step(__u32 i, struct gate_eval *g)
{
	__u32 pos = g->start + i;
	struct fa_gate *gt = bpf_map_lookup_elem(&gates, &pos);
	if (!gt)
		return 1;
#pragma unroll
	for (int j = 0; j < FA_GATE_TESTS; j++) {
		if (j >= gt->ntests)
			break;
		if (!quick_test(g->s, &gt->tests[j], &g->auid))
			return 0;
	}
	if (g->first == ~0u) {
		g->first = gt->first;
		g->first_flags = gt->flags;
	}
	if (gt->plain_first < g->plain_first)
		g->plain_first = gt->plain_first;
	if (gt->flags & FA_GATE_DECIDES)
		return 1;
	g->needs |= gt->flags;
	return 0;
}

/* Judge span's gates (the PJ_* bits say what they tell). */
static __always_inline __u64 prejudge(struct subject *s, struct fa_span *span)
{
	struct gate_eval g = {
		.s = s, .start = span->gate_start, .first = ~0u, .plain_first = ~0u, .auid = ~0u - 1,
	};
	bpf_loop(span->gate_count, gate_step, &g, 0);
	if (g.first == ~0u)
		return PJ_DECIDED;
	__u64 undecided = (g.first & PJ_POS_MASK) |
			  ((__u64)(g.plain_first & PJ_POS_MASK) << PJ_PLAIN_SHIFT) |
			  ((__u64)(g.needs & (FA_GATE_NAMES | FA_GATE_OBJS)) << PJ_NEEDS_SHIFT);
	if (!(g.first_flags & FA_GATE_DECIDES))
		return undecided;
	__u32 pos = span->start + g.first;
	__u32 *id = bpf_map_lookup_elem(&candidates, &pos);
	if (!id)
		return undecided;
	__u32 rid = *id;
	struct fa_rule *r = bpf_map_lookup_elem(&rules, &rid);
	if (!r)
		return undecided;
	return PJ_DECIDED | (r->always ? PJ_ALWAYS | (rid & PJ_POS_MASK) : PJ_NEVER);
}

/* prejudge for the current task's syscall of span index `key`, as a
 * global function of scalars, its subject rebuilt: the verifier checks
 * it once and on_end goes on with one unknown result, not with each of
 * its results apart (the raw exit program nears the 1M-instruction limit
 * with watches). Not for execs (no gates: their arguments were saved). */
__noinline __u64 fa_prejudge(__u32 key, __u64 ret, __u32 returned, __u32 perm)
{
	struct fa_span *span = bpf_map_lookup_elem(&spans, &key);
	if (!span)
		return PJ_UNKNOWN;
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 compat = key >= FA_NR_SYSCALLS;
	struct subject s = {
		.task = task,
		.regs = (struct pt_regs *)bpf_task_pt_regs(task),
		.ret = (long)ret,
		.returned = returned,
		.compat = compat,
		.tgid = BPF_CORE_READ(task, tgid),
		.nr = compat ? key - FA_NR_SYSCALLS : key,
		.perm = perm,
	};
	return prejudge(&s, span);
}

#endif
