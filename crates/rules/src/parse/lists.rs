//! `-a`/`-A`/`-d list,action`: auditctl's `audit_rule_setup` and its
//! keyword lookups.

use super::{contains, State};
use crate::abi::{action, list};

/// How a `list,action` word was taken (auditctl's return codes 0 to 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Setup {
    /// List and action are known; the rule goes to that list.
    Ready,
    /// The `possible` action: auditctl skips the line with a warning.
    Deprecated,
    /// Not `list,action` (or `action,list`) with known keywords.
    BadKeyword,
    /// A second `-a`/`-A`/`-d` on the same line.
    Repeated,
}

/// What an action keyword is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ActionWord {
    /// `always` or `never` (now the rule's action).
    Known,
    /// `possible`, which auditctl no longer accepts.
    Possible,
    /// Not an action keyword.
    Unknown,
}

impl State<'_> {
    /// auditctl's `audit_rule_setup`: `list,action` in either order, the
    /// list stored into `filter` (`self.add` or `self.del`).
    pub(super) fn rule_setup(&mut self, opt: &[u8], filter: &mut Option<u32>) -> Setup {
        self.multiple += 1;
        if self.multiple != 1 {
            return Setup::Repeated;
        }
        let Some(comma) = opt.iter().position(|&b| b == b',') else {
            return Setup::BadKeyword;
        };
        let (first, second) = (&opt[..comma], &opt[comma + 1..]);
        if contains(second, b",") {
            return Setup::BadKeyword;
        }
        // A first word that is no action at all must be the list.
        if self.lookup_action(first) == ActionWord::Unknown {
            match lookup_filter(first) {
                Some(f) => *filter = Some(f),
                None => return Setup::BadKeyword,
            }
        }
        if filter.is_none() {
            *filter = lookup_filter(second);
        } else {
            match self.lookup_action(second) {
                ActionWord::Known => {}
                ActionWord::Possible => return Setup::Deprecated,
                ActionWord::Unknown => return Setup::BadKeyword,
            }
        }
        if filter.is_none() || self.action.is_none() {
            return Setup::BadKeyword;
        }
        Setup::Ready
    }

    /// auditctl's `lookup_action`: sets the rule's action when known.
    fn lookup_action(&mut self, s: &[u8]) -> ActionWord {
        match s {
            b"always" => {
                self.action = Some(action::ALWAYS);
                ActionWord::Known
            }
            b"never" => {
                self.action = Some(action::NEVER);
                ActionWord::Known
            }
            b"possible" => ActionWord::Possible,
            _ => ActionWord::Unknown,
        }
    }
}

/// auditctl's list keywords (case-sensitive, as in auditctl 3.0.9), plus io_uring.
fn lookup_filter(s: &[u8]) -> Option<u32> {
    Some(match s {
        b"exit" => list::EXIT,
        b"task" => list::TASK,
        b"user" => list::USER,
        b"exclude" => list::EXCLUDE,
        b"filesystem" => list::FS,
        b"io_uring" => list::URING_EXIT,
        _ => return None,
    })
}
