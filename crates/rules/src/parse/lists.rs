//! `-a`/`-A`/`-d list,action`: auditctl's `audit_rule_setup` and its
//! keyword lookups.

use super::{contains, State};
use crate::abi::{action, list};
use crate::suggest;

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
        if s == b"possible" {
            return ActionWord::Possible;
        }
        match lookup(ACTIONS, s) {
            Some(a) => {
                self.action = Some(a);
                ActionWord::Known
            }
            None => ActionWord::Unknown,
        }
    }
}

/// auditctl's list keywords (case-sensitive, as in auditctl 3.0.9), plus io_uring.
const LISTS: &[(&str, u32)] = &[
    ("exit", list::EXIT),
    ("task", list::TASK),
    ("user", list::USER),
    ("exclude", list::EXCLUDE),
    ("filesystem", list::FS),
    ("io_uring", list::URING_EXIT),
];

/// auditctl's action keywords (`possible`, deprecated, is handled apart).
const ACTIONS: &[(&str, u32)] = &[("always", action::ALWAYS), ("never", action::NEVER)];

/// A keyword's value (case-sensitive).
fn lookup(table: &[(&str, u32)], s: &[u8]) -> Option<u32> {
    table
        .iter()
        .find(|(n, _)| n.as_bytes() == s)
        .map(|(_, v)| *v)
}

/// The list a list keyword names.
fn lookup_filter(s: &[u8]) -> Option<u32> {
    lookup(LISTS, s)
}

/// What may fix a refused `list,action` word: the same word with each
/// misspelt keyword replaced by the nearest one (` (did you mean
/// always,exit?)`), or the expected shape when there is no comma.
pub(super) fn keyword_hint(word: &[u8]) -> String {
    let Some(comma) = word.iter().position(|&b| b == b',') else {
        return " (expected list,action, such as always,exit)".to_string();
    };
    let (first, second) = (&word[..comma], &word[comma + 1..]);
    let keywords = || LISTS.iter().chain(ACTIONS).map(|(n, _)| *n);
    let fix = |w: &[u8]| {
        keywords()
            .find(|k| k.as_bytes() == w)
            .or_else(|| suggest::nearest(w, keywords()))
    };
    let (Some(a), Some(b)) = (fix(first), fix(second)) else {
        return String::new();
    };
    let is_list = |k: &str| lookup_filter(k.as_bytes()).is_some();
    let fixed = format!("{a},{b}");
    if is_list(a) == is_list(b) || fixed.as_bytes() == word {
        return String::new();
    }
    format!(" (did you mean {fixed}?)")
}
