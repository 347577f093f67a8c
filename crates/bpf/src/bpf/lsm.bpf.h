/* SPDX-License-Identifier: GPL-2.0 */
/* A task's LSM label, as the kernel's audit_log_task_context writes it
 * after `subj=` (and audit_log_pid_context after `obj=`): AppArmor's, the
 * LSM Debian and Ubuntu run. The label hangs off the credentials' LSM
 * blob at an offset the kernel fixes at boot (apparmor_blob_sizes.lbs_cred,
 * which depends on the LSMs before it): user space finds that variable in
 * /proc/kallsyms and gives its address here, or, where kallsyms has no
 * data symbols (arm64's Debian 12 kernel), works the offset out from the
 * LSM order and the sizes of the earlier LSMs' blobs in BTF and gives the
 * offset itself. */
#ifndef FA_LSM_BPF_H
#define FA_LSM_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "fastaudit.h"

/* The address of the kernel's apparmor_blob_sizes, 0 when AppArmor does
 * not give the tasks' contexts (not running, or another LSM does). */
const volatile __u64 apparmor_blob_sizes_addr = 0;
/* AppArmor's credential blob offset when user space computed it (-1: read
 * it at apparmor_blob_sizes_addr). */
const volatile __s32 apparmor_cred_offset = -1;

/* Whether tasks' labels are read at all. */
static __always_inline bool lsm_labels_read(void)
{
	return apparmor_blob_sizes_addr || apparmor_cred_offset >= 0;
}

/* AppArmor's types are not in the committed vmlinux.h (its kernel ran no
 * AppArmor): the fields read, matched against the running kernel's BTF. */
struct aa_label___fa;
struct aa_proxy___fa {
	struct aa_label___fa *label;
} __attribute__((preserve_access_index));

struct aa_label___fa {
	struct aa_proxy___fa *proxy;
	char *hname;
	long flags;
} __attribute__((preserve_access_index));

/* label_flags' FLAG_STALE (security/apparmor/include/label.h, unchanged
 * since 4.13): the label was replaced; its proxy leads to the new one,
 * which the kernel's aa_get_current_label reports. */
#define FA_AA_FLAG_STALE 0x800

/* The label of credentials c into buf (FA_SUBJ_MAX bytes): its length
 * without the NUL, 0 when there is none. The kernel prints the label's
 * hierarchical name (apparmor_secid_to_secctx without the profile mode,
 * the default of apparmor.display_secid_mode); a label of another policy
 * namespace than the root's is printed as its name alone. */
static __noinline __u32 read_lsm_label(const struct cred *c, char *buf)
{
	if (!lsm_labels_read() || !bpf_core_type_exists(struct aa_label___fa))
		return 0;
	int off = apparmor_cred_offset;
	if (off < 0) {
		__u64 at = apparmor_blob_sizes_addr +
			   bpf_core_field_offset(struct lsm_blob_sizes, lbs_cred);
		if (bpf_probe_read_kernel(&off, sizeof(off), (void *)at))
			return 0;
	}
	if (off < 0 || off > 4096)
		return 0;
	void *blob = BPF_CORE_READ(c, security);
	struct aa_label___fa *l = 0;
	if (!blob || bpf_probe_read_kernel(&l, sizeof(l), blob + off) || !l)
		return 0;
	if (BPF_CORE_READ(l, flags) & FA_AA_FLAG_STALE) {
		struct aa_label___fa *newer = BPF_CORE_READ(l, proxy, label);
		if (newer)
			l = newer;
	}
	long n = bpf_probe_read_kernel_str(buf, FA_SUBJ_MAX, BPF_CORE_READ(l, hname));
	return n > 1 ? (__u32)(n - 1) & (FA_SUBJ_MAX - 1) : 0;
}

#endif
