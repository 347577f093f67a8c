/* SPDX-License-Identifier: GPL-2.0 */
/* The PATH and CWD data of an event, sent before it (emit_aux): the
 * working directory spelled at exit, the path arguments read as strings
 * at exit (an exec's at entry: the old program's memory is gone at
 * exit), and the objects objects.bpf.h collected. User space builds the
 * CWD and PATH records from them. */
#ifndef FA_PATHS_BPF_H
#define FA_PATHS_BPF_H

/* The working directory spelled leaf first from the end of buf (as
 * d_path builds it); state off the stack, as the normalizer's. */
struct cwd_build {
	char buf[2 * FA_NAME_MAX];   /* the path ends at FA_NAME_MAX; the rest is slack for the verifier */
	struct walk_pos pos;
	__u32 at;
	__u32 ok;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cwd_build);
} cwd_scratch SEC(".maps");

struct cwd_ref {
	struct cwd_build *c;
};

/* One component of the working directory, prepended. */
static long cwd_step(__u32 i, struct cwd_ref *r)
{
	struct cwd_build *c = r->c;
	if (!c)
		return 1;
	struct dentry *child = c->pos.d;
	switch (dentry_up(&c->pos)) {
	case WALK_ROOT:
		c->ok = 1;
		return 1;
	case WALK_MOUNT:
		return 0;
	case WALK_PARENT:
		break;
	default:
		return 1;
	}
	__u32 len = BPF_CORE_READ(child, d_name.len);
	__u32 at = c->at;
	if (len == 0 || len + 1 > at)
		return 1;   /* longer than PATH_MAX: not spelled */
	at -= len;
	barrier_var(at);
	bpf_probe_read_kernel(&c->buf[at & (FA_NAME_MAX - 1)], len & (FA_NAME_MAX - 1),
			      BPF_CORE_READ(child, d_name.name));
	at -= 1;
	c->buf[at & (FA_NAME_MAX - 1)] = '/';
	c->at = at;
	return 0;
}

/* Send the working directory (as d_path spells it; index 1 when it was
 * removed, for " (deleted)"). */
static __always_inline void send_cwd(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	__u32 zero = 0;
	struct cwd_build *c = bpf_map_lookup_elem(&cwd_scratch, &zero);
	if (!c)
		return;
	struct task_struct *task = s->task;
	struct dentry *pwd = BPF_CORE_READ(task, fs, pwd.dentry);
	c->pos.d = pwd;
	c->pos.vm = BPF_CORE_READ(task, fs, pwd.mnt);
	c->at = FA_NAME_MAX;
	c->ok = 0;
	struct cwd_ref r = { .c = c };
	bpf_loop(FA_NAME_MAX / 2, cwd_step, &r, 0);
	if (!c->ok)
		return;
	struct fa_aux_name *p = aux_reserve(m, lost, FA_AUX_CWD, sizeof(*p));
	if (!p)
		return;
	__u32 at = c->at;
	__u32 len = FA_NAME_MAX - at;
	p->index = dentry_deleted(pwd);
	p->len = len;
	if (len == 0) {
		p->len = 1;
		p->name[0] = '/';
	} else {
		barrier_var(at);
		bpf_probe_read_kernel(p->name, len & (FA_NAME_MAX - 1), &c->buf[at & (FA_NAME_MAX - 1)]);
	}
	aux_submit(p);
}

/* Send path argument i (an exec's file name from entry). */
static __always_inline void send_name(struct subject *s, const struct fa_msg *m, __u32 *lost,
				      struct fa_path_args *pa, __u32 i)
{
	struct fa_aux_name *p = aux_reserve(m, lost, FA_AUX_NAME, sizeof(*p));
	if (!p)
		return;
	long len;
	if (is_exec(s->nr, s->compat)) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct fa_exec_name *en = bpf_map_lookup_elem(&exec_names, &tid);
		len = en ? bpf_probe_read_kernel_str(p->name, sizeof(p->name), en->name) : -1;
		if (en)
			bpf_map_delete_elem(&exec_names, &tid);
	} else {
		__u8 ai = pa->path[i & 1];
		len = bpf_probe_read_user_str(p->name, sizeof(p->name), (const void *)arg(s, ai & 3));
	}
	if (len <= 0) {
		aux_discard(p);
		return;
	}
	p->index = i;
	p->len = len - 1;
	aux_submit(p);
}

/* The PATH and CWD data of the syscall of s: the working directory, its
 * path arguments, its objects. */
static __always_inline void emit_paths(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	if (!have_objs)
		return;
	__u32 key = span_index(s->nr, s->compat);
	struct fa_path_args *pa = path_syscall(s, key);
	if (!pa || !pa->n)
		return;
	send_cwd(s, m, lost);
	send_name(s, m, lost, pa, 0);
	if (pa->n > 1)
		send_name(s, m, lost, pa, 1);
	struct fa_objs *h = objs_current(s);
	if (!h)
		return;
	struct fa_objs *p = aux_reserve(m, lost, FA_AUX_OBJS, sizeof(*p));
	if (!p)
		return;
	bpf_probe_read_kernel(p, sizeof(*p), h);
	aux_submit(p);
}

/* At an exec's entry: keep its file name (the old program's memory is
 * gone at exit). */
static __always_inline void save_exec_name(struct pt_regs *regs, __u32 compat, __u32 nr)
{
	if (!have_objs)
		return;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 zero = 0;
	/* Any value of the right size starts the entry: the name is written over. */
	struct fa_exec_name *en = bpf_map_lookup_elem(&exec_names, &tid);
	if (!en) {
		struct cwd_build *c = bpf_map_lookup_elem(&cwd_scratch, &zero);
		if (!c)
			return;
		bpf_map_update_elem(&exec_names, &tid, c->buf, BPF_ANY);
		en = bpf_map_lookup_elem(&exec_names, &tid);
		if (!en)
			return;
	}
	int ai = (compat ? nr == FA_NR32_execveat : nr == FA_NR64_execveat) ? 1 : 0;
	if (bpf_probe_read_user_str(en->name, sizeof(en->name), (const void *)regs_arg(regs, compat, ai)) < 0)
		en->name[0] = 0;
}

#endif
