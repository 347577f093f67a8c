//! `exit=`: a syscall's return value, as a number or an errno name
//! (`-EPERM` for the negated errno).

use super::{err, show, Pair, State, SyntaxError};
use crate::cnum::{starts_negative, starts_with_digit, strtol};
use crate::tables;

impl State<'_> {
    /// The exit value (exit list only): the kernel compares 32 bits, so
    /// -2^31 to 2^32-1 survive.
    pub(super) fn exit_value(&mut self, p: &Pair) -> Result<u32, SyntaxError> {
        if !p.exitish() {
            return p.exit_only();
        }
        let v = p.value;
        if starts_with_digit(v) || starts_negative(v) {
            let c = strtol(v, 0);
            return Ok(self.note_i64(&p.what(), v, c, i32::MIN.into(), u32::MAX.into()));
        }
        errno_value(p)
    }
}

/// `exit=` by errno name (`-EPERM` for the negated errno).
fn errno_value(p: &Pair) -> Result<u32, SyntaxError> {
    let v = p.value;
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
