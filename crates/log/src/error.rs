//! The log writer's error and why a log or its directory is refused (a
//! file of their own: the writer and the directory checks both return
//! them).

use std::fmt;
use std::io;
use std::path::PathBuf;
use thiserror::Error;

/// Why a log or its directory is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A symbolic link.
    Symlink,
    /// Not a regular file (a FIFO, device, socket, directory).
    NotRegular,
    /// Not a directory.
    NotDirectory,
    /// Owned by this uid, not root (fastaudit's own uid).
    Owner(u32),
    /// Writable by group or others: this mode.
    Writable(u32),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Symlink => write!(f, "is a symbolic link"),
            Problem::NotRegular => write!(f, "is not a regular file"),
            Problem::NotDirectory => write!(f, "is not a directory"),
            Problem::Owner(uid) => write!(f, "is owned by uid {uid}, not root"),
            Problem::Writable(mode) => write!(
                f,
                "is writable by group or others (mode {mode:04o}): anyone could have written into it"
            ),
        }
    }
}

/// Log writer failures: only opening can fail; once open, every fault is
/// handled by its action and counted.
#[derive(Debug, Error)]
pub enum LogError {
    /// The log or its directory could not be opened or created.
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    /// The log or its directory is not as an audit log must be.
    #[error("{path}: {problem}: refused")]
    Unsafe { path: PathBuf, problem: Problem },
    /// The settings contradict each other.
    #[error("{0}")]
    Config(String),
}
