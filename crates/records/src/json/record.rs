//! One record's JSON object: its fields typed by name ([`super::fields`]),
//! `key` as a list, user space's `msg='...'` as an object, PROCTITLE's
//! command line as `ARGV`, EXECVE's arguments gathered for the event's
//! `ARGV`, then the interpretations ENRICHED adds (`UID`, `SYSCALL`, ...,
//! `SADDR` as an object).

use super::escape::percent;
use super::fields::{fields, is_arg, joined, quoted, unhex, untrusted, value};
use crate::enrich::{self, Names};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// EXECVE arguments by number, gathered over the event's EXECVE records
/// (a long argument comes in pieces, `aN[0]`, `aN[1]`, ..., in order).
pub(crate) type Args = BTreeMap<usize, Vec<u8>>;

/// The member name of words that come before any `name=` in a record.
const FREE_TEXT: &str = "text";

/// The rule keys: the kernel joins several with 0x01; `(null)` is none.
fn keys(raw: &[u8]) -> Value {
    if raw == b"(null)" {
        return Value::Array(Vec::new());
    }
    let bytes = untrusted(raw).unwrap_or_else(|| raw.to_vec());
    Value::Array(
        bytes
            .split(|&b| b == 1)
            .map(|k| Value::String(percent(k)))
            .collect(),
    )
}

/// User space's `msg='...'`: an object of its fields, or a string when it
/// does not start with `name=`.
fn message(raw: &[u8]) -> Value {
    let inner = quoted(raw, b'\'').unwrap_or(&raw[1..]);
    match fields(inner).first() {
        Some((name, _)) if !name.is_empty() => Value::Object(members(inner, "", &mut Args::new())),
        _ => Value::String(percent(inner)),
    }
}

/// PROCTITLE's command line: the arguments split at their NULs.
fn command_line(raw: &[u8]) -> Value {
    match untrusted(raw) {
        Some(b) => Value::Array(b.split(|&c| c == 0).map(|a| percent(a).into()).collect()),
        None => Value::Null,
    }
}

/// The fields of one record body, in record order.
fn members(body: &[u8], ty: &str, args: &mut Args) -> Map<String, Value> {
    let execve = ty == "EXECVE";
    let mut o = Map::new();
    for (name, raw) in joined(fields(body)) {
        if execve {
            if let Some(n) = is_arg(&name) {
                let bytes = untrusted(&raw).unwrap_or(raw);
                args.entry(n).or_default().extend(bytes);
                continue;
            }
            if name.starts_with('a') && name.ends_with("_len") {
                continue;
            }
        }
        let v = match name.as_str() {
            "key" => keys(&raw),
            "msg" if raw.starts_with(b"'") => message(&raw),
            "proctitle" if ty == "PROCTITLE" => {
                o.insert("ARGV".into(), command_line(&raw));
                continue;
            }
            _ => value(&name, &raw),
        };
        let name = if name.is_empty() {
            FREE_TEXT.to_string()
        } else {
            name
        };
        o.insert(name, v);
    }
    o
}

/// The path of an AF_UNIX address (`sun_path` up to its NUL; an abstract
/// name, after its leading NUL, up to the next), as auparse reads it.
fn unix_path(sockaddr: &[u8]) -> &[u8] {
    let path = sockaddr.get(2..).unwrap_or_default();
    let path = match path.first() {
        Some(0) => &path[1..path.len().min(109)],
        _ => path,
    };
    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
    &path[..end]
}

/// ENRICHED's `SADDR={ saddr_fam=inet laddr=1.2.3.4 lport=80 }` as an
/// object; a local address's path from the address's own bytes, exact.
fn sockaddr(text: &str, saddr: Option<&[u8]>) -> Value {
    let inner = text
        .strip_prefix("{ ")
        .and_then(|t| t.strip_suffix(" }"))
        .unwrap_or(text);
    let mut o = members(inner.as_bytes(), "", &mut Args::new());
    if o.get("saddr_fam").and_then(Value::as_str) == Some("local") {
        if let Some(bytes) = saddr.and_then(unhex) {
            o.insert("path".into(), percent(unix_path(&bytes)).into());
        }
    }
    Value::Object(o)
}

/// One record as a JSON object; EXECVE's arguments go to `args`.
pub(crate) fn record(
    ty: &str,
    body: &[u8],
    names: &dyn Names,
    args: &mut Args,
) -> Map<String, Value> {
    let mut o = members(body, ty, args);
    for i in enrich::interpret(body, names) {
        let v = if i.name == "SADDR" {
            let saddr = fields(body)
                .into_iter()
                .find(|(n, _)| *n == b"saddr")
                .map(|(_, v)| v);
            sockaddr(&i.value, saddr)
        } else {
            percent(i.value.as_bytes()).into()
        };
        o.insert(i.name, v);
    }
    o
}
