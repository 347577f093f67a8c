/* SPDX-License-Identifier: GPL-2.0 */
/* KERN_MODULE for delete_module: the name the caller passed, read at the
 * syscall's exit from its memory, for the outcomes where the kernel had
 * noted it (kernel/module/main.c, delete_module: the capability check,
 * then strncpy_from_user of at most MODULE_NAME_LEN bytes, then
 * audit_log_kern_module, then the lookup). init_module and finit_module
 * log the module's own name, from the image, which these hooks cannot
 * read: not followed. */
#ifndef FA_KMODULE_BPF_H
#define FA_KMODULE_BPF_H

#include "subject.bpf.h"
#include "auxsample.bpf.h"

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
