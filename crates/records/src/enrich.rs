//! auditd's ENRICHED additions: for each uid, gid, arch and syscall field of
//! a record, in record order, `NAME=value` with the name upper-cased; ids
//! become user or group names (`unset`, `root`, `unknown(N)`), quoted.

use crate::encode::{hex_upper, needs_hex};
use fastaudit_rules::tables::Machine;

/// Resolves ids to names, as auditd does with getpwuid/getgrgid.
pub trait Names {
    /// Name of a uid.
    fn user(&self, uid: u32) -> Option<String>;
    /// Name of a gid.
    fn group(&self, gid: u32) -> Option<String>;
}

/// Names from the running system's user and group databases.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemNames;

impl Names for SystemNames {
    fn user(&self, uid: u32) -> Option<String> {
        nix::unistd::User::from_uid(uid.into())
            .ok()
            .flatten()
            .map(|u| u.name)
    }
    fn group(&self, gid: u32) -> Option<String> {
        nix::unistd::Group::from_gid(gid.into())
            .ok()
            .flatten()
            .map(|g| g.name)
    }
}

/// Fields holding a uid (ENRICHED names them; JSON writes them as numbers).
pub(crate) const UID_FIELDS: &[&str] = &[
    "auid",
    "uid",
    "euid",
    "suid",
    "fsuid",
    "ouid",
    "oauid",
    "old-auid",
    "iuid",
    "id",
    "inode_uid",
    "sauid",
    "obj_uid",
];
/// Fields holding a gid.
pub(crate) const GID_FIELDS: &[&str] = &[
    "gid",
    "egid",
    "sgid",
    "fsgid",
    "ogid",
    "igid",
    "inode_gid",
    "new_gid",
    "obj_gid",
];

fn id_name(v: &str, lookup: impl Fn(u32) -> Option<String>) -> String {
    // auparse reads ids with strtoul, so auditd's own "-1" is unset too.
    let v = if v == "-1" { "4294967295" } else { v };
    match v.parse::<u32>() {
        Ok(4294967295) => "unset".into(),
        Ok(0) => "root".into(),
        Ok(n) => lookup(n).unwrap_or_else(|| format!("unknown({n})")),
        Err(_) => "?".into(),
    }
}

pub(crate) fn quoted(out: &mut Vec<u8>, name: &str, value: &str) {
    out.extend_from_slice(name.as_bytes());
    out.push(b'=');
    if needs_hex(value.as_bytes()) {
        hex_upper(out, value.as_bytes());
    } else {
        out.push(b'"');
        out.extend_from_slice(value.as_bytes());
        out.push(b'"');
    }
}

/// One interpreted field: its upper-case name, its value, and whether
/// ENRICHED quotes it (ids) or writes it bare (arch, syscall, saddr).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interpreted {
    /// `UID`, `ARCH`, ...
    pub name: String,
    /// `root`, `x86_64`, ...
    pub value: String,
    /// Written quoted (or hex when it needs it) in ENRICHED.
    pub quoted: bool,
}

/// The interpreted fields of a record body, in record order.
pub fn interpret(body: &[u8], names: &dyn Names) -> Vec<Interpreted> {
    let text = String::from_utf8_lossy(body);
    let mut machine = None;
    let mut out = Vec::new();
    let mut push = |name: &str, value: String, quoted: bool| {
        out.push(Interpreted {
            name: name.to_ascii_uppercase(),
            value,
            quoted,
        })
    };
    for word in text.split(' ') {
        let Some((name, value)) = word.split_once('=') else {
            continue;
        };
        if UID_FIELDS.contains(&name) {
            push(name, id_name(value, |n| names.user(n)), true);
        } else if GID_FIELDS.contains(&name) {
            push(name, id_name(value, |n| names.group(n)), true);
        } else if name == "arch" {
            machine = u32::from_str_radix(value, 16)
                .ok()
                .and_then(Machine::from_elf);
            push(name, machine.map_or("?", Machine::name).into(), false);
        } else if name == "syscall" {
            let n = value
                .parse()
                .ok()
                .and_then(|nr| machine.and_then(|m| m.syscall_name(nr)));
            push(name, n.unwrap_or("?").into(), false);
        } else if let Some(v) = (name == "saddr")
            .then(|| crate::sockaddr::interpret(value))
            .flatten()
        {
            push(name, v, false);
        }
    }
    out
}

/// The interpreted fields for a record body (empty when there are none).
pub fn suffix(body: &[u8], names: &dyn Names) -> Vec<u8> {
    let mut out = Vec::new();
    for i in interpret(body, names) {
        if !out.is_empty() {
            out.push(b' ');
        }
        if i.quoted {
            quoted(&mut out, &i.name, &i.value);
        } else {
            out.extend_from_slice(format!("{}={}", i.name, i.value).as_bytes());
        }
    }
    out
}
