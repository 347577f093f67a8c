//! auditd's plugins (audisp), run by fastaudit: every active `type =
//! always` plugin of `plugin_dir` is started with its `args` and fed every
//! logged record on its stdin in auditd's string format (the log line and a
//! newline; after each syscall event, the `EOE` record auditd passes to
//! plugins but never writes to disk). Each plugin has its own queue of at
//! most `q_depth` records (queued or written and not yet read) and its own
//! thread, so neither the log nor another plugin ever waits for it; a full
//! queue triggers `overflow_action`. A plugin that dies is started again,
//! up to `max_restarts` times, and gets every record it had not read.
//! At stop its stdin is closed (it reads the rest and exits), then SIGTERM.
//! Every record a plugin never read is counted.

pub mod conf;
mod feeder;
mod sys;

use conf::{Kind, PluginConf, Wire};
use fastaudit_log::runlevel::{self, Runlevel};
use fastaudit_records::{Format, Stamp};
use feeder::{records, Feeder};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use sys::Priority;

/// Send an error message to syslog (facility daemon), as auditd does.
pub fn syslog_err(msg: &str) {
    sys::syslog(Priority::Err, msg);
}

/// How long plugins get at stop to be handed what is queued for them.
const STOP_DRAIN: Duration = Duration::from_secs(5);

/// auditd's syslog messages about a full queue stop after this many.
const QUEUE_FULL_LIMIT: u32 = 5;

/// What to do when a plugin's queue is full (auditd's `overflow_action`);
/// [`OverflowAction::help`] says what each does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverflowAction {
    Ignore,
    Syslog,
    Suspend,
    Single,
    Halt,
}

impl OverflowAction {
    /// Every action, in auditd's order.
    pub const ALL: [OverflowAction; 5] = [
        OverflowAction::Ignore,
        OverflowAction::Syslog,
        OverflowAction::Suspend,
        OverflowAction::Single,
        OverflowAction::Halt,
    ];

    /// auditd.conf's word for it.
    pub fn word(self) -> &'static str {
        match self {
            OverflowAction::Ignore => "ignore",
            OverflowAction::Syslog => "syslog",
            OverflowAction::Suspend => "suspend",
            OverflowAction::Single => "single",
            OverflowAction::Halt => "halt",
        }
    }

    /// What it does, in a line (the help the command line gives for it).
    pub fn help(self) -> &'static str {
        match self {
            OverflowAction::Ignore => "Drop the event (counted)",
            OverflowAction::Syslog => {
                "Drop the event (counted) and say so in syslog (the first 5 times)"
            }
            OverflowAction::Suspend => {
                "Stop passing events to plugins (dropped, counted) until SIGUSR2 or SIGHUP"
            }
            OverflowAction::Single => {
                "Switch the system to single user mode (`/sbin/init 1`), as auditd"
            }
            OverflowAction::Halt => "Halt the system (`/sbin/init 0`), as auditd",
        }
    }

    /// The action auditd.conf's `word` names, in any case.
    pub fn from_word(word: &str) -> Option<OverflowAction> {
        OverflowAction::ALL
            .into_iter()
            .find(|a| a.word().eq_ignore_ascii_case(word))
    }
}

/// The dispatcher's settings: auditd.conf's `plugin_dir`, `q_depth`,
/// `overflow_action` and `max_restarts`, with auditd 3.0.9's defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Where plugin configurations are read from.
    pub plugin_dir: PathBuf,
    /// Records each plugin may have waiting (1..=99999).
    pub q_depth: usize,
    /// What a full queue does.
    pub overflow_action: OverflowAction,
    /// How many times a dead plugin is started again.
    pub max_restarts: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            plugin_dir: PathBuf::from("/etc/audit/plugins.d"),
            q_depth: 2000,
            overflow_action: OverflowAction::Syslog,
            max_restarts: 10,
        }
    }
}

impl Settings {
    /// auditd's checks: an error for a value it refuses, warnings for one
    /// it takes with a warning.
    pub fn check(&self) -> Result<Vec<String>, String> {
        if self.q_depth > 99_999 {
            return Err("q_depth must be 99999 or less".into());
        }
        if self.q_depth == 0 {
            // auditd divides by it; refuse rather than crash.
            return Err("q_depth must be at least 1".into());
        }
        if self.max_restarts > i32::MAX as u32 {
            return Err(format!("max_restarts {} is too large", self.max_restarts));
        }
        let mut w = Vec::new();
        if self.q_depth < 512 {
            w.push("q_depth should be larger than 512 for safety margin".into());
        }
        Ok(w)
    }
}

/// `fastaudit run`'s plugin flags, named after the auditd.conf keys; each
/// given one overrides the configuration (the command-line crate parses
/// and documents them).
#[derive(Clone, Debug, Default)]
pub struct PluginArgs {
    /// plugin_dir.
    pub plugin_dir: Option<PathBuf>,
    /// q_depth.
    pub q_depth: Option<usize>,
    /// overflow_action.
    pub overflow_action: Option<OverflowAction>,
    /// max_restarts.
    pub max_restarts: Option<u32>,
}

impl PluginArgs {
    /// `base` (auditd.conf's values, or the defaults) with the given flags applied.
    pub fn apply(&self, mut base: Settings) -> Settings {
        if let Some(d) = &self.plugin_dir {
            base.plugin_dir.clone_from(d);
        }
        if let Some(n) = self.q_depth {
            base.q_depth = n;
        }
        if let Some(a) = self.overflow_action {
            base.overflow_action = a;
        }
        if let Some(n) = self.max_restarts {
            base.max_restarts = n;
        }
        base
    }
}

/// One plugin's counters at stop.
#[derive(Clone, Debug)]
pub struct Report {
    /// The configuration file's name.
    pub name: String,
    /// Records it read.
    pub delivered: u64,
    /// Records it never read.
    pub dropped: u64,
    /// Restarts after it died.
    pub restarts: u64,
    /// Whether it was given up (max_restarts exceeded, or could not run).
    pub gave_up: bool,
}

/// The running plugins.
pub struct Dispatcher {
    feeders: Vec<Feeder>,
    settings: Settings,
    /// RAW EOE keeps the kernel's trailing space (auditd passes the raw
    /// record); ENRICHED has none (auditd formats it).
    eoe_space: bool,
    suspended: AtomicBool,
    full_warnings: AtomicU32,
    runlevel_changed: AtomicBool,
}

impl Dispatcher {
    /// No plugins.
    pub fn none() -> Dispatcher {
        Dispatcher {
            feeders: Vec::new(),
            settings: Settings::default(),
            eoe_space: true,
            suspended: AtomicBool::new(false),
            full_warnings: AtomicU32::new(0),
            runlevel_changed: AtomicBool::new(false),
        }
    }

    /// Read `settings.plugin_dir` and start every active plugin. A
    /// configuration auditd would skip is skipped and reported in
    /// `notes` (`FILE:LINE: what`), as are plugins fastaudit cannot run.
    pub fn start(settings: &Settings, format: Format, notes: &mut Vec<String>) -> Dispatcher {
        let plugins = load_dir(&settings.plugin_dir, notes);
        Dispatcher::with_plugins(settings, format, plugins, notes)
    }

    /// Start `plugins` (configurations already read and checked).
    pub fn with_plugins(
        settings: &Settings,
        format: Format,
        plugins: Vec<PluginConf>,
        notes: &mut Vec<String>,
    ) -> Dispatcher {
        let mut d = Dispatcher::none();
        d.settings = settings.clone();
        d.eoe_space = format == Format::Raw;
        for c in plugins {
            match Feeder::start(c.clone(), settings.max_restarts) {
                Ok(f) => d.feeders.push(f),
                Err(e) => notes.push(format!("plugin {}: cannot start: {e}", c.name)),
            }
        }
        if !d.feeders.is_empty() {
            sys::syslog(
                Priority::Notice,
                &format!(
                    "audit dispatcher initialized with q_depth={} and {} active plugins",
                    settings.q_depth,
                    d.feeders.len()
                ),
            );
        }
        d
    }

    /// Hand one logged event (its lines, each ending in a newline) to every
    /// plugin; with `eoe`, the event ends with an EOE record of that stamp,
    /// as the kernel ends a syscall event. Never blocks.
    pub fn feed(&self, lines: &[u8], eoe: Option<Stamp>) {
        if self.feeders.is_empty() {
            return;
        }
        let mut event = lines.to_vec();
        if let Some(s) = eoe {
            event.extend_from_slice(&self.eoe_line(s));
        }
        let n = records(&event);
        let event: Arc<[u8]> = event.into();
        for f in &self.feeders {
            let c = &f.counters;
            if c.gave_up.load(Ordering::SeqCst) || self.suspended.load(Ordering::SeqCst) {
                c.dropped.fetch_add(n as u64, Ordering::SeqCst);
                continue;
            }
            let waiting = c.in_flight.load(Ordering::SeqCst);
            if waiting > 0 && waiting + n > self.settings.q_depth {
                c.dropped.fetch_add(n as u64, Ordering::SeqCst);
                self.overflow(&f.conf);
                continue;
            }
            f.push(Arc::clone(&event), n);
        }
    }

    /// An EOE record alone (the kernel's, ending a syscall event of a task
    /// with an audit context): for plugins only, never logged.
    pub fn feed_eoe(&self, stamp: Stamp) {
        self.feed(b"", Some(stamp));
    }

    fn eoe_line(&self, s: Stamp) -> Vec<u8> {
        let sp = if self.eoe_space { " " } else { "" };
        format!(
            "type=EOE msg=audit({}.{:03}:{}):{sp}\n",
            s.sec, s.msec, s.serial
        )
        .into_bytes()
    }

    fn overflow(&self, plugin: &PluginConf) {
        match self.settings.overflow_action {
            OverflowAction::Ignore => {}
            OverflowAction::Syslog => {
                let n = self.full_warnings.fetch_add(1, Ordering::SeqCst);
                if n < QUEUE_FULL_LIMIT {
                    sys::syslog(
                        Priority::Err,
                        &format!("queue to plugin {} is full - dropping event", plugin.name),
                    );
                    if n + 1 == QUEUE_FULL_LIMIT {
                        sys::syslog(
                            Priority::Err,
                            "queue full reporting limit reached - ending dropped event notifications",
                        );
                    }
                }
            }
            OverflowAction::Suspend => {
                if !self.suspended.swap(true, Ordering::SeqCst) {
                    let m = "suspending event passing to plugins due to overflowing its queue";
                    eprintln!("fastaudit: {m}");
                    sys::syslog(Priority::Alert, m);
                }
            }
            OverflowAction::Single => self.change_runlevel(Runlevel::Single),
            OverflowAction::Halt => self.change_runlevel(Runlevel::Halt),
        }
    }

    /// auditd's `single` and `halt`: `/sbin/init LEVEL`, once (the log
    /// writer's actions ask init through the same code).
    fn change_runlevel(&self, level: Runlevel) {
        if self.runlevel_changed.swap(true, Ordering::SeqCst) {
            return;
        }
        let m = format!(
            "{} ({} {}) due to overflowing a plugin queue",
            level.doing(),
            runlevel::INIT,
            level.arg()
        );
        eprintln!("fastaudit: {m}");
        sys::syslog(Priority::Alert, &m);
        if let Err(e) = runlevel::change(level) {
            sys::syslog(
                Priority::Alert,
                &format!("failed to exec {} {}: {e}", runlevel::INIT, level.arg()),
            );
        }
    }

    /// New settings while running (auditd's `reconfigure_dispatcher` on
    /// SIGHUP): `q_depth`, `overflow_action` and `max_restarts` from now
    /// on, the format plugins get, and `settings.plugin_dir` read again as
    /// auditd reads it: a new active plugin is started, one whose file is
    /// gone or no longer active is stopped (what was queued for it is
    /// delivered first), one whose configuration changed is started anew,
    /// and an unchanged one is sent SIGHUP. Passing events resumes (after
    /// `overflow_action = suspend`).
    pub fn reconfigure(&mut self, settings: &Settings, format: Format, notes: &mut Vec<String>) {
        self.settings = settings.clone();
        self.eoe_space = format == Format::Raw;
        self.resume();
        let mut wanted = load_dir(&settings.plugin_dir, notes);
        let mut kept = Vec::new();
        for f in std::mem::take(&mut self.feeders) {
            match wanted.iter().position(|c| c.name == f.conf.name) {
                Some(i) if wanted[i] == f.conf => {
                    wanted.remove(i);
                    f.counters
                        .max_restarts
                        .store(settings.max_restarts, Ordering::SeqCst);
                    let pid = f.counters.pid.load(Ordering::SeqCst);
                    if pid != 0 {
                        let _ = nix::sys::signal::kill(
                            nix::unistd::Pid::from_raw(pid as i32),
                            nix::sys::signal::SIGHUP,
                        );
                    }
                    kept.push(f);
                }
                // Changed: stopped here, started again below.
                Some(_) => retire(f, "its configuration changed: started again", notes),
                None => retire(f, "no longer active: stopped", notes),
            }
        }
        self.feeders = kept;
        for c in wanted {
            match Feeder::start(c.clone(), settings.max_restarts) {
                Ok(f) => self.feeders.push(f),
                Err(e) => notes.push(format!("plugin {}: cannot start: {e}", c.name)),
            }
        }
    }

    /// Pass events to plugins again after `overflow_action = suspend`
    /// (auditd: SIGUSR2, or a reconfiguration).
    pub fn resume(&self) {
        self.suspended.store(false, Ordering::SeqCst);
        self.full_warnings.store(0, Ordering::SeqCst);
    }

    /// Records dropped so far, per plugin with any.
    pub fn dropped(&self) -> Vec<(String, u64)> {
        self.feeders
            .iter()
            .map(|f| {
                (
                    f.conf.name.clone(),
                    f.counters.dropped.load(Ordering::SeqCst),
                )
            })
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Lines for the status file: one per plugin.
    pub fn status(&self) -> String {
        let mut s = String::new();
        for f in &self.feeders {
            let c = &f.counters;
            s.push_str(&format!(
                "plugin {} pid={} delivered={} dropped={} waiting={} restarts={} state={}\n",
                f.conf.name,
                c.pid.load(Ordering::SeqCst),
                c.delivered.load(Ordering::SeqCst),
                c.dropped.load(Ordering::SeqCst),
                c.in_flight.load(Ordering::SeqCst),
                c.restarts.load(Ordering::SeqCst),
                if c.gave_up.load(Ordering::SeqCst) {
                    "stopped"
                } else if self.suspended.load(Ordering::SeqCst) {
                    "suspended"
                } else {
                    "running"
                }
            ));
        }
        s
    }

    /// Deliver what is queued (at most [`STOP_DRAIN`]), close every
    /// plugin's stdin, end them; their counters.
    pub fn stop(mut self) -> Vec<Report> {
        self.stop_all()
    }

    fn stop_all(&mut self) -> Vec<Report> {
        let mut feeders = std::mem::take(&mut self.feeders);
        let by = Instant::now() + STOP_DRAIN;
        for f in &feeders {
            f.request_stop(by);
        }
        let mut out = Vec::new();
        for f in &mut feeders {
            f.join();
            let c = &f.counters;
            out.push(Report {
                name: f.conf.name.clone(),
                delivered: c.delivered.load(Ordering::SeqCst),
                dropped: c.dropped.load(Ordering::SeqCst),
                restarts: c.restarts.load(Ordering::SeqCst),
                gave_up: c.gave_up.load(Ordering::SeqCst),
            });
        }
        out
    }
}

impl Drop for Dispatcher {
    /// Plugins are ended on every path out of a run, errors included.
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// A plugin a reconfiguration ends: what was queued for it is delivered
/// and it is stopped by a thread of its own, so the log never waits for it.
fn retire(mut f: Feeder, why: &str, notes: &mut Vec<String>) {
    notes.push(format!("plugin {}: {why}", f.conf.name));
    std::thread::spawn(move || {
        f.request_stop(Instant::now() + STOP_DRAIN);
        f.join();
        let dropped = f.counters.dropped.load(Ordering::SeqCst);
        if dropped > 0 {
            sys::syslog(
                Priority::Err,
                &format!("plugin {} stopped: {dropped} records dropped", f.conf.name),
            );
        }
    });
}

/// The active plugins of `dir` that fastaudit runs; the rest reported
/// in `notes` (a run starts these; `fastaudit config check` lists them).
pub fn load_dir(dir: &Path, notes: &mut Vec<String>) -> Vec<PluginConf> {
    let files = match conf::files(dir) {
        Ok(f) => f,
        // auditd: no directory, no plugins.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            notes.push(format!("{}: {e}: no plugins started", dir.display()));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for f in files {
        let c = match conf::load(&f, notes) {
            Ok(c) => c,
            Err(e) => {
                notes.push(format!("{e}: plugin skipped"));
                continue;
            }
        };
        if !c.active {
            continue;
        }
        if c.kind == Kind::Builtin || c.path.to_ascii_lowercase().starts_with("builtin_") {
            notes.push(format!(
                "{}: builtin plugin {} is not supported by fastaudit: skipped",
                f.display(),
                c.path
            ));
            continue;
        }
        if c.format == Wire::Binary {
            notes.push(format!(
                "{}: format = binary is not supported by fastaudit (string only): plugin skipped",
                f.display()
            ));
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_actions_read_their_words_in_any_case() {
        for a in OverflowAction::ALL {
            assert_eq!(OverflowAction::from_word(a.word()), Some(a));
            assert_eq!(
                OverflowAction::from_word(&a.word().to_ascii_uppercase()),
                Some(a)
            );
            // The words are what the log's summaries print (Debug, lowercased).
            assert_eq!(format!("{a:?}").to_ascii_lowercase(), a.word());
        }
        assert_eq!(
            OverflowAction::from_word("Syslog"),
            Some(OverflowAction::Syslog)
        );
        assert_eq!(OverflowAction::from_word("drop"), None);
        assert_eq!(OverflowAction::from_word(""), None);
    }

    fn stamp(serial: u64) -> Stamp {
        Stamp {
            sec: 1700000000,
            msec: 5,
            serial,
        }
    }

    /// A plugin that copies its stdin to `out` (no root needed: the
    /// configuration is given, not read from a root-owned file).
    fn copier(out: &Path) -> PluginConf {
        PluginConf {
            name: "copy.conf".into(),
            file: PathBuf::from("/nonexistent/copy.conf"),
            active: true,
            path: "/bin/sh".into(),
            kind: Kind::Always,
            args: vec!["-c".into(), format!("exec cat >'{}'", out.display())],
            format: Wire::String,
        }
    }

    #[test]
    fn every_record_and_its_eoe_reach_a_plugin_in_order() {
        let dir = std::env::temp_dir().join(format!("fa-plugins-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("out");
        let mut notes = Vec::new();
        let d = Dispatcher::with_plugins(
            &Settings::default(),
            Format::Raw,
            vec![copier(&out)],
            &mut notes,
        );
        assert!(notes.is_empty(), "{notes:?}");
        d.feed(b"type=SYSCALL msg=audit(1700000000.005:1): a\ntype=PROCTITLE msg=audit(1700000000.005:1): b\n", Some(stamp(1)));
        d.feed(b"type=DAEMON_START msg=audit(1700000000.005:2): c\n", None);
        d.feed_eoe(stamp(3));
        let reports = d.stop();
        assert_eq!(reports.len(), 1);
        let r = &reports[0];
        assert_eq!((r.delivered, r.dropped, r.gave_up), (5, 0, false), "{r:?}");
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            text,
            "type=SYSCALL msg=audit(1700000000.005:1): a\n\
             type=PROCTITLE msg=audit(1700000000.005:1): b\n\
             type=EOE msg=audit(1700000000.005:1): \n\
             type=DAEMON_START msg=audit(1700000000.005:2): c\n\
             type=EOE msg=audit(1700000000.005:3): \n"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_flags_win_over_the_configuration() {
        let flags = PluginArgs {
            q_depth: Some(600),
            overflow_action: Some(OverflowAction::Suspend),
            ..PluginArgs::default()
        };
        let s = flags.apply(Settings::default());
        assert_eq!(
            (s.q_depth, s.overflow_action, s.max_restarts),
            (600, OverflowAction::Suspend, 10)
        );
        assert_eq!(
            OverflowAction::from_word("SYSLOG"),
            Some(OverflowAction::Syslog)
        );
        assert_eq!(OverflowAction::from_word("email"), None);
        assert_eq!(
            Settings {
                q_depth: 0,
                ..s.clone()
            }
            .check(),
            Err("q_depth must be at least 1".into())
        );
        assert_eq!(Settings { q_depth: 100, ..s }.check().unwrap().len(), 1);
    }
}
