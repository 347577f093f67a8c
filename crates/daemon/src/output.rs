//! The log as `run` writes it: the writer (crates/log) behind what
//! auditd.conf adds to each line or event. Everything reaches it as RAW
//! (or ENRICHED) lines, one event per [`Output::write_event`]; here they get
//! auditd's `node=NAME ` prefix, or become one JSON object per event
//! (records of one stamp gathered, crates/records' `group` and `json`).
//! log_group's ownership is the writer's (crates/log).

use fastaudit_log::{Source, Writer};
use fastaudit_records::enrich::SystemNames;
use fastaudit_records::group::{self, Event, Grouper};
use fastaudit_records::json;
use fastaudit_records::{Stamp, Workload};
use std::time::{Duration, Instant};

/// The log with auditd.conf's additions.
pub struct Output {
    writer: Writer,
    node: Option<String>,
    /// JSON: events being gathered.
    json: Option<Grouper>,
}

impl std::ops::Deref for Output {
    type Target = Writer;
    fn deref(&self) -> &Writer {
        &self.writer
    }
}

impl std::ops::DerefMut for Output {
    fn deref_mut(&mut self) -> &mut Writer {
        &mut self.writer
    }
}

impl Output {
    /// Around an open writer: `node` for auditd's name_format, `json` with
    /// end_of_event_timeout.
    pub fn new(writer: Writer, node: Option<String>, json: Option<Duration>) -> Output {
        Output {
            writer,
            node,
            json: json.map(Grouper::new),
        }
    }

    /// New auditd.conf settings while running: the node name, and JSON
    /// (with its gathering time) or not. Events being gathered are written
    /// first, as they were gathered.
    pub fn reshape(&mut self, node: Option<String>, json: Option<Duration>) {
        if node != self.node || json.is_some() != self.json.is_some() {
            self.write_gathered(true);
        }
        self.node = node;
        match (json, self.json.is_some()) {
            (None, _) => self.json = None,
            (Some(t), false) => self.json = Some(Grouper::new(t)),
            (Some(_), true) => {}
        }
    }

    /// An event's lines as auditd writes them: each with `node=NAME ` first
    /// when name_format asks for it (what plugins get too).
    pub fn with_node<'a>(&self, lines: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        match &self.node {
            None => std::borrow::Cow::Borrowed(lines),
            Some(n) => {
                let mut out = Vec::with_capacity(lines.len() + 32);
                for l in lines.split_inclusive(|&b| b == b'\n') {
                    out.extend_from_slice(format!("node={n} ").as_bytes());
                    out.extend_from_slice(l);
                }
                std::borrow::Cow::Owned(out)
            }
        }
    }

    /// Write the lines of `events` events from `source` (RAW or ENRICHED,
    /// one per record); the writer counts them as logged or lost.
    pub fn write_events(&mut self, lines: &[u8], source: Source, events: u64) {
        self.write_events_in(lines, source, events, None);
    }

    /// [`Output::write_events`], a JSON event with where its task ran.
    pub fn write_events_in(
        &mut self,
        lines: &[u8],
        source: Source,
        events: u64,
        workload: Option<&Workload>,
    ) {
        if self.json.is_none() {
            let lines = self.with_node(lines);
            self.writer.write_events(&lines, source, events);
            return;
        }
        let mut records: Vec<(group::Record, Stamp)> = lines
            .split(|&b| b == b'\n')
            .filter_map(json::parse_line)
            .collect();
        match records.len() {
            0 => {}
            // A kernel record: gathered with the others of its stamp, and
            // counted, record by record, when its event is written.
            1 if source != Source::Event => {
                let (r, s) = records.remove(0);
                for e in self.grouper().push(s, r, Instant::now()) {
                    let n = e.1.len() as u64;
                    self.write_json(e, source, n);
                }
            }
            // An event fastaudit put together (BPF, joined).
            _ => {
                let stamp = records[0].1;
                let e = (stamp, records.into_iter().map(|(r, _)| r).collect());
                self.write_json_in(e, source, events, workload);
            }
        }
    }

    fn grouper(&mut self) -> &mut Grouper {
        self.json
            .get_or_insert_with(|| Grouper::new(Duration::ZERO))
    }

    fn write_json(&mut self, e: Event, source: Source, events: u64) {
        self.write_json_in(e, source, events, None);
    }

    fn write_json_in(
        &mut self,
        (stamp, records): Event,
        source: Source,
        events: u64,
        workload: Option<&Workload>,
    ) {
        let line = json::event_in(
            self.node.as_deref(),
            stamp,
            &records,
            &SystemNames,
            workload,
        );
        self.writer.write_events(&line, source, events);
    }

    /// Every event still being gathered (JSON), counted as kernel events.
    fn write_gathered(&mut self, all: bool) {
        let Some(g) = self.json.as_mut() else {
            return;
        };
        let events = if all {
            g.rest()
        } else {
            g.expired(Instant::now())
        };
        for e in events {
            let n = e.1.len() as u64;
            self.write_json(e, Source::Kernel, n);
        }
    }

    /// JSON: a `{"ID":...,"STATS":{...}}` line with these counters, after every
    /// event still being gathered (it closes the stream).
    pub fn write_stats(&mut self, stamp: Stamp, counters: &[(&str, u64)]) {
        if self.json.is_some() {
            self.write_gathered(true);
            let line = json::stats(self.node.as_deref(), stamp, counters);
            self.writer.write_events(&line, Source::Own, 0);
        }
    }

    /// JSON: write every event still being gathered now, open or not (the
    /// stop's last kernel records go before DAEMON_END, in the order they
    /// came, as RAW has them).
    pub fn write_open_events(&mut self) {
        self.write_gathered(true);
    }

    /// Write what is pending (JSON: the events that timed out), then as the
    /// writer's commit.
    pub fn commit(&mut self) {
        self.write_gathered(false);
        self.writer.commit();
    }

    /// Write everything, open events included, and push it to the disk.
    pub fn flush(&mut self) {
        self.write_gathered(true);
        self.writer.flush();
    }
}

/// An output on a fresh log in a directory of its own under the temp dir
/// (no space checks), for unit tests; the directory is returned to read.
#[cfg(test)]
pub(crate) fn scratch(name: &str) -> (Output, std::path::PathBuf) {
    use fastaudit_log::{Config, Threshold};
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let writer = Writer::open(Config {
        space_left: Threshold::Mib(0),
        admin_space_left: Threshold::Mib(0),
        ..Config::new(dir.join("audit.log"))
    })
    .expect("a log in a fresh temporary directory");
    (Output::new(writer, None, None), dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reshape_takes_the_node_and_json_from_the_next_event_on() {
        let (mut log, dir) = scratch("fa-output");
        let event = b"type=SYSCALL msg=audit(1700000000.005:7): arch=c000003e syscall=90 success=yes exit=0 key=(null)\ntype=PROCTITLE msg=audit(1700000000.005:7): proctitle=6C73\n";
        log.write_events(event, Source::Event, 1);
        log.reshape(Some("n1".into()), Some(Duration::from_secs(2)));
        log.write_events(event, Source::Event, 1);
        log.reshape(None, None);
        log.write_events(event, Source::Event, 1);
        log.flush();
        let text = std::fs::read_to_string(dir.join("audit.log")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert!(lines[0].starts_with("type=SYSCALL "));
        assert!(
            lines[2].starts_with('{') && lines[2].contains(r#""NODE":"n1""#),
            "{}",
            lines[2]
        );
        assert!(lines[3].starts_with("type=SYSCALL "));
        assert_eq!(log.counts(Source::Event).logged, 3);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
