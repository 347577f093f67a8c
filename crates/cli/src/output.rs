//! The log as `run` writes it: the writer (crates/log) behind what
//! auditd.conf adds to each line or event. Everything reaches it as RAW
//! (or ENRICHED) lines, one event per [`Output::write_event`]; here they get
//! auditd's `node=NAME ` prefix, or become one JSON object per event
//! (records of one stamp gathered, crates/records' `group` and `json`), and
//! the log keeps auditd's log_group ownership across rotations.

use fastaudit_log::{LogError, Writer};
use fastaudit_records::enrich::SystemNames;
use fastaudit_records::group::{Event, Grouper};
use fastaudit_records::json;
use fastaudit_records::Stamp;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The log with auditd.conf's additions.
pub struct Output {
    writer: Writer,
    node: Option<String>,
    /// JSON: events being gathered.
    json: Option<Grouper>,
    /// log_group, and the log file's inode it was applied to.
    group: Option<(u32, u64)>,
    /// Whether log_group also owns the log's directory (auditd's log_file
    /// from the configuration; not a `--log` the file never checked).
    group_dir: bool,
    path: PathBuf,
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
    /// Around an open writer of `path`: `node` for auditd's name_format,
    /// `json` with end_of_event_timeout, `group`: log_group (not root),
    /// with its directory too when `group_dir`.
    pub fn new(
        writer: Writer,
        path: PathBuf,
        node: Option<String>,
        json: Option<Duration>,
        group: Option<(u32, bool)>,
    ) -> std::io::Result<Output> {
        let mut o = Output {
            writer,
            node,
            json: json.map(Grouper::new),
            group: group.map(|(g, _)| (g, 0)),
            group_dir: group.is_some_and(|(_, d)| d),
            path,
        };
        o.keep_group()?;
        Ok(o)
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

    /// Write one event's lines (RAW or ENRICHED, one per record). Returns
    /// false when the writer dropped it (suspended).
    pub fn write_event(&mut self, lines: &[u8]) -> Result<bool, LogError> {
        if self.json.is_none() {
            let lines = self.with_node(lines);
            return self.writer.write_event(&lines);
        }
        let text = String::from_utf8_lossy(lines);
        let mut records: Vec<(json::Record, Stamp)> =
            text.lines().filter_map(json::parse_line).collect();
        let mut ok = true;
        // Several records: an event fastaudit put together (BPF, joined).
        let events: Vec<Event> = match records.len() {
            0 => Vec::new(),
            1 => {
                let (r, s) = records.remove(0);
                self.grouper().push(s, r, Instant::now())
            }
            _ => {
                let stamp = records[0].1;
                vec![(stamp, records.into_iter().map(|(r, _)| r).collect())]
            }
        };
        for e in events {
            ok &= self.write_json(e)?;
        }
        Ok(ok)
    }

    fn grouper(&mut self) -> &mut Grouper {
        self.json
            .get_or_insert_with(|| Grouper::new(Duration::ZERO))
    }

    fn write_json(&mut self, (stamp, records): Event) -> Result<bool, LogError> {
        let line = json::event(self.node.as_deref(), stamp, &records, &SystemNames);
        self.writer.write_event(&line)
    }

    /// JSON: a `{"kind":"stats"}` line with these counters, after every
    /// event still being gathered (it closes the stream).
    pub fn write_stats(&mut self, stamp: Stamp, counters: &[(&str, u64)]) -> Result<(), LogError> {
        if let Some(g) = self.json.as_mut() {
            for e in g.rest() {
                self.write_json(e)?;
            }
            let line = json::stats(self.node.as_deref(), stamp, counters);
            self.writer.write_event(&line)?;
        }
        Ok(())
    }

    /// Write what is pending (JSON: the events that timed out), then as the
    /// writer's commit.
    pub fn commit(&mut self) -> Result<(), LogError> {
        if let Some(g) = self.json.as_mut() {
            for e in g.expired(Instant::now()) {
                self.write_json(e)?;
            }
        }
        self.writer.commit()?;
        self.keep_group().map_err(|source| LogError::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// Write everything, open events included, and push it to the disk.
    pub fn flush(&mut self) -> Result<(), LogError> {
        if let Some(g) = self.json.as_mut() {
            for e in g.rest() {
                self.write_json(e)?;
            }
        }
        self.writer.flush()
    }

    /// Rotate now (SIGUSR1); the new file gets log_group's ownership.
    pub fn rotate_now(&mut self) -> Result<(), LogError> {
        self.writer.rotate_now()?;
        self.keep_group().map_err(|source| LogError::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// auditd's log_group: the live log root:GROUP 0640, its directory
    /// root:GROUP 0750 (see `group_dir`), rotated logs 0440. Applied when the file is new
    /// (at start and after a rotation: its inode changed).
    fn keep_group(&mut self) -> std::io::Result<()> {
        let Some((gid, seen)) = self.group else {
            return Ok(());
        };
        let meta = std::fs::metadata(&self.path)?;
        if meta.ino() == seen {
            return Ok(());
        }
        let gid = Some(nix::unistd::Gid::from_raw(gid));
        let chown = |p: &std::path::Path| {
            nix::unistd::chown(p, Some(nix::unistd::Uid::from_raw(0)), gid)
                .map_err(std::io::Error::from)
        };
        chown(&self.path)?;
        std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(0o640))?;
        let dir = self.path.parent().filter(|d| !d.as_os_str().is_empty());
        if let Some(dir) = dir.filter(|_| self.group_dir) {
            chown(dir)?;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o750))?;
        }
        for n in 1.. {
            let old = PathBuf::from(format!("{}.{n}", self.path.display()));
            if !old.exists() {
                break;
            }
            chown(&old)?;
            std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o440))?;
        }
        self.group = self.group.map(|(g, _)| (g, meta.ino()));
        Ok(())
    }
}
