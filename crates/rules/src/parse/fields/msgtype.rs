//! `msgtype=`: a record type by number or name (`UNKNOWN[n]` too).

use super::{err, show, Pair, State, SyntaxError};
use crate::abi::list;
use crate::cnum::{starts_with_digit, strtol};
use crate::tables;
use crate::warning::Warning;

impl State<'_> {
    /// The msgtype value (exclude and user lists only).
    pub(super) fn msgtype_value(&mut self, p: &Pair) -> Result<u32, SyntaxError> {
        if !matches!(p.list, Some(list::EXCLUDE | list::USER)) {
            return err("-F msgtype: only valid on the exclude and user lists");
        }
        let v = p.value;
        if starts_with_digit(v) {
            return Ok(self.note_i64(&p.what(), v, strtol(v, 0), 0, u32::MAX.into()));
        }
        match msgtype_number(v) {
            Some(t) if t > 0 => {
                self.note_unknown_bracket(p, v);
                Ok(t as u32)
            }
            _ => err(format!("-F msgtype: unknown message type: {}", show(v))),
        }
    }

    /// `UNKNOWN[n]`: auditctl reads at most 7 bytes of n, up to junk.
    fn note_unknown_bracket(&mut self, p: &Pair, v: &[u8]) {
        let Some(rest) = v.strip_prefix(b"UNKNOWN[") else {
            return;
        };
        let Some(close) = rest.iter().position(|&b| b == b']') else {
            return;
        };
        let digits = &rest[..close.min(7)];
        let end = strtol(digits, 10).end;
        if end < close || close + 1 < rest.len() {
            self.warn(Warning::TrailingText {
                what: p.what(),
                text: v.to_vec(),
                read: v[..8 + end].to_vec(),
            });
        }
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
