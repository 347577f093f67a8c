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

const UID_FIELDS: &[&str] = &[
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
const GID_FIELDS: &[&str] = &[
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

fn quoted(out: &mut Vec<u8>, name: &str, value: &str) {
    out.extend_from_slice(name.to_ascii_uppercase().as_bytes());
    out.push(b'=');
    if needs_hex(value.as_bytes()) {
        hex_upper(out, value.as_bytes());
    } else {
        out.push(b'"');
        out.extend_from_slice(value.as_bytes());
        out.push(b'"');
    }
}

/// The interpreted fields for a record body (empty when there are none).
pub fn suffix(body: &[u8], names: &dyn Names) -> Vec<u8> {
    let text = String::from_utf8_lossy(body);
    let mut machine = None;
    let mut out = Vec::new();
    for word in text.split(' ') {
        let Some((name, value)) = word.split_once('=') else {
            continue;
        };
        let before = out.len();
        if !out.is_empty() {
            out.push(b' ');
        }
        if UID_FIELDS.contains(&name) {
            quoted(&mut out, name, &id_name(value, |n| names.user(n)));
        } else if GID_FIELDS.contains(&name) {
            quoted(&mut out, name, &id_name(value, |n| names.group(n)));
        } else if name == "arch" {
            machine = u32::from_str_radix(value, 16)
                .ok()
                .and_then(Machine::from_elf);
            let n = machine.map_or("?", Machine::name);
            out.extend_from_slice(format!("ARCH={n}").as_bytes());
        } else if name == "syscall" {
            let n = value
                .parse()
                .ok()
                .and_then(|nr| machine.and_then(|m| m.syscall_name(nr)));
            out.extend_from_slice(format!("SYSCALL={}", n.unwrap_or("?")).as_bytes());
        } else if let Some(v) = (name == "saddr")
            .then(|| crate::sockaddr::interpret(value))
            .flatten()
        {
            out.extend_from_slice(format!("SADDR={v}").as_bytes());
        } else {
            out.truncate(before);
        }
    }
    out
}
