//! String fields: LSM labels (subj_*, obj_*), path and dir, key, exe. The
//! text goes into the rule as given; the kernel checks paths when it loads.

use super::{err, Pair, State, SyntaxError};
use crate::abi::{self, field};

impl State<'_> {
    /// The text of a string field, after its list, operator and length checks.
    pub(super) fn string_value(&mut self, p: &Pair) -> Result<Vec<u8>, SyntaxError> {
        let f = p.field;
        if matches!(
            f,
            field::OBJ_USER..=field::OBJ_LEV_HIGH | field::WATCH | field::DIR
        ) {
            if !p.exitish() {
                return p.exit_only();
            }
            // A path or dir field makes the rule a watch, so `-k` may follow.
            if f == field::WATCH || f == field::DIR {
                self.perm_added = true;
            }
        }
        if f == field::EXE {
            if !p.eq_or_ne() {
                return err("-F exe: only = and != are allowed");
            }
            self.exe_added = true;
        }
        if f == field::FILTERKEY && !self.has_key_target() {
            return err("-F key: a key needs a watch, syscall or exe given before it");
        }
        let max = if f == field::FILTERKEY {
            abi::MAX_KEY_LEN
        } else {
            abi::PATH_MAX
        };
        if p.value.len() > max {
            return err(format!(
                "-F {}: value is too long (at most {max} bytes)",
                p.name()
            ));
        }
        Ok(p.value.to_vec())
    }
}
