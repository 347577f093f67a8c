//! One rules-file line to a request, following auditctl's option handling
//! (`setopt`, `audit_rule_fieldpair_data` and friends) step by step, so that
//! a line is accepted or refused exactly when auditctl accepts or refuses it.
//!
//! Deliberate extension: the `io_uring` list (`-a always,io_uring -U op`),
//! which the kernel has but auditctl 3.0.9 does not know; `-S` works there
//! too, as in auditctl 4.
//!
//! The line's state and its end live here; each option family has a module:
//! `options` (the option switch and the rule-building options), `control`
//! (settings and queries), `lists` (`list,action`
//! keywords), `syscalls` (`-S`/`-U`), `fields` (`-F`, by value family),
//! `compare` (`-C`), `watch` (`-w`/`-W`/`-p`) and `key` (`-k`, `key=`).

mod compare;
mod control;
mod fields;
mod key;
mod lists;
mod number;
mod options;
mod syscalls;
mod watch;

use crate::abi::{self, action, list};
use crate::getopt::Getopt;
use crate::host::Host;
use crate::rule::{Field, Rule};
use crate::settings::{Query, Setting};
use crate::warning::Warning;
use thiserror::Error;

/// Why auditctl refuses a line (the message names the option or value).
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{0}")]
pub struct SyntaxError(pub String);

/// What one line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `-a`/`-A`/`-w`: add a rule (at the head of its list when `prepend`).
    Add { rule: Rule, prepend: bool },
    /// `-d`/`-W`: delete the identical rule.
    Delete(Rule),
    /// `-D [-k key]`: delete all rules (whose key contains `key`).
    DeleteAll { key: Vec<u8> },
}

/// Everything a line says: settings first, then at most one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Control settings (`-b`, `-e`, `-f` ...), in order.
    pub settings: Vec<Setting>,
    /// Read-only queries (`-l`, `-s`, `-v`) that change nothing.
    pub queries: Vec<Query>,
    /// The rule change, if any.
    pub request: Option<Request>,
    /// Things auditctl warns about, or takes silently otherwise than written.
    pub warnings: Vec<Warning>,
}

/// Refuse the line with `msg`.
fn err<T>(msg: impl Into<String>) -> Result<T, SyntaxError> {
    Err(SyntaxError(msg.into()))
}

/// A word for a message (rules files are text; odd bytes shown lossily).
fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Whether the line so far has a rule for the kernel (auditctl's `retval`
/// 0 or 1; the line's verdict is the larger of what its options said).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Pending {
    /// Options so far only set things up (fields, keys, settings).
    Nothing,
    /// An option asked for a rule to be sent (`-a`, `-d`, `-w`, `-p` ...).
    Rule,
}

/// What an option's handler tells the scan.
enum Flow {
    /// Keep scanning.
    Continue(Pending),
    /// A query or one-shot control option: stop scanning, send no rule; the
    /// end-of-line checks still run (auditctl's `retval = -2; break`).
    Stop,
    /// An option that returns from auditctl's `setopt` at once, skipping
    /// the end-of-line checks.
    Return,
    /// The `possible` action: auditctl warns and skips the line.
    Deprecated,
}

/// How the scan of a line ended, for auditctl's `handle_request`.
enum End {
    /// All options read: send the rule if one is pending.
    Scanned(Pending),
    /// A `Stop` or `Return` option: nothing to send.
    Stopped,
}

/// auditctl's per-line state (its globals, reset for every line).
struct State<'h> {
    /// The live system (or a stand-in): users, groups, paths, machine.
    host: &'h dyn Host,
    /// `-S`/`-U` or a watch was given.
    syscall_added: bool,
    /// A permission filter (`-p`, `perm=`) or a path/dir field was given.
    perm_added: bool,
    /// An `exe=` field was given.
    exe_added: bool,
    /// An `fstype=` field was given.
    filterfs_added: bool,
    /// The `AUDIT_ARCH_*` `-S` names are read with (0: not chosen yet).
    elf: u32,
    /// The list of `-a`/`-A`/`-w`, once given.
    add: Option<u32>,
    /// `-A`: the rule goes to the head of its list.
    prepend: bool,
    /// The list of `-d`/`-W`, once given.
    del: Option<u32>,
    /// `always` or `never`, once given.
    action: Option<u32>,
    /// How many `-a`/`-A`/`-d` the line has (only one is allowed).
    multiple: u32,
    /// The rule being built.
    rule: Rule,
    /// The keys so far, joined by `\x01` (added as one field at the end).
    key: Vec<u8>,
    /// `-l` was given (its `-k` filters the listing, it is no rule key).
    list_requested: bool,
    /// What the line has said so far.
    out: Parsed,
    /// Whether a refusal names the likely fix (costly: a search of the
    /// names; not worth it for messages that will not be shown).
    hints: bool,
}

/// Parse the words of one line (without the program name).
pub fn parse_words(words: &[Vec<u8>], host: &dyn Host) -> Result<Parsed, SyntaxError> {
    parse_words_with(words, host, true)
}

/// [`parse_words`]; without `hints`, a refusal does not search for the
/// likely fix (did you mean ...), for lines whose refusals are only counted.
pub fn parse_words_with(
    words: &[Vec<u8>],
    host: &dyn Host,
    hints: bool,
) -> Result<Parsed, SyntaxError> {
    let mut args = vec![b"auditctl".to_vec()];
    args.extend_from_slice(words);
    let mut st = State {
        host,
        syscall_added: false,
        perm_added: false,
        exe_added: false,
        filterfs_added: false,
        elf: 0,
        add: None,
        prepend: false,
        del: None,
        action: None,
        multiple: 0,
        rule: Rule::empty(),
        key: Vec::new(),
        list_requested: false,
        out: Parsed::default(),
        hints,
    };
    st.run(&args)
}

impl State<'_> {
    /// auditctl's `setopt` loop over `args` (`args[0]` is the program name).
    fn run(&mut self, args: &[Vec<u8>]) -> Result<Parsed, SyntaxError> {
        let mut count = args.len();
        let mut g = Getopt::new(args);
        let mut pending = Pending::Nothing;
        let mut returned = false;
        let mut stopped = false;
        while let Some(opt) = g.next() {
            match self.option(opt, &g, args, &mut count)? {
                Flow::Continue(p) => pending = pending.max(p),
                Flow::Stop => {
                    stopped = true;
                    break;
                }
                Flow::Return => {
                    stopped = true;
                    returned = true;
                    break;
                }
                Flow::Deprecated => {
                    let mut p = std::mem::take(&mut self.out);
                    p.warnings.push(Warning::PossibleAction);
                    p.request = None;
                    return Ok(p);
                }
            }
        }
        if !returned {
            if g.optind() == 1 {
                return err("no option given (a rule line starts with an option such as -a or -w)");
            }
            if g.optind() < count {
                let extra = args.get(g.optind()).map(|w| show(w)).unwrap_or_default();
                let why = key_before(&args[..g.optind()])
                    .map(|key| {
                        format!(
                            " (it follows the key {key}: a key cannot hold whitespace, as a rule line is split at whitespace and quotes do not group words)"
                        )
                    })
                    .unwrap_or_default();
                return err(format!(
                    "parameter passed without an option given: {extra}{why}"
                ));
            }
            if !self.key.is_empty() && !self.list_requested {
                // auditctl starts from 0 (the user list) here, not "unset".
                let list = self.list().unwrap_or(list::USER);
                let pair = [b"key=".as_slice(), &self.key].concat();
                self.fieldpair(&pair, Some(list))?;
            }
        }
        self.finish(if stopped {
            End::Stopped
        } else {
            End::Scanned(pending)
        })
    }

    /// auditctl's `handle_request`: turn the collected state into a request.
    fn finish(&mut self, end: End) -> Result<Parsed, SyntaxError> {
        match end {
            End::Scanned(Pending::Nothing) if self.syscall_added => {
                err("no list specified for the syscall (use -a or -A)")
            }
            End::Scanned(Pending::Rule) => {
                let (list, delete) = match (self.add, self.del) {
                    (Some(l), _) => (l, false),
                    (None, Some(l)) => (l, true),
                    (None, None) => return err("no list specified (use -a, -A, -d, -w or -W)"),
                };
                let mut rule = std::mem::replace(&mut self.rule, Rule::empty());
                rule.list = list;
                rule.action = self.action.unwrap_or(action::NEVER);
                if rule.list != list::TASK && !self.syscall_added {
                    rule.add_all_syscalls();
                }
                self.out.request = Some(if delete {
                    Request::Delete(rule)
                } else {
                    Request::Add {
                        rule,
                        prepend: self.prepend,
                    }
                });
                Ok(std::mem::take(&mut self.out))
            }
            End::Scanned(Pending::Nothing) | End::Stopped => Ok(std::mem::take(&mut self.out)),
        }
    }

    /// The list of the rule being built, if one was chosen (an added
    /// rule's when a line names both, as auditctl looks at `add` first).
    fn list(&self) -> Option<u32> {
        self.add.or(self.del)
    }

    /// Whether `-a`/`-A`/`-d`/`-w`/`-W` has chosen a list yet.
    fn has_list(&self) -> bool {
        self.add.is_some() || self.del.is_some()
    }

    /// Whether something a key can belong to was given (auditctl's test
    /// before `-k` and `key=`).
    fn has_key_target(&self) -> bool {
        self.syscall_added || self.perm_added || self.exe_added || self.filterfs_added
    }

    /// Append a field to the rule.
    fn push(&mut self, field: u32, op: u32, value: u32, text: Vec<u8>) {
        self.rule.fields.push(Field {
            field,
            op,
            value,
            text,
        });
    }

    /// `hint()` if refusals name the likely fix, else nothing.
    fn hint(&self, hint: impl FnOnce() -> String) -> String {
        if self.hints {
            hint()
        } else {
            String::new()
        }
    }

    /// auditctl keeps one field slot free; refuse the field that would take it.
    fn room(&self) -> Result<(), SyntaxError> {
        if self.rule.fields.len() >= abi::MAX_FIELDS - 1 {
            return err(format!(
                "too many fields (auditctl allows {})",
                abi::MAX_FIELDS - 1
            ));
        }
        Ok(())
    }
}

/// Where `needle` first occurs in `hay` (C `strstr`).
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Whether `needle` occurs in `hay`.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

#[cfg(test)]
mod tests;

/// The key given by the last words of `args` (`-k KEY`, `-kKEY`, `-F
/// key=KEY`, `-Fkey=KEY`), shown, when they give one: a stray word after it
/// is most likely the rest of a key with a space in it.
fn key_before(args: &[Vec<u8>]) -> Option<String> {
    let (last, before) = args.split_last()?;
    let before = before.last().map(Vec::as_slice);
    let key = match before {
        Some(b"-k") => Some(last.as_slice()),
        Some(b"-F") => last.strip_prefix(b"key="),
        _ => last
            .strip_prefix(b"-Fkey=")
            .or_else(|| last.strip_prefix(b"-k").filter(|k| !k.is_empty())),
    }?;
    Some(format!("\"{}\"", show(key)))
}
