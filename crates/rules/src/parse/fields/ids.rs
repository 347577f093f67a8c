//! uid and gid fields: a number (negative allowed for uids), `unset` for
//! uids, or a user or group name resolved on the live system.

use super::{err, show, Pair, State, SyntaxError};
use crate::abi;
use crate::cnum::{starts_negative, starts_with_digit, strtol, strtoul};

impl State<'_> {
    /// uid, euid, suid, fsuid, auid/loginuid, obj_uid.
    pub(super) fn user_id_value(&mut self, p: &Pair) -> Result<u32, SyntaxError> {
        let v = p.value;
        if starts_with_digit(v) {
            Ok(self.note_u32(&p.what(), v, strtoul(v, 0)))
        } else if starts_negative(v) {
            Ok(self.note_negative_id(&p.what(), v, strtol(v, 0)))
        } else if v == b"unset" {
            Ok(abi::UNSET_ID)
        } else {
            match self.host.user_id(v) {
                Some(id) => Ok(id),
                None => err(format!("-F {}: unknown user: {}", p.name(), show(v))),
            }
        }
    }

    /// gid, egid, sgid, fsgid, obj_gid (auditctl knows no `unset` here).
    pub(super) fn group_id_value(&mut self, p: &Pair) -> Result<u32, SyntaxError> {
        let v = p.value;
        if starts_with_digit(v) {
            Ok(self.note_i64(&p.what(), v, strtol(v, 0), 0, u32::MAX.into()))
        } else {
            match self.host.group_id(v) {
                Some(id) => Ok(id),
                None => err(format!("-F {}: unknown group: {}", p.name(), show(v))),
            }
        }
    }
}
