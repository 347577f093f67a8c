//! auditd's framing of a record into a log line: `[node=N ]type=NAME
//! msg=audit(SEC.MMM:SERIAL): BODY`, newlines turned into spaces, a
//! trailing space dropped, and for ENRICHED logs a 0x1D then the
//! interpreted fields.

use crate::enrich::{self, Names};
use crate::num;
use fastaudit_rules::tables;
use std::io::Write as _;
use std::sync::OnceLock;

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

/// Record types below this are named from an array built once from the
/// message type table (a hash lookup per record showed in profiles).
const NAMED_BELOW: u32 = 2048;

/// The name of record type `ty`, from the message type table.
fn msgtype_name(ty: u32) -> Option<&'static str> {
    static BY_TYPE: OnceLock<Vec<Option<&'static str>>> = OnceLock::new();
    let by_type = BY_TYPE.get_or_init(|| {
        (0..NAMED_BELOW)
            .map(|t| tables::msgtypes().name(t))
            .collect()
    });
    match by_type.get(ty as usize) {
        Some(name) => *name,
        None => tables::msgtypes().name(ty),
    }
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
    line_with(&mut o, node, ty, stamp, format, names, |o| {
        o.extend_from_slice(body)
    });
    o
}

/// [`line`] appended to `o`, its body written by `body` straight after
/// the line's head (no buffer of its own).
pub fn line_with(
    o: &mut Vec<u8>,
    node: Option<&str>,
    ty: u32,
    stamp: Stamp,
    format: Format,
    names: &dyn Names,
    body: impl FnOnce(&mut Vec<u8>),
) {
    if let Some(n) = node {
        o.extend_from_slice(b"node=");
        o.extend_from_slice(n.as_bytes());
        o.push(b' ');
    }
    o.extend_from_slice(b"type=");
    match msgtype_name(ty) {
        Some(name) => o.extend_from_slice(name.as_bytes()),
        None => {
            let _ = write!(o, "UNKNOWN[{ty}]");
        }
    }
    o.extend_from_slice(b" msg=audit(");
    num::dec(o, stamp.sec);
    o.push(b'.');
    let ms = stamp.msec;
    if ms < 100 {
        o.push(b'0');
    }
    if ms < 10 {
        o.push(b'0');
    }
    num::dec(o, ms.into());
    o.push(b':');
    num::dec(o, stamp.serial);
    o.extend_from_slice(b"): ");
    let start = o.len();
    body(o);
    let extra = (format == Format::Enriched)
        .then(|| enrich::suffix(&o[start..], names))
        .filter(|e| !e.is_empty());
    // Bodies rarely hold a newline: looked for first (memchr).
    if o[start..].contains(&b'\n') {
        for b in &mut o[start..] {
            if *b == b'\n' {
                *b = b' ';
            }
        }
    }
    // As auditd: a trailing space goes (the head's own, if the body is empty).
    if o.last() == Some(&b' ') {
        o.pop();
    }
    if let Some(extra) = extra {
        o.push(0x1d);
        o.extend_from_slice(&extra);
    }
    o.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enrich::SystemNames;

    /// The line as it was built with `format!` (the reference).
    fn reference(node: Option<&str>, ty: u32, st: Stamp, body: &[u8], f: Format) -> Vec<u8> {
        let mut o = Vec::new();
        if let Some(n) = node {
            o.extend_from_slice(format!("node={n} ").as_bytes());
        }
        let head = format!(
            "type={} msg=audit({}.{:03}:{}): ",
            type_name(ty),
            st.sec,
            st.msec,
            st.serial
        );
        o.extend_from_slice(head.as_bytes());
        o.extend(body.iter().map(|&b| if b == b'\n' { b' ' } else { b }));
        if o.last() == Some(&b' ') {
            o.pop();
        }
        if f == Format::Enriched {
            let extra = enrich::suffix(body, &SystemNames);
            if !extra.is_empty() {
                o.push(0x1d);
                o.extend_from_slice(&extra);
            }
        }
        o.push(b'\n');
        o
    }

    proptest::proptest! {
        /// Any record: the bytes the `format!` version wrote.
        #[test]
        fn same_as_the_reference(
            ty in proptest::prop_oneof![1300u32..1340, 0u32..5000],
            sec in proptest::prelude::any::<u64>(),
            msec in 0u32..1000,
            serial in proptest::prelude::any::<u64>(),
            body in proptest::prop_oneof![
                proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
                proptest::collection::vec(proptest::sample::select(b" \nuid=0 arch=c000003e syscall=268 auid=1000".to_vec()), 0..60),
            ],
            node in proptest::option::of("[a-z]{1,8}"),
            enriched in proptest::prelude::any::<bool>(),
        ) {
            let f = if enriched { Format::Enriched } else { Format::Raw };
            let st = Stamp { sec, msec, serial };
            proptest::prop_assert_eq!(
                line(node.as_deref(), ty, st, &body, f, &SystemNames),
                reference(node.as_deref(), ty, st, &body, f)
            );
        }
    }
}
