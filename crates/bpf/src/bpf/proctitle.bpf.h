/* SPDX-License-Identifier: GPL-2.0 */
/* PROCTITLE as the kernel keeps it: audit_log_proctitle reads the command
 * line at a task's first record and caches it in the task's audit
 * context for every later record, across execve (a failed exec attempt
 * first, the exec's own record after it, both show the old command line). */
#ifndef FA_PROCTITLE_BPF_H
#define FA_PROCTITLE_BPF_H

#include "load.bpf.h"

/* A thread's command line as first recorded; `start` tells the thread
 * from an earlier one of the same tid. */
struct fa_proctitle {
	__u64 start;
	__u32 len;
	__u32 pad;
	char buf[FA_PROCTITLE_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fa_proctitle);
} proctitles SEC(".maps");

/* Room to build an entry in (off the stack, which the event already fills). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fa_proctitle);
} proctitle_scratch SEC(".maps");

/* The task's cached command line, copied to buf (FA_PROCTITLE_LEN bytes);
 * its length, or -1 when the task has recorded nothing yet. */
static __always_inline long cached_proctitle(struct task_struct *task, char *buf)
{
	__u32 tid = FA_GET(task, struct task_struct, pid);
	struct fa_proctitle *p = bpf_map_lookup_elem(&proctitles, &tid);
	if (!p || p->start != FA_GET(task, struct task_struct, start_time))
		return -1;
	__builtin_memcpy(buf, p->buf, FA_PROCTITLE_LEN);
	return p->len;
}

/* Remember the command line the task's first record showed (the kernel
 * keeps none when it read nothing). */
static __always_inline void cache_proctitle(struct task_struct *task, const char *buf, __u32 len)
{
	__u32 tid = BPF_CORE_READ(task, pid), zero = 0;
	struct fa_proctitle *p = bpf_map_lookup_elem(&proctitle_scratch, &zero);
	if (!p || !len)
		return;
	p->start = BPF_CORE_READ(task, start_time);
	p->len = len;
	__builtin_memcpy(p->buf, buf, FA_PROCTITLE_LEN);
	bpf_map_update_elem(&proctitles, &tid, p, BPF_ANY);
}

#endif
