//! The daemon side of `fastaudit run`: become the kernel's audit daemon
//! (unless --bpf-only), put the kernel records in the same log as the BPF
//! events with their own stamps, stamp fastaudit's own records from its
//! serial range, write DAEMON_START/END/ERR as auditd does, apply the rules'
//! kernel settings, and keep /run/fastaudit/status up to date.

use crate::cli::RunArgs;
use crate::output::Output;
use crate::plugins::Dispatcher;
use anyhow::{bail, Context, Result};
use companion::Joiner;
use fastaudit_log::{Fault, Source, Writer};
use fastaudit_netlink::proto::mask;
use fastaudit_netlink::{DaemonOptions, KernelDaemon, Record};
use fastaudit_records::daemon::{self as own, OwnSerials, Sender, Subject};
use fastaudit_records::enrich::SystemNames;
use fastaudit_records::line::line;
use fastaudit_records::{types, Format, Stamp};
use fastaudit_rules::RuleSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub mod companion;
pub mod control;
pub mod ctl_request;
mod ctl_status;
mod dispatch;
mod reconfigure;
mod settings;

use settings::setting_name;
pub use settings::KernelSettings;
mod rule_change;

/// fastaudit's files under /run: the state found at start and the counters.
pub const RUN_DIR: &str = "/run/fastaudit";

/// How often the status file is rewritten.
const STATUS_EVERY: Duration = Duration::from_secs(1);

/// Counters `run` hands in for the status file and the closing records.
#[derive(Clone, Copy, Debug, Default)]
pub struct BpfCounts {
    /// BPF events written to the log.
    pub logged: u64,
    /// BPF events lost in the ring buffer (known at the end only).
    pub lost: u64,
}

/// The daemon side of one run.
pub struct Side {
    kernel: Option<KernelDaemon>,
    serials: OwnSerials,
    format: Format,
    term: Arc<AtomicBool>,
    usr1: Arc<AtomicBool>,
    settings: KernelSettings,
    apply_irreversible: bool,
    overlap_reported: bool,
    status_file: PathBuf,
    status_written: Option<Instant>,
    /// LOGIN records and companion events waiting for each other.
    joiner: Joiner,
    /// Companion events dropped by design (a config send whose record
    /// never came): not written, not lost.
    companions_discarded: u64,
    /// The plugins every logged event goes to (dispatch.rs).
    plugins: Dispatcher,
    usr2: Arc<AtomicBool>,
    /// Notes for stderr.
    pub notes: Vec<String>,
}

/// Now, with `serial`.
pub fn now_stamp(serial: u64) -> Stamp {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Stamp {
        sec: now.as_secs(),
        msec: now.subsec_millis(),
        serial,
    }
}

fn proc_u32(path: &str) -> u32 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(u32::MAX)
}

fn me() -> Subject {
    Subject {
        auid: proc_u32("/proc/self/loginuid"),
        pid: std::process::id(),
        uid: nix::unistd::getuid().as_raw(),
        ses: proc_u32("/proc/self/sessionid"),
    }
}

impl Side {
    /// Write DAEMON_START, then (unless --bpf-only) register with the
    /// kernel, leave it only `-a never,task` and apply the rules' settings.
    /// Audit is turned on by [`Side::ready`], once the BPF side is loaded.
    /// Every event logged from here on also goes to `plugins`.
    pub fn start(
        args: &RunArgs,
        set: &RuleSet,
        format: Format,
        log: &mut Output,
        plugins: Dispatcher,
    ) -> Result<Side> {
        let settings = KernelSettings::of(set);
        if settings.panic && !args.bpf_only && !args.apply_irreversible {
            bail!(
                "the rules set `-f 2` (panic the kernel when audit fails): refused, since a \
                 stopped or slow reader would then panic the machine; pass --apply-irreversible to apply it"
            );
        }
        let term = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&term))
            .context("installing signal handlers")?;
        // SIGUSR2 resumes, as auditd's: logging suspended by a fault, and
        // passing events to plugins (overflow_action suspend).
        let usr2 = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGUSR2, Arc::clone(&usr2))
            .context("installing signal handlers")?;
        // SIGUSR1 rotates the log, as it does auditd's.
        let usr1 = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGUSR1, Arc::clone(&usr1))
            .context("installing signal handlers")?;
        let mut side = Side {
            kernel: None,
            serials: continued_serials(log),
            format,
            term,
            usr1,
            settings,
            apply_irreversible: args.apply_irreversible,
            overlap_reported: false,
            status_file: PathBuf::from(RUN_DIR).join("status"),
            status_written: None,
            joiner: Joiner::default(),
            companions_discarded: 0,
            plugins,
            usr2,
            notes: Vec::new(),
        };
        let fmt = format.name();
        let kernel = nix::sys::utsname::uname()
            .map(|u| u.release().to_string_lossy().into_owned())
            .unwrap_or_default();
        // auditd writes DAEMON_START before it registers.
        let body = own::start_body(env!("CARGO_PKG_VERSION"), fmt, &kernel, me());
        side.write_own(log, types::DAEMON_START, &body);
        log.commit();
        if args.bpf_only {
            if !side.settings.set.is_empty() || side.settings.lock {
                side.notes.push(
                    "--bpf-only: the rules' kernel settings (-b, -f, -r, --backlog_wait_time, -e) are not applied"
                        .into(),
                );
            }
            return Ok(side);
        }
        let opts = DaemonOptions {
            take_over: args.take_over,
            state_file: PathBuf::from(RUN_DIR).join("kernel-state"),
            ..DaemonOptions::default()
        };
        let daemon = match KernelDaemon::start(&opts) {
            Ok(d) => d,
            Err(e) => {
                side.write_own(log, types::DAEMON_ABORT, &own::abort_body("set-pid", me()));
                log.commit();
                return Err(e).context("becoming the kernel's audit daemon");
            }
        };
        side.notes.append(&mut daemon.notes.clone());
        side.kernel = Some(daemon);
        let sets = side.settings.set.clone();
        if let Some(k) = side.kernel.as_mut().filter(|k| !k.locked()) {
            for (m, v) in sets {
                k.set(m, v).with_context(|| {
                    format!(
                        "applying `{} {v}` from the rules to the kernel",
                        setting_name(m)
                    )
                })?;
            }
        }
        Ok(side)
    }

    /// The next serial of fastaudit's own range.
    pub fn serial(&mut self) -> u64 {
        self.serials.next_serial()
    }

    /// The BPF side is loaded and attached: turn the kernel audit on.
    pub fn ready(&mut self) -> Result<()> {
        let Some(k) = self.kernel.as_mut().filter(|k| !k.locked()) else {
            return Ok(());
        };
        k.enable().context("enabling the kernel audit")?;
        if self.apply_irreversible {
            if self.settings.loginuid_immutable {
                k.set_loginuid_immutable()
                    .context("applying --loginuid-immutable")?;
            }
            if self.settings.lock {
                k.set(mask::ENABLED, 2).context("applying -e 2")?;
            }
        }
        Ok(())
    }

    fn write_own(&mut self, log: &mut Output, ty: u32, body: &str) {
        let stamp = now_stamp(self.serial());
        let l = line(None, ty, stamp, body.as_bytes(), self.format, &SystemNames);
        self.log_event(log, &l, None, Source::Own);
    }

    /// A log fault that is over: DAEMON_ERR with what it cost.
    fn report_fault(&mut self, log: &mut Output, f: Fault) {
        let errno = f.kind.errno();
        let body = own::log_fault_body(
            f.kind.word(),
            errno.as_deref(),
            &f.action.to_string(),
            f.lost,
            std::process::id(),
        );
        self.write_own(log, types::DAEMON_ERR, &body);
    }

    /// Move the kernel records read so far into the log; report a log
    /// fault that is over; rotate on SIGUSR1, resume on SIGUSR2; rewrite
    /// the status file now and then.
    pub fn pump(&mut self, log: &mut Output, bpf: BpfCounts) {
        if let Some(f) = log.take_recovered() {
            self.report_fault(log, f);
        }
        let mut records = Vec::new();
        if let Some(k) = self.kernel.as_mut() {
            k.drain(|r| records.push(r));
        }
        let mut task_rules_changed = false;
        for r in records {
            if r.ty == fastaudit_netlink::proto::AUDIT_EOE {
                // auditd never writes EOE to disk, but passes it to plugins.
                self.kernel_eoe(&r);
                continue;
            }
            task_rules_changed |= u32::from(r.ty) == types::CONFIG_CHANGE
                && r.body.windows(7).any(|w| w == b" list=1");
            for o in self.joiner.kernel(r, Instant::now()) {
                self.write_out(log, o);
            }
        }
        for o in self.joiner.expired(Instant::now()) {
            self.write_out(log, o);
        }
        if task_rules_changed {
            self.keep_never_task(log);
        }
        if self.usr2.swap(false, Ordering::Relaxed) {
            self.plugins.resume();
            // auditd resumes first: DAEMON_RESUME is the first record
            // written again (its DAEMON_ERR follows once it is).
            let sender = self.sender();
            log.resume();
            self.write_own(
                log,
                types::DAEMON_RESUME,
                &own::resume_body(sender.as_ref()),
            );
        }
        if self.usr1.swap(false, Ordering::Relaxed) {
            // auditd rotates first: DAEMON_ROTATE opens the new file.
            let sender = self.sender();
            log.commit();
            log.rotate_now();
            self.write_own(
                log,
                types::DAEMON_ROTATE,
                &own::rotate_body(sender.as_ref()),
            );
        }
        if self
            .status_written
            .is_none_or(|t| t.elapsed() >= STATUS_EVERY)
        {
            self.status_written = Some(Instant::now());
            // Best effort: a status file that cannot be written stops nothing.
            let _ = self.write_status(log, bpf);
        }
    }

    fn write_kernel(&mut self, log: &mut Output, r: &Record) {
        let (_, l) = self.kernel_line(log, r);
        self.log_event(log, &l, None, Source::Kernel);
    }

    /// A kernel record's stamp and line.
    fn kernel_line(&mut self, log: &mut Output, r: &Record) -> (Stamp, Vec<u8>) {
        let (stamp, body) = match r.stamp {
            Some((sec, msec, serial)) => {
                if own::kernel_serial_overlaps(serial) && !self.overlap_reported {
                    self.overlap_reported = true;
                    let b = format!("op=serial-overlap serial={serial} res=failed");
                    self.write_own(log, types::DAEMON_ERR, &b);
                }
                (Stamp { sec, msec, serial }, r.body.clone())
            }
            // Not seen from the kernel; kept, stamped by fastaudit.
            None => (now_stamp(self.serial()), r.body.clone()),
        };
        let l = line(
            None,
            u32::from(r.ty),
            stamp,
            &body,
            self.format,
            &SystemNames,
        );
        (stamp, l)
    }

    /// Someone changed the task rules behind fastaudit's back: `-a never,task`
    /// goes back first so new tasks still get no audit context.
    fn keep_never_task(&mut self, log: &mut Output) {
        let Some(k) = self.kernel.as_mut() else {
            return;
        };
        match k.keep_never_task() {
            Ok(false) => {}
            Ok(true) => self.write_own(
                log,
                types::DAEMON_ERR,
                "op=restore-never-task reason=task-rules-changed res=success",
            ),
            Err(e) => {
                self.write_own(
                    log,
                    types::DAEMON_ERR,
                    "op=restore-never-task reason=task-rules-changed res=failed",
                );
                eprintln!("fastaudit: could not put -a never,task back: {e}");
            }
        }
    }

    fn write_status(&mut self, log: &Output, bpf: BpfCounts) -> std::io::Result<()> {
        let rx = self
            .kernel
            .as_ref()
            .map(KernelDaemon::stats)
            .unwrap_or_default();
        let text = format!(
            "pid {}\nmode {}\nrules_immutable {}\nbpf_events_logged {}\nkernel_records_received {}\nkernel_records_logged {}\nkernel_records_dropped {}\nkernel_socket_overruns {}\nkernel_read_errors {}\nlog_dropped {}\n",
            std::process::id(),
            if self.kernel.is_some() { "daemon" } else { "bpf-only" },
            u8::from(self.settings.lock),
            bpf.logged,
            rx.received,
            log.counts(Source::Kernel).logged + log.counts(Source::Joined).logged,
            rx.dropped,
            rx.overruns,
            rx.errors,
            log.lost(),
        ) + &self.plugin_status();
        std::fs::create_dir_all(RUN_DIR)?;
        let tmp = self.status_file.with_extension("tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &self.status_file)
    }

    /// Who sent the last TERM/HUP/USR1/USR2, as auditd reports it: the
    /// kernel's signal info, the owner and session of /proc/PID.
    fn sender(&mut self) -> Option<Sender> {
        self.sender_and_context().map(|(s, _)| s)
    }

    /// [`Side::sender`] and its LSM context, if the kernel gave one.
    fn sender_and_context(&mut self) -> Option<(Sender, Option<String>)> {
        let s = self.kernel.as_mut()?.signal_info().ok()?;
        let uid = std::fs::metadata(format!("/proc/{}", s.pid))
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
            .unwrap_or(u32::MAX);
        let ses = std::fs::read_to_string(format!("/proc/{}/sessionid", s.pid))
            .map(|t| t.trim().to_string())
            .unwrap_or_else(|_| "4294967295".into());
        let sender = Sender {
            auid: s.auid,
            uid,
            ses,
            pid: s.pid,
        };
        Some((sender, s.context))
    }

    /// The kernel record reader's counters so far (zero with --bpf-only).
    pub fn reader_stats(&self) -> fastaudit_netlink::ReaderStats {
        self.kernel
            .as_ref()
            .map(KernelDaemon::stats)
            .unwrap_or_default()
    }

    /// Stop: put the kernel back and unregister, log the last kernel
    /// records, the losses (a log fault's too, over or not) and DAEMON_END.
    pub fn finish(mut self, log: &mut Output, bpf: BpfCounts) -> Result<()> {
        // Only a SIGTERM to the registered daemon is recorded by the kernel.
        let sender = if self.term.load(Ordering::Relaxed) {
            self.sender()
        } else {
            None
        };
        let stopped = self.kernel.as_mut().map(KernelDaemon::stop);
        // What the stop itself logged (CONFIG_CHANGE of the restore) and
        // what was still queued; no never,task check any more.
        let mut rest = Vec::new();
        if let Some(k) = self.kernel.as_mut() {
            k.drain(|r| rest.push(r));
        }
        for r in rest {
            if r.ty == fastaudit_netlink::proto::AUDIT_EOE {
                self.kernel_eoe(&r);
                continue;
            }
            for o in self.joiner.kernel(r, Instant::now()) {
                self.write_out(log, o);
            }
        }
        for o in self.joiner.rest() {
            self.write_out(log, o);
        }
        // A fault over by now, or still going on (its record is then lost
        // too, and counted: the final counts on stderr say it).
        log.commit();
        if let Some(f) = log.take_recovered().or(log.fault_now()) {
            self.report_fault(log, f);
        }
        if bpf.lost > 0 {
            let body = format!(
                "op=lost-events lost={} pid={} res=failed",
                bpf.lost,
                std::process::id()
            );
            self.write_own(log, types::DAEMON_ERR, &body);
        }
        let rx = self
            .kernel
            .as_ref()
            .map(KernelDaemon::stats)
            .unwrap_or_default();
        if rx.dropped > 0 || rx.overruns > 0 {
            let body = format!(
                "op=lost-kernel-records dropped={} overruns={} pid={} res=failed",
                rx.dropped,
                rx.overruns,
                std::process::id()
            );
            self.write_own(log, types::DAEMON_ERR, &body);
        }
        self.report_plugin_drops(log);
        self.write_own(log, types::DAEMON_END, &own::end_body(sender.as_ref()));
        self.stop_plugins();
        let _ = std::fs::remove_file(&self.status_file);
        if let Some(Err(e)) = stopped {
            return Err(e).context("putting the kernel audit back as it was found");
        }
        if rx.dropped > 0 || rx.overruns > 0 {
            eprintln!(
                "fastaudit: kernel records: {} dropped (queue to the log full), {} socket overruns",
                rx.dropped, rx.overruns
            );
        }
        Ok(())
    }

    /// Companion events dropped by design (see [`Joiner::discarded`]).
    pub fn companions_discarded(&self) -> u64 {
        self.companions_discarded + self.joiner.discarded()
    }
}

/// fastaudit's serials, continued after the newest one in the log (a
/// crash leaves no counter behind; the log is the record of what was used).
fn continued_serials(log: &Writer) -> OwnSerials {
    // The default log size: enough to hold fastaudit records among any
    // burst of kernel ones.
    const TAIL: u64 = 8 << 20;
    let last = log
        .tail(TAIL)
        .ok()
        .and_then(|t| fastaudit_records::parse::last_own_serial(&t));
    OwnSerials::after(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bpf_only_side() -> Side {
        Side {
            kernel: None,
            serials: OwnSerials::default(),
            format: Format::Raw,
            term: Arc::default(),
            usr1: Arc::default(),
            settings: KernelSettings::default(),
            apply_irreversible: false,
            overlap_reported: false,
            status_file: PathBuf::from("/nonexistent/status"),
            status_written: None,
            joiner: Joiner::default(),
            companions_discarded: 0,
            plugins: Dispatcher::none(),
            usr2: Arc::default(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn kernel_records_keep_their_stamp_and_an_overlap_is_reported_once() {
        let (mut log, dir) = crate::output::scratch("fa-side");
        let mut side = bpf_only_side();
        for serial in [7, 1 << 31, (1 << 31) + 1] {
            let r = Record {
                ty: 1005,
                stamp: Some((1700000000, 5, serial)),
                body: b"pid=1 uid=0 auid=4294967295 ses=4294967295 msg='text=x'".to_vec(),
            };
            side.write_kernel(&mut log, &r);
        }
        log.flush();
        let text = std::fs::read_to_string(dir.join("audit.log")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert_eq!(
            lines[0],
            "type=USER msg=audit(1700000000.005:7): pid=1 uid=0 auid=4294967295 ses=4294967295 msg='text=x'"
        );
        assert!(
            lines[1].starts_with("type=DAEMON_ERR msg=audit(")
                && lines[1]
                    .ends_with(":2147483648): op=serial-overlap serial=2147483648 res=failed"),
            "{}",
            lines[1]
        );
        assert_eq!(log.counts(Source::Kernel).logged, 3);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
