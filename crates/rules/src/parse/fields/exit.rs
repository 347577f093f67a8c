//! `exit=`: a syscall's return value, as a number or an errno name
//! (`-EPERM` for the negated errno).

use super::{err, show, Pair, SyntaxError};
use crate::cnum::{starts_negative, starts_with_digit, strtol};
use crate::tables;

/// The exit value (exit list only).
pub(super) fn exit_value(p: &Pair) -> Result<u32, SyntaxError> {
    if !p.exitish() {
        return p.exit_only();
    }
    let v = p.value;
    if starts_with_digit(v) || starts_negative(v) {
        return Ok(strtol(v, 0).value as u32);
    }
    let (neg, name) = match v.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, v),
    };
    match tables::errnos().lookup(&name.to_ascii_uppercase()) {
        Some(e) if neg => Ok((e as i32).wrapping_neg() as u32),
        Some(e) => Ok(e),
        None => err(format!("-F {}: unknown errno: {}", p.name(), show(v))),
    }
}
