//! The durable audit log writer, with auditd's policies: how the log and
//! its directory are opened and checked (as auditd keeps them: root's,
//! private, never through a symbolic link, always appended to), when to
//! flush, when and how to rotate (`audit.log`, `audit.log.1`, ...), and
//! what to do when the disk runs low, fills up or fails (auditd.conf's
//! `space_left_action`, `admin_space_left_action`, `disk_full_action`,
//! `disk_error_action`: every auditd action, the mail, the program and the
//! runlevel change included, see [`system_actions`]). Nothing is lost
//! silently: every event is either written or counted as lost
//! ([`Writer::counts`]), and a fault is reported once the log is writable
//! again ([`Writer::take_recovered`]).

mod action;
mod counts;
mod dir;
mod error;
mod flusher;
pub mod syslog;
pub mod system_actions;
mod writer;

pub use action::{Action, ActionKey, Threshold};
pub use counts::{Counts, Fault, FaultKind, Source};
pub use error::{LogError, Problem};
pub use system_actions::runlevel::{self, Runlevel};
pub use writer::Writer;

use std::path::PathBuf;

/// When written data is pushed to the disk (auditd's `flush`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flush {
    /// Leave it to the kernel's page cache.
    None,
    /// `fdatasync` after every `freq` events, by the writing thread.
    Incremental { freq: u32 },
    /// `fdatasync` after every `freq` events, by a thread of its own so the
    /// writer never waits for the disk (auditd's default, INCREMENTAL_ASYNC).
    IncrementalAsync { freq: u32 },
    /// `fdatasync` after every batch of events read together, before the
    /// next is read.
    Data,
    /// `fsync` (data and metadata) after every batch of events read
    /// together, before the next is read.
    Sync,
}

/// What to do when the log file reaches its size limit (`max_log_file_action`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeAction {
    /// Keep writing past the limit.
    Ignore,
    /// Rotate, keeping at most `num_logs` files in all; below 2, never
    /// rotate (auditd: "Log rotation disabled (num_logs < 2)").
    Rotate { num_logs: u32 },
    /// Rotate without ever deleting old logs.
    KeepLogs,
    /// Keep writing past the limit, saying so to syslog.
    Syslog,
    /// Stop writing; events are counted as lost.
    Suspend,
}

/// Writer settings, named after the auditd.conf keys they stand for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Whether a log file is written at all (`write_logs`): without one,
    /// events are counted as logged once handed on (to plugins), and
    /// nothing touches the log's directory (no size or space checks, no
    /// rotation), as auditd with `write_logs = no`.
    pub write_logs: bool,
    /// Log file path (`log_file`).
    pub path: PathBuf,
    /// Group that may read the log (`log_group`): the file is then 0640
    /// and a directory created for it 0750, both of that group.
    pub log_group: Option<u32>,
    /// Whether an existing directory of the log is made root:`log_group`
    /// 0750 too (auditd's own log directory; not a path given by hand).
    pub group_owns_dir: bool,
    /// Flush policy (`flush`, `freq`).
    pub flush: Flush,
    /// Size limit in bytes (`max_log_file`; 0 = none).
    pub max_bytes: u64,
    /// Action at the size limit (`max_log_file_action`, `num_logs`).
    pub size_action: SizeAction,
    /// Free-space threshold for `space_left_action` (`space_left`).
    pub space_left: Threshold,
    /// Action below `space_left` (`space_left_action`).
    pub space_left_action: Action,
    /// Free-space threshold for `admin_space_left_action` (`admin_space_left`).
    pub admin_space_left: Threshold,
    /// Action below `admin_space_left` (`admin_space_left_action`).
    pub admin_space_left_action: Action,
    /// Action when a write finds the disk full (`disk_full_action`).
    pub disk_full_action: Action,
    /// Action on any other write or flush error (`disk_error_action`).
    pub disk_error_action: Action,
    /// The programs of the `exec` actions, by key.
    pub programs: Programs,
    /// Who the `email` actions mail (`action_mail_acct`).
    pub action_mail_acct: String,
}

/// The program each key's `exec` runs (auditd's `space_left_exe`, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Programs {
    /// `space_left_action = exec PATH`.
    pub space_left: Option<PathBuf>,
    /// `admin_space_left_action = exec PATH`.
    pub admin_space_left: Option<PathBuf>,
    /// `disk_full_action = exec PATH`.
    pub disk_full: Option<PathBuf>,
    /// `disk_error_action = exec PATH`.
    pub disk_error: Option<PathBuf>,
}

impl Programs {
    /// The program of `key`'s exec, if one is set.
    pub fn of(&self, key: ActionKey) -> Option<&std::path::Path> {
        match key {
            ActionKey::SpaceLeft => self.space_left.as_deref(),
            ActionKey::AdminSpaceLeft => self.admin_space_left.as_deref(),
            ActionKey::DiskFull => self.disk_full.as_deref(),
            ActionKey::DiskError => self.disk_error.as_deref(),
        }
    }

    /// Set `key`'s program.
    pub fn set(&mut self, key: ActionKey, path: Option<PathBuf>) {
        *match key {
            ActionKey::SpaceLeft => &mut self.space_left,
            ActionKey::AdminSpaceLeft => &mut self.admin_space_left,
            ActionKey::DiskFull => &mut self.disk_full,
            ActionKey::DiskError => &mut self.disk_error,
        } = path;
    }
}

impl Config {
    /// The defaults of the auditd.conf Debian ships: asynchronous
    /// incremental flush every 50 events, 8 MiB files, 5 kept, syslog at
    /// 75 MiB free, suspend at 50 MiB, suspend when the disk is full or
    /// fails.
    pub fn new(path: impl Into<PathBuf>) -> Config {
        Config {
            write_logs: true,
            path: path.into(),
            log_group: None,
            group_owns_dir: false,
            flush: Flush::IncrementalAsync { freq: 50 },
            max_bytes: 8 << 20,
            size_action: SizeAction::Rotate { num_logs: 5 },
            space_left: Threshold::Mib(75),
            space_left_action: Action::Syslog,
            admin_space_left: Threshold::Mib(50),
            admin_space_left_action: Action::Suspend,
            disk_full_action: Action::Suspend,
            disk_error_action: Action::Suspend,
            programs: Programs::default(),
            action_mail_acct: "root".into(),
        }
    }

    /// The action of `key`.
    pub fn action(&self, key: ActionKey) -> Action {
        match key {
            ActionKey::SpaceLeft => self.space_left_action,
            ActionKey::AdminSpaceLeft => self.admin_space_left_action,
            ActionKey::DiskFull => self.disk_full_action,
            ActionKey::DiskError => self.disk_error_action,
        }
    }

    /// Check the settings together, as auditd's parsers and
    /// `sanity_check` do: an action refused for its key, an `exec`
    /// without its program, or `space_left` not above `admin_space_left`
    /// (both in MiB, both set).
    pub fn check(&self) -> Result<(), String> {
        for key in [
            ActionKey::SpaceLeft,
            ActionKey::AdminSpaceLeft,
            ActionKey::DiskFull,
            ActionKey::DiskError,
        ] {
            let action = self.action(key);
            key.allows(action)?;
            if action == Action::Exec && self.programs.of(key).is_none() {
                return Err(format!(
                    "{} = exec needs the program to run (auditd: executable path needed)",
                    key.name()
                ));
            }
        }
        if let (Threshold::Mib(s), Threshold::Mib(a)) = (self.space_left, self.admin_space_left) {
            if s != 0 && a != 0 && s <= a {
                return Err(format!(
                    "space_left ({s}) must be larger than admin_space_left ({a})"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
