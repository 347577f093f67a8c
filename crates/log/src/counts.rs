//! What is counted: the sources of events, their logged and lost counts,
//! and the faults that cost them.

use crate::{Action, ActionKey};
use nix::errno::Errno;

/// Who produced an event: each source is counted apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// An event of the BPF side.
    Event,
    /// A kernel record.
    Kernel,
    /// A kernel record written together with its BPF companion event.
    Joined,
    /// One of fastaudit's own records (DAEMON_*).
    Own,
}

impl Source {
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// Events of one source written to the log, and lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Written to the file.
    pub logged: u64,
    /// Not written: the disk was full or failed, or logging was suspended.
    pub lost: u64,
}

/// What went wrong with the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// A write found the disk full (ENOSPC).
    DiskFull,
    /// A write, flush or reopen failed with this errno.
    DiskError(i32),
    /// Free space fell below space_left (its action suspended logging).
    SpaceLeft,
    /// Free space fell below admin_space_left.
    AdminSpaceLeft,
    /// The log reached max_log_file (max_log_file_action suspend).
    MaxLogFile,
}

impl FaultKind {
    /// A word for records: `disk-full`, `disk-error`, `space-left`, ...
    pub fn word(self) -> &'static str {
        match self {
            FaultKind::DiskFull => "disk-full",
            FaultKind::DiskError(_) => "disk-error",
            FaultKind::SpaceLeft => "space-left",
            FaultKind::AdminSpaceLeft => "admin-space-left",
            FaultKind::MaxLogFile => "max-log-file",
        }
    }

    /// The errno of a disk error, by name (`EIO`).
    pub fn errno(self) -> Option<String> {
        match self {
            FaultKind::DiskError(e) => Some(format!("{:?}", Errno::from_raw(e))),
            _ => None,
        }
    }

    /// The auditd.conf key whose action this fault runs.
    pub fn key(self) -> Option<ActionKey> {
        match self {
            FaultKind::DiskFull => Some(ActionKey::DiskFull),
            FaultKind::DiskError(_) => Some(ActionKey::DiskError),
            FaultKind::SpaceLeft => Some(ActionKey::SpaceLeft),
            FaultKind::AdminSpaceLeft => Some(ActionKey::AdminSpaceLeft),
            FaultKind::MaxLogFile => None,
        }
    }

    pub(crate) fn describe(self) -> String {
        match self {
            FaultKind::DiskFull => "no space left on the log's file system".into(),
            FaultKind::DiskError(e) => format!("error writing the log: {}", Errno::from_raw(e)),
            FaultKind::SpaceLeft => "free space is below space_left".into(),
            FaultKind::AdminSpaceLeft => "free space is below admin_space_left".into(),
            FaultKind::MaxLogFile => "the log reached max_log_file".into(),
        }
    }
}

/// A fault and what it cost: from its start until the log was written
/// again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What went wrong first.
    pub kind: FaultKind,
    /// The action taken.
    pub action: Action,
    /// Events (of every source) lost meanwhile.
    pub lost: u64,
}
