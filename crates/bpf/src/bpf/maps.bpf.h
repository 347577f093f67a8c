/* SPDX-License-Identifier: GPL-2.0 */
/* What user space fills in and reads: load-time constants and every map,
 * with the small helpers that use maps generically. */
#ifndef FA_MAPS_BPF_H
#define FA_MAPS_BPF_H

/* The engine's own process is never audited (as the kernel spares auditd). */
const volatile __u32 self_tgid = 0;
/* Whether the rules have path=/dir= watches, dir= ones among them, and
 * perm= tests: code for what is absent is dead at load time. */
const volatile __u32 have_watches = 0;
const volatile __u32 have_dirs = 0;
const volatile __u32 have_perm = 0;
/* Whether companions (FA_EV_COMPANION) are sent for tasks that have a
 * kernel audit context too: 0 when fastaudit is the audit daemon (the
 * kernel writes those tasks' SYSCALL records itself), 1 beside another. */
const volatile __u32 companion_with_context = 0;
/* Half the ring buffer's size (user space sets the size at load). */
const volatile __u64 ring_half_bytes = FA_RINGBUF_BYTES / 2;
/* Whether an always,task rule is loaded. */
const volatile __u32 have_always_task = 0;
/* Whether some exit rule names kill, tkill or tgkill (the kernel then
 * notes the tasks a syscall signals: OBJ_PID), and whether the loaded
 * programs may look a task up by pid (not raw_tp ones). */
const volatile __u32 have_signal_rules = 0;
const volatile __u32 task_lookup = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_MAX_RULES);
	__type(key, __u32);
	__type(value, struct fa_rule);
} rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_NR_SPANS + 1);
	__type(key, __u32);
	__type(value, struct fa_span);
} spans SEC(".maps");

/* Threads a `never` task rule matched when they were created: never
 * audited. Allocated per entry: preallocating a million would pin 80 MiB. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 20);
	__type(key, __u32);
	__type(value, __u8);
} never_task SEC(".maps");

/* Threads an `always` task rule matched when they were created: every
 * syscall is recorded, whatever the exit rules say. The value is the
 * task rule, for the record's key (auditctl allows none on that list). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 20);
	__type(key, __u32);
	__type(value, __u32);
} always_task SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_MAX_CANDIDATES);
	__type(key, __u32);
	__type(value, __u32);
} candidates SEC(".maps");

/* The spans' gates (fa_span.gate_start, gate_count). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_MAX_GATES);
	__type(key, __u32);
	__type(value, struct fa_gate);
} gates SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_MAX_EXES);
	__type(key, __u32);
	__type(value, struct fa_exe);
} exes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FA_RINGBUF_BYTES);
} events SEC(".maps");

/* How an event is committed: without a wakeup (the reader polls, and
 * batches what came meanwhile), unless the ring is more than half full:
 * then the reader, waiting in poll(2) on the ring, is woken at once, so
 * a small ring absorbs a burst that starts while it waits. */
static __always_inline __u64 event_wakeup(void)
{
	__u64 used = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	return used > ring_half_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FA_NR_STATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* An exec's arguments as saved before it, and the memory it was called
 * from: a failed exec has the caller's still, which tells its own saved
 * state from one an earlier exec left (no hook clears it on every path). */
struct fa_entry_args {
	struct fa_args args;
	__u64 mm;
};

/* Entry arguments of exec syscalls in flight, per thread. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fa_entry_args);
} entry_args SEC(".maps");

/* Watched inodes (files, tree roots, mount roots inside trees). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FA_MAX_WATCHED);
	__type(key, struct fa_inode_key);
	__type(value, struct fa_watch);
} watched SEC(".maps");

/* Watched files by (parent directory, name). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FA_MAX_WATCHED);
	__type(key, struct fa_name_key);
	__type(value, __u32);
} watch_by_parent_name SEC(".maps");

/* Where the executable's path is built for an event (see fa_exe_buf). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fa_exe_buf);
} exe_scratch SEC(".maps");

/* Watched files by path, and scratch space to read a path argument. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FA_MAX_WATCHED);
	__type(key, struct fa_path_key);
	__type(value, __u32);
} watch_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fa_path_key);
} path_scratch SEC(".maps");

/* Watched trees (dir=) by normalized path. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FA_MAX_WATCHED);
	__type(key, struct fa_path_key);
	__type(value, __u32);
} tree_paths SEC(".maps");

/* Per span index (native syscalls): where the path arguments are. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_NR_SPANS);
	__type(key, __u32);
	__type(value, struct fa_path_args);
} path_args SEC(".maps");

/* Per thread: the watched objects its current syscall changed. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fa_hits);
} hits SEC(".maps");

/* Per span index: how perm= judges the syscall (fa_perm_kind/class). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FA_NR_SPANS);
	__type(key, __u32);
	__type(value, __u32);
} sysclass SEC(".maps");

/* Look key up in map, inserting init first when absent (the value may
 * have been inserted by another CPU in between: BPF_NOEXIST then fails
 * and the second lookup finds that one). As libbpf-tools' maps.bpf.h. */
static __always_inline void *lookup_or_try_init(void *map, const void *key, const void *init)
{
	void *v = bpf_map_lookup_elem(map, key);
	if (v)
		return v;
	long err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err && err != -EEXIST)
		return 0;
	return bpf_map_lookup_elem(map, key);
}

/* Count one occurrence in the stats map. */
static __always_inline void count(enum fa_stat which)
{
	__u32 k = which;
	__u64 *v = bpf_map_lookup_elem(&stats, &k);
	if (v)
		*v += 1;
}

#endif
