//! The BPF programs the hooks are made of, with their attach points:
//! those that exist twice in the object (tp_btf and raw_tp, one body) and
//! the kprobes that stand in for missing inode tracepoints.

use crate::plan::hook::{AttachPoint, Attachment};
use crate::plan::kinds::Kind;
use crate::plan::refusal::Refusal;
use fastaudit_bpf::programs as prog;

/// A program that exists twice in the object, as tp_btf and as raw_tp
/// (one body; the BPF side's `TWICE`).
pub(super) struct Twice {
    pub(super) tp_btf: &'static str,
    pub(super) raw_tp: &'static str,
    pub(super) category: &'static str,
    pub(super) tracepoint: &'static str,
    pub(super) purpose: &'static str,
}

pub(super) const RAW_EXIT: Twice = Twice {
    tp_btf: prog::FA_RAW_EXIT,
    raw_tp: prog::FA_RTP_RAW_EXIT,
    category: "raw_syscalls",
    tracepoint: "sys_exit",
    purpose: "every syscall's exit, both ABIs",
};
pub(super) const RAW_ENTER: Twice = Twice {
    tp_btf: prog::FA_RAW_ENTER,
    raw_tp: prog::FA_RTP_RAW_ENTER,
    category: "raw_syscalls",
    tracepoint: "sys_enter",
    purpose: "exec arguments; exit/exit_group, which never return",
};
pub(super) const EXEC_PREPARE: Twice = Twice {
    tp_btf: prog::FA_EXEC_PREPARE,
    raw_tp: prog::FA_RTP_EXEC_PREPARE,
    category: "sched",
    tracepoint: "sched_prepare_exec",
    purpose: "exec arguments, before the old program goes",
};
pub(super) const SIGNAL_SENT: Twice = Twice {
    tp_btf: prog::FA_SIGNAL_SENT,
    raw_tp: prog::FA_RTP_SIGNAL_SENT,
    category: "signal",
    tracepoint: "signal_generate",
    purpose: "OBJ_PID: the signalled task as the signal is sent",
};
pub(super) const TASK: [Twice; 2] = [
    Twice {
        tp_btf: prog::FA_TASK_NEW,
        raw_tp: prog::FA_RTP_TASK_NEW,
        category: "task",
        tracepoint: "task_newtask",
        purpose: "task list: new tasks",
    },
    Twice {
        tp_btf: prog::FA_TASK_EXIT,
        raw_tp: prog::FA_RTP_TASK_EXIT,
        category: "sched",
        tracepoint: "sched_process_exit",
        purpose: "task list: exits",
    },
];
pub(super) const INODE: [Twice; 3] = [
    Twice {
        tp_btf: prog::FA_CTIME_XCHG,
        raw_tp: prog::FA_RTP_CTIME_XCHG,
        category: "timestamp",
        tracepoint: "ctime_ns_xchg",
        purpose: "changed inodes (watches, PATH records)",
    },
    Twice {
        tp_btf: prog::FA_CTIME_SKIP,
        raw_tp: prog::FA_RTP_CTIME_SKIP,
        category: "timestamp",
        tracepoint: "ctime_xchg_skip",
        purpose: "changed inodes (watches, PATH records)",
    },
    Twice {
        tp_btf: prog::FA_CTIME_SET,
        raw_tp: prog::FA_RTP_CTIME_SET,
        category: "timestamp",
        tracepoint: "inode_set_ctime_to_ts",
        purpose: "changed inodes (watches, PATH records)",
    },
];

/// The inode hooks where the timestamp tracepoints are missing: kprobes
/// (kinds.rs: [`InodeSource::Kprobes`]).
/// The first takes every clock read for a new ctime, the second (where it
/// exists) the ones fs/inode.c may have inlined; the VFS directory
/// operations give the directories whose entries change.
pub(super) const INODE_KPROBES: [(&str, &str); 10] = [
    (prog::FA_KPROBE_CURRENT_TIME, "current_time"),
    (prog::FA_KPROBE_CTIME_CURRENT, "inode_set_ctime_current"),
    (prog::FA_KPROBE_VFS_CREATE, "vfs_create"),
    (prog::FA_KPROBE_VFS_MKDIR, "vfs_mkdir"),
    (prog::FA_KPROBE_VFS_MKNOD, "vfs_mknod"),
    (prog::FA_KPROBE_VFS_SYMLINK, "vfs_symlink"),
    (prog::FA_KPROBE_VFS_UNLINK, "vfs_unlink"),
    (prog::FA_KPROBE_VFS_RMDIR, "vfs_rmdir"),
    (prog::FA_KPROBE_VFS_LINK, "vfs_link"),
    (prog::FA_KPROBE_VFS_RENAME, "vfs_rename"),
];

/// The submit tracepoint under its name before Linux 6.5.
pub(super) const URING_SUBMIT_SQE: Twice = Twice {
    tp_btf: prog::FA_URING_SUBMIT_SQE,
    raw_tp: prog::FA_RTP_URING_SUBMIT_SQE,
    category: "io_uring",
    tracepoint: "io_uring_submit_sqe",
    purpose: "io_uring ops submitted (an issue attempt follows)",
};

impl Twice {
    /// Its `kind` program, or the other one where this kernel refused
    /// that one (the same body: another hook kind for the same work).
    pub(super) fn attach(&self, kind: Kind, refused: &[Refusal]) -> Attachment {
        let is_refused = |p: &str| refused.iter().any(|r| r.program == p);
        let kind = match kind {
            Kind::TpBtf if is_refused(self.tp_btf) && !is_refused(self.raw_tp) => Kind::RawTp,
            Kind::RawTp if is_refused(self.raw_tp) && !is_refused(self.tp_btf) => Kind::TpBtf,
            k => k,
        };
        Attachment {
            program: if kind == Kind::RawTp {
                self.raw_tp
            } else {
                self.tp_btf
            },
            point: AttachPoint::Raw {
                kind,
                category: self.category,
                tracepoint: self.tracepoint,
            },
            purpose: self.purpose.to_string(),
        }
    }
}
