//! `msgtype=`: a record type by number or name (`UNKNOWN[n]` too).

use super::{err, show, Pair, SyntaxError};
use crate::abi::list;
use crate::cnum::{starts_with_digit, strtol};
use crate::tables;

/// The msgtype value (exclude and user lists only).
pub(super) fn msgtype_value(p: &Pair) -> Result<u32, SyntaxError> {
    if !matches!(p.list, Some(list::EXCLUDE | list::USER)) {
        return err("-F msgtype: only valid on the exclude and user lists");
    }
    let v = p.value;
    if starts_with_digit(v) {
        return Ok(strtol(v, 0).value as u32);
    }
    match msgtype_number(v) {
        Some(t) if t > 0 => Ok(t as u32),
        _ => err(format!("-F msgtype: unknown message type: {}", show(v))),
    }
}

/// `audit_name_to_msg_type`: a name, `UNKNOWN[n]`, or a number.
fn msgtype_number(v: &[u8]) -> Option<i64> {
    if let Some(t) = tables::msgtypes().lookup(&v.to_ascii_uppercase()) {
        return Some(t as i64);
    }
    if let Some(rest) = v.strip_prefix(b"UNKNOWN[") {
        let end = rest.iter().position(|&b| b == b']')?;
        return Some(strtol(&rest[..end.min(7)], 10).value);
    }
    None
}
