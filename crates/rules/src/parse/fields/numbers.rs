//! Numeric fields: syscall arguments a0-a3, sessionid, saddr_fam, and the
//! plain numbers (pid, ppid, pers, devmajor, devminor, inode, success ...),
//! read with C's conversions as auditctl reads them.

use super::{err, show, Pair, SyntaxError};
use crate::abi::{self, field, list};
use crate::cnum::{starts_negative, starts_with_digit, strtol, strtoul};

/// `a0`-`a3`: any number, negative ones as their unsigned 32-bit value.
pub(super) fn arg_value(p: &Pair) -> Result<u32, SyntaxError> {
    let v = p.value;
    if starts_with_digit(v) {
        Ok(strtoul(v, 0).value as u32)
    } else if starts_negative(v) {
        Ok(strtol(v, 0).value as u32)
    } else {
        err(format!(
            "-F {}: value must be numeric, was {}",
            p.name(),
            show(v)
        ))
    }
}

/// `sessionid`: a number or `unset`, on the exit, user and exclude lists.
pub(super) fn sessionid_value(p: &Pair) -> Result<u32, SyntaxError> {
    if !matches!(
        p.list,
        Some(list::EXCLUDE | list::USER | list::EXIT | list::URING_EXIT)
    ) {
        return err("-F sessionid: only valid on the exit, user and exclude lists");
    }
    let v = p.value;
    Ok(if starts_with_digit(v) {
        strtoul(v, 0).value as u32
    } else if starts_negative(v) {
        strtol(v, 0).value as u32
    } else if v == b"unset" {
        abi::UNSET_ID
    } else {
        // auditctl leaves the value untouched (zero) here.
        0
    })
}

/// `saddr_fam`: an address family below `AF_MAX` (junk reads as 0, as in C).
pub(super) fn saddr_fam_value(p: &Pair) -> Result<u32, SyntaxError> {
    let fam = strtoul(p.value, 0).value as u32;
    if fam >= abi::AF_MAX {
        return err(format!("-F saddr_fam={}: value too big", show(p.value)));
    }
    Ok(fam)
}

/// Every other field: a non-negative number; some only on the exit list.
pub(super) fn plain_value(p: &Pair) -> Result<u32, SyntaxError> {
    let f = p.field;
    if matches!(f, field::DEVMAJOR..=field::INODE | field::SUCCESS) && !p.exitish() {
        return p.exit_only();
    }
    if f == field::INODE && !p.eq_or_ne() {
        return err("-F inode: only = and != are allowed");
    }
    if f == field::PPID && !p.exitish() {
        return p.exit_only();
    }
    let v = p.value;
    if !starts_with_digit(v) {
        return err(format!(
            "-F {}: value must be numeric, was {}",
            p.name(),
            show(v)
        ));
    }
    Ok(if f == field::INODE {
        strtoul(v, 0).value as u32
    } else {
        strtol(v, 0).value as u32
    })
}
