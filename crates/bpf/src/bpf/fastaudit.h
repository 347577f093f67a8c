/* SPDX-License-Identifier: GPL-2.0 */
/* The one definition of what the kernel side and user space share: rule
 * tables (filled from the engine's plan) and the event layout. The Rust
 * side uses the types libbpf-cargo generates from this header's BTF. */
#ifndef FASTAUDIT_H
#define FASTAUDIT_H

#define FA_MAX_TESTS 64          /* AUDIT_MAX_FIELDS */
#define FA_NR_SYSCALLS 2048      /* bits in a rule's syscall bitmap */
#define FA_MAX_RULES 8192
#define FA_MAX_CANDIDATES 262144 /* all per-syscall candidate lists together */
#define FA_MAX_EXES 1024
#define FA_RINGBUF_BYTES (16 << 20)
#define FA_PROCTITLE_LEN 128     /* MAX_PROCTITLE_AUDIT_LEN */
#define FA_PATH_DEPTH 16         /* exe path components kept */
#define FA_NAME_LEN 64           /* bytes kept of each component */

/* Field codes are the kernel's (AUDIT_PID ...); these are fastaudit's own. */
#define FA_FIELD_NEVER 0xFFFF

/* Operators, as in <linux/audit.h>. */
#define FA_OP_BIT_MASK 0x08000000
#define FA_OP_LT 0x10000000
#define FA_OP_GT 0x20000000
#define FA_OP_NE 0x30000000
#define FA_OP_EQ 0x40000000
#define FA_OP_BIT_TEST 0x48000000
#define FA_OP_LE 0x50000000
#define FA_OP_GE 0x60000000

/* Counters in the stats map. */
#define FA_STAT_EMITTED 0
#define FA_STAT_LOST 1
#define FA_NR_STATS 2

struct fa_test {
	__u32 field;
	__u32 op;
	__u32 value;
};

struct fa_rule {
	__u32 always;   /* 1 = always, 0 = never */
	__u32 ntests;
	struct fa_test tests[FA_MAX_TESTS];
};

/* Where one syscall's candidate rule ids sit in the candidates array.
 * Index: syscall nr, plus FA_NR_SYSCALLS for compat (ia32) syscalls;
 * FA_TASK_SPAN holds the task-list rules (evaluated at task creation). */
#define FA_TASK_SPAN (2 * FA_NR_SYSCALLS)
struct fa_span {
	__u32 start;
	__u32 count;
};

/* An executable's identity, for exe= tests. */
struct fa_exe {
	__u64 ino;
	__u32 dev;   /* kernel dev_t: major << 20 | minor */
	__u32 pad;
};

/* Syscall arguments saved at entry, for syscalls whose registers do not
 * survive to the exit (a successful execve clears them). */
struct fa_args {
	__u64 a[4];
};

struct fa_event {
	__u64 time_ns;   /* CLOCK_MONOTONIC at syscall exit */
	__s64 ret;
	__u64 args[4];
	__u64 exe_ino;
	__u32 exe_dev;
	__u32 arch;      /* AUDIT_ARCH_* */
	__u32 syscall;
	__u32 rule;      /* index of the matching exit rule */
	__u32 pid;       /* tgid */
	__u32 tid;
	__u32 ppid;
	__u32 auid;
	__u32 ses;
	__u32 pers;
	__u32 ids[8];    /* uid gid euid suid fsuid egid sgid fsgid */
	__u32 proctitle_len;
	__u32 exe_depth;     /* components in exe_names; more if truncated */
	char comm[16];
	char tty[64];
	char proctitle[FA_PROCTITLE_LEN];
	/* The executable's path, last component first (a dentry walk across
	 * mounts, as d_path would give it). */
	char exe_names[FA_PATH_DEPTH][FA_NAME_LEN];
};

#endif
