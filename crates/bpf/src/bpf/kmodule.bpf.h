/* SPDX-License-Identifier: GPL-2.0 */
/* KERN_MODULE for delete_module: the name the caller passed, read at the
 * syscall's exit from its memory, for the outcomes where the kernel had
 * noted it (kernel/module/main.c, delete_module: the capability check,
 * then strncpy_from_user of at most MODULE_NAME_LEN bytes, then
 * audit_log_kern_module, then the lookup).
 *
 * init_module and finit_module log the module's own name, from the image,
 * once load_module has laid the module out (audit_log_kern_module right
 * after layout_and_allocate, which is inlined: no hook there). Where
 * fentry programs load, the name is noted at do_init_module, which every
 * load that gets that far reaches unless a later check fails (Linux 6.1:
 * the module is already loaded; any kernel: unknown symbols, signature
 * or license refusals, memory); such loads get no KERN_MODULE here while
 * the kernel writes one. The syscall's entry clears the thread's note
 * (native syscalls: their entry tracepoints), its exit sends it. */
#ifndef FA_KMODULE_BPF_H
#define FA_KMODULE_BPF_H

#include "subject.bpf.h"
#include "auxsample.bpf.h"

/* Per thread: the name of the module its init_module/finit_module is
 * loading, once do_init_module is reached. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fa_kern_module);
} module_notes SEC(".maps");

/* Whether nr is a native module load (whose exit sends the note). */
static __always_inline int is_module_load(__u32 nr)
{
	return nr == FA_NR64_init_module || nr == FA_NR64_finit_module;
}

/* At a module load's entry: nothing noted yet. */
static __always_inline void module_forget(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&module_notes, &tid);
}

/* At do_init_module: the module's name (struct module's name[],
 * MODULE_NAME_LEN bytes, NUL-terminated). */
static __always_inline int module_init_body(struct module *mod)
{
	struct fa_kern_module n = {};
	long len = bpf_probe_read_kernel_str(n.name, FA_MODULE_NAME_LEN, &mod->name);
	if (len < 1)
		return 0;
	n.len = (__u32)(len - 1);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&module_notes, &tid, &n, BPF_ANY);
	return 0;
}

/* KERN_MODULE of a native init_module/finit_module: the name noted. */
static __always_inline void send_loaded_module(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_kern_module *n = bpf_map_lookup_elem(&module_notes, &tid);
	if (!n)
		return;
	struct fa_kern_module *r = aux_reserve(m, lost, AUDIT_KERN_MODULE, sizeof(*r));
	if (r) {
		bpf_probe_read_kernel(r, sizeof(*r), n);
		aux_submit(r);
	}
	bpf_map_delete_elem(&module_notes, &tid);
}

/* Whether delete_module's outcome `ret` comes after the kernel noted the
 * name: not EPERM (no CAP_SYS_MODULE, or modules disabled: refused
 * before the copy; nothing later returns EPERM), not EFAULT (the copy
 * failed), not ENOSYS (a kernel without modules, or a seccomp filter:
 * the syscall's body never ran). ENOENT comes both before (an empty name,
 * or no NUL within MODULE_NAME_LEN bytes) and after (no such module): the
 * name read tells them apart. */
static __always_inline int kern_module_noted(long ret)
{
	return ret != -EPERM && ret != -EFAULT && ret != -ENOSYS;
}

/* KERN_MODULE: the name as the kernel copied it, when it was noted. */
static __always_inline void send_kern_module(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	if (!s->compat && is_module_load(s->nr)) {
		send_loaded_module(s, m, lost);
		return;
	}
	if (s->compat ? s->nr != FA_NR32_delete_module : s->nr != FA_NR64_delete_module)
		return;
	if (!s->returned || !kern_module_noted(s->ret))
		return;
	struct fa_kern_module *r = aux_reserve(m, lost, AUDIT_KERN_MODULE, sizeof(*r));
	if (!r)
		return;
	/* One byte more than the kernel's copy, so that a name with no NUL
	 * in MODULE_NAME_LEN bytes (refused before the record) shows as such:
	 * n counts the NUL, so 2..MODULE_NAME_LEN is a name of 1..55 bytes. */
	long n = bpf_probe_read_user_str(r->name, FA_MODULE_NAME_LEN + 1, (void *)arg(s, 0));
	if (n < 2 || n > FA_MODULE_NAME_LEN) {
		aux_discard(r);
		return;
	}
	r->len = (__u32)(n - 1);
	r->pad = 0;
	aux_submit(r);
}

#endif
