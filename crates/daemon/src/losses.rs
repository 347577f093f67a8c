//! Events lost in the BPF ring buffer, reported as they happen, and the
//! failure flag (`-f`) applied to them as the kernel applies it to its own
//! losses (kernel/audit.c: audit_log_lost, audit_panic).
//!
//! The engine reads its counters about every 100 ms ([`Losses::seen`]).
//! A loss is logged as DAEMON_ERR (auditd's record for its own troubles)
//! at most once a second, `op=lost-events lost=N total=T`: `lost` the
//! events lost since the previous such record, `total` all so far; the
//! record at the stop carries the rest, so the `lost=` of a run's records
//! add up to its total and generated = logged + lost stays exact.
//!
//! The failure flag, as the kernel's: 0 nothing more; 1 a line in the
//! kernel log (/dev/kmsg) worded as the kernel's `audit_lost=` line, at
//! most once a second; 2 a kernel panic, but only when the rules' `-f 2`
//! was let through by `--apply-irreversible` (the kernel got it too);
//! otherwise a 2 is applied as 1 and said so at start.

use crate::sink::Sink;
use fastaudit_records::types;
use std::io::Write as _;
use std::time::{Duration, Instant};

/// At most one loss record and one kernel log line per this.
const EVERY: Duration = Duration::from_secs(1);

/// What a loss does besides its record (the rules' `-f`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// `-f 0`: the record only.
    Silent,
    /// `-f 1` (the kernel's default): a kernel log line too.
    Printk,
    /// `-f 2`, let through by `--apply-irreversible`: panic the kernel.
    Panic,
}

impl Failure {
    /// The flag to apply: the rules' `-f` if they set one, else the
    /// kernel's (`kernel`, None when it cannot be read: the kernel's
    /// default, 1). A 2 panics only when `panic_allowed` (the rules' `-f 2`
    /// and `--apply-irreversible`, fastaudit being the kernel's daemon);
    /// else it is applied as 1, with the note why.
    pub fn choose(
        rules: Option<u32>,
        kernel: Option<u32>,
        panic_allowed: bool,
    ) -> (Failure, Option<String>) {
        match rules.or(kernel).unwrap_or(1) {
            0 => (Failure::Silent, None),
            2 if panic_allowed && rules == Some(2) => (Failure::Panic, None),
            2 => {
                let whose = if rules.is_some() {
                    "the rules' -f 2 is not applied (needs --apply-irreversible and no --bpf-only)"
                } else {
                    "the kernel's failure flag is 2, but the rules do not ask for -f 2"
                };
                let note = format!(
                    "{whose}: events lost in fastaudit's ring buffer are logged and written to the kernel log (as -f 1), never a panic"
                );
                (Failure::Printk, Some(note))
            }
            _ => (Failure::Printk, None),
        }
    }

    /// The flag's number, as `-f` and `auditctl -s` give it.
    pub fn number(self) -> u32 {
        match self {
            Failure::Silent => 0,
            Failure::Printk => 1,
            Failure::Panic => 2,
        }
    }
}

/// The kernel's limits the kernel log line names, as `ctl -s` shows them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub rate_limit: u32,
    pub backlog_limit: u32,
}

/// The ring buffer's losses of a run.
pub struct Losses {
    failure: Failure,
    limits: Limits,
    /// Events lost so far, as last read.
    total: u64,
    /// Of them, those a record has reported.
    reported: u64,
    /// Of them, those stderr (and the kernel log) has told.
    told: u64,
    /// When the last record was written.
    last_record: Option<Instant>,
    /// When stderr (and the kernel log) last told of a loss.
    last_told: Option<Instant>,
}

/// What to do about the losses seen now.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// The record's `lost` (since the last record) and `total`.
    pub record: Option<(u64, u64)>,
    /// The line on stderr: lost since the last one, and `total`.
    pub tell: Option<(u64, u64)>,
    /// The kernel log line too (`-f 1`).
    pub printk: bool,
    pub panic: bool,
}

impl Losses {
    pub fn new(failure: Failure, limits: Limits) -> Losses {
        Losses {
            failure,
            limits,
            total: 0,
            reported: 0,
            told: 0,
            last_record: None,
            last_told: None,
        }
    }

    /// The events lost in the ring buffer so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The engine counted `total` events lost so far: log the new ones
    /// (at most once a second) and apply the failure flag.
    pub fn seen(&mut self, total: u64, sink: &mut Sink) {
        // A log that is failing or suspended would lose the record too:
        // it waits until the log takes records again, so the log's
        // records still add up (the journal and kernel log say it now).
        let log_down = sink.log.fault_now().is_some() || sink.log.suspended().is_some();
        let step = self.step(total, Instant::now(), log_down);
        if let Some((lost, total)) = step.record {
            sink.own(types::DAEMON_ERR, &record_body(lost, total));
            if step.panic {
                // The record on the disk first, as far as it can be.
                sink.log.flush();
            } else {
                sink.log.commit();
            }
        }
        if let Some((lost, total)) = step.tell {
            eprintln!(
                "fastaudit: {lost} events lost in the ring buffer ({total} in all since the start); the reader cannot keep up"
            );
        }
        if step.printk || step.panic {
            kernel_log(&kmsg_lines(self.total, self.limits, step.panic));
        }
        if step.panic {
            panic_kernel();
        }
    }

    /// The decision of [`Losses::seen`], at `now`: a record when events
    /// were lost since the last, the last is a second old and the log
    /// takes records (`log_down`: it does not); the line on stderr and
    /// the kernel log as often, whatever the log. A panic waits for
    /// nothing.
    pub(crate) fn step(&mut self, total: u64, now: Instant, log_down: bool) -> Step {
        self.total = self.total.max(total);
        let panic = self.failure == Failure::Panic;
        let due =
            |last: Option<Instant>| panic || last.is_none_or(|t| now.duration_since(t) >= EVERY);
        let mut step = Step {
            record: None,
            tell: None,
            printk: false,
            panic: false,
        };
        if self.total > self.reported && due(self.last_record) && (!log_down || panic) {
            step.record = Some((self.total - self.reported, self.total));
            self.reported = self.total;
            self.last_record = Some(now);
        }
        if self.total > self.told && due(self.last_told) {
            step.tell = Some((self.total - self.told, self.total));
            self.told = self.total;
            self.last_told = Some(now);
            step.printk = self.failure == Failure::Printk;
            step.panic = panic;
        }
        step
    }

    /// At the stop: the record of the losses not reported yet (`total`:
    /// the engine's final count).
    pub fn close(&mut self, total: u64, sink: &mut Sink) {
        self.total = self.total.max(total);
        let new = self.total - self.reported;
        if new > 0 {
            self.reported = self.total;
            sink.own(types::DAEMON_ERR, &record_body(new, self.total));
        }
    }
}

/// The loss record's body.
fn record_body(lost: u64, total: u64) -> String {
    format!(
        "op=lost-events lost={lost} total={total} pid={} res=failed",
        std::process::id()
    )
}

/// The kernel log lines of a loss, worded as kernel/audit.c words its own
/// (`audit_lost=... audit_rate_limit=... audit_backlog_limit=...`, then
/// the reason; under -f 2 the reason at emergency level), tagged
/// `fastaudit[PID]` so they are not taken for the kernel's.
fn kmsg_lines(total: u64, limits: Limits, panic: bool) -> Vec<String> {
    let pid = std::process::id();
    let (level, reason) = if panic {
        (0, "panic: BPF ring buffer full, events lost (-f 2)")
    } else {
        (3, "BPF ring buffer full, events lost")
    };
    vec![
        format!(
            "<4>fastaudit[{pid}]: audit_lost={total} audit_rate_limit={} audit_backlog_limit={}",
            limits.rate_limit, limits.backlog_limit
        ),
        format!("<{level}>fastaudit[{pid}]: audit: {reason}"),
    ]
}

/// Write `lines` to the kernel log, one write each (a /dev/kmsg write is
/// one message). Best effort: stderr says when it cannot be.
fn kernel_log(lines: &[String]) {
    let written = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/kmsg")
        .and_then(|mut f| lines.iter().try_for_each(|l| f.write_all(l.as_bytes())));
    if let Err(e) = written {
        eprintln!("fastaudit: warning: writing to the kernel log (/dev/kmsg): {e}");
    }
}

/// `-f 2`: panic the kernel now, as the kernel's audit_panic does. The
/// kernel has no call for user space to panic it; sysrq's crash (`c`
/// written to /proc/sysrq-trigger, which the kernel.sysrq sysctl does not
/// restrict) panics it the same way, console message and kdump included.
/// Should that be missing (no CONFIG_MAGIC_SYSRQ), the machine is halted
/// at once: under -f 2 nothing may go on unaudited.
fn panic_kernel() -> ! {
    let crash = std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/sysrq-trigger")
        .and_then(|mut f| f.write_all(b"c"));
    eprintln!(
        "fastaudit: -f 2: the kernel did not panic through /proc/sysrq-trigger ({}); halting",
        crash
            .err()
            .map_or_else(|| "no error".into(), |e| e.to_string())
    );
    // SAFETY: reboot(2) takes no pointers; it returns only on failure.
    unsafe { nix::libc::reboot(nix::libc::LINUX_REBOOT_CMD_HALT) };
    eprintln!(
        "fastaudit: -f 2: halting failed too ({}); stopping",
        std::io::Error::last_os_error()
    );
    std::process::abort();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn losses(f: Failure) -> Losses {
        Losses::new(f, Limits::default())
    }

    #[test]
    fn a_record_at_most_once_a_second_carrying_what_was_lost_since() {
        let mut l = losses(Failure::Printk);
        let t0 = Instant::now();
        let s = l.step(0, t0, false);
        assert_eq!(
            (s.record, s.tell, s.printk),
            (None, None, false),
            "nothing lost, nothing said"
        );
        let s = l.step(5, t0, false);
        assert_eq!((s.record, s.tell), (Some((5, 5)), Some((5, 5))));
        assert!(s.printk && !s.panic);
        // Within the second: counted, not yet said.
        let s = l.step(9, t0 + Duration::from_millis(300), false);
        assert_eq!((s.record, s.tell, s.printk), (None, None, false));
        assert_eq!(l.total(), 9);
        let s = l.step(12, t0 + Duration::from_millis(1000), false);
        assert_eq!(s.record, Some((7, 12)));
        // No new loss: no record, however long it has been.
        let s = l.step(12, t0 + Duration::from_secs(5), false);
        assert_eq!((s.record, s.tell), (None, None));
    }

    #[test]
    fn a_log_that_takes_no_records_gets_the_record_once_it_does() {
        let mut l = losses(Failure::Printk);
        let t0 = Instant::now();
        let s = l.step(3, t0, true);
        assert_eq!(s.record, None, "the log is down: the record waits");
        assert_eq!(
            s.tell,
            Some((3, 3)),
            "the journal and kernel log say it now"
        );
        assert!(s.printk);
        let s = l.step(8, t0 + Duration::from_secs(1), true);
        assert_eq!((s.record, s.tell), (None, Some((5, 8))));
        let s = l.step(8, t0 + Duration::from_millis(1100), false);
        assert_eq!(s.record, Some((8, 8)), "every loss in one record");
        assert_eq!(s.tell, None, "already said");
    }

    #[test]
    fn silent_records_without_the_kernel_log_and_panic_does_not_wait() {
        let mut l = losses(Failure::Silent);
        let s = l.step(1, Instant::now(), false);
        assert_eq!(s.record, Some((1, 1)));
        assert!(!s.printk && !s.panic);
        let mut l = losses(Failure::Panic);
        let t0 = Instant::now();
        let s = l.step(1, t0, true);
        assert!(
            s.panic && s.record.is_some(),
            "tried, even on a failing log"
        );
        assert!(
            l.step(2, t0, false).panic,
            "each loss panics, as the kernel's"
        );
    }

    #[test]
    fn a_two_panics_only_when_let_through() {
        assert_eq!(Failure::choose(Some(2), None, true).0, Failure::Panic);
        let (f, note) = Failure::choose(Some(2), Some(2), false);
        assert_eq!(f, Failure::Printk);
        assert!(note.unwrap().contains("--apply-irreversible"));
        let (f, note) = Failure::choose(None, Some(2), true);
        assert_eq!(f, Failure::Printk, "the kernel's own 2 is not the rules'");
        assert!(note.is_some());
        assert_eq!(Failure::choose(None, None, false), (Failure::Printk, None));
        assert_eq!(Failure::choose(Some(0), Some(1), false).0, Failure::Silent);
        assert_eq!(Failure::choose(None, Some(0), false).0, Failure::Silent);
    }

    #[test]
    fn the_kernel_log_lines_read_as_the_kernels() {
        let lines = kmsg_lines(
            42,
            Limits {
                rate_limit: 0,
                backlog_limit: 8192,
            },
            false,
        );
        assert!(lines[0].starts_with("<4>fastaudit["));
        assert!(lines[0].ends_with("]: audit_lost=42 audit_rate_limit=0 audit_backlog_limit=8192"));
        assert!(lines[1].starts_with("<3>"));
        assert!(kmsg_lines(1, Limits::default(), true)[1].starts_with("<0>"));
    }
}
