//! `-C f1=f2` / `-C f1!=f2`: inter-field comparisons.

use super::{err, find, show, State, SyntaxError};
use crate::abi::{field, list, op};
use crate::tables;

impl State<'_> {
    /// `-C f1=f2` / `-C f1!=f2`: an inter-field comparison (exit list only).
    pub(super) fn compare(&mut self, pair: &[u8], list: Option<u32>) -> Result<(), SyntaxError> {
        self.room()?;
        let (f, v, o) = if let Some(i) = find(pair, b"!=") {
            (&pair[..i], &pair[i + 2..], op::NOT_EQUAL)
        } else if let Some(i) = find(pair, b"=") {
            (&pair[..i], &pair[i + 1..], op::EQUAL)
        } else {
            return err(format!(
                "-C {}: only = and != are allowed in comparisons",
                show(pair)
            ));
        };
        if f.is_empty() {
            return err(format!(
                "-C {}: missing field name before the operator",
                show(pair)
            ));
        }
        if v.is_empty() {
            return err(format!(
                "-C {}: missing field name after the operator",
                show(pair)
            ));
        }
        let field = |name: &[u8]| {
            tables::field_number(name).ok_or_else(|| {
                SyntaxError(format!(
                    "-C: unknown field: {}{}",
                    show(name),
                    self.hint(|| tables::field_hint(name))
                ))
            })
        };
        let (f1, f2) = (field(f)?, field(v)?);
        if !matches!(list, Some(list::EXIT | list::URING_EXIT)) {
            return err(format!(
                "-C {}: field comparisons are only valid on the exit list",
                show(pair)
            ));
        }
        let cmp = tables::comparison(f1, f2).ok_or_else(|| {
            SyntaxError(format!(
                "-C {}: these fields cannot be compared",
                show(pair)
            ))
        })?;
        self.push(field::FIELD_COMPARE, o, cmp, Vec::new());
        Ok(())
    }
}
