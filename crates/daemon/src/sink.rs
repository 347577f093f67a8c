//! Every logged event also goes to the plugins (crate::plugins), as auditd
//! dispatches every record it handles: the log's lines, plus the EOE record
//! the kernel ends a syscall event with (passed to plugins, never logged).

use super::Side;
use crate::output::Output;
use crate::plugins::{Dispatcher, Report};
use fastaudit_log::Source;
use fastaudit_netlink::Record;
use fastaudit_records::{types, Stamp};

impl Side {
    /// Write one event's lines to the log and hand them to the plugins;
    /// `eoe`: the event is a syscall event, ended by an EOE of that stamp
    /// for the plugins. Plugins get it even when the log drops it, as
    /// auditd dispatches whatever its disk does. The log counts it for
    /// `source`, as logged or lost.
    pub fn log_event(
        &mut self,
        log: &mut Output,
        lines: &[u8],
        eoe: Option<Stamp>,
        source: Source,
    ) {
        self.log_events(log, lines, eoe, source, 1);
    }

    /// [`Side::log_event`] for lines that hold `events` events (a BPF
    /// event's URINGOP records are events of their own).
    pub fn log_events(
        &mut self,
        log: &mut Output,
        lines: &[u8],
        eoe: Option<Stamp>,
        source: Source,
        events: u64,
    ) {
        // Plugins get auditd's lines: with its node= prefix, never JSON.
        self.plugins.feed(&log.with_node(lines), eoe);
        log.write_events(lines, source, events);
    }

    /// A kernel EOE record (a task with an audit context ended a syscall
    /// event): to the plugins only.
    pub(super) fn kernel_eoe(&self, r: &Record) {
        if let Some((sec, msec, serial)) = r.stamp {
            self.plugins.feed_eoe(Stamp { sec, msec, serial });
        }
    }

    /// The plugins' lines of the status file.
    pub(super) fn plugin_status(&self) -> String {
        self.plugins.status()
    }

    /// Before DAEMON_END: a DAEMON_ERR per plugin that missed records.
    pub(super) fn report_plugin_drops(&mut self, log: &mut Output) {
        for (name, n) in self.plugins.dropped() {
            let body = format!(
                "op=plugin-dropped plugin={name} dropped={n} pid={} res=failed",
                std::process::id()
            );
            self.write_own(log, types::DAEMON_ERR, &body);
        }
    }

    /// After DAEMON_END: hand the plugins the rest, end them, report.
    pub(super) fn stop_plugins(&mut self) -> Vec<Report> {
        let d = std::mem::replace(&mut self.plugins, Dispatcher::none());
        let reports = d.stop();
        for r in &reports {
            eprintln!(
                "fastaudit: plugin {}: {} records delivered, {} dropped, {} restarts{}",
                r.name,
                r.delivered,
                r.dropped,
                r.restarts,
                if r.gave_up { ", given up" } else { "" }
            );
        }
        reports
    }
}
