//! `fastaudit run`: rules → plan → engine → records → log, in the foreground.

use crate::cli::RunArgs;
use crate::daemon::companion::event_lines_into;
use crate::daemon::ctl_request::Control;
use crate::daemon::{BpfCounts, Side};
use crate::output::Output;
use crate::plugins::{Dispatcher, Settings as PluginSettings};
use crate::reconfig::Reconfig;
use crate::reload::Reloader;
use crate::run_config::{self, Refused};
use anyhow::{bail, Context, Result};
use fastaudit_engine::AuditEvent;
use fastaudit_engine::{compile, run_live, start_trace, Environment, Live, Options};
use fastaudit_engine::{Attached, EngineError, Kind};
use fastaudit_log::{Counts, Source, Writer};
use fastaudit_records::enrich::SystemNames;
use fastaudit_records::line::line;
use fastaudit_records::{types, Format, Stamp};
use fastaudit_rules::{lexer, Origin, RuleSet, SystemHost};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The rules used when neither --rules nor /etc/audit/rules.d is given.
const DEFAULT_RULES: &str = include_str!("../../../rules/default.rules");
const RULES_D: &str = "/etc/audit/rules.d";

/// Run until SIGINT/SIGTERM; exit 0 after draining and flushing.
pub fn run(args: RunArgs) -> Result<ExitCode> {
    start_trace::mark("main");
    // `--explain` needs no configuration (and works without root); a run
    // does, and the configuration is root's to read.
    if !args.explain && !nix::unistd::geteuid().is_root() {
        bail!("run must be started as root (it loads BPF programs)");
    }
    let settings = if args.explain {
        None
    } else {
        match run_config::resolve(&args) {
            Ok(s) => Some(s),
            Err(Refused(lines)) => {
                for l in lines {
                    eprintln!("{l}");
                }
                return Ok(ExitCode::from(1));
            }
        }
    };
    let host = SystemHost;
    let set = match load_rules(&args.rules, &host, args.strict) {
        Ok(set) => set,
        Err(errors) => {
            for e in errors {
                eprintln!("{e}");
            }
            return Ok(ExitCode::from(1));
        }
    };
    crate::rules_cmd::print_warnings(&set);
    start_trace::mark("settings and rules read");
    // Probing loads BPF programs and reads tracefs: root only (`--explain`
    // works without, with the facts assumed).
    // A run probes only the kinds a plan can use (fexit is for `--explain`:
    // no plan uses it), and all of them again to say why none fits.
    let probed = |all: bool| {
        let kinds: Vec<Kind> = args
            .hook_kinds
            .iter()
            .copied()
            .filter(|&k| all || k != Kind::Fexit)
            .collect();
        let mut env = if nix::unistd::geteuid().is_root() {
            Environment::probe(&kinds)
        } else {
            Environment::assumed(&kinds)
        };
        env.audit_skipped_uring_ops = args.audit_skipped_uring_ops;
        env
    };
    let mut env = probed(args.explain);
    start_trace::mark("hook kinds probed");
    let mut plan = compile(&set, env.clone()).map_err(|e| anyhow::anyhow!("{e}"))?;
    if !args.explain && plan.hook_kind_problem().is_some() {
        env = probed(true);
        plan = compile(&set, env.clone()).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    start_trace::mark("plan compiled");
    if args.explain {
        print!("{}", plan.explain());
        return Ok(ExitCode::SUCCESS);
    }
    if !nix::unistd::geteuid().is_root() {
        bail!("run must be started as root (it loads BPF programs)");
    }
    if let Some(why) = plan.hook_kind_problem() {
        bail!("{why}");
    }
    let Some(settings) = settings else {
        bail!("no settings");
    };
    for w in &settings.warnings {
        eprintln!("{w}");
    }
    if !settings.log.write_logs {
        eprintln!("fastaudit: write_logs = no: no log is written; events go to the plugins only");
    }
    if let Err(e) = run_config::boost_priority(settings.priority_boost) {
        eprintln!("fastaudit: warning: {e:#}");
    }
    let path = settings.log.path.clone();
    let writer = Writer::open(settings.log.clone())
        .with_context(|| format!("opening the log {}", path.display()))?;
    let json = (settings.format == Format::Json).then_some(settings.end_of_event);
    let log = Output::new(writer, settings.node.clone(), json);
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))
            .context("installing signal handlers")?;
    }
    // A file size limit (RLIMIT_FSIZE) must not kill the daemon without
    // its counts: caught, the write fails with EFBIG, a disk error.
    signal_hook::flag::register(signal_hook::consts::SIGXFSZ, Arc::default())
        .context("installing signal handlers")?;
    let format = settings.format;
    let mut log = log;
    // Plugins first: they get everything from DAEMON_START on, as auditd's.
    let plugins = start_plugins(&args, format, settings.plugins.clone())?;
    // The kernel side (daemon.rs): registered and set up, not yet enabled.
    start_trace::mark("log opened, plugins started");
    let mut side = Side::start(&args, &set, format, &mut log, plugins)?;
    start_trace::mark("registered with the kernel audit");
    for n in &side.notes {
        eprintln!("fastaudit: {n}");
    }
    // Companion events (a loginuid write's SYSCALL) come whenever
    // something is attached: LOGIN records then wait for theirs.
    side.expect_companions(!plan.attachments.is_empty());
    let side = std::cell::RefCell::new(side);
    // SIGHUP: the rules again, switched to without a gap (reload.rs).
    let reloader = std::cell::RefCell::new(Reloader::new(&args, set, env)?);
    // `fastaudit ctl`: rule changes through the same switch (daemon/control.rs).
    let control = std::cell::RefCell::new(Control::start());
    // SIGHUP: auditd.conf again too, applied between batches (reconfig.rs).
    let reconfig = std::cell::RefCell::new(Reconfig::new(&args, settings.clone())?);
    start_trace::mark("SIGHUP, ctl and reconfiguration set up");
    // Both engine callbacks write to the log: one per event, one per batch.
    let log = std::cell::RefCell::new(log);
    let write_error = std::cell::RefCell::new(None);
    let lines_buf = std::cell::RefCell::new(Vec::with_capacity(4096));
    let options = Options {
        ring_buffer_bytes: args.ring_buffer_kib.saturating_mul(1024),
        // Beside another audit daemon, tasks with an audit context get
        // companions too (as stock audit would write); as the daemon,
        // the kernel writes theirs.
        companion_with_context: args.bpf_only,
    };
    let live = Live {
        reload: || {
            let mut rules = reloader.borrow_mut();
            rules.poll().or_else(|| {
                control.borrow_mut().as_mut()?.poll(
                    &mut rules,
                    &mut side.borrow_mut(),
                    &mut log.borrow_mut(),
                )
            })
        },
        swapped: |r: Result<&Attached, &EngineError>| {
            let changes = reloader.borrow_mut().finished(r.is_ok());
            if let Some(c) = control.borrow_mut().as_mut().filter(|c| c.switching()) {
                let failed = r.err().map(ToString::to_string);
                c.swapped(
                    &mut reloader.borrow_mut(),
                    &mut side.borrow_mut(),
                    &mut log.borrow_mut(),
                    failed,
                );
                return;
            }
            match r {
                Ok(_) => {
                    side.borrow_mut()
                        .log_rule_changes(&mut log.borrow_mut(), &changes);
                    eprintln!("fastaudit: SIGHUP: switched to the rules read again ({} rule changes)", changes.len());
                }
                Err(e) => eprintln!("fastaudit: SIGHUP: the new rules could not be attached ({e}); the running rules stay"),
            }
        },
    };
    let stats = run_live(
        plan,
        options,
        &stop,
        |attached| {
            if attached.hooks.is_empty() {
                eprintln!("fastaudit: no rule can record anything; nothing is attached");
            }
            if let Err(e) = side.borrow_mut().ready() {
                write_error.borrow_mut().get_or_insert(e);
                stop.store(true, Ordering::Relaxed);
                return;
            }
            start_trace::mark("ready");
            eprintln!("fastaudit: ready");
            // Best effort: under systemd a failed notification shows as a start timeout.
            if let Err(e) = crate::notify::ready() {
                eprintln!("fastaudit: warning: telling systemd it is ready: {e}");
            }
        },
        live,
        |ev| {
            let mut log = log.borrow_mut();
            if ev.companion {
                // Waits for its kernel record (LOGIN) in the daemon side.
                side.borrow_mut().companion(&mut log, ev);
                return;
            }
            let stamp = Stamp {
                sec: ev.sec,
                msec: ev.msec,
                serial: side.borrow_mut().serial(),
            };
            // A reconfiguration may change it (log_format).
            let format = side.borrow().format();
            // One buffer for every event's lines: no allocation each.
            let mut lines = lines_buf.borrow_mut();
            lines.clear();
            uring_event_lines(&mut lines, &ev, stamp, format);
            // Each URINGOP was an event of the BPF side's own.
            let events = ev.uringops.len() as u64 + u64::from(!ev.no_syscall);
            side.borrow_mut()
                .log_events(&mut log, &lines, Some(stamp), Source::Event, events);
        },
        || {
            let mut log = log.borrow_mut();
            let counts = BpfCounts {
                logged: bpf_counts(&log).logged,
                lost: 0,
            };
            // Kernel records first, then one write(2) for the batch.
            let mut side = side.borrow_mut();
            side.pump(&mut log, counts);
            reconfig.borrow_mut().poll(&mut log, &mut side);
            log.commit();
        },
    )
    .context("running the BPF engine");
    let mut log = log.into_inner();
    let side = side.into_inner();
    let discarded = side.companions_discarded();
    let ring_lost = stats.as_ref().map_or(0, |s| s.lost);
    // The kernel is put back on every path, errors included; the counts
    // are printed on every path too, faults included.
    let at_stop = BpfCounts {
        logged: bpf_counts(&log).logged,
        lost: ring_lost,
    };
    let side_reader = side.reader_stats();
    let finished = side.finish(&mut log, at_stop);
    log.flush();
    let bpf = bpf_counts(&log);
    let generated = stats
        .as_ref()
        .map(|s| (s.emitted + s.lost).saturating_sub(discarded).to_string())
        .unwrap_or_else(|_| "?".into());
    // JSON: the loss counters close the stream.
    let reader = side_reader;
    let counters = [
        (
            "bpf_events_generated",
            stats.as_ref().map_or(0, |s| s.emitted + s.lost),
        ),
        ("bpf_events_logged", bpf.logged),
        ("bpf_events_lost", bpf.lost),
        ("kernel_records_received", reader.received),
        ("kernel_records_dropped", reader.dropped),
        ("kernel_socket_overruns", reader.overruns),
        ("log_events_dropped", log.lost()),
    ];
    log.write_stats(crate::daemon::now_stamp(0), &counters);
    log.flush();
    eprintln!(
        "fastaudit: stopped: {generated} events generated, {} logged, {ring_lost} lost in the ring buffer, {} dropped by the log",
        bpf.logged, bpf.lost
    );
    let kernel = kernel_counts(&log);
    eprintln!(
        "fastaudit: kernel records logged: {}, dropped by the log: {}",
        kernel.logged, kernel.lost
    );
    if let Some(f) = log.fault_now() {
        eprintln!(
            "fastaudit: {}: the log is still failing ({}, action {}): {} records lost since",
            log.path().display(),
            f.kind.word(),
            f.action,
            f.lost
        );
    }
    let stats = stats?;
    if stats.aux_lost > 0 {
        eprintln!(
            "fastaudit: records after SYSCALL lost in the ring buffer: {} (their events are incomplete)",
            stats.aux_lost
        );
    }
    if let Some(e) = write_error.into_inner() {
        return Err(e);
    }
    finished?;
    Ok(ExitCode::SUCCESS)
}

/// BPF events (alone or joined with their kernel record) logged and lost.
fn bpf_counts(log: &Writer) -> Counts {
    let (e, j) = (log.counts(Source::Event), log.counts(Source::Joined));
    Counts {
        logged: e.logged + j.logged,
        lost: e.lost + j.lost,
    }
}

/// Kernel records (alone or joined with their companion) logged and lost.
fn kernel_counts(log: &Writer) -> Counts {
    let (k, j) = (log.counts(Source::Kernel), log.counts(Source::Joined));
    Counts {
        logged: k.logged + j.logged,
        lost: k.lost + j.lost,
    }
}

/// An event's lines: its URINGOP records first, then (unless it has
/// none) SYSCALL and what follows it.
fn uring_event_lines(lines: &mut Vec<u8>, ev: &AuditEvent, stamp: Stamp, format: Format) {
    for op in &ev.uringops {
        lines.extend(line(
            None,
            types::URINGOP,
            stamp,
            &op.body(),
            format,
            &SystemNames,
        ));
    }
    if !ev.no_syscall {
        event_lines_into(lines, ev, stamp, format);
    }
}

/// The plugins of the plugin settings: auditd.conf's (or auditd's
/// defaults), then the flags. Plugins get auditd's string format: RAW
/// lines for a JSON log.
fn start_plugins(args: &RunArgs, format: Format, base: PluginSettings) -> Result<Dispatcher> {
    let settings = args.plugins.apply(base);
    let format = if format == Format::Json {
        Format::Raw
    } else {
        format
    };
    for w in settings.check().map_err(anyhow::Error::msg)? {
        eprintln!("fastaudit: warning: {w}");
    }
    let mut notes = Vec::new();
    let d = Dispatcher::start(&settings, format, &mut notes);
    for n in notes {
        eprintln!("fastaudit: {n}");
    }
    Ok(d)
}

/// The rules given, else /etc/audit/rules.d, else (only when that does
/// not exist) the built-in defaults: a rules.d that exists but cannot be
/// read (as non-root, say) is an error, never a silent fallback.
pub(crate) fn load_rules(
    paths: &[PathBuf],
    host: &SystemHost,
    strict: bool,
) -> Result<RuleSet, Vec<String>> {
    let strings = |e: fastaudit_rules::LoadErrors| e.report();
    if !paths.is_empty() {
        return RuleSet::load_with(paths, host, strict).map_err(strings);
    }
    match std::fs::metadata(RULES_D) {
        Ok(_) => {
            return RuleSet::load_with(&[PathBuf::from(RULES_D)], host, strict).map_err(strings)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("fastaudit: {RULES_D} does not exist: using the built-in default rules");
        }
        Err(e) => {
            return Err(vec![format!(
                "{RULES_D}: cannot read: {} (the built-in default rules are used only when it does not exist)",
                fastaudit_rules::os_error::describe(&e)
            )])
        }
    }
    let mut set = RuleSet::default();
    let mut errors = Vec::new();
    for l in lexer::lines(DEFAULT_RULES.as_bytes()) {
        let origin = Origin {
            file: "<built-in default rules>".into(),
            line: l.lineno,
        };
        if let Err(e) = set.apply_words(&l.words, &origin, host) {
            errors.push(e.to_string());
        }
    }
    if errors.is_empty() {
        Ok(set)
    } else {
        Err(errors)
    }
}
