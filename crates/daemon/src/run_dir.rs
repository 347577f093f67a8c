//! fastaudit's files under /run: the kernel state found at start, the
//! status counters and the control socket.

use std::path::PathBuf;

/// The directory.
pub const RUN_DIR: &str = "/run/fastaudit";

/// A file of the directory.
pub fn file(name: &str) -> PathBuf {
    PathBuf::from(RUN_DIR).join(name)
}
