//! Where every record goes (auditd's distribute_event): the log
//! (output.rs) and the plugins (fastaudit_plugins), each record stamped:
//! a kernel record with its own stamp, fastaudit's own records (DAEMON_*,
//! the CONFIG_CHANGE of its rule changes) with a serial of its own range.
//! Plugins get every record the log is handed, even one the log drops, as
//! auditd dispatches whatever its disk does, plus the EOE record the
//! kernel ends a syscall event with (never logged).

use crate::output::Output;
use fastaudit_log::{Fault, Source, Writer};
use fastaudit_netlink::Record;
use fastaudit_plugins::{Dispatcher, Report, Settings as PluginSettings};
use fastaudit_records::daemon::{self as own, OwnSerials, Sender};
use fastaudit_records::enrich::SystemNames;
use fastaudit_records::line::line;
use fastaudit_records::{types, Format, Stamp, Workload};

/// The log and the plugins, and the stamps of fastaudit's own records.
pub struct Sink {
    /// The log.
    pub log: Output,
    /// The plugins every logged event goes to.
    plugins: Dispatcher,
    /// fastaudit's own serial range.
    serials: OwnSerials,
    /// The format records are written in now (a reconfiguration may change it).
    format: Format,
    /// A kernel serial in fastaudit's range was reported (once is enough).
    overlap_reported: bool,
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

impl Sink {
    /// Around the open log and the started plugins; fastaudit's serials go
    /// on after the newest of its own in the log.
    pub fn new(log: Output, plugins: Dispatcher, format: Format) -> Sink {
        Sink {
            serials: continued_serials(&log),
            log,
            plugins,
            format,
            overlap_reported: false,
        }
    }

    /// The next serial of fastaudit's own range.
    pub fn serial(&mut self) -> u64 {
        self.serials.next_serial()
    }

    /// The format records are written in now.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Write one event's lines to the log and hand them to the plugins;
    /// `eoe`: the event is a syscall event, ended by an EOE of that stamp
    /// for the plugins. The log counts it for `source`, as logged or lost.
    pub fn write(&mut self, lines: &[u8], eoe: Option<Stamp>, source: Source) {
        self.write_events(lines, eoe, source, 1);
    }

    /// [`Sink::write`] for lines that hold `events` events (a BPF event's
    /// URINGOP records are events of their own).
    pub fn write_events(&mut self, lines: &[u8], eoe: Option<Stamp>, source: Source, events: u64) {
        self.write_events_in(lines, eoe, source, events, None);
    }

    /// [`Sink::write_events`] for a BPF event whose task ran in
    /// `workload` (JSON writes it; ENRICHED lines have it already).
    pub fn write_events_in(
        &mut self,
        lines: &[u8],
        eoe: Option<Stamp>,
        source: Source,
        events: u64,
        workload: Option<&Workload>,
    ) {
        // Plugins get auditd's lines: with its node= prefix, never JSON.
        self.plugins.feed(&self.log.with_node(lines), eoe);
        self.log.write_events_in(lines, source, events, workload);
    }

    /// One of fastaudit's own records, stamped now with its own serial.
    pub fn own(&mut self, ty: u32, body: &str) {
        let stamp = now_stamp(self.serial());
        let l = line(None, ty, stamp, body.as_bytes(), self.format, &SystemNames);
        self.write(&l, None, Source::Own);
    }

    /// A kernel record alone.
    pub fn kernel(&mut self, r: &Record) {
        let (_, l) = self.kernel_line(r);
        self.write(&l, None, Source::Kernel);
    }

    /// A kernel record's stamp and line: its own stamp (a serial inside
    /// fastaudit's range is reported once, DAEMON_ERR), or fastaudit's
    /// when the kernel gave none.
    pub fn kernel_line(&mut self, r: &Record) -> (Stamp, Vec<u8>) {
        let stamp = match r.stamp {
            Some((sec, msec, serial)) => {
                if own::kernel_serial_overlaps(serial) && !self.overlap_reported {
                    self.overlap_reported = true;
                    let b = format!("op=serial-overlap serial={serial} res=failed");
                    self.own(types::DAEMON_ERR, &b);
                }
                Stamp { sec, msec, serial }
            }
            // Not seen from the kernel; kept, stamped by fastaudit.
            None => now_stamp(self.serial()),
        };
        let l = line(
            None,
            u32::from(r.ty),
            stamp,
            &r.body,
            self.format,
            &SystemNames,
        );
        (stamp, l)
    }

    /// A kernel EOE record (a task with an audit context ended a syscall
    /// event): to the plugins only.
    pub fn kernel_eoe(&self, r: &Record) {
        if let Some((sec, msec, serial)) = r.stamp {
            self.plugins.feed_eoe(Stamp { sec, msec, serial });
        }
    }

    /// A log fault that is over: DAEMON_ERR with what it cost.
    pub fn report_fault(&mut self, f: Fault) {
        let errno = f.kind.errno();
        let body = own::log_fault_body(
            f.kind.word(),
            errno.as_deref(),
            &f.action.to_string(),
            f.lost,
            std::process::id(),
        );
        self.own(types::DAEMON_ERR, &body);
    }

    /// SIGUSR2 (from `sender`): logging and plugins resume, as auditd's.
    pub fn resume(&mut self, sender: Option<&Sender>) {
        self.plugins.resume();
        // auditd resumes first: DAEMON_RESUME is the first record
        // written again (its DAEMON_ERR follows once it is).
        self.log.resume();
        self.own(types::DAEMON_RESUME, &own::resume_body(sender));
    }

    /// SIGUSR1 (from `sender`): the log rotates, as auditd's.
    pub fn rotate(&mut self, sender: Option<&Sender>) {
        // auditd rotates first: DAEMON_ROTATE opens the new file.
        self.log.commit();
        self.log.rotate_now();
        self.own(types::DAEMON_ROTATE, &own::rotate_body(sender));
    }

    /// A reconfiguration: the new format, and the plugins' new settings.
    pub fn reconfigure(&mut self, format: Format, plugins: &PluginSettings) {
        self.format = format;
        let mut notes = Vec::new();
        self.plugins
            .reconfigure(plugins, crate::dispatch::wire(format), &mut notes);
        for n in notes {
            eprintln!("fastaudit: {n}");
        }
    }

    /// The plugins' lines of the status file.
    pub fn plugin_status(&self) -> String {
        self.plugins.status()
    }

    /// Before DAEMON_END: a DAEMON_ERR per plugin that missed records.
    pub fn report_plugin_drops(&mut self) {
        for (name, n) in self.plugins.dropped() {
            let body = format!(
                "op=plugin-dropped plugin={name} dropped={n} pid={} res=failed",
                std::process::id()
            );
            self.own(types::DAEMON_ERR, &body);
        }
    }

    /// After DAEMON_END: hand the plugins the rest and end them.
    pub fn stop_plugins(&mut self) -> Vec<Report> {
        std::mem::replace(&mut self.plugins, Dispatcher::none()).stop()
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

    #[test]
    fn kernel_records_keep_their_stamp_and_an_overlap_is_reported_once() {
        let (log, dir) = crate::output::scratch("fa-sink");
        let mut sink = Sink::new(log, Dispatcher::none(), Format::Raw);
        for serial in [7, 1 << 31, (1 << 31) + 1] {
            let r = Record {
                ty: 1005,
                stamp: Some((1700000000, 5, serial)),
                body: b"pid=1 uid=0 auid=4294967295 ses=4294967295 msg='text=x'".to_vec(),
            };
            sink.kernel(&r);
        }
        sink.log.flush();
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
        assert_eq!(sink.log.counts(Source::Kernel).logged, 3);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
