/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FA_CGROUP_BPF_H
#define FA_CGROUP_BPF_H

/* The cgroup of an event's task, by id, for user space to name its
 * container (crates/containers). Which hierarchy's: the one user space
 * resolves ids in, chosen at start (engine host/cgroups.rs): cgroup v2's
 * where it is mounted, else one cgroup v1 controller's (a hybrid or v1
 * host, where container runtimes make the same path in every v1
 * hierarchy). Read from the task rather than with
 * bpf_get_current_cgroup_id(), which knows only v2 and only the current
 * task: a URINGOP's subject can be another. */

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

/* -1: cgroup v2 (the task's css_set's dfl_cgrp); else the v1
 * controller's cgroup_subsys_id in this kernel (read from its BTF). */
const volatile __s32 cgroup_subsys = -1;

/* The kernfs id of the task's cgroup in that hierarchy: the id a file
 * handle on the cgroup file system names (0: unread). No branch but the
 * load-time constant's (a NULL on the way makes the reads after it fail,
 * which leaves 0): it is inlined in every exit program that fills an
 * event, where 6.1's verifier pays for each branch in every state. Not a
 * global function: the task is a BTF pointer, which 6.1 does not pass
 * to one. */
static __always_inline __u64 task_cgroup_id(struct task_struct *task)
{
	if (cgroup_subsys < 0)
		return BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
	/* subsys[] indexed by a load-time constant: its offset from this
	 * kernel's layout, the index from user space. */
	struct css_set *cset = BPF_CORE_READ(task, cgroups);
	struct cgroup_subsys_state *css = NULL;
	__u64 at = bpf_core_field_offset(struct css_set, subsys) +
		   (__u64)(cgroup_subsys & 31) * sizeof(css);
	bpf_probe_read_kernel(&css, sizeof(css), (void *)cset + at);
	return BPF_CORE_READ(css, cgroup, kn, id);
}

#endif
