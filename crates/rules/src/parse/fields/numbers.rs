//! Numeric fields: syscall arguments a0-a3, sessionid, saddr_fam, and the
//! plain numbers (pid, ppid, pers, devmajor, devminor, inode, success ...),
//! read with C's conversions as auditctl reads them.

use super::{err, show, Pair, State, SyntaxError};
use crate::abi::{self, field, list};
use crate::cnum::{starts_negative, starts_with_digit, strtol, strtoul};

impl State<'_> {
    /// `a0`-`a3`: any number, negative ones as their unsigned 32-bit value
    /// (the kernel compares the argument's low 32 bits).
    pub(super) fn arg_value(&mut self, p: &Pair) -> Result<u32, SyntaxError> {
        let v = p.value;
        if starts_with_digit(v) {
            Ok(self.note_u32(&p.what(), v, strtoul(v, 0)))
        } else if starts_negative(v) {
            Ok(self.note_i64(&p.what(), v, strtol(v, 0), i32::MIN.into(), 0))
        } else {
            err(format!(
                "-F {}: value must be numeric, was {}",
                p.name(),
                show(v)
            ))
        }
    }

    /// `sessionid`: a number or `unset`, on the exit, user and exclude lists.
    pub(super) fn sessionid_value(&mut self, p: &Pair) -> Result<u32, SyntaxError> {
        if !matches!(
            p.list,
            Some(list::EXCLUDE | list::USER | list::EXIT | list::URING_EXIT)
        ) {
            return err("-F sessionid: only valid on the exit, user and exclude lists");
        }
        let v = p.value;
        Ok(if starts_with_digit(v) {
            self.note_u32(&p.what(), v, strtoul(v, 0))
        } else if starts_negative(v) {
            self.note_negative_id(&p.what(), v, strtol(v, 0))
        } else if v == b"unset" {
            abi::UNSET_ID
        } else {
            // auditctl leaves the value untouched (zero) here.
            self.note_end(&p.what(), v, 0);
            0
        })
    }

    /// `saddr_fam`: an address family below `AF_MAX` (junk reads as 0, as in C).
    pub(super) fn saddr_fam_value(&mut self, p: &Pair) -> Result<u32, SyntaxError> {
        let fam = self.note_u32(&p.what(), p.value, strtoul(p.value, 0));
        if fam >= abi::AF_MAX {
            return err(format!("-F saddr_fam={}: value too big", show(p.value)));
        }
        Ok(fam)
    }

    /// Every other field: a non-negative number; some only on the exit list.
    pub(super) fn plain_value(&mut self, p: &Pair) -> Result<u32, SyntaxError> {
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
            self.note_u32(&p.what(), v, strtoul(v, 0))
        } else {
            self.note_i64(&p.what(), v, strtol(v, 0), 0, u32::MAX.into())
        })
    }
}
