//! auditd's framing of a record into a log line: `[node=N ]type=NAME
//! msg=audit(SEC.MMM:SERIAL): BODY`, newlines turned into spaces, a
//! trailing space dropped, and for ENRICHED logs a 0x1D then the
//! interpreted fields.

use crate::enrich::{self, Names};
use fastaudit_rules::tables;
use std::io::Write as _;

/// Log line format (auditd's `log_format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Records as the kernel wrote them.
    #[default]
    Raw,
    /// RAW plus interpreted ids, arch and syscall after a 0x1D byte.
    Enriched,
    /// fastaudit's JSON lines, one object per event ([`crate::json`]); a
    /// single record's line is RAW, and events are built from RAW lines.
    Json,
}

impl Format {
    /// The name DAEMON_START's `format=` gives it (auditd: `raw`, `enriched`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Raw => "raw",
            Format::Enriched => "enriched",
            Format::Json => "json",
        }
    }
}

/// Event time and serial, shared by every record of one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Seconds since the epoch.
    pub sec: u64,
    /// Milliseconds (0-999).
    pub msec: u32,
    /// Event serial number.
    pub serial: u64,
}

/// The type name auditd writes for a record type number.
pub fn type_name(ty: u32) -> String {
    tables::msgtypes()
        .name(ty)
        .map_or_else(|| format!("UNKNOWN[{ty}]"), str::to_string)
}

/// One complete log line (with its newline).
pub fn line(
    node: Option<&str>,
    ty: u32,
    stamp: Stamp,
    body: &[u8],
    format: Format,
    names: &dyn Names,
) -> Vec<u8> {
    let mut o = Vec::with_capacity(body.len() + 64);
    if let Some(n) = node {
        let _ = write!(o, "node={n} ");
    }
    let _ = write!(
        o,
        "type={} msg=audit({}.{:03}:{}): ",
        type_name(ty),
        stamp.sec,
        stamp.msec,
        stamp.serial
    );
    o.extend(body.iter().map(|&b| if b == b'\n' { b' ' } else { b }));
    if o.last() == Some(&b' ') {
        o.pop();
    }
    if format == Format::Enriched {
        let extra = enrich::suffix(body, names);
        if !extra.is_empty() {
            o.push(0x1d);
            o.extend_from_slice(&extra);
        }
    }
    o.push(b'\n');
    o
}
