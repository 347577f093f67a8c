//! A record body's fields and each value's JSON type, decided by the
//! field's name (so a field has the same JSON type in every event): ids
//! and counts are numbers, registers and bit sets `"0x..."` strings, modes
//! `"0o..."` strings, the kernel's untrusted strings decoded from their hex
//! form; anything else, and a value that does not read as its field's kind,
//! a string as written.

use super::escape::percent;
use crate::enrich::{GID_FIELDS, UID_FIELDS};
use serde_json::Value;

/// How a field's value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Decimal (`%d`, `%u`): a JSON number.
    Dec,
    /// A 32-bit id (a uid, a gid, a session): a JSON number, with the
    /// unset id always `4294967295`. The kernel writes it that way (`%u`),
    /// auditd itself writes `-1` (DAEMON_END's `auid=-1 uid=-1 ses=-1` when
    /// it could not learn who stopped it); one meaning gets one number.
    Id,
    /// Hexadecimal (`%x`, `0x%x`): `"0x..."`.
    Hex,
    /// Octal (`0%o`): `"0o..."`.
    Oct,
    /// The kernel's untrusted string (`audit_log_untrustedstring`): quoted,
    /// or the bytes in hex.
    Untrusted,
    /// Anything else: the text as written.
    Text,
}

/// Field names and kinds, from the kernel's formats (kernel/audit.c,
/// auditsc.c) and the audit project's field dictionary. uid and gid
/// fields are ids ([`UID_FIELDS`], [`GID_FIELDS`]); a SYSCALL or
/// SOCKETCALL argument `aN` is hex.
const KINDS: &[(&str, Kind)] = &[
    ("pid", Kind::Dec),
    ("ppid", Kind::Dec),
    ("ses", Kind::Id),
    ("old-ses", Kind::Id),
    ("oses", Kind::Id),
    ("opid", Kind::Dec),
    ("syscall", Kind::Dec),
    ("exit", Kind::Dec),
    ("items", Kind::Dec),
    ("item", Kind::Dec),
    ("argc", Kind::Dec),
    ("inode", Kind::Dec),
    ("ino", Kind::Dec),
    ("fd", Kind::Dec),
    ("fd0", Kind::Dec),
    ("fd1", Kind::Dec),
    ("fe", Kind::Dec),
    ("cap_fe", Kind::Dec),
    ("frootid", Kind::Dec),
    ("cap_frootid", Kind::Dec),
    ("uring_op", Kind::Dec),
    ("res", Kind::Dec),
    ("list", Kind::Dec),
    ("old", Kind::Dec),
    ("new", Kind::Dec),
    ("old_lock", Kind::Dec),
    ("new_lock", Kind::Dec),
    ("audit_enabled", Kind::Dec),
    ("audit_pid", Kind::Dec),
    ("audit_failure", Kind::Dec),
    ("audit_backlog_limit", Kind::Dec),
    ("audit_backlog_wait_time", Kind::Dec),
    ("backlog_wait_time", Kind::Dec),
    ("nargs", Kind::Dec),
    ("sig", Kind::Dec),
    ("lport", Kind::Dec),
    ("nlnk-fam", Kind::Dec),
    ("nlnk-pid", Kind::Dec),
    ("prog-id", Kind::Dec),
    ("arch", Kind::Hex),
    ("per", Kind::Hex),
    ("flags", Kind::Hex),
    ("resolve", Kind::Hex),
    ("code", Kind::Hex),
    ("cap_fp", Kind::Hex),
    ("cap_fi", Kind::Hex),
    ("cap_fver", Kind::Hex),
    ("cap_pp", Kind::Hex),
    ("cap_pi", Kind::Hex),
    ("cap_pe", Kind::Hex),
    ("cap_pa", Kind::Hex),
    ("fver", Kind::Hex),
    ("fp", Kind::Hex),
    ("fi", Kind::Hex),
    ("pp", Kind::Hex),
    ("pi", Kind::Hex),
    ("pe", Kind::Hex),
    ("pa", Kind::Hex),
    ("old_pp", Kind::Hex),
    ("old_pi", Kind::Hex),
    ("old_pe", Kind::Hex),
    ("old_pa", Kind::Hex),
    ("mode", Kind::Oct),
    ("oflag", Kind::Oct),
    ("comm", Kind::Untrusted),
    ("exe", Kind::Untrusted),
    ("name", Kind::Untrusted),
    ("cwd", Kind::Untrusted),
    ("proctitle", Kind::Untrusted),
    ("path", Kind::Untrusted),
    ("cmd", Kind::Untrusted),
    ("acct", Kind::Untrusted),
    ("data", Kind::Untrusted),
    ("ocomm", Kind::Untrusted),
    ("grp", Kind::Untrusted),
    ("new_group", Kind::Untrusted),
    ("watch", Kind::Untrusted),
    ("dir", Kind::Untrusted),
    ("file", Kind::Untrusted),
    ("root_dir", Kind::Untrusted),
    ("cgroup", Kind::Untrusted),
    ("sw", Kind::Untrusted),
    ("vm", Kind::Untrusted),
];

/// A SYSCALL (or SOCKETCALL) argument register, or an EXECVE argument or
/// piece of one: `a0`, `a12`, `a2[1]`.
pub(crate) fn is_arg(name: &str) -> Option<usize> {
    let n = name.strip_prefix('a')?;
    let n = n.split_once('[').map_or(n, |(a, _)| a);
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// The kind of a field.
pub(crate) fn kind(name: &str) -> Kind {
    if UID_FIELDS.contains(&name) || GID_FIELDS.contains(&name) {
        return Kind::Id;
    }
    match KINDS.iter().find(|(n, _)| *n == name) {
        Some((_, k)) => *k,
        None if is_arg(name).is_some() => Kind::Hex,
        None => Kind::Text,
    }
}

/// auditd's record fields: `name=value` words split on spaces, where a
/// value in double quotes may hold spaces, and a `msg='...'` (user space's
/// text, which the kernel writes last) runs to the last single quote. A
/// word without `=` is kept with an empty name.
pub fn fields(body: &[u8]) -> Vec<(&[u8], &[u8])> {
    let mut out = Vec::new();
    let mut rest = trim(body);
    while !rest.is_empty() {
        let Some(i) = rest.iter().position(|&b| b == b' ' || b == b'=') else {
            out.push((&b""[..], rest));
            break;
        };
        if rest[i] == b' ' {
            out.push((&b""[..], &rest[..i]));
            rest = trim(&rest[i..]);
            continue;
        }
        let (name, v) = (&rest[..i], &rest[i + 1..]);
        let end = match v.first() {
            Some(b'\'') if name == b"msg" => v
                .iter()
                .rposition(|&b| b == b'\'')
                .filter(|&e| e > 0)
                .map_or(v.len(), |e| e + 1),
            Some(&q @ (b'"' | b'\'')) => v[1..]
                .iter()
                .position(|&b| b == q)
                .map_or(v.len(), |j| j + 2),
            _ => v.iter().position(|&b| b == b' ').unwrap_or(v.len()),
        };
        out.push((name, &v[..end]));
        rest = trim(&v[end..]);
    }
    out
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| b != b' ').unwrap_or(s.len());
    &s[start..]
}

/// Words without `=` (free text, as in `auditctl -m`'s `text=a b c`)
/// belong to the field before them; words before any field stay nameless.
pub(crate) fn joined(fields: Vec<(&[u8], &[u8])>) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, value) in fields {
        match out.last_mut() {
            Some(last) if name.is_empty() => {
                last.1.push(b' ');
                last.1.extend_from_slice(value);
            }
            _ => out.push((percent(name), value.to_vec())),
        }
    }
    out
}

/// The bytes of `v` written as hex digits (the kernel's form of an
/// untrusted string that needed it).
pub(crate) fn unhex(v: &[u8]) -> Option<Vec<u8>> {
    if v.is_empty() || !v.len().is_multiple_of(2) {
        return None;
    }
    v.chunks(2)
        .map(|p| Some(hex_digit(p[0])? << 4 | hex_digit(p[1])?))
        .collect()
}

fn hex_digit(b: u8) -> Option<u8> {
    char::from(b)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

/// The text inside a pair of quotes `q`.
pub(crate) fn quoted(raw: &[u8], q: u8) -> Option<&[u8]> {
    raw.strip_prefix(&[q])?.strip_suffix(&[q])
}

/// The bytes an untrusted string stands for: quoted as they are, else hex.
pub(crate) fn untrusted(raw: &[u8]) -> Option<Vec<u8>> {
    match quoted(raw, b'"') {
        Some(q) => Some(q.to_vec()),
        None => unhex(raw),
    }
}

/// `digits` (lower-cased, leading zeros dropped) after `prefix`, when
/// every digit is below `radix`.
fn radix(prefix: &str, digits: &[u8], radix: u32) -> Option<String> {
    if digits.is_empty() || !digits.iter().all(|&b| char::from(b).is_digit(radix)) {
        return None;
    }
    let start = digits
        .iter()
        .position(|&b| b != b'0')
        .unwrap_or(digits.len() - 1);
    let tail = String::from_utf8_lossy(&digits[start..]).to_ascii_lowercase();
    Some(format!("{prefix}{tail}"))
}

/// A decimal integer as a JSON number.
fn decimal(raw: &[u8]) -> Option<Value> {
    let (neg, digits) = match raw.strip_prefix(b"-") {
        Some(d) => (true, d),
        None => (false, raw),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let text = std::str::from_utf8(raw).ok()?;
    if neg {
        text.parse::<i64>().ok().map(Value::from)
    } else {
        text.parse::<u64>().ok().map(Value::from)
    }
}

/// One field's value. An unquoted `(null)` (the kernel's "no value") or
/// `?` (user space's "unknown") is `null`; a quoted value is always a
/// string; otherwise the field's [`Kind`] decides, and a value that does
/// not read as its kind (`res=success` where `res` is mostly `1`) is a
/// string as written.
pub(crate) fn value(name: &str, raw: &[u8]) -> Value {
    if raw == b"(null)" || raw == b"?" {
        return Value::Null;
    }
    if let Some(q) = quoted(raw, b'"') {
        return Value::String(percent(q));
    }
    let typed = match kind(name) {
        Kind::Dec => decimal(raw),
        Kind::Id if raw == b"-1" => Some(Value::from(u32::MAX)),
        Kind::Id => decimal(raw),
        Kind::Hex => {
            let digits = raw
                .strip_prefix(b"0x")
                .or_else(|| raw.strip_prefix(b"0X"))
                .unwrap_or(raw);
            radix("0x", digits, 16).map(Value::String)
        }
        Kind::Oct => radix("0o", raw, 8).map(Value::String),
        Kind::Untrusted => unhex(raw).map(|b| Value::String(percent(&b))),
        Kind::Text => None,
    };
    typed.unwrap_or_else(|| Value::String(percent(quoted(raw, b'\'').unwrap_or(raw))))
}
