/* SPDX-License-Identifier: GPL-2.0 */
/* TIME_ADJNTPVAL and TIME_INJOFFSET for adjtimex and clock_adjtime of the
 * system clock (kernel/time/timekeeping.c, do_adjtimex; auditsc.c,
 * audit_log_time). The kernel notes the NTP values (offset, freq, status,
 * tai, tick, adjust) before and after the call, under the timekeeper's
 * lock, in a struct audit_ntp_data that ntp_adjtimex (Linux 6.17+;
 * earlier __do_adjtimex, without the timekeeper id) fills: an fexit
 * program reads that struct itself, so the values are the kernel's, not a
 * second reading. The offset ADJ_SETOFFSET injected is the caller's
 * (struct __kernel_timex's time, microseconds unless ADJ_NANO), read by an
 * fentry program from the kernel's copy before ntp_adjtimex replaces it
 * with the current time; the function is only reached once the injection
 * succeeded. An auxiliary clock's adjustment (a timekeeper id other than
 * 0) is not audited by the kernel and is not noted. The syscall's entry
 * hook clears the thread's note, its exit sends it. settimeofday and
 * clock_settime, whose offset the kernel computes from the clock it reads
 * under the lock, are not followed. */
#ifndef FA_NTP_BPF_H
#define FA_NTP_BPF_H

#include "subject.bpf.h"
#include "handover.bpf.h"
#include "auxsample.bpf.h"

#define FA_ADJ_SETOFFSET 0x0100
#define FA_ADJ_NANO 0x2000

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fa_ntp);
} ntp_notes SEC(".maps");

/* Per thread: the offset it last injected. The kernel keeps it in the
 * task's audit context for the task's life, and prints it (TIME_INJOFFSET)
 * with every later event that injects one or changes an NTP value: a
 * status change after an injection shows the old offset again. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fa_ntp_offset);
} ntp_offsets SEC(".maps");

/* Whether nr is a native clock adjusting syscall (whose exit sends the note). */
static __always_inline int is_clock_adjust(__u32 nr)
{
	return nr == FA_NR64_adjtimex || nr == FA_NR64_clock_adjtime;
}

/* At a clock adjusting syscall's entry: nothing noted yet. */
static __always_inline void ntp_forget(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&ntp_notes, &tid);
}

/* At ntp_adjtimex's entry: the offset injected, if any. */
static __always_inline int ntp_entry_body(struct __kernel_timex *txc)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_ntp n = {};
	__u32 modes = BPF_CORE_READ(txc, modes);
	if (modes & FA_ADJ_SETOFFSET) {
		struct fa_ntp_offset o = {
			.sec = BPF_CORE_READ(txc, time.tv_sec),
			.nsec = BPF_CORE_READ(txc, time.tv_usec),
		};
		if (!(modes & FA_ADJ_NANO))
			o.nsec *= 1000;
		bpf_map_update_elem(&ntp_offsets, &tid, &o, BPF_ANY);
		n.injected = 1;
	}
	struct fa_ntp_offset *last = bpf_map_lookup_elem(&ntp_offsets, &tid);
	if (last) {
		n.sec = last->sec;
		n.nsec = last->nsec;
	}
	bpf_map_update_elem(&ntp_notes, &tid, &n, BPF_ANY);
	return 0;
}

/* At its exit: the values before and after, as the kernel noted them. */
static __always_inline int ntp_exit_body(struct audit_ntp_data *ad)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_ntp *n = bpf_map_lookup_elem(&ntp_notes, &tid);
	if (!n)
		return 0;
	/* AUDIT_NTP_NVALS pairs of long long (include/linux/audit.h) */
	__s64 v[2 * FA_NTP_VALUES];
	if (bpf_probe_read_kernel(v, sizeof(v), ad))
		return 0;
	for (int i = 0; i < FA_NTP_VALUES; i++) {
		n->old[i] = v[2 * i];
		n->new[i] = v[2 * i + 1];
	}
	n->has_values = 1;
	return 0;
}

/* TIME_ADJNTPVAL and TIME_INJOFFSET data for the syscall of s. */
static __always_inline void send_ntp(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	if (s->compat || !is_clock_adjust(s->nr))
		return;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_ntp *n = bpf_map_lookup_elem(&ntp_notes, &tid);
	if (!n)
		return;
	if (n->has_values) {
		struct fa_ntp *r = aux_reserve(m, lost, AUDIT_TIME_ADJNTPVAL, sizeof(*r));
		if (r) {
			*r = *n;
			aux_submit(r);
		}
	}
	if (entry_args_consumable())
		bpf_map_delete_elem(&ntp_notes, &tid);
}

#endif
