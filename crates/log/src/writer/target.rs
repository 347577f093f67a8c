//! The log a writer appends to: its directory and file, opened and
//! checked (crate::dir), or nothing at all with `write_logs` off.

use crate::dir::LogDir;
use crate::{Config, LogError};
use std::fs::File;

/// An opened log, not yet in use.
pub(super) struct Target {
    pub(super) dir: Option<LogDir>,
    pub(super) file: Option<File>,
    pub(super) disk_size: u64,
    /// Its last line has no newline (a crash mid-write).
    pub(super) torn: bool,
}

impl Target {
    /// Open the log `cfg` names (none with `write_logs` off).
    pub(super) fn open(cfg: &Config) -> Result<Target, LogError> {
        if !cfg.write_logs {
            return Ok(Target {
                dir: None,
                file: None,
                disk_size: 0,
                torn: false,
            });
        }
        let dir = LogDir::open(&cfg.path, cfg.log_group, cfg.group_owns_dir)?;
        let file = dir.open_log()?;
        let io_err = |source| LogError::Io {
            path: cfg.path.clone(),
            source,
        };
        let disk_size = file.metadata().map_err(io_err)?.len();
        let torn = disk_size > 0 && dir.tail(1, false).map_err(io_err)? != b"\n";
        Ok(Target {
            dir: Some(dir),
            file: Some(file),
            disk_size,
            torn,
        })
    }
}
