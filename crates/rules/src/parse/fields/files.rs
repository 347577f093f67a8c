//! File-related fields: `perm=` (rwxa), `filetype=` and `fstype=` by name
//! from the declared tables.

use super::super::watch::perm_bits;
use super::pair::Pair;
use super::{err, show, State, SyntaxError};
use crate::abi::{list, op};
use crate::cnum::{starts_with_digit, strtoul};
use crate::tables;

/// `perm=`: only on the exit list proper (not io_uring), only `=`.
pub(super) fn perm_value(p: &Pair) -> Result<u32, SyntaxError> {
    if p.list != Some(list::EXIT) {
        return p.exit_only();
    }
    if p.op != op::EQUAL {
        return err("-F perm: only = is allowed");
    }
    let v = p.value;
    if v.len() > 4 {
        return err(format!("-F perm={}: value is too long", show(v)));
    }
    match perm_bits(v) {
        Some(bits) => Ok(bits),
        None => err(format!(
            "-F perm={}: permission must be some of rwxa",
            show(v)
        )),
    }
}

/// `filetype=`: a name of [`tables::FILETYPES`].
pub(super) fn filetype_value(p: &Pair) -> Result<u32, SyntaxError> {
    if !p.exitish() {
        return p.exit_only();
    }
    match tables::lookup_lower(tables::FILETYPES, p.value) {
        Some(t) => Ok(t),
        None => err(format!("-F filetype: unknown file type: {}", show(p.value))),
    }
}

impl State<'_> {
    /// `fstype=`: a number or a name of [`tables::FSTYPES`] (filesystem list).
    pub(super) fn fstype_value(&mut self, p: &Pair) -> Result<u32, SyntaxError> {
        if p.list != Some(list::FS) {
            return err("-F fstype: only valid on the filesystem list");
        }
        if !p.eq_or_ne() {
            return err("-F fstype: only = and != are allowed");
        }
        let v = p.value;
        // auditctl's "not found" is -1, so the number 0xffffffff is refused too.
        let t = if starts_with_digit(v) {
            self.note_u32(&p.what(), v, strtoul(v, 0))
        } else {
            tables::lookup_lower(tables::FSTYPES, v).unwrap_or(u32::MAX)
        };
        if t == u32::MAX {
            return err(format!("-F fstype: unknown file system type: {}", show(v)));
        }
        self.filterfs_added = true;
        Ok(t)
    }
}
