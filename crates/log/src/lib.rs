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
    /// `fdatasync` after every `freq` events, by the writing thread.
    Incremental { freq: u32 },
    /// `fdatasync` after every `freq` events, by a thread of its own so the
    /// writer never waits for the disk (auditd's default, INCREMENTAL_ASYNC).
    IncrementalAsync { freq: u32 },
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
    /// auditd-like defaults for a log path: asynchronous incremental flush
    /// every 50 events, 8 MiB files, 5 kept, warn at 75 MiB free, suspend at
    /// 50 MiB.
    pub fn new(path: impl Into<PathBuf>) -> Config {
        Config {
            path: path.into(),
            flush: Flush::IncrementalAsync { freq: 50 },
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

/// Events are gathered here and written with one write(2) at `commit`;
/// past this size they are written at once.
const PENDING_MAX: usize = 256 << 10;

/// Free space is looked at no more often than this: statfs on every event
/// cost the writer a fifth of its time, and the thresholds are megabytes.
const SPACE_CHECK_EVERY: std::time::Duration = std::time::Duration::from_millis(200);

/// An open audit log. Events are written to the file at [`Writer::commit`]
/// (or when enough are pending), then flushed to the disk by the policy.
pub struct Writer {
    cfg: Config,
    file: File,
    size: u64,
    pending: Vec<u8>,
    since_flush: u32,
    suspended: Option<&'static str>,
    warned_space: bool,
    space_checked: Option<std::time::Instant>,
    dropped: u64,
    written: u64,
    flusher: Option<Flusher>,
}

/// The thread that flushes for `IncrementalAsync`: it is handed a duplicate
/// of the log's descriptor each time a flush is due; one waits at most, so
/// flushes requested while one runs fold into the next.
struct Flusher {
    tx: Option<std::sync::mpsc::SyncSender<File>>,
    failed: std::sync::Arc<std::sync::Mutex<Option<io::Error>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Flusher {
    fn start() -> Flusher {
        let (tx, rx) = std::sync::mpsc::sync_channel::<File>(1);
        let failed = std::sync::Arc::new(std::sync::Mutex::new(None));
        let seen = std::sync::Arc::clone(&failed);
        let thread = std::thread::spawn(move || {
            for f in rx {
                if let Err(e) = f.sync_data() {
                    *seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                }
            }
        });
        Flusher {
            tx: Some(tx),
            failed,
            thread: Some(thread),
        }
    }

    /// Ask for a flush of `file`; an error of an earlier flush is returned.
    fn request(&self, file: &File) -> io::Result<()> {
        if let Some(e) = self.failed.lock().unwrap_or_else(|p| p.into_inner()).take() {
            return Err(e);
        }
        if let Some(tx) = &self.tx {
            // Full: a flush is already queued and will cover this data too.
            let _ = tx.try_send(file.try_clone()?);
        }
        Ok(())
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Writer {
    /// Open (append to) the log, creating it with mode 0600 and its directory.
    pub fn open(cfg: Config) -> Result<Writer, LogError> {
        if let Some(dir) = cfg.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        }
        let file = open_log(&cfg.path)?;
        let size = file.metadata().map_err(io_err(&cfg.path))?.len();
        let flusher = matches!(cfg.flush, Flush::IncrementalAsync { .. }).then(Flusher::start);
        Ok(Writer {
            cfg,
            file,
            size,
            pending: Vec::new(),
            since_flush: 0,
            suspended: None,
            warned_space: false,
            space_checked: None,
            dropped: 0,
            written: 0,
            flusher,
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
        self.pending.extend_from_slice(lines);
        self.size += lines.len() as u64;
        self.written += 1;
        self.since_flush += 1;
        if matches!(self.cfg.flush, Flush::Data | Flush::Sync) || self.pending.len() >= PENDING_MAX
        {
            self.commit()?;
        }
        Ok(true)
    }

    /// Write the pending events to the file, then flush them to the disk
    /// if the policy says it is time. Call it once per batch of events.
    pub fn commit(&mut self) -> Result<(), LogError> {
        if !self.pending.is_empty() {
            let r = self.file.write_all(&self.pending);
            self.pending.clear();
            r.map_err(io_err(&self.cfg.path))?;
        }
        match self.cfg.flush {
            Flush::None => Ok(()),
            Flush::Incremental { freq } | Flush::IncrementalAsync { freq }
                if self.since_flush < freq.max(1) =>
            {
                Ok(())
            }
            Flush::IncrementalAsync { .. } => {
                if let Some(f) = &self.flusher {
                    f.request(&self.file).map_err(io_err(&self.cfg.path))?;
                }
                self.since_flush = 0;
                Ok(())
            }
            Flush::Incremental { .. } | Flush::Data => self.sync(false),
            Flush::Sync => self.sync(true),
        }
    }

    /// Write everything pending and push it all to the disk.
    pub fn flush(&mut self) -> Result<(), LogError> {
        self.commit()?;
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
        if self
            .space_checked
            .is_some_and(|t| t.elapsed() < SPACE_CHECK_EVERY)
        {
            return;
        }
        self.space_checked = Some(std::time::Instant::now());
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

    /// Rotate now, whatever the size (auditd on SIGUSR1): as the size action
    /// rotates, keeping `num_logs`; with any other size action, keeping
    /// every old log.
    pub fn rotate_now(&mut self) -> Result<(), LogError> {
        match self.cfg.size_action {
            SizeAction::Rotate { num_logs } => self.rotate(Some(num_logs)),
            _ => self.rotate(None),
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

impl Drop for Writer {
    fn drop(&mut self) {
        // Best effort: an error here has nowhere to go, and flush() reports it.
        let _ = self.commit();
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
        w.flush().unwrap();
        let read = |p: &str| std::fs::read_to_string(d.join(p)).unwrap();
        assert_eq!(read("audit.log"), "event-4\n");
        assert_eq!(read("audit.log.1"), "event-3\n");
        assert_eq!(read("audit.log.2"), "event-2\n");
        assert!(!d.join("audit.log.3").exists());
        assert_eq!((w.written(), w.dropped()), (5, 0));
    }

    #[test]
    fn rotate_now_starts_a_new_file() {
        let d = dir("now");
        let mut w = Writer::open(cfg(&d)).unwrap();
        w.write_event(b"old\n").unwrap();
        w.rotate_now().unwrap();
        w.write_event(b"new\n").unwrap();
        w.flush().unwrap();
        let read = |p: &str| std::fs::read_to_string(d.join(p)).unwrap();
        assert_eq!(
            (read("audit.log.1"), read("audit.log")),
            ("old\n".into(), "new\n".into())
        );
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
        w.flush().unwrap();
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
    fn events_reach_the_file_at_commit_in_order() {
        for flush in [
            Flush::None,
            Flush::Incremental { freq: 2 },
            Flush::IncrementalAsync { freq: 2 },
        ] {
            let d = dir("commit");
            let mut w = Writer::open(Config { flush, ..cfg(&d) }).unwrap();
            let read = || std::fs::read_to_string(d.join("audit.log")).unwrap();
            w.write_event(b"a\n").unwrap();
            w.write_event(b"b\n").unwrap();
            assert_eq!(read(), "", "{flush:?}: nothing is written before commit");
            w.commit().unwrap();
            assert_eq!(read(), "a\nb\n", "{flush:?}");
            w.write_event(b"c\n").unwrap();
            drop(w);
            assert_eq!(read(), "a\nb\nc\n", "{flush:?}: dropping commits");
        }
    }

    #[test]
    fn every_event_policies_write_at_once() {
        let d = dir("data");
        let mut w = Writer::open(Config {
            flush: Flush::Data,
            ..cfg(&d)
        })
        .unwrap();
        w.write_event(b"a\n").unwrap();
        assert_eq!(std::fs::read_to_string(d.join("audit.log")).unwrap(), "a\n");
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
