/* SPDX-License-Identifier: GPL-2.0 */
/* Live rule changes: a new object (the next generation, its own rules and
 * hooks) is loaded and attached beside the running one; the two share the
 * ring buffer, the task lists, the exec arguments saved at entry and the
 * maps below. `handover.active` names the generation whose judgment
 * counts; user space switches it with one map update. While both are
 * attached (`handover.overlap`), the first of the two to reach a syscall's
 * end decides for both which one judges it (and records that decision for
 * the thread), so a syscall ending during the switch is judged once, by
 * one whole rule set, never twice and never by neither. */
#ifndef FA_HANDOVER_BPF_H
#define FA_HANDOVER_BPF_H

/* This object's generation (0 for the rules fastaudit started with). */
const volatile __u32 generation = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fa_handover);
} handover SEC(".maps");

/* Per thread: the decision the first object took for the syscall end it
 * is at, for the other object to take over. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fa_decision);
} decisions SEC(".maps");

static __always_inline struct fa_handover *handover_state(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&handover, &zero);
}

/* Whether this generation's judgment counts (outside a syscall's end: a
 * new task's task-list rules). */
static __always_inline int generation_active(void)
{
	struct fa_handover *h = handover_state();
	return !h || h->active == generation;
}

/* Whether this object judges the end of syscall nr of thread tid. */
static __always_inline int judged_here(__u32 tid, __u32 nr)
{
	struct fa_handover *h = handover_state();
	if (!h)
		return 1;
	if (!h->overlap)
		return h->active == generation;
	struct fa_decision *d = bpf_map_lookup_elem(&decisions, &tid);
	if (d && d->nr == nr && d->writer != generation) {
		__u32 winner = d->winner;
		bpf_map_delete_elem(&decisions, &tid);
		return winner == generation;
	}
	struct fa_decision mine = { .nr = nr, .writer = generation, .winner = h->active };
	bpf_map_update_elem(&decisions, &tid, &mine, BPF_ANY);
	return mine.winner == generation;
}

/* Whether exec arguments saved at entry may be deleted once taken: not
 * while two objects may both need them for the same syscall. */
static __always_inline int entry_args_consumable(void)
{
	struct fa_handover *h = handover_state();
	return !h || !h->overlap;
}

#endif
