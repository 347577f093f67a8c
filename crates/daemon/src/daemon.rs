//! The daemon of `fastaudit run`: one state per job, owned by [`Daemon`]:
//! the sink (the log and the plugins: sink.rs), the kernel side
//! (kernel.rs), the companions waiting for their kernel record
//! (companion.rs), the rules (rules/), the control socket (control/), the
//! configuration (reconfigure.rs), the status file (status.rs) and the
//! signals (signals.rs). Its event loop is the engine's
//! (`fastaudit_engine::run_live`), which calls the daemon as its
//! [`Handler`]: for each BPF event, after each batch (kernel records,
//! signals, the log's commit) and between batches (a rule switch to make).

use crate::companion::Companions;
use crate::control::socket::{Job, Reply};
use crate::control::{Control, Parts};
use crate::error::Error;
use crate::event_lines::uring_event_lines;
use crate::kernel::{Kernel, KernelSettings};
use crate::losses::{Failure, Limits, Losses};
use crate::options::RunOptions;
use crate::reconfigure::Reconfig;
use crate::rules::change::{log_rule_changes, Changer};
use crate::rules::Rules;
use crate::settings::RunSettings;
use crate::signals::Signals;
use crate::sink::{now_stamp, Sink};
use crate::status::StatusFile;
use fastaudit_containers::Resolver;
use fastaudit_engine::{run_live, start_trace, Attached, AuditEvent, EngineError, Handler};
use fastaudit_engine::{Options, Plan, Stats};
use fastaudit_log::{Counts, Source, Writer};
use fastaudit_records::daemon as own;
use fastaudit_records::{types, Format, Stamp};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A running daemon.
pub struct Daemon {
    signals: Signals,
    sink: Sink,
    kernel: Kernel,
    companions: Companions,
    rules: Rules,
    /// `fastaudit ctl`'s requests (None: no control socket).
    control: Option<Control>,
    reconfig: Reconfig,
    status: StatusFile,
    /// Events lost in the ring buffer, reported as they happen.
    losses: Losses,
    /// SIGHUP came and auditd.conf was read again: the rules are next.
    reload_rules: bool,
    /// A `fastaudit ctl --signal reload` whose switch is under way, and
    /// the lines that refused auditd.conf (its answer waits for the switch).
    reload_job: Option<(Job, Vec<String>)>,
    /// One buffer for every event's lines: no allocation each.
    lines: Vec<u8>,
    /// Why the run stops early (the kernel audit could not be turned on).
    failed: Option<Error>,
    /// Each event's container, from its cgroup (ENRICHED and JSON).
    containers: Resolver,
}

impl Daemon {
    /// Write DAEMON_START, then (unless --bpf-only) register with the
    /// kernel and apply the rules' settings; open the control socket.
    /// `expect_companions`: the plan attaches something, so companion
    /// events can come.
    pub fn start(
        opts: &RunOptions,
        settings: RunSettings,
        rules: Rules,
        mut sink: Sink,
        signals: Signals,
        expect_companions: bool,
        containers: Resolver,
    ) -> Result<Daemon, Error> {
        let kernel_settings = KernelSettings::of(rules.current());
        // Only with --apply-irreversible does the kernel get the rules'
        // -f 2 (else -f 1: irreversible.rs says so at start).
        let panic_allowed = kernel_settings.panic && opts.apply_irreversible && !opts.bpf_only;
        let kernel_settings = kernel_settings.with_panic(panic_allowed);
        let uname = nix::sys::utsname::uname()
            .map(|u| u.release().to_string_lossy().into_owned())
            .unwrap_or_default();
        // auditd writes DAEMON_START before it registers.
        let format = sink.format().name();
        let body = own::start_body(
            env!("CARGO_PKG_VERSION"),
            format,
            &uname,
            &crate::procinfo::me(),
        );
        sink.own(types::DAEMON_START, &body);
        // The lines this start runs without, in the log as in the journal.
        for body in rules.refused().record_bodies() {
            sink.own(types::DAEMON_ERR, &body);
        }
        sink.log.commit();
        let mut notes = Vec::new();
        let rules_failure = kernel_settings
            .set
            .iter()
            .find(|(m, _)| *m == fastaudit_netlink::proto::mask::FAILURE)
            .map(|(_, v)| *v);
        let mut kernel = Kernel::start(opts, kernel_settings, &mut sink, &mut notes)?;
        let of_kernel = kernel.status();
        let (failure, note) = Failure::choose(
            rules_failure,
            of_kernel.as_ref().map(|s| s.failure),
            panic_allowed,
        );
        notes.extend(note);
        let status_lines = crate::irreversible::Asked::of(rules.current())
            .status_lines(opts.apply_irreversible, opts.bpf_only)
            + &format!("failure_on_own_losses {}\n", failure.number());
        let limits = of_kernel.map_or_else(Limits::default, |s| Limits {
            rate_limit: s.rate_limit,
            backlog_limit: s.backlog_limit,
        });
        start_trace::mark("registered with the kernel audit");
        for n in &notes {
            eprintln!("fastaudit: {n}");
        }
        let companions = Companions::new(expect_companions, kernel.is_daemon());
        // `fastaudit ctl`: rule changes through the same switch as SIGHUP.
        let control = Control::start();
        let reconfig = Reconfig::new(opts, settings);
        start_trace::mark("SIGHUP, ctl and reconfiguration set up");
        Ok(Daemon {
            signals,
            sink,
            kernel,
            companions,
            rules,
            control,
            reconfig,
            status: StatusFile::new(status_lines),
            losses: Losses::new(failure, limits),
            reload_rules: false,
            reload_job: None,
            lines: Vec::with_capacity(4096),
            failed: None,
            containers,
        })
    }

    /// Run `plan` until SIGINT or SIGTERM, then stop: the kernel put back,
    /// the last records and the counts logged, the plugins ended (on
    /// every path, errors included).
    pub fn run(mut self, plan: Plan, options: Options) -> Result<(), Error> {
        let stop = Arc::clone(&self.signals.stop);
        let stats = run_live(plan, options, &stop, &mut self);
        self.finish(stats)
    }

    /// Move the kernel records read so far into the log; report a log
    /// fault that is over; rotate on SIGUSR1, resume on SIGUSR2; rewrite
    /// the status file now and then.
    fn pump(&mut self) {
        // The status file's count, as the batch left it.
        let logged = bpf_counts(&self.sink.log).logged;
        if let Some(f) = self.sink.log.take_recovered() {
            self.sink.report_fault(f);
        }
        let mut task_rules_changed = false;
        for r in self.kernel.drain() {
            if u32::from(r.ty) == types::EOE {
                // auditd never writes EOE to disk, but passes it to plugins.
                self.sink.kernel_eoe(&r);
                continue;
            }
            task_rules_changed |= u32::from(r.ty) == types::CONFIG_CHANGE
                && r.body.windows(7).any(|w| w == b" list=1");
            self.companions.kernel(&mut self.sink, r);
        }
        self.companions.expired(&mut self.sink);
        if task_rules_changed {
            self.kernel.keep_never_task(&mut self.sink);
        }
        if self.signals.take_usr2() {
            let sender = self.kernel.sender();
            self.sink.resume(sender.as_ref());
        }
        if self.signals.take_usr1() {
            let sender = self.kernel.sender();
            self.sink.rotate(sender.as_ref());
        }
        self.status.update(
            &self.kernel,
            &self.sink,
            logged,
            self.losses.total(),
            self.rules.refused(),
        );
    }

    /// The parts a control request reads or changes.
    fn parts(&mut self) -> (Option<&mut Control>, Parts<'_>) {
        let held = self.companions.held();
        let parts = Parts {
            rules: &mut self.rules,
            kernel: &mut self.kernel,
            sink: &mut self.sink,
            held,
            ring_lost: self.losses.total(),
        };
        (self.control.as_mut(), parts)
    }

    /// `fastaudit ctl --signal reload`: what SIGHUP does (auditd.conf, then
    /// the rules), answered when the new rules run or at once when refused.
    fn reload_for(&mut self, job: Job) -> Option<Plan> {
        let sender = crate::control::sender(&job);
        let mut refused = self.reconfig.on_request(&mut self.sink, sender);
        self.sink.log.commit();
        match self.rules.reload() {
            Ok(plan) => {
                self.reload_job = Some((job, refused));
                Some(plan)
            }
            Err(lines) => {
                refused.extend(lines);
                let _ = job.reply.send(reload_reply(refused, None));
                None
            }
        }
    }

    /// Stop: put the kernel back and unregister, log the last kernel
    /// records, the losses (a log fault's too, over or not) and
    /// DAEMON_END; end the plugins. `ring_lost`: BPF events lost in the
    /// ring buffer.
    fn close(&mut self, ring_lost: u64) -> Result<(), Error> {
        // Only a SIGTERM to the registered daemon is recorded by the kernel.
        let sender = if self.signals.terminated() {
            self.kernel.sender()
        } else {
            None
        };
        let stopped = self.kernel.stop();
        // What the stop itself logged (CONFIG_CHANGE of the restore) and
        // what was still queued; no never,task check any more.
        for r in self.kernel.drain() {
            if u32::from(r.ty) == types::EOE {
                self.sink.kernel_eoe(&r);
                continue;
            }
            self.companions.kernel(&mut self.sink, r);
        }
        self.companions.rest(&mut self.sink);
        // A fault over by now, or still going on (its record is then lost
        // too, and counted: the final counts on stderr say it).
        let sink = &mut self.sink;
        // Nothing of the kernel's is written after DAEMON_END: in JSON the
        // last kernel records (the programs' BPF UNLOAD, the restore's
        // CONFIG_CHANGE) would otherwise wait for their events to time out.
        sink.log.write_open_events();
        sink.log.commit();
        if let Some(f) = sink.log.take_recovered().or(sink.log.fault_now()) {
            sink.report_fault(f);
        }
        let pid = std::process::id();
        self.losses.close(ring_lost, sink);
        let rx = self.kernel.stats();
        if rx.dropped > 0 || rx.overruns > 0 {
            let body = format!(
                "op=lost-kernel-records dropped={} overruns={} pid={pid} res=failed",
                rx.dropped, rx.overruns,
            );
            sink.own(types::DAEMON_ERR, &body);
        }
        sink.report_plugin_drops();
        sink.own(types::DAEMON_END, &own::end_body(sender.as_ref()));
        crate::dispatch::print_reports(&sink.stop_plugins());
        self.status.remove();
        stopped?;
        if rx.dropped > 0 || rx.overruns > 0 {
            eprintln!(
                "fastaudit: kernel records: {} dropped (queue to the log full), {} socket overruns",
                rx.dropped, rx.overruns
            );
        }
        Ok(())
    }

    /// After the engine: stop ([`Daemon::close`]), then the counts in the
    /// log (JSON closes with them) and on stderr, on every path, faults
    /// included; the first error.
    fn finish(mut self, stats: Result<Stats, EngineError>) -> Result<(), Error> {
        let discarded = self.companions.discarded();
        let ring_lost = stats.as_ref().map_or(0, |s| s.lost);
        let reader = self.kernel.stats();
        let closed = self.close(ring_lost);
        let log = &mut self.sink.log;
        log.flush();
        let bpf = bpf_counts(log);
        let generated = stats.as_ref().map_or(0, |s| s.emitted + s.lost);
        let counters = [
            ("bpf_events_generated", generated),
            ("bpf_events_logged", bpf.logged),
            ("bpf_events_lost", bpf.lost),
            ("kernel_records_received", reader.received),
            ("kernel_records_dropped", reader.dropped),
            ("kernel_socket_overruns", reader.overruns),
            ("log_events_dropped", log.lost()),
        ];
        log.write_stats(now_stamp(0), &counters);
        log.flush();
        let generated = match &stats {
            Ok(_) => generated.saturating_sub(discarded).to_string(),
            Err(_) => "?".into(),
        };
        eprintln!(
            "fastaudit: stopped: {generated} events generated, {} logged, {ring_lost} lost in the ring buffer, {} dropped by the log",
            bpf.logged, bpf.lost
        );
        let kernel = kernel_counts(log);
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
        let stats = stats.map_err(Error::Engine)?;
        if stats.aux_lost > 0 {
            eprintln!(
                "fastaudit: records after SYSCALL lost in the ring buffer: {} (their events are incomplete)",
                stats.aux_lost
            );
        }
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        closed
    }
}

impl Handler for Daemon {
    fn ready(&mut self, attached: &Attached) {
        if attached.hooks.is_empty() {
            eprintln!("fastaudit: no rule can record anything; nothing is attached");
        }
        // What this kernel refused and what runs without it: in the
        // journal and, as auditd reports its own troubles, in the log.
        let pid = std::process::id();
        for line in &attached.degraded {
            eprintln!("fastaudit: degraded: {line}");
            let detail = line.replace('"', "'");
            self.sink.own(
                types::DAEMON_ERR,
                &format!("op=degraded detail=\"{detail}\" pid={pid} res=failed"),
            );
        }
        if let Err(e) = self.kernel.ready() {
            self.failed.get_or_insert(e);
            self.signals.stop.store(true, Ordering::Relaxed);
            return;
        }
        // The status file is there by the time "ready" is said (`fastaudit
        // status` right after start), not only after the first batch.
        self.status.update(
            &self.kernel,
            &self.sink,
            bpf_counts(&self.sink.log).logged,
            self.losses.total(),
            self.rules.refused(),
        );
        start_trace::mark("ready");
        eprintln!("fastaudit: ready");
        // Best effort: under systemd a failed notification shows as a start timeout.
        if let Err(e) = crate::notify::ready() {
            eprintln!("fastaudit: warning: telling systemd it is ready: {e}");
        }
    }

    fn replan(&mut self, refused: &[fastaudit_engine::Refusal]) -> Option<Plan> {
        match self.rules.replan(refused) {
            Ok(plan) => Some(plan),
            Err(e) => {
                eprintln!("fastaudit: {e}");
                None
            }
        }
    }

    /// SIGHUP's rules (auditd.conf was read first, at the batch that took
    /// the signal), else a `fastaudit ctl` request's.
    fn reload(&mut self) -> Option<Plan> {
        if std::mem::take(&mut self.reload_rules) {
            if let Ok(plan) = self.rules.reload() {
                return Some(plan);
            }
        }
        let (control, parts) = self.parts();
        let control = control?;
        if let Some(plan) = control.poll(parts) {
            return Some(plan);
        }
        let job = control.take_reload()?;
        self.reload_for(job)
    }

    fn swapped(&mut self, outcome: Result<&Attached, &EngineError>) {
        let changes = self.rules.finished(outcome.is_ok());
        let (control, parts) = self.parts();
        if let Some(c) = control.filter(|c| c.switching()) {
            c.swapped(parts, outcome.err().map(ToString::to_string));
            return;
        }
        let said = match outcome {
            Ok(_) => {
                log_rule_changes(&mut self.sink, &changes, &Changer::of("self"));
                format!(
                    "fastaudit: SIGHUP: switched to the rules read again ({} rule changes)",
                    changes.len()
                )
            }
            Err(e) => format!(
                "fastaudit: SIGHUP: the new rules could not be attached ({e}); the running rules stay"
            ),
        };
        eprintln!("{said}");
        if let Some((job, refused)) = self.reload_job.take() {
            let failed = outcome.is_err().then_some(said.clone());
            let ok = outcome.is_ok().then_some(said);
            let mut reply = reload_reply(refused, failed);
            if let Some(ok) = ok {
                reply.out = format!("{ok}\n").into_bytes();
            }
            let _ = job.reply.send(reply);
        }
    }

    fn event(&mut self, ev: AuditEvent) {
        if ev.companion {
            // Waits for its kernel record (LOGIN, CONFIG_CHANGE).
            self.companions.companion(&mut self.sink, ev);
            return;
        }
        let stamp = Stamp {
            sec: ev.sec,
            msec: ev.msec,
            serial: self.sink.serial(),
        };
        self.lines.clear();
        // RAW is the kernel's records only: no container there.
        let format = self.sink.format();
        let workload = match format {
            Format::Raw => None,
            _ => self.containers.workload(ev.cgroup),
        };
        uring_event_lines(&mut self.lines, &ev, stamp, format, workload.as_deref());
        // Each URINGOP was an event of the BPF side's own.
        let events = ev.uringops.len() as u64 + u64::from(!ev.no_syscall);
        self.sink.write_events_in(
            &self.lines,
            Some(stamp),
            Source::Event,
            events,
            workload.as_deref(),
        );
    }

    /// Losses as the engine counts them, while it runs.
    fn stats(&mut self, stats: &Stats) {
        self.losses.seen(stats.lost, &mut self.sink);
    }

    /// Kernel records first, then (SIGHUP) auditd.conf again, then one
    /// write(2) for the batch.
    fn batch(&mut self) {
        self.pump();
        if self.signals.take_hup() {
            self.reconfig.on_sighup(&mut self.sink, &mut self.kernel);
            self.reload_rules = true;
        }
        self.sink.log.commit();
    }
}

/// The answer to `fastaudit ctl --signal reload`: exit 1 with the lines
/// that refused auditd.conf or the rules (`failed`: the switch's own).
fn reload_reply(mut refused: Vec<String>, failed: Option<String>) -> Reply {
    refused.extend(failed);
    if refused.is_empty() {
        return Reply::default();
    }
    Reply::refused(&refused.join("\n"), 1)
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
