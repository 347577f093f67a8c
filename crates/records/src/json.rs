//! fastaudit's JSON lines: one object per event, its records (the RAW
//! lines of one stamp) grouped and decoded. Field names are stable:
//!
//! - `{"kind":"event","time":"SEC.MSEC","serial":N,["node":NAME,]"records":[...]}`
//! - each record: `"type"` (auditd's name), then every field of the RAW
//!   record under its own name, as a string: quotes removed; the kernel's
//!   hex form of untrusted strings (comm, exe, key, name, proctitle, EXECVE
//!   arguments, ...) decoded when the result is UTF-8, else left as hex;
//!   `key` as a list (the kernel joins several keys with 0x01; `(null)` is
//!   `[]`); a user-space `msg='...'` as an object of its fields (as a string
//!   when it does not start with `name=`; words without `=` belong to the
//!   field before them, as in `auditctl -m`'s `text=`). Then ENRICHED's interpretations in
//!   upper case (`UID`:"root", `ARCH`:"x86_64", `SYSCALL`:"fchmodat", ...),
//!   and for PROCTITLE and EXECVE the arguments as `ARGV` (a list).
//! - `{"kind":"stats",...}`: loss counters ([`stats`]).

use crate::enrich::{self, Names};
use crate::line::Stamp;
use serde_json::{Map, Value};

/// A record of an event: its type name (`SYSCALL`) and RAW body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// auditd's type name, `UNKNOWN[N]` for an unnamed type.
    pub ty: String,
    /// The body after `msg=audit(...): `.
    pub body: String,
}

/// Split a RAW line (`[node=N ]type=T msg=audit(S.M:N): BODY`) into its
/// type, stamp and body.
pub fn parse_line(line: &str) -> Option<(Record, Stamp)> {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let rest = match line.strip_prefix("node=") {
        Some(r) => r.split_once(' ')?.1,
        None => line,
    };
    let rest = rest.strip_prefix("type=")?;
    let (ty, rest) = rest.split_once(" msg=audit(")?;
    let (stamp, body) = match rest.split_once("): ") {
        Some(sb) => sb,
        None => (rest.strip_suffix("):").or(rest.strip_suffix(')'))?, ""),
    };
    let (time, serial) = stamp.split_once(':')?;
    let (sec, msec) = time.split_once('.')?;
    // An ENRICHED line's interpretations are not part of the record.
    let body = body.split('\x1d').next().unwrap_or(body);
    Some((
        Record {
            ty: ty.to_string(),
            body: body.to_string(),
        },
        Stamp {
            sec: sec.parse().ok()?,
            msec: msec.parse().ok()?,
            serial: serial.parse().ok()?,
        },
    ))
}

/// auditd's record fields: `name=value` words split on spaces, where a
/// value in double quotes, or a `msg='...'` in single quotes, may hold
/// spaces. A word without `=` is kept with an empty name.
pub fn fields(body: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        let (word, next) = match rest.find([' ', '=']) {
            Some(i) if rest.as_bytes()[i] == b'=' => {
                let name = &rest[..i];
                let v = &rest[i + 1..];
                let end = match v.chars().next() {
                    Some(q @ ('"' | '\'')) => v[1..].find(q).map_or(v.len(), |j| j + 2),
                    _ => v.find(' ').unwrap_or(v.len()),
                };
                out.push((name.to_string(), v[..end].to_string()));
                (None, &v[end..])
            }
            Some(i) => (Some(&rest[..i]), &rest[i..]),
            None => (Some(rest), ""),
        };
        if let Some(w) = word {
            out.push((String::new(), w.to_string()));
        }
        rest = next.trim_start();
    }
    out
}

/// Fields the kernel and auditd's tools write as untrusted strings:
/// quoted as they are, or hex when they hold a space, a quote or a
/// control byte.
const ENCODED: &[&str] = &[
    "comm",
    "exe",
    "key",
    "name",
    "cwd",
    "proctitle",
    "path",
    "cmd",
    "acct",
    "data",
    "ocomm",
    "grp",
    "new_group",
    "watch",
    "dir",
    "file",
    "root_dir",
    "cgroup",
    "sw",
    "vm",
];

fn is_arg(name: &str) -> bool {
    let n = name.strip_prefix('a').unwrap_or("");
    let n = n.split_once('[').map_or(n, |(a, _)| a);
    !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
}

fn unhex(v: &str) -> Option<Vec<u8>> {
    if v.is_empty() || !v.len().is_multiple_of(2) {
        return None;
    }
    (0..v.len() / 2)
        .map(|i| u8::from_str_radix(v.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

/// A value's bytes: unquoted, or decoded from hex for an encoded field.
fn bytes(name: &str, raw: &str, execve: bool) -> Option<Vec<u8>> {
    if let Some(q) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        return Some(q.as_bytes().to_vec());
    }
    if ENCODED.contains(&name) || (execve && is_arg(name)) {
        return unhex(raw);
    }
    None
}

fn text(name: &str, raw: &str, execve: bool) -> String {
    match bytes(name, raw, execve) {
        Some(b) => String::from_utf8(b).unwrap_or_else(|_| raw.to_string()),
        None => raw
            .strip_prefix('\'')
            .and_then(|r| r.strip_suffix('\''))
            .unwrap_or(raw)
            .to_string(),
    }
}

/// Words without `=` (free text, as in `auditctl -m`'s `text=a b c`)
/// belong to the field before them.
fn joined(fields: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (name, value) in fields {
        match out.last_mut() {
            Some(last) if name.is_empty() => {
                last.1.push(' ');
                last.1.push_str(&value);
            }
            _ => out.push((name, value)),
        }
    }
    out
}

fn object(body: &str, ty: &str) -> Map<String, Value> {
    let execve = ty == "EXECVE";
    let mut o = Map::new();
    let mut args: Vec<(usize, Vec<u8>)> = Vec::new();
    for (name, raw) in joined(fields(body)) {
        let value = if name == "key" {
            let keys = match bytes("key", &raw, false) {
                Some(b) => b
                    .split(|&c| c == 1)
                    .map(|k| Value::String(String::from_utf8_lossy(k).into_owned()))
                    .collect(),
                None => Vec::new(),
            };
            Value::Array(keys)
        } else if name == "msg" && raw.starts_with('\'') {
            let inner = raw.trim_matches('\'');
            match fields(inner).first() {
                Some((n, _)) if !n.is_empty() => Value::Object(object(inner, "")),
                _ => Value::String(inner.to_string()),
            }
        } else {
            Value::String(text(&name, &raw, execve))
        };
        if execve && is_arg(&name) {
            let n = name[1..].split_once('[').map_or(&name[1..], |(a, _)| a);
            if let (Ok(n), Some(b)) = (n.parse::<usize>(), bytes(&name, &raw, true)) {
                match args.iter_mut().find(|(i, _)| *i == n) {
                    Some((_, a)) => a.extend(b),
                    None => args.push((n, b)),
                }
            }
        }
        o.insert(name, value);
    }
    if ty == "PROCTITLE" {
        if let Some(b) = fields(body)
            .iter()
            .find(|(n, _)| n == "proctitle")
            .and_then(|(_, raw)| bytes("proctitle", raw, false))
        {
            let argv = b
                .split(|&c| c == 0)
                .map(|a| Value::String(String::from_utf8_lossy(a).into_owned()))
                .collect();
            o.insert("ARGV".into(), Value::Array(argv));
        }
    }
    if execve {
        args.sort_by_key(|(i, _)| *i);
        let argv = args
            .into_iter()
            .map(|(_, a)| Value::String(String::from_utf8_lossy(&a).into_owned()))
            .collect();
        o.insert("ARGV".into(), Value::Array(argv));
    }
    o
}

/// One record as a JSON object.
pub fn record(r: &Record, names: &dyn Names) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("type".into(), Value::String(r.ty.clone()));
    o.extend(object(&r.body, &r.ty));
    for i in enrich::interpret(r.body.as_bytes(), names) {
        o.insert(i.name, Value::String(i.value));
    }
    o
}

/// One event's JSON line (with its newline).
pub fn event(node: Option<&str>, stamp: Stamp, records: &[Record], names: &dyn Names) -> Vec<u8> {
    let mut o = Map::new();
    o.insert("kind".into(), "event".into());
    o.insert(
        "time".into(),
        format!("{}.{:03}", stamp.sec, stamp.msec).into(),
    );
    o.insert("serial".into(), stamp.serial.into());
    if let Some(n) = node {
        o.insert("node".into(), n.into());
    }
    let recs = records
        .iter()
        .map(|r| Value::Object(record(r, names)))
        .collect();
    o.insert("records".into(), Value::Array(recs));
    let mut line = Value::Object(o).to_string().into_bytes();
    line.push(b'\n');
    line
}

/// A `{"kind":"stats",...}` line: `time` and the counters, in order.
pub fn stats(node: Option<&str>, stamp: Stamp, counters: &[(&str, u64)]) -> Vec<u8> {
    let mut o = Map::new();
    o.insert("kind".into(), "stats".into());
    o.insert(
        "time".into(),
        format!("{}.{:03}", stamp.sec, stamp.msec).into(),
    );
    if let Some(n) = node {
        o.insert("node".into(), n.into());
    }
    for (k, v) in counters {
        o.insert((*k).into(), (*v).into());
    }
    let mut line = Value::Object(o).to_string().into_bytes();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests;
