/* SPDX-License-Identifier: GPL-2.0 */
/* The one definition of what the kernel side and user space share: rule
 * tables (filled from the engine's plan) and the event layout. The Rust
 * side uses the types libbpf-cargo generates from this header's BTF. */
#ifndef FASTAUDIT_H
#define FASTAUDIT_H

#include "audit_abi.h"   /* FA_ABI_NR_SYSCALLS */

/* Sizes and limits. Enums, not macros, so that they reach the Rust side
 * through the object's BTF (see struct fa_enums). */
enum fa_limit {
	FA_MAX_TESTS = 64,          /* AUDIT_MAX_FIELDS */
	FA_NR_SYSCALLS = FA_ABI_NR_SYSCALLS, /* syscall numbers per ABI (a rule's bitmap) */
	FA_MAX_RULES = 8192,
	FA_NO_RULE = FA_MAX_RULES,  /* fa_event.rule of an event no rule selected */
	FA_MAX_CANDIDATES = 262144, /* all per-syscall candidate lists together */
	FA_MAX_EXES = 1024,
	FA_RINGBUF_BYTES = 4 << 20, /* the default; --ring-buffer-kib */
	FA_PROCTITLE_LEN = 128,     /* MAX_PROCTITLE_AUDIT_LEN */
	FA_PATH_DEPTH = 16,         /* path components kept of a dentry walk */
	FA_EXE_MAX = 4096,          /* bytes of the executable's path (PATH_MAX) */
	FA_SUBJ_MAX = 256,          /* bytes of an LSM label (subj=, obj=) read, with its NUL */
	FA_NAME_LEN = 64,           /* bytes kept of each component */
	FA_MAX_WATCHED = 65536,     /* watched inodes (files, dirs, mount roots) */
	FA_MAX_HITS = 8,            /* watched objects one syscall can touch */
	FA_MAX_MOVED = 2,           /* dentries renamed or created beside a watched file */
	FA_DIR_DEPTH = 32,          /* ancestors looked at for dir= watches */
	FA_PATH_MAX = 256,          /* bytes of a watched path kept as a key */
	FA_MAX_THREADS = 16384,     /* threads with per-syscall state at once */
	/* Index of the spans map: syscall nr, plus FA_NR_SYSCALLS for compat
	 * (ia32) syscalls; FA_TASK_SPAN holds the task-list rules. */
	FA_NR_SPANS = 2 * FA_NR_SYSCALLS,
	FA_TASK_SPAN = FA_NR_SPANS,
	FA_URING_OPS = 64,          /* io_uring op numbers (IORING_OP_LAST is below) */
	FA_GATE_TESTS = 4,          /* quick tests a gate holds */
	FA_MAX_GATES = 65536,       /* all spans' gates together */
};

/* A test whose field can never hold (an LSM field without an LSM). Rule
 * field codes are otherwise the kernel's (AUDIT_*, audit_abi.h). */
enum fa_field {
	FA_FIELD_NEVER = 0xFFFF,
	/* A test of the syscall's objects (names): FA_FIELD_OBJ | the
	 * kernel's field (AUDIT_INODE, _DEVMAJOR, _DEVMINOR, _OBJ_UID,
	 * _OBJ_GID, _FILETYPE), value the rule's. */
	FA_FIELD_OBJ = 0x10000,
	/* -C between a task field and a file owner's (uid!=obj_uid):
	 * FA_FIELD_OBJ_COMPARE | task field << 8 | AUDIT_OBJ_UID/_OBJ_GID. */
	FA_FIELD_OBJ_COMPARE = 0x20000,
};

/* How the kernel's audit_match_perm judges a syscall (the sysclass map):
 * the kind, shifted by FA_PERM_KIND_SHIFT, or'ed with class bits. */
enum fa_perm_kind {
	FA_PERM_CLASS = 0,       /* by the write/read/chattr classes */
	FA_PERM_OPEN = 1,        /* by the access mode in a1 */
	FA_PERM_OPENAT = 2,      /* ... in a2 */
	FA_PERM_EXEC = 3,        /* always an exec */
	FA_PERM_OPENAT2 = 4,     /* ... in struct open_how (a2) */
	FA_PERM_SOCKETCALL = 5,  /* write when a0 is SYS_BIND */
};
enum fa_perm_class {
	FA_CLASS_WRITE = 1,
	FA_CLASS_READ = 2,
	FA_CLASS_CHATTR = 4,
	FA_PERM_KIND_SHIFT = 8,
};

/* fa_event.flags. */
enum fa_event_flag {
	/* The syscall never returned (exit, exit_group): the kernel logs it
	 * from do_exit with no success= or exit= field. */
	FA_EV_NO_RETURN = 1,
	/* The executable was unlinked: d_path, and so exe=, ends in
	 * " (deleted)". */
	FA_EV_EXE_DELETED = 2,
	/* The syscall made a kernel record that stock audit writes with the
	 * syscall's SYSCALL and PROCTITLE (a loginuid write: LOGIN). The
	 * event's rule is FA_NO_RULE (key (null)) unless a rule also
	 * selected the syscall. */
	FA_EV_COMPANION = 4,
	/* An auxiliary record of this event found no room in the ring
	 * buffer: the event's records are incomplete (counted in
	 * FA_STAT_AUX_LOST). */
	FA_EV_AUX_LOST = 8,
	/* The executable's path does not fit in FA_EXE_MAX bytes (or could
	 * not be read whole): exe= is the kernel's own marker for a path
	 * d_path cannot give, "<too_long>", never a shorter path. */
	FA_EV_EXE_TOO_LONG = 16,
	/* A URINGOP record: `syscall` is the io_uring op, `ret` the issue
	 * attempt's return, `rule` the key's rule, `args[0]` its items=;
	 * only these, the ids, pid, ppid and msg are filled. */
	FA_EV_URINGOP = 32,
	/* ... made inside io_uring_enter: its records wait for that
	 * syscall's end (FA_EV_URING_END from the same msg.tid) and share its stamp. */
	FA_EV_URING_INLINE = 64,
	/* The end of an io_uring_enter that made URINGOP records: its
	 * SYSCALL, or with FA_EV_NO_RECORD none (only pid and msg filled). */
	FA_EV_URING_END = 128,
	FA_EV_NO_RECORD = 256,
};

/* What a ring-buffer sample is (fa_msg.kind). */
enum fa_msg_kind {
	FA_MSG_EVENT = 1,   /* struct fa_event: one audited syscall */
	FA_MSG_AUX = 2,     /* struct fa_aux_head + payload: one of its records */
};

/* The head of every ring-buffer sample. An event's auxiliary samples
 * (PATH, CWD, EXECVE, ... data) are submitted before the event by the
 * same program run, with the event's tid and stamp: user space holds
 * them by tid until the event with that stamp arrives. */
struct fa_msg {
	__u32 kind;    /* enum fa_msg_kind */
	__u32 tid;
	__u64 stamp;   /* CLOCK_MONOTONIC ns at the syscall's end; the event's time */
};

/* An auxiliary sample: `len` bytes of a payload whose layout
 * `rec_type` names (an AUDIT_* record type, or a FA_AUX_* kind) follow the head. */
struct fa_aux_head {
	struct fa_msg msg;
	__u32 rec_type;
	__u32 len;
};

/* Payloads of the auxiliary records other than PATH and CWD (issue 12):
 * what the kernel's audit_log_exit prints, read by the BPF side at the
 * syscall's exit (execve's old credentials at its entry). */
enum fa_aux_limit {
	FA_ARGS_CHUNK = 4096,    /* bytes of an exec's argument area per sample */
	FA_ARGS_CHUNKS = 64,     /* samples at most: 256 KiB of arguments */
	FA_SOCKADDR_MAX = 128,   /* sizeof(struct sockaddr_storage) */
	FA_MODULE_NAME_LEN = 56, /* the kernel's MODULE_NAME_LEN (64 - sizeof(long)) */
};

/* fa_execve.flags. */
enum fa_execve_flag {
	FA_EXECVE_LAST = 1,      /* the argument area's last chunk */
	FA_EXECVE_CUT = 2,       /* ... and the area went on past FA_ARGS_CHUNKS */
};

/* EXECVE: one chunk of the new program's argument area (argv strings,
 * NUL-terminated, as the kernel's audit_log_execve_info reads them from
 * mm->arg_start), chunks in order. */
struct fa_execve {
	__u32 argc;      /* argc at the new stack's top (bprm->argc) */
	__u32 index;     /* chunk number */
	__u32 len;       /* bytes of data used */
	__u32 flags;     /* FA_EXECVE_* */
	char data[FA_ARGS_CHUNK];
};

/* SOCKADDR: the address a socket syscall passed or returned. */
struct fa_sockaddr {
	__u32 len;       /* the kernel's length (may exceed what was read) */
	__u32 read;      /* bytes in addr */
	__u8 addr[FA_SOCKADDR_MAX];
};

/* FD_PAIR: the two descriptors of pipe, pipe2, socketpair. */
struct fa_fd_pair {
	__s32 fd[2];
};

/* MMAP: the descriptor and flags of a file mapping. */
struct fa_mmap {
	__s32 fd;
	__u32 flags;
};

/* OPENAT2: struct open_how as the caller passed it. */
struct fa_openat2 {
	__u64 flags;
	__u64 mode;
	__u64 resolve;
};

/* A process's capability sets (kernel_cap_t values). */
struct fa_caps {
	__u64 permitted;
	__u64 inheritable;
	__u64 effective;
	__u64 ambient;
};

/* CAPSET: the caller's new sets (the kernel prints effective as cap_pi). */
struct fa_capset {
	__u32 pid;
	__u32 pad;
	struct fa_caps caps;
};

/* fa_bprm_fcaps.flags: which clauses of the kernel's nonroot_raised_pE
 * held for the exec. */
enum fa_bprm_flag {
	FA_BPRM_RAISED = 1,     /* one that does not depend on the file's capabilities */
	FA_BPRM_PP_GAINED = 2,  /* same euid and the permitted set grew: raised
				 * if the file has capabilities */
};

/* BPRM_FCAPS: an exec that may have raised capabilities
 * (nonroot_raised_pE): the sets before and after; user space reads the
 * file's own capabilities (they decide FA_BPRM_PP_GAINED). */
struct fa_bprm_fcaps {
	__u32 flags;     /* FA_BPRM_* */
	__u32 pad;
	struct fa_caps old;
	struct fa_caps new;
};

/* OBJ_PID: a task the syscall signalled (or ptraced). */
struct fa_obj_pid {
	__u32 pid;       /* tgid */
	__u32 auid;
	__u32 uid;
	__u32 ses;
	char comm[16];
	__u32 obj_len;   /* bytes of its LSM label in obj (0: none) */
	char obj[FA_SUBJ_MAX];
};

/* KERN_MODULE: the name delete_module was given, as the kernel copied it
 * (strncpy_from_user of at most MODULE_NAME_LEN bytes: 1 to 55 bytes and
 * the NUL). */
struct fa_kern_module {
	__u32 len;       /* bytes of name, without the NUL */
	__u32 pad;
	char name[64];   /* room for FA_MODULE_NAME_LEN + 1 bytes read */
};

/* struct mq_attr, as the caller passed it (the kernel copies all of it). */
struct fa_mq_attr {
	__s64 flags;
	__s64 maxmsg;
	__s64 msgsize;
	__s64 curmsgs;
	__s64 reserved[4];
};

/* MQ_OPEN: mq_open's flags, mode and attributes (zeros when none). */
struct fa_mq_open {
	__u32 oflag;
	__u32 mode;      /* umode_t */
	struct fa_mq_attr attr;
};

/* MQ_SENDRECV: mq_timedsend/mq_timedreceive's descriptor, length,
 * priority (0 for a receive) and absolute timeout (0 0 when none). */
struct fa_mq_sendrecv {
	__s32 mqdes;
	__u32 msg_prio;
	__u64 msg_len;
	__s64 sec;
	__s64 nsec;
};

/* MQ_NOTIFY: the descriptor and the notification's signal (0: none). */
struct fa_mq_notify {
	__s32 mqdes;
	__s32 signo;
};

/* mq_getsetattr's new attributes, read at its entry. */
struct fa_mq_entry {
	__u32 read;      /* 0: the buffer could not be read */
	__u32 pad;
	struct fa_mq_attr attr;
};

/* MQ_GETSETATTR: the descriptor and the new attributes. */
struct fa_mq_getsetattr {
	__s32 mqdes;
	__u32 pad;
	struct fa_mq_attr attr;
};

/* IPC: the System V object's owner and mode as the kernel noted them
 * (audit_ipc_obj), and with has_perm IPC_SET_PERM's values
 * (audit_ipc_set_perm: qbytes, the new owner and mode). */
struct fa_ipc {
	__u32 uid;
	__u32 gid;
	__u32 mode;      /* umode_t */
	__u32 has_perm;
	__u64 qbytes;
	__u32 perm_uid;
	__u32 perm_gid;
	__u32 perm_mode; /* umode_t */
	__u32 pad;
};

/* TIME_ADJNTPVAL, TIME_INJOFFSET: the NTP values adjtimex changed
 * (offset, freq, status, tai, tick, adjust: the kernel's audit_ntp_data)
 * and the offset ADJ_SETOFFSET injected (0 0: none). */
enum fa_ntp_limit {
	FA_NTP_VALUES = 6,       /* AUDIT_NTP_NVALS */
};
/* The offset a task last injected (struct timespec64, normalized). */
struct fa_ntp_offset {
	__s64 sec;
	__s64 nsec;
};

struct fa_ntp {
	__u32 has_values; /* the NTP values were noted */
	__u32 injected;   /* this syscall injected the offset (sec, nsec: the
			   * task's last injected, as the kernel's audit
			   * context keeps it) */
	__s64 sec;
	__s64 nsec;
	__s64 old[FA_NTP_VALUES];
	__s64 new[FA_NTP_VALUES];
};

/* SOCKETCALL: the ia32 socketcall's argument words (nargs of them). */
struct fa_socketcall {
	__u32 nargs;
	__u32 args[6];   /* AUDITSC_ARGS */
};

/* The capability sets and euid an exec started with (saved at entry). */
struct fa_exec_entry {
	struct fa_caps caps;
	__u32 euid;
	__u32 pad;
};

/* The aux payloads reach the Rust skeleton's BTF through this struct. */
struct fa_aux_layouts {
	enum fa_aux_limit limit;
	enum fa_execve_flag execve_flag;
	enum fa_bprm_flag bprm_flag;
	struct fa_execve execve;
	struct fa_sockaddr sockaddr;
	struct fa_fd_pair fd_pair;
	struct fa_mmap mmap;
	struct fa_openat2 openat2;
	struct fa_capset capset;
	struct fa_bprm_fcaps bprm_fcaps;
	struct fa_obj_pid obj_pid;
	struct fa_kern_module kern_module;
	struct fa_mq_open mq_open;
	struct fa_mq_sendrecv mq_sendrecv;
	struct fa_mq_notify mq_notify;
	struct fa_mq_getsetattr mq_getsetattr;
	struct fa_ipc ipc;
	enum fa_ntp_limit ntp_limit;
	struct fa_ntp ntp;
	struct fa_socketcall socketcall;
};

/* Counters in the stats map (per CPU; user space sums them). */
enum fa_stat {
	FA_STAT_EMITTED = 0,   /* events put into the ring buffer */
	FA_STAT_LOST = 1,      /* events the ring buffer had no room for */
	FA_STAT_AUX_LOST = 2,  /* auxiliary samples the ring buffer had no room for */
	FA_NR_STATS = 3,
};

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

/* fa_span.flags. */
enum fa_span_flag {
	FA_SPAN_PATH_RULES = 1,       /* a candidate rule tests path= or dir= */
	FA_SPAN_URING_OP = 2,         /* uring_spans: the op is audited at all */
	FA_SPAN_OBJ_RULES = 4,        /* a candidate rule tests the objects (obj_uid, inode, ...) */
	FA_SPAN_AT_NI = 8,            /* not implemented here: judged at sys_ni_syscall's exit */
};

/* Where one syscall's candidate rule ids sit in the candidates array
 * (index: see FA_NR_SPANS). */
struct fa_span {
	__u32 start;
	__u32 count;
	__u32 flags;
	/* With FA_SPAN_PATH_RULES: the perm= bits under which a rule testing
	 * names can still hold (~0 when one has no perm= test). Names are
	 * not collected for a syscall whose permission misses all of them. */
	__u32 path_rules_perm;
	/* With FA_SPAN_PATH_RULES: the candidates without a path=/dir=/watch
	 * test, in order, judged instead of all when the syscall touched no
	 * watched object (none of the others can hold then). */
	__u32 plain_start;
	__u32 plain_count;
	/* The span's gates (fa_gate), judged before anything is gathered;
	 * gate_count 0: none, the candidates are judged as they are. */
	__u32 gate_start;
	__u32 gate_count;
};

/* fa_gate.flags. */
enum fa_gate_flag {
	FA_GATE_DECIDES = 1,   /* the rule at `first` has no test beyond the gate's */
	FA_GATE_NAMES = 2,     /* a rule of this gate tests path=, dir= or a watch */
	FA_GATE_OBJS = 4,      /* a rule of this gate tests the objects (obj_uid, ...) */
};

/* The quick tests (exit, success, ids, arguments, perm: nothing gathered)
 * that one or more of a span's candidates begin with, once per distinct
 * set: a rule whose gate fails cannot match, so a syscall is decided, or
 * knows whether names and objects are worth gathering, from its gates
 * alone. The span's arch is known: arch=/arch!= tests are left out. */
struct fa_gate {
	__u32 first;         /* position in the span of its first rule */
	__u32 plain_first;   /* the same among the plain candidates (~0: none) */
	__u32 flags;         /* fa_gate_flag */
	__u32 ntests;
	struct fa_test tests[FA_GATE_TESTS];
};

/* A watched object, by identity (as the kernel's audit_watch and
 * audit_tree compare inodes, not names). */
struct fa_inode_key {
	__u64 ino;
	__u32 dev;   /* kernel dev_t: major << 20 | minor */
	__u32 pad;
};

/* What a watched inode stands for: the id of the path= watch on exactly
 * this inode, and of the dir= watch whose tree this inode roots. 0 = none. */
struct fa_watch {
	__u32 file_id;
	__u32 dir_id;
	__u32 parent;   /* non-zero: the directory holding a watched file */
};

/* A watched file by name in its directory, so a watch follows its path
 * when a file is created or renamed there (as the kernel's audit_watch
 * does from fsnotify events on the parent). */
struct fa_name_key {
	__u64 parent_ino;
	__u32 parent_dev;
	__u32 len;
	char name[FA_NAME_LEN];
};

/* A watched file's path as the rule gives it, zero-padded: failed
 * syscalls change no inode, so their path arguments are compared. */
struct fa_path_key {
	char path[FA_PATH_MAX];
};

/* Where a syscall's path arguments are: up to two (dirfd argument, path
 * argument) pairs; a dirfd of FA_NO_DIRFD means relative to the cwd.
 * `fd0`: argument 0 is a descriptor whose open file the syscall names
 * without a path (the kernel's audit_file(): fchmod, fchown, the f*xattr
 * calls, mq_timedsend/mq_timedreceive; each takes it first), FA_FD_ANY,
 * or FA_FD_MQUEUE when only a message queue's is named (the kernel
 * refuses any other before naming it); FA_MQ_NAME: argument 0 is a
 * message queue's name in the queue file system (mq_open: no path, no
 * descriptor), and a result of 0 or more the queue's descriptor. */
enum fa_path_arg {
	FA_NO_DIRFD = 0xFF,
	FA_FD_ANY = 1,
	FA_FD_MQUEUE = 2,
	FA_MQ_NAME = 3,
};
struct fa_path_args {
	__u8 n;
	__u8 dirfd[2];
	__u8 path[2];
	__u8 fd0;
};

/* Watched objects a thread's current syscall touched; `key` is the
 * syscall's span index, so hits never leak into a later syscall. */
struct fa_hits {
	__u32 key;
	__u32 count;
	__u32 id[FA_MAX_HITS];
	/* Dentries changed in a watched file's directory: after a rename
	 * they carry their new name, checked against watch_by_parent_name at exit. */
	__u64 moved[FA_MAX_MOVED];
};


/* ---- PATH and CWD records (paths.bpf.h, engine names.rs) ---- */

/* Sizes of the objects a syscall names (the kernel's audit_names). */
enum fa_names_limit {
	FA_MAX_OBJS = 8,            /* objects kept per syscall */
	FA_NAME_MAX = 4096,         /* PATH_MAX: bytes of a path argument or cwd */
	FA_EXEC_NAMES = 1024,       /* execs in flight whose file name is kept */
};

/* Auxiliary sample kinds of the path records (fa_aux_head.rec_type): not
 * record types, user space builds CWD and PATH records from them. */
enum fa_aux_kind {
	FA_AUX_OBJS = 0x10001,      /* struct fa_objs: the objects */
	FA_AUX_NAME = 0x10002,      /* struct fa_aux_name: a path argument */
	FA_AUX_CWD = 0x10003,       /* struct fa_aux_name: the working directory */
	FA_AUX_STAT = 0x10004,      /* struct fa_aux_stat: what a stat returned */
	FA_AUX_URING_NAME = 0x10005,  /* struct fa_aux_name: a name an io_uring op's prep took
				       * inside io_uring_enter (index: its place among them),
				       * or in a SQPOLL thread (its op's own event) */
	FA_AUX_URING_OBJ = 0x10006,   /* struct fa_aux_uring_obj: what an inline open opened */
	FA_AUX_URING_PUNT = 0x10007,  /* struct fa_aux_uring_punt: an op sent to io-wq after
				       * its inline attempt, or a SQPOLL thread's op: its
				       * lookups' inputs */
	FA_AUX_URING_PUNT_OBJS = 0x10008, /* struct fa_objs: the inodes the worker of the
					   * FA_AUX_URING_PUNT just before it changed */
};

/* FA_AUX_STAT: the buffer a successful stat, lstat, newfstatat (struct
 * stat) or statx (struct statx) filled, read at the exit: the object's
 * attributes as the syscall's own lookup found them. */
enum fa_stat_limit {
	FA_STATBUF_MAX = 144,       /* struct statx up to stx_dev_minor */
};
struct fa_aux_stat {
	__u32 statx;                /* 1: data is a struct statx */
	__u32 len;                  /* bytes in data */
	__u8 data[FA_STATBUF_MAX];
};

/* fa_aux_name.index of an FA_AUX_NAME sample: which name it is. */
enum fa_name_index {
	FA_NAME_ARG0 = 0,           /* path argument 0 (1: argument 1) */
	FA_NAME_TARGET = 2,         /* a symlink's target */
	FA_NAME_BASE = 3,           /* the directory argument 0's dirfd names (4: argument 1's) */
};

/* fa_obj.flags. */
enum fa_obj_flag {
	FA_OBJ_ALIAS = 1,     /* name/parent: the inode's dentry when seen */
	FA_OBJ_OPENED = 2,    /* the file an open returned */
	FA_OBJ_CREATED = 4,   /* ... which the open created (FMODE_CREATED) */
	FA_OBJ_PARENT = 8,    /* the directory holding the opened file */
	FA_OBJ_EXEC = 16,     /* the executable an exec left */
	FA_OBJ_LOADER = 32,   /* the ELF interpreter an exec mapped */
	FA_OBJ_CHANGED = 64,  /* its ctime changed during the syscall */
	FA_OBJ_FILE = 128,    /* the open file a descriptor argument names */
	FA_OBJ_FS_DIR = 256,  /* the directory a chdir (chroot) left as the cwd (root) */
};

/* One inode a syscall touched, with the attributes the kernel's PATH
 * record prints, as first seen (before later changes in the syscall). */
struct fa_obj {
	__u64 ino;
	__u64 parent_ino;   /* FA_OBJ_ALIAS: the dentry's parent directory */
	__u32 dev;          /* kernel dev_t: major << 20 | minor */
	__u32 mode;
	__u32 uid;
	__u32 gid;
	__u32 rdev;
	__u32 flags;        /* FA_OBJ_* */
	__u32 parent_dev;
	__u32 name_len;     /* bytes of the dentry's name (may exceed name[]) */
	char name[FA_NAME_LEN];
};

/* FA_AUX_URING_OBJ: the file an io_uring open issued inline inside
 * io_uring_enter opened, for the name at `index` among the syscall's
 * FA_AUX_URING_NAME ones. */
struct fa_aux_uring_obj {
	__u32 index;
	__u32 pad;
	struct fa_obj obj;
};

/* FA_AUX_URING_PUNT: an op whose inline attempt inside io_uring_enter
 * returned -EAGAIN and went to an io-wq worker, whose lookups then fill
 * in that syscall's entries for the op's names (the struct filename is
 * shared): its names start at `index` among the syscall's
 * FA_AUX_URING_NAME ones. */
struct fa_aux_uring_punt {
	__u32 index;
	__u32 op;          /* IORING_OP_* */
	__u32 open_flags;  /* an open's flags (its O_CREAT); a statx's (AT_*) */
	__s32 dfd;         /* the directory descriptor of its first name */
	__s32 dfd2;        /* ... of its second (rename, link) */
	__u32 pad;
};

/* The path payloads no map holds reach the Rust skeleton's BTF through
 * this struct (as fa_aux_layouts). */
struct fa_path_layouts {
	struct fa_aux_uring_obj uring_obj;
	struct fa_aux_uring_punt uring_punt;
};

/* The objects of a thread's current syscall (key: its span index, so
 * objects never leak into a later syscall). */
struct fa_objs {
	__u32 key;
	__u32 count;
	__u32 unknown;      /* path arguments whose lookup named no inode */
	__u32 owner;        /* the span index of the syscall whose list this is, once gathered */
	struct fa_obj o[FA_MAX_OBJS];
	/* The inodes seen without a dentry (new ones, not yet linked), read
	 * again at exit: their mode is final only then (ACL, umask). */
	__u64 fresh[FA_MAX_OBJS];
};

/* A path argument (index: its position among the syscall's path
 * arguments) or the cwd, as a string. */
struct fa_aux_name {
	__u32 index;
	__u32 len;          /* bytes in name, NUL excluded */
	char name[FA_NAME_MAX];
};

/* A path as the kernel read it at entry (an exec's file name: the old
 * program's memory is gone at exit). */
struct fa_exec_name {
	char name[FA_NAME_MAX];
};

/* The enums reach the skeleton's BTF (and so Rust) through this struct. */
struct fa_enums {
	enum fa_limit limit;
	enum fa_field field;
	enum fa_stat stat;
	enum fa_span_flag span_flag;
	enum fa_path_arg path_arg;
	enum fa_perm_kind perm_kind;
	enum fa_perm_class perm_class;
	enum fa_event_flag event_flag;
	enum fa_msg_kind msg_kind;
	enum fa_names_limit names_limit;
	enum fa_aux_kind aux_kind;
	enum fa_name_index name_index;
	enum fa_stat_limit stat_limit;
	enum fa_obj_flag obj_flag;
	enum fa_gate_flag gate_flag;
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

/* Live rule changes (handover.bpf.h): the generation whose judgment
 * counts, and whether two generations are attached. */
struct fa_handover {
	__u32 active;
	__u32 overlap;
};

/* The first object's decision for a thread's syscall end, for the other. */
struct fa_decision {
	__u32 nr;
	__u32 writer;   /* the generation that decided */
	__u32 winner;   /* the generation that judges it */
};

struct fa_event {
	struct fa_msg msg;   /* FA_MSG_EVENT; stamp: the syscall's end */
	__s64 ret;
	__u64 args[4];
	__u64 cgroup;    /* the task's cgroup id (cgroup.bpf.h): no kernel record has it */
	__u32 arch;      /* AUDIT_ARCH_* */
	__u32 syscall;
	__u32 rule;      /* the rule whose key the record carries (exit rules, then task rules) */
	__u32 pid;       /* tgid */
	__u32 ppid;
	__u32 auid;
	__u32 ses;
	__u32 pers;
	__u32 flags;     /* FA_EV_* */
	__u32 generation; /* the rule set (object) that judged it */
	__u32 ids[8];    /* uid gid euid suid fsuid egid sgid fsgid */
	__u32 proctitle_len;
	__u32 exe_len;       /* bytes of the executable's path after the event */
	__u32 subj_len;      /* bytes of the task's LSM label after the path (0: none) */
	char comm[16];
	char tty[64];
	char proctitle[FA_PROCTITLE_LEN];
	/* The ring buffer record goes on with the executable's path, exe_len
	 * bytes (no NUL), as d_path gives it (without " (deleted)"), then the
	 * task's LSM label (subj=), subj_len bytes (no NUL). */
};

/* Scratch space the executable's path is built in, from its end at
 * FA_EXE_MAX backwards; twice as large so that every write the verifier
 * sees (an offset below FA_EXE_MAX, a name of at most 255 bytes) fits. */
struct fa_exe_buf {
	char buf[2 * FA_EXE_MAX];
};

#endif
