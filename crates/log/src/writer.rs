//! The writer: events gathered and written once per batch, every one
//! counted as logged or lost, and each fault (disk full, I/O error, low
//! space, size limit) handled by its auditd action.

use crate::action::{say, say_at, Action};
use crate::counts::{Counts, Fault, FaultKind, Source};
use crate::dir::LogDir;
use crate::flusher::Flusher;
use crate::system_actions::{Real, System};
use crate::{Config, Flush, LogError, SizeAction};
use nix::errno::Errno;
use std::fs::File;
use std::io::{self, Write};
use std::time::{Duration, Instant};
use target::Target;

mod reconfig;
mod space;
mod system;
mod target;

/// Events are gathered here and written with one write(2) at `commit`;
/// past this size they are written at once.
const PENDING_MAX: usize = 256 << 10;

/// Free space is looked at every so often, and after so many bytes
/// written (a small file system fills faster than that): statfs on every
/// event cost the writer a fifth of its time.
const SPACE_CHECK_EVERY: Duration = Duration::from_millis(200);
const SPACE_CHECK_BYTES: u64 = 64 << 10;

/// auditd says a disk error to syslog at most this many times in a row.
const ERRORS_SAID: u32 = 5;

/// With max_log_file_action = syslog, a log past its size is said again
/// after this long at the earliest (auditd says it after every event).
const SIZE_SAID_EVERY: Duration = Duration::from_secs(60);

/// An open audit log. Events are written to the file at [`Writer::commit`]
/// (or when enough are pending), then flushed to the disk by the policy.
pub struct Writer {
    cfg: Config,
    /// None with `write_logs` off.
    dir: Option<LogDir>,
    /// None while logging is suspended (closed, so the file can be moved).
    file: Option<File>,
    disk_size: u64,
    pending: Vec<u8>,
    /// Where each pending event ends in `pending`, its source and how many
    /// events it holds.
    ends: Vec<(usize, Source, u64)>,
    /// A failed write left part of a line that could not be cut off.
    torn: bool,
    since_flush: u32,
    suspended: Option<FaultKind>,
    counts: [Counts; 4],
    episode: Option<Fault>,
    recovered: Option<Fault>,
    /// Taken for its report, which has not reached the file yet: if the
    /// next write fails too, its loss goes on in the next fault's count.
    unconfirmed: Option<Fault>,
    space_checked: Option<Instant>,
    /// Bytes queued since free space was looked at.
    since_space_check: u64,
    space_warned: bool,
    admin_warned: bool,
    errors_said: u32,
    flusher: Option<Flusher>,
    /// A rotation is under way: a fault met meanwhile does not rotate again.
    rotating: bool,
    /// When a log past max_log_file was last said (max_log_file_action =
    /// syslog).
    size_said: Option<Instant>,
    /// Where mail, programs and runlevel changes go.
    system: Box<dyn System>,
}

impl Writer {
    /// Open (append to) the log, creating it 0600 and its directory 0700
    /// (0640 and 0750 with a log group); refused if either is not safe
    /// (see the `dir` module). A log whose last line was torn (a crash)
    /// gets a newline first, so the next record starts a line of its own.
    /// With `write_logs` off nothing is opened.
    pub fn open(cfg: Config) -> Result<Writer, LogError> {
        Writer::open_with(cfg, Box::new(Real))
    }

    /// [`Writer::open`], its actions reaching `system`.
    pub(crate) fn open_with(cfg: Config, system: Box<dyn System>) -> Result<Writer, LogError> {
        cfg.check().map_err(LogError::Config)?;
        let target = Target::open(&cfg)?;
        let flusher = matches!(cfg.flush, Flush::IncrementalAsync { .. }).then(Flusher::start);
        let mut w = Writer {
            cfg,
            dir: None,
            file: None,
            disk_size: 0,
            pending: Vec::new(),
            ends: Vec::new(),
            torn: false,
            since_flush: 0,
            suspended: None,
            counts: [Counts::default(); 4],
            episode: None,
            recovered: None,
            unconfirmed: None,
            space_checked: None,
            since_space_check: 0,
            space_warned: false,
            admin_warned: false,
            errors_said: 0,
            flusher,
            rotating: false,
            size_said: None,
            system,
        };
        w.take_target(target);
        Ok(w)
    }

    /// Use `t` as the log from now on (the one before is already closed).
    fn take_target(&mut self, t: Target) {
        self.dir = t.dir;
        self.file = t.file;
        self.disk_size = t.disk_size;
        self.torn = t.torn;
        if t.torn {
            say(
                &format!(
                    "{}: the last line is torn (a crash?): the next record starts on a fresh line",
                    self.cfg.path.display()
                ),
                false,
            );
        }
    }

    /// Write one event (all of its lines), counted for `source` as logged
    /// once it reaches the file, or as lost.
    pub fn write_event(&mut self, lines: &[u8], source: Source) {
        self.write_events(lines, source, 1);
    }

    /// Write lines that hold `events` events, written (and counted)
    /// together.
    pub fn write_events(&mut self, lines: &[u8], source: Source, events: u64) {
        if !self.cfg.write_logs {
            // Handed on (to plugins) is all there is to do: counted as logged.
            self.counts[source.index()].logged += events;
            return;
        }
        self.since_space_check += lines.len() as u64;
        self.check_space();
        let size = self.disk_size + self.pending.len() as u64;
        if self.cfg.max_bytes > 0
            && size + lines.len() as u64 > self.cfg.max_bytes
            && size > 0
            && self.file.is_some()
        {
            match self.cfg.size_action {
                SizeAction::Ignore => {}
                SizeAction::Syslog => self.say_too_large(),
                // auditd: "Log rotation disabled (num_logs < 2)".
                SizeAction::Rotate { num_logs } if num_logs < 2 => {}
                SizeAction::Rotate { num_logs } => {
                    self.say_rotating("rotating the logs");
                    self.rotate(Some(num_logs));
                }
                SizeAction::KeepLogs => {
                    self.say_rotating("rotating the logs, every old one kept (keep_logs)");
                    self.rotate(None);
                }
                SizeAction::Suspend => {
                    self.write_pending(false);
                    self.suspend(FaultKind::MaxLogFile, Action::Suspend);
                }
            }
        }
        if self.suspended.is_some() || self.file.is_none() {
            self.lose(source, events);
            return;
        }
        self.pending.extend_from_slice(lines);
        self.ends.push((self.pending.len(), source, events));
        self.since_flush += 1;
        // DATA and SYNC too wait for the batch's commit: one write and one
        // sync for every event read together (group commit). Nothing is
        // acknowledged in between, so each event is as durable as with a
        // sync of its own, and a burst costs one sync, not one per event
        // (a sync per event let the ring overflow: BPF cannot wait for
        // the disk as the kernel's backlog does).
        if self.pending.len() >= PENDING_MAX {
            self.commit();
        }
    }

    fn lose(&mut self, source: Source, n: u64) {
        self.counts[source.index()].lost += n;
        if let Some(ep) = self.episode.as_mut() {
            ep.lost += n;
        }
    }

    /// Write the pending events to the file, then flush them to the disk
    /// if the policy says it is time. Call it once per batch of events.
    pub fn commit(&mut self) {
        self.write_pending(true);
        let due = match self.cfg.flush {
            Flush::None => None,
            Flush::Incremental { freq } | Flush::IncrementalAsync { freq }
                if self.since_flush < freq.max(1) =>
            {
                None
            }
            Flush::IncrementalAsync { .. } => {
                let r = match (&self.flusher, &self.file) {
                    (Some(f), Some(file)) => f.request(file),
                    _ => Ok(()),
                };
                self.since_flush = 0;
                Some(r)
            }
            Flush::Incremental { .. } | Flush::Data => Some(self.sync(false)),
            Flush::Sync => Some(self.sync(true)),
        };
        if let Some(Err(e)) = due {
            self.io_fault(&e);
        }
    }

    /// Write everything pending and push it all to the disk.
    pub fn flush(&mut self) {
        self.write_pending(false);
        if let Err(e) = self.sync(true) {
            self.io_fault(&e);
        }
    }

    fn sync(&mut self, all: bool) -> io::Result<()> {
        let Some(f) = &self.file else { return Ok(()) };
        if all {
            f.sync_all()?;
        } else {
            f.sync_data()?;
        }
        self.since_flush = 0;
        Ok(())
    }

    /// One write(2) for the pending events: those written whole are
    /// logged; on an error the part of a line written is cut off again,
    /// the fault's action runs, and (after a rotation, once) the rest is
    /// tried again, else lost.
    fn write_pending(&mut self, may_retry: bool) {
        if self.pending.is_empty() {
            return;
        }
        let Some(file) = self.file.as_mut() else {
            for (_, s, n) in std::mem::take(&mut self.ends) {
                self.lose(s, n);
            }
            self.pending.clear();
            return;
        };
        if self.torn && file.write_all(b"\n").is_ok() {
            self.torn = false;
            self.disk_size += 1;
        }
        let (written, err) = write_counting(file, &self.pending);
        let done = self.ends.iter().take_while(|e| e.0 <= written).count();
        let boundary = done.checked_sub(1).map_or(0, |i| self.ends[i].0);
        for (_, s, n) in self.ends.drain(..done) {
            self.counts[s.index()].logged += n;
        }
        self.disk_size += boundary as u64;
        let Some(e) = err else {
            self.pending.clear();
            self.written_again();
            return;
        };
        if written > boundary && nix::unistd::ftruncate(&*file, self.disk_size as i64).is_err() {
            self.torn = true;
        }
        // The rest is set aside while the action runs (a rotation writes
        // what is pending first).
        let mut rest = std::mem::take(&mut self.pending);
        rest.drain(..boundary);
        let mut rest_ends = std::mem::take(&mut self.ends);
        for end in &mut rest_ends {
            end.0 -= boundary;
        }
        if self.io_fault(&e) && may_retry {
            self.pending = rest;
            self.ends = rest_ends;
            return self.write_pending(false);
        }
        for (_, s, n) in rest_ends {
            self.lose(s, n);
        }
    }

    /// A whole write reached the file: a fault is over, to be reported
    /// (and a report taken before is written).
    fn written_again(&mut self) {
        self.errors_said = 0;
        self.unconfirmed = None;
        if let Some(ep) = self.episode.take() {
            match self.recovered.as_mut() {
                Some(r) => r.lost += ep.lost,
                None => self.recovered = Some(ep),
            }
        }
    }

    /// A write or flush error: ENOSPC is the disk full, anything else a
    /// disk error. Returns whether the action rotated to a fresh log.
    fn io_fault(&mut self, e: &io::Error) -> bool {
        let errno = e.raw_os_error().unwrap_or(Errno::EIO as i32);
        if errno == Errno::ENOSPC as i32 {
            self.fault(FaultKind::DiskFull, self.cfg.disk_full_action)
        } else {
            self.fault(FaultKind::DiskError(errno), self.cfg.disk_error_action)
        }
    }

    /// Start (or go on with) a fault episode and carry out its action.
    fn fault(&mut self, kind: FaultKind, action: Action) -> bool {
        let first = self.start_episode(kind, action);
        let what = format!("{}: {}", self.cfg.path.display(), kind.describe());
        match action {
            // auditd says a full disk to syslog whatever the action.
            Action::Ignore if first => say(
                &format!("{what}; lost events are counted"),
                kind == FaultKind::DiskFull,
            ),
            Action::Ignore => {}
            // Refused for the disk keys (Config::check): said as syslog.
            Action::Email if first => say(&format!("{what}; lost events are counted"), true),
            Action::Email => {}
            Action::Exec => self.exec(kind),
            // Once a fault: init has been asked; events are tried on (and
            // counted lost) meanwhile, as auditd does.
            Action::Single | Action::Halt if first => self.ask_init(&what, kind, action),
            Action::Single | Action::Halt => {}
            Action::Syslog => {
                let is_error = matches!(kind, FaultKind::DiskError(_));
                if first || (is_error && self.errors_said < ERRORS_SAID) {
                    self.errors_said += u32::from(is_error);
                    say(&format!("{what}; lost events are counted"), true);
                }
            }
            Action::Rotate if self.rotating => {}
            Action::Rotate => {
                say(&format!("{what}: rotating the logs"), first);
                return self.rotate_for_fault();
            }
            Action::Suspend => {
                self.suspend(kind, action);
            }
        }
        false
    }

    /// A fault begins, unless one is going on; returns whether it began.
    /// The loss of a report that never reached the file is carried on.
    fn start_episode(&mut self, kind: FaultKind, action: Action) -> bool {
        if self.episode.is_some() {
            return false;
        }
        let carried = self.unconfirmed.take().map_or(0, |u| u.lost);
        self.episode = Some(Fault {
            kind,
            action,
            lost: carried,
        });
        true
    }

    /// A fault's rotation: as max_log_file_action's, at least 2 logs.
    fn rotate_for_fault(&mut self) -> bool {
        match self.cfg.size_action {
            SizeAction::Rotate { num_logs } if num_logs >= 2 => self.reopen_rotated(Some(num_logs)),
            SizeAction::Rotate { .. } => false,
            _ => self.reopen_rotated(None),
        }
    }

    /// Stop writing: the log is closed (so it can be moved or deleted) and
    /// events are counted as lost until [`Writer::resume`]. Returns
    /// whether it was writing until now.
    fn suspend(&mut self, kind: FaultKind, action: Action) -> bool {
        self.start_episode(kind, action);
        if self.suspended.is_some() {
            return false;
        }
        self.suspended = Some(kind);
        let by = match (action, self.program(kind)) {
            (Action::Exec, Some(p)) => format!(
                " for {} = exec {} (which is to send SIGUSR2 once done)",
                kind.key().map_or("", |k| k.name()),
                p.display()
            ),
            _ => String::new(),
        };
        say(
            &format!(
                "{}: {}: logging suspended{by}, events are counted as lost; send SIGUSR2 to resume",
                self.cfg.path.display(),
                kind.describe()
            ),
            true,
        );
        if let Some(f) = self.file.take() {
            let _ = f.sync_all();
        }
        true
    }

    /// Resume logging (auditd on SIGUSR2): reopen the log, checked again,
    /// and look at free space afresh. Returns whether it was suspended.
    pub fn resume(&mut self) -> bool {
        let was = self.suspended.take().is_some() || self.file.is_none();
        self.size_said = None;
        self.space_warned = false;
        self.admin_warned = false;
        self.errors_said = 0;
        self.space_checked = None;
        let Some(dir) = self.dir.as_ref() else {
            return was;
        };
        if self.file.is_none() {
            match dir.open_log() {
                Ok(f) => {
                    self.disk_size = f.metadata().map_or(0, |m| m.len());
                    self.file = Some(f);
                    say(
                        &format!("{}: logging resumed", self.cfg.path.display()),
                        true,
                    );
                }
                Err(e) => {
                    say(&format!("could not reopen the log to resume: {e}"), true);
                    let errno = match &e {
                        LogError::Io { source, .. } => source.raw_os_error(),
                        _ => None,
                    };
                    self.suspended = Some(FaultKind::DiskError(errno.unwrap_or(Errno::EIO as i32)));
                }
            }
        }
        was
    }

    /// Events of `source` logged and lost so far.
    pub fn counts(&self, source: Source) -> Counts {
        self.counts[source.index()]
    }

    /// Events of every source lost so far.
    pub fn lost(&self) -> u64 {
        self.counts.iter().map(|c| c.lost).sum()
    }

    /// A fault that is over (the log was written again since), once: for
    /// the DAEMON_ERR record that reports it.
    pub fn take_recovered(&mut self) -> Option<Fault> {
        let r = self.recovered.take();
        if let Some(f) = r {
            self.unconfirmed = Some(f);
        }
        r
    }

    /// The log file written now (a reconfiguration may have changed it).
    pub fn path(&self) -> &std::path::Path {
        &self.cfg.path
    }

    /// The fault going on now, if any.
    pub fn fault_now(&self) -> Option<Fault> {
        self.episode
    }

    /// Why writing is suspended, if it is.
    pub fn suspended(&self) -> Option<FaultKind> {
        self.suspended
    }

    /// The whole lines among the last `max` bytes of the log (of `NAME.1`
    /// when the log is empty): where a restart finds the serials in use.
    pub fn tail(&self, max: u64) -> io::Result<Vec<u8>> {
        match &self.dir {
            Some(d) => d.tail(max, true),
            None => Ok(Vec::new()),
        }
    }

    /// Rotate now, whatever the size (auditd on SIGUSR1): as the size
    /// action rotates, keeping `num_logs` (none below 2, as auditd); with
    /// any other size action, keeping every old log.
    pub fn rotate_now(&mut self) {
        if !self.cfg.write_logs {
            return;
        }
        match self.cfg.size_action {
            SizeAction::Rotate { num_logs } if num_logs < 2 => say(
                &format!(
                    "{}: log rotation disabled (num_logs < 2), skipping",
                    self.cfg.path.display()
                ),
                false,
            ),
            SizeAction::Rotate { num_logs } => self.rotate(Some(num_logs)),
            _ => self.rotate(None),
        }
    }

    fn rotate(&mut self, keep: Option<u32>) {
        self.reopen_rotated(keep);
    }

    /// Rotate: everything pending written first, the old log flushed;
    /// returns whether a fresh log is open. A log that cannot be reopened
    /// suspends logging, as auditd does.
    fn reopen_rotated(&mut self, keep: Option<u32>) -> bool {
        self.rotating = true;
        let rotated = self.rotate_inner(keep);
        self.rotating = false;
        rotated
    }

    fn rotate_inner(&mut self, keep: Option<u32>) -> bool {
        self.write_pending(false);
        if let Err(e) = self.sync(true) {
            self.io_fault(&e);
        }
        let (Some(live), Some(dir)) = (self.file.as_ref(), self.dir.as_ref()) else {
            return false;
        };
        match dir.rotate(live, keep) {
            Ok(f) => {
                self.file = Some(f);
                self.disk_size = 0;
                self.since_flush = 0;
                true
            }
            Err((e, renamed)) => {
                say(&format!("rotating the logs: {e}"), true);
                if renamed {
                    let errno = match &e {
                        LogError::Io { source, .. } => source.raw_os_error(),
                        _ => None,
                    };
                    let kind = FaultKind::DiskError(errno.unwrap_or(Errno::EIO as i32));
                    self.suspend(kind, Action::Suspend);
                }
                false
            }
        }
    }
}

/// write(2) until all of `buf` is written or an error: the bytes written,
/// and the error.
fn write_counting(f: &mut File, buf: &[u8]) -> (usize, Option<io::Error>) {
    let mut done = 0;
    while done < buf.len() {
        match f.write(&buf[done..]) {
            Ok(0) => return (done, Some(io::ErrorKind::WriteZero.into())),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (done, Some(e)),
        }
    }
    (done, None)
}

impl Drop for Writer {
    fn drop(&mut self) {
        // What is still pending is written (or counted lost) as at commit.
        self.write_pending(false);
    }
}
