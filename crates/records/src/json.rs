//! fastaudit's JSON lines (`--format json`): one object per event, the
//! form SIEMs index and Laurel users know. docs/json.md is the schema.
//!
//! - `"ID":"SEC.MSEC:SERIAL"`, `"NODE"` with `name_format`, then each
//!   record under its type name: an object (`"SYSCALL":{...}`) for a type
//!   an event has once, a list for one it may repeat (`"PATH":[...]`).
//! - A record's fields under their own names, typed by name
//!   ([`fields`]): numbers, `"0x..."`, `"0o..."`, strings; the kernel's
//!   hex-encoded strings decoded; bytes that are not UTF-8 written `%xx`
//!   ([`escape`]); `key` a list; `msg='...'` an object.
//! - EXECVE's arguments (over all its records) and PROCTITLE's command
//!   line as `ARGV` lists; the interpretations ENRICHED adds in upper case.
//! - The loss counters close a run: `{"ID":...,"STATS":{...}}`.

mod escape;
mod fields;
mod record;

pub use escape::percent;
pub use fields::fields;

use crate::enrich::Names;
use crate::group::{self, Record};
use crate::line::Stamp;
use serde_json::{Map, Value};

/// Split a RAW or ENRICHED line into its record and stamp.
pub fn parse_line(line: &[u8]) -> Option<(Record, Stamp)> {
    let p = crate::parse::parse_line(line)?;
    let record = Record {
        ty: String::from_utf8_lossy(p.ty).into_owned(),
        body: p.body.to_vec(),
    };
    Some((record, p.stamp))
}

/// Record types written at most once in an event (the records
/// `audit_log_exit` writes once, LOGIN, user space's USER): an object
/// each. User-space and daemon types are events of their own
/// ([`group::standalone`]), so an object too. Any other type is a list.
const ONCE: &[&str] = &[
    "SYSCALL",
    "EXECVE",
    "CWD",
    "PROCTITLE",
    "SOCKADDR",
    "FD_PAIR",
    "MMAP",
    "OPENAT2",
    "CAPSET",
    "BPRM_FCAPS",
    "KERN_MODULE",
    "URINGOP",
    "LOGIN",
    "USER",
];

fn once(ty: &str) -> bool {
    ONCE.contains(&ty) || group::standalone(ty)
}

/// The event id, as auditd's `msg=audit(...)` and Laurel write it.
fn id(stamp: Stamp) -> Value {
    format!("{}.{:03}:{}", stamp.sec, stamp.msec, stamp.serial).into()
}

fn head(node: Option<&str>, stamp: Stamp) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("ID".into(), id(stamp));
    if let Some(n) = node {
        o.insert("NODE".into(), percent(n.as_bytes()).into());
    }
    o
}

fn line(o: Map<String, Value>) -> Vec<u8> {
    let mut line = Value::Object(o).to_string().into_bytes();
    line.push(b'\n');
    line
}

/// One event's JSON line (with its newline).
pub fn event(node: Option<&str>, stamp: Stamp, records: &[Record], names: &dyn Names) -> Vec<u8> {
    event_in(node, stamp, records, names, None)
}

/// [`event`] with where its task ran (`container`, `k8s`, `cgroup`
/// objects after the records).
pub fn event_in(
    node: Option<&str>,
    stamp: Stamp,
    records: &[Record],
    names: &dyn Names,
    workload: Option<&crate::Workload>,
) -> Vec<u8> {
    let mut o = head(node, stamp);
    let mut args = record::Args::new();
    for r in records {
        let rec = record::record(&r.ty, &r.body, names, &mut args);
        let ty = percent(r.ty.as_bytes());
        match o.get_mut(&ty) {
            None if once(&r.ty) => {
                o.insert(ty, Value::Object(rec));
            }
            None => {
                o.insert(ty, Value::Array(vec![Value::Object(rec)]));
            }
            Some(Value::Array(list)) => list.push(Value::Object(rec)),
            // A long argument list takes several EXECVE records: one object.
            Some(Value::Object(first)) if r.ty == "EXECVE" => {
                for (k, v) in rec {
                    first.entry(k).or_insert(v);
                }
            }
            // A type the kernel writes once, twice after all: a list
            // rather than a record lost.
            Some(other) => {
                let first = other.take();
                *other = Value::Array(vec![first, Value::Object(rec)]);
            }
        }
    }
    if let Some(Value::Object(execve)) = o.get_mut("EXECVE") {
        let argv = args.values().map(|a| Value::String(percent(a))).collect();
        execve.insert("ARGV".into(), Value::Array(argv));
    }
    if let Some(w) = workload {
        w.json_into(&mut o);
    }
    line(o)
}

/// The loss counters' line, `{"ID":"SEC.MSEC:0","STATS":{...}}` (serial 0:
/// no event has it), the counters in order.
pub fn stats(node: Option<&str>, stamp: Stamp, counters: &[(&str, u64)]) -> Vec<u8> {
    let mut o = head(node, Stamp { serial: 0, ..stamp });
    let counters = counters
        .iter()
        .map(|(k, v)| ((*k).to_string(), Value::from(*v)))
        .collect();
    o.insert("STATS".into(), Value::Object(counters));
    line(o)
}

#[cfg(test)]
mod tests;
