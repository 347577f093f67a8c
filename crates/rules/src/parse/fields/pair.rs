//! One `-F` pair as split: what every field family's parser reads (a file
//! of its own, so the families need nothing of the mod.rs that calls them).

use super::super::{err, show, SyntaxError};
use crate::abi::{list, op};

/// One `-F` pair: the field as named and numbered, the operator, the value
/// text, and the list of the rule it is for (none yet: `-F arch=... -t`).
pub(super) struct Pair<'a> {
    pub name: &'a [u8],
    pub field: u32,
    pub op: u32,
    pub value: &'a [u8],
    pub list: Option<u32>,
}

impl Pair<'_> {
    /// The field name as the line spells it, for messages.
    pub fn name(&self) -> String {
        show(self.name)
    }

    /// The option and field, for warnings (`-F uid value`).
    pub fn what(&self) -> String {
        format!("-F {} value", self.name())
    }

    /// Whether the rule is on a list with syscall exits (exit or io_uring).
    pub fn exitish(&self) -> bool {
        matches!(self.list, Some(list::EXIT | list::URING_EXIT))
    }

    /// The refusal of a field that only the exit list takes.
    pub fn exit_only<T>(&self) -> Result<T, SyntaxError> {
        err(format!("-F {}: only valid on the exit list", self.name()))
    }

    /// Whether the operator is `=` or `!=`.
    pub fn eq_or_ne(&self) -> bool {
        self.op == op::EQUAL || self.op == op::NOT_EQUAL
    }
}
