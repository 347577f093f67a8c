//! Reading what `fastaudit run` leaves: its log's records (split by the
//! same parser fastaudit uses, `fastaudit_records::parse`) and the final
//! counts it prints at stop.

use fastaudit_records::parse::parse_line;
use std::path::Path;

/// One record of a log: type name, serial, body (RAW part).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rec {
    /// Type name.
    pub ty: String,
    /// `SEC.MMM` of the stamp.
    pub time: String,
    /// Serial of the stamp.
    pub serial: u64,
    /// The body.
    pub body: String,
}

/// The record lines of `bytes` (lines that are not records, such as a
/// torn last line, are skipped).
pub fn records_in(bytes: &[u8]) -> Vec<Rec> {
    bytes
        .split(|&b| b == b'\n')
        .filter_map(parse_line)
        .map(|p| Rec {
            ty: String::from_utf8_lossy(p.ty).into_owned(),
            time: format!("{}.{:03}", p.stamp.sec, p.stamp.msec),
            serial: p.stamp.serial,
            body: String::from_utf8_lossy(p.body).into_owned(),
        })
        .collect()
}

/// The records of a log file (none if it is missing).
pub fn records(path: &Path) -> Vec<Rec> {
    records_in(&std::fs::read(path).unwrap_or_default())
}

/// A `key=value` field of a body, as a number.
pub fn field(body: &str, key: &str) -> Option<u64> {
    body.split(' ')
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

/// `fastaudit: stopped: G events generated, L logged, R lost in the ring
/// buffer, D dropped by the log`, as numbers (G, L, R, D).
pub fn final_counts(said: &[String]) -> Option<(u64, u64, u64, u64)> {
    let s = said
        .iter()
        .find_map(|l| l.strip_prefix("fastaudit: stopped: "))?;
    let n = |what: &str| -> Option<u64> {
        let i = s.find(what)?;
        s[..i].trim_end().rsplit([' ', ',']).next()?.parse().ok()
    };
    Some((
        n(" events generated")?,
        n(" logged")?,
        n(" lost in the ring buffer")?,
        n(" dropped by the log")?,
    ))
}

/// Serials that name more than one event: the records of one event are
/// consecutive and share a stamp, so a serial seen again after another
/// one, or with another time, is repeated.
pub fn repeated_serials(recs: &[Rec]) -> Vec<u64> {
    let mut seen = std::collections::HashMap::new();
    let mut repeated = Vec::new();
    let mut last: Option<(u64, &str)> = None;
    for r in recs {
        if last == Some((r.serial, r.time.as_str())) {
            continue;
        }
        if seen.insert(r.serial, r.time.as_str()).is_some() {
            repeated.push(r.serial);
        }
        last = Some((r.serial, r.time.as_str()));
    }
    repeated
}
