//! The durable audit log writer, with auditd's policies: when to flush,
//! when and how to rotate (`audit.log`, `audit.log.1`, ...), and what to do
//! when the disk runs low. Nothing is dropped silently: every event not
//! written is counted and reported by [`Writer::dropped`].

use nix::sys::statvfs::statvfs;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// When written data is pushed to the disk (auditd's `flush`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flush {
    /// Leave it to the kernel's page cache.
    None,
    /// `fdatasync` after every `freq` events.
    Incremental { freq: u32 },
    /// `fdatasync` after every event.
    Data,
    /// `fsync` (data and metadata) after every event.
    Sync,
}

/// What to do when the log file reaches its size limit (`max_log_file_action`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeAction {
    /// Keep writing past the limit.
    Ignore,
    /// Rotate, keeping at most `num_logs` files in all.
    Rotate { num_logs: u32 },
    /// Rotate without ever deleting old logs.
    KeepLogs,
    /// Stop writing; events are counted as dropped.
    Suspend,
}

/// What to do when free disk space falls below a threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceAction {
    /// Carry on.
    Ignore,
    /// Warn once on stderr.
    Warn,
    /// Stop writing; events are counted as dropped.
    Suspend,
}

/// Writer settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Log file path.
    pub path: PathBuf,
    /// Flush policy.
    pub flush: Flush,
    /// Size limit in bytes (0 = none).
    pub max_bytes: u64,
    /// Action at the size limit.
    pub size_action: SizeAction,
    /// Free-space threshold in bytes for `space_action` (0 = none).
    pub space_left: u64,
    /// Action below `space_left`.
    pub space_action: SpaceAction,
    /// Free-space threshold in bytes for `admin_space_action` (0 = none).
    pub admin_space_left: u64,
    /// Action below `admin_space_left`.
    pub admin_space_action: SpaceAction,
}

impl Config {
    /// auditd-like defaults for a log path: incremental flush every 50
    /// events, 8 MiB files, 5 kept, warn at 75 MiB free, suspend at 50 MiB.
    pub fn new(path: impl Into<PathBuf>) -> Config {
        Config {
            path: path.into(),
            flush: Flush::Incremental { freq: 50 },
            max_bytes: 8 << 20,
            size_action: SizeAction::Rotate { num_logs: 5 },
            space_left: 75 << 20,
            space_action: SpaceAction::Warn,
            admin_space_left: 50 << 20,
            admin_space_action: SpaceAction::Suspend,
        }
    }
}

/// Log writer failures.
#[derive(Debug, Error)]
pub enum LogError {
    /// The log could not be opened, written or rotated.
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> LogError + '_ {
    move |source| LogError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// An open audit log.
pub struct Writer {
    cfg: Config,
    file: File,
    size: u64,
    since_flush: u32,
    suspended: Option<&'static str>,
    warned_space: bool,
    dropped: u64,
    written: u64,
}

impl Writer {
    /// Open (append to) the log, creating it with mode 0600 and its directory.
    pub fn open(cfg: Config) -> Result<Writer, LogError> {
        if let Some(dir) = cfg.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        }
        let file = open_log(&cfg.path)?;
        let size = file.metadata().map_err(io_err(&cfg.path))?.len();
        Ok(Writer {
            cfg,
            file,
            size,
            since_flush: 0,
            suspended: None,
            warned_space: false,
            dropped: 0,
            written: 0,
        })
    }

    /// Write one event (all of its lines). Returns false when the event was
    /// dropped because writing is suspended (it is counted).
    pub fn write_event(&mut self, lines: &[u8]) -> Result<bool, LogError> {
        self.check_space();
        if self.cfg.max_bytes > 0
            && self.size + lines.len() as u64 > self.cfg.max_bytes
            && self.size > 0
        {
            match self.cfg.size_action {
                SizeAction::Ignore => {}
                SizeAction::Rotate { num_logs } => self.rotate(Some(num_logs))?,
                SizeAction::KeepLogs => self.rotate(None)?,
                SizeAction::Suspend => self.suspended = Some("the log reached max_log_file"),
            }
        }
        if self.suspended.is_some() {
            self.dropped += 1;
            return Ok(false);
        }
        self.file.write_all(lines).map_err(io_err(&self.cfg.path))?;
        self.size += lines.len() as u64;
        self.written += 1;
        self.since_flush += 1;
        match self.cfg.flush {
            Flush::None => {}
            Flush::Incremental { freq } if self.since_flush < freq.max(1) => {}
            Flush::Incremental { .. } | Flush::Data => self.sync(false)?,
            Flush::Sync => self.sync(true)?,
        }
        Ok(true)
    }

    /// Push everything written so far to the disk.
    pub fn flush(&mut self) -> Result<(), LogError> {
        self.sync(true)
    }

    fn sync(&mut self, all: bool) -> Result<(), LogError> {
        let r = if all {
            self.file.sync_all()
        } else {
            self.file.sync_data()
        };
        r.map_err(io_err(&self.cfg.path))?;
        self.since_flush = 0;
        Ok(())
    }

    /// Events written.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Events dropped because writing was suspended.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Why writing is suspended, if it is.
    pub fn suspended(&self) -> Option<&'static str> {
        self.suspended
    }

    fn check_space(&mut self) {
        let Some(dir) = self.cfg.path.parent() else {
            return;
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let Ok(st) = statvfs(dir) else { return };
        let free = st.blocks_available().saturating_mul(st.fragment_size());
        if self.cfg.admin_space_left > 0 && free < self.cfg.admin_space_left {
            self.apply(
                self.cfg.admin_space_action,
                "free space is below admin_space_left",
            );
        } else if self.cfg.space_left > 0 && free < self.cfg.space_left {
            self.apply(self.cfg.space_action, "free space is below space_left");
        }
    }

    fn apply(&mut self, action: SpaceAction, why: &'static str) {
        match action {
            SpaceAction::Ignore => {}
            SpaceAction::Warn if !self.warned_space => {
                self.warned_space = true;
                eprintln!("fastaudit: {}: {why}", self.cfg.path.display());
            }
            SpaceAction::Warn => {}
            SpaceAction::Suspend => self.suspended = Some(why),
        }
    }

    /// auditd's rotation: `log.N-1` → `log.N` ... `log` → `log.1`, then a
    /// fresh `log`. With a limit, the oldest beyond `num_logs - 1` goes.
    fn rotate(&mut self, num_logs: Option<u32>) -> Result<(), LogError> {
        self.flush()?;
        let base = self.cfg.path.clone();
        let numbered = |n: u32| PathBuf::from(format!("{}.{n}", base.display()));
        let highest = match num_logs {
            Some(n) => n.saturating_sub(1),
            None => (1..).find(|&n| !numbered(n).exists()).unwrap_or(1),
        };
        if highest == 0 {
            // num_logs 0 or 1: start the file over.
            self.file = OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&base)
                .map_err(io_err(&base))?;
            self.size = 0;
            return Ok(());
        }
        for n in (1..highest).rev() {
            let from = numbered(n);
            if from.exists() {
                std::fs::rename(&from, numbered(n + 1)).map_err(io_err(&from))?;
            }
        }
        std::fs::rename(&base, numbered(1)).map_err(io_err(&base))?;
        self.file = open_log(&base)?;
        self.size = 0;
        Ok(())
    }
}

fn open_log(path: &Path) -> Result<File, LogError> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(io_err(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fastaudit-log-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn cfg(d: &Path) -> Config {
        Config {
            space_left: 0,
            admin_space_left: 0,
            ..Config::new(d.join("audit.log"))
        }
    }

    #[test]
    fn rotates_keeping_num_logs() {
        let d = dir("rotate");
        let mut w = Writer::open(Config {
            max_bytes: 10,
            size_action: SizeAction::Rotate { num_logs: 3 },
            ..cfg(&d)
        })
        .unwrap();
        for i in 0..5 {
            assert!(w.write_event(format!("event-{i}\n").as_bytes()).unwrap());
        }
        let read = |p: &str| std::fs::read_to_string(d.join(p)).unwrap();
        assert_eq!(read("audit.log"), "event-4\n");
        assert_eq!(read("audit.log.1"), "event-3\n");
        assert_eq!(read("audit.log.2"), "event-2\n");
        assert!(!d.join("audit.log.3").exists());
        assert_eq!((w.written(), w.dropped()), (5, 0));
    }

    #[test]
    fn keep_logs_never_deletes() {
        let d = dir("keep");
        let mut w = Writer::open(Config {
            max_bytes: 10,
            size_action: SizeAction::KeepLogs,
            ..cfg(&d)
        })
        .unwrap();
        for i in 0..4 {
            w.write_event(format!("event-{i}\n").as_bytes()).unwrap();
        }
        assert!(d.join("audit.log.3").exists());
        assert_eq!(
            std::fs::read_to_string(d.join("audit.log.3")).unwrap(),
            "event-0\n"
        );
    }

    #[test]
    fn suspend_counts_dropped_events() {
        let d = dir("suspend");
        let mut w = Writer::open(Config {
            max_bytes: 10,
            size_action: SizeAction::Suspend,
            ..cfg(&d)
        })
        .unwrap();
        assert!(w.write_event(b"event-0\n").unwrap());
        assert!(!w.write_event(b"event-1\n").unwrap());
        assert_eq!((w.written(), w.dropped()), (1, 1));
        assert!(w.suspended().is_some());
    }

    #[test]
    fn low_disk_space_suspends() {
        let d = dir("space");
        let mut w = Writer::open(Config {
            admin_space_left: u64::MAX,
            admin_space_action: SpaceAction::Suspend,
            ..cfg(&d)
        })
        .unwrap();
        assert!(!w.write_event(b"x\n").unwrap());
        assert_eq!(w.dropped(), 1);
        assert_eq!(std::fs::metadata(d.join("audit.log")).unwrap().len(), 0);
    }

    #[test]
    fn log_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("mode");
        let mut w = Writer::open(cfg(&d)).unwrap();
        w.write_event(b"x\n").unwrap();
        w.flush().unwrap();
        assert_eq!(
            std::fs::metadata(d.join("audit.log"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
    }
}
