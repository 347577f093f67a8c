/* SPDX-License-Identifier: GPL-2.0 */
/* The records of a successful exec: BPRM_FCAPS (an exec that raised
 * capabilities) and EXECVE (the new program's arguments). Both read at
 * the exec's exit, when the new mm and credentials are in place, as the
 * kernel's audit_log_execve_info reads the arguments from the new mm;
 * the old capability sets BPRM_FCAPS compares with are saved at entry. */
#ifndef FA_EXECVE_BPF_H
#define FA_EXECVE_BPF_H

#include "arch.bpf.h"
#include "subject.bpf.h"
#include "auxsample.bpf.h"

#define SECURE_NOROOT 0              /* securebits bit: root has no privilege */
#define FA_CAP_FULL 0x1ffffffffffULL /* CAP_FULL_SET: capabilities 0..40 */

/* Credentials an exec started with, per thread, until its exit. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fa_exec_entry);
} exec_entry SEC(".maps");

/* kernel_cap_t before Linux 6.3: two 32-bit words (`val` since). */
struct kernel_cap_struct___old {
	__u32 cap[2];
};
struct cred___old {
	struct kernel_cap_struct___old cap_inheritable;
	struct kernel_cap_struct___old cap_permitted;
	struct kernel_cap_struct___old cap_effective;
	struct kernel_cap_struct___old cap_ambient;
} __attribute__((preserve_access_index));

#define FA_CAP_OLD(c, set)                                                        \
	((__u64)BPF_CORE_READ(c, set.cap[0]) | ((__u64)BPF_CORE_READ(c, set.cap[1]) << 32))

static __always_inline void read_caps(const struct cred *c, struct fa_caps *out)
{
	if (bpf_core_type_exists(struct kernel_cap_struct___old)) {
		const struct cred___old *o = (const void *)c;
		out->permitted = FA_CAP_OLD(o, cap_permitted);
		out->inheritable = FA_CAP_OLD(o, cap_inheritable);
		out->effective = FA_CAP_OLD(o, cap_effective);
		out->ambient = FA_CAP_OLD(o, cap_ambient);
		return;
	}
	out->permitted = BPF_CORE_READ(c, cap_permitted.val);
	out->inheritable = BPF_CORE_READ(c, cap_inheritable.val);
	out->effective = BPF_CORE_READ(c, cap_effective.val);
	out->ambient = BPF_CORE_READ(c, cap_ambient.val);
}

/* At an exec's entry: the capability sets and euid it starts with. */
static __always_inline void save_exec_entry(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *c = BPF_CORE_READ(task, cred);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_exec_entry e = { .euid = BPF_CORE_READ(c, euid.val) };
	read_caps(c, &e.caps);
	bpf_map_update_elem(&exec_entry, &tid, &e, BPF_ANY);
}

/* BPRM_FCAPS when the kernel's nonroot_raised_pE can hold for the exec's
 * old and new credentials (commoncap.c; root is uid 0 of the initial user
 * namespace). Whether the file has capabilities of its own (an xattr
 * these hooks cannot read) decides one clause: user space reads them
 * and drops a record sent only for that clause (FA_BPRM_PP_GAINED) when
 * the file has none. */
static __always_inline void send_bprm_fcaps(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_exec_entry *old = bpf_map_lookup_elem(&exec_entry, &tid);
	if (!old)
		return;
	struct task_struct *task = s->task;
	const struct cred *c = BPF_CORE_READ(task, cred);
	struct fa_caps new;
	read_caps(c, &new);
	__u32 euid = BPF_CORE_READ(c, euid.val), uid = BPF_CORE_READ(c, uid.val);
	__u32 root_priv = !(BPF_CORE_READ(c, securebits) & (1 << SECURE_NOROOT));
	int is_eff = euid == 0, is_real = uid == 0;
	int full = (new.effective & FA_CAP_FULL) == FA_CAP_FULL;
	int pe_grew = (new.effective & ~new.ambient) != 0;
	int same_euid = euid == old->euid;
	__u32 flags = 0;
	if ((pe_grew && !(full && (is_eff || is_real) && root_priv)) ||
	    (root_priv && !is_real && is_eff && !full) ||
	    (same_euid && (new.ambient & ~old->caps.ambient) != 0))
		flags |= FA_BPRM_RAISED;
	if (same_euid && (new.permitted & ~old->caps.permitted) != 0)
		flags |= FA_BPRM_PP_GAINED;
	if (!flags)
		return;
	struct fa_bprm_fcaps *r = aux_reserve(m, lost, AUDIT_BPRM_FCAPS, sizeof(*r));
	if (!r)
		return;
	r->flags = flags;
	r->pad = 0;
	r->old = old->caps;
	r->new = new;
	aux_submit(r);
}

struct args_walk {
	struct fa_msg m;
	unsigned long start;
	unsigned long len;
	__u32 argc;
	__u32 lost;
};

static long args_chunk(__u32 i, struct args_walk *w)
{
	unsigned long off = (unsigned long)i * FA_ARGS_CHUNK;
	if (off >= w->len)
		return 1;
	struct fa_execve *e = aux_reserve(&w->m, &w->lost, AUDIT_EXECVE, sizeof(*e));
	if (!e)
		return 1;
	unsigned long n = w->len - off;
	__u32 flags = 0;
	if (n <= FA_ARGS_CHUNK)
		flags = FA_EXECVE_LAST;
	else if (i + 1 == FA_ARGS_CHUNKS)
		flags = FA_EXECVE_LAST | FA_EXECVE_CUT;
	__u64 size = n > FA_ARGS_CHUNK ? FA_ARGS_CHUNK : n;
	/* Keep the clamped copy as the size the verifier checks. */
	barrier_var(size);
	e->argc = w->argc;
	e->index = i;
	e->flags = flags;
	e->len = 0;
	if (size <= FA_ARGS_CHUNK && bpf_probe_read_user(e->data, size, (void *)(w->start + off)) == 0)
		e->len = size;
	aux_submit(e);
	return flags ? 1 : 0;
}

/* EXECVE: argc (at the new stack's top, where the ELF loader put it) and
 * the new mm's argument area, in chunks. */
static __always_inline void send_execve(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	struct task_struct *task = s->task;
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	if (!mm)
		return;
	struct args_walk w = { .m = *m };
	w.start = BPF_CORE_READ(mm, arg_start);
	unsigned long end = BPF_CORE_READ(mm, arg_end);
	unsigned long sp = BPF_CORE_READ(mm, start_stack);
	if (end <= w.start)
		return;
	w.len = end - w.start;
	__u64 argc = 0;
	bpf_probe_read_user(&argc, s->compat ? 4 : 8, (void *)sp);
	w.argc = (__u32)argc;
	bpf_loop(FA_ARGS_CHUNKS, args_chunk, &w, 0);
	*lost |= w.lost;
}

/* The exec records, in audit_log_exit's order: BPRM_FCAPS (its aux list)
 * before EXECVE (show_special). Only a successful exec has them. */
static __always_inline void send_exec_records(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	if (!is_exec(s->nr, s->compat) || !s->returned || s->ret != 0)
		return;
	send_bprm_fcaps(s, m, lost);
	send_execve(s, m, lost);
}

#endif
