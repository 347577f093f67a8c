//! Everything fastaudit warns about in a rules input, as data: auditctl's
//! own warnings, the values auditctl takes silently in a form other than
//! the one written (wrapped, truncated, read up to junk), bytes auditctl
//! keeps in a word or drops, and files anyone could have changed.
//!
//! A warning never changes what is loaded (the listing stays auditctl's);
//! `--strict` turns every one into a refusal.

use std::fmt;

/// One thing worth telling the administrator about an accepted input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// auditctl's: a watch path with `..`.
    RelativePath,
    /// auditctl's: a watch path with `*` or `?`.
    Wildcard,
    /// auditctl's: `-S` names that mean other syscalls on the 32-bit side.
    ArchMismatch,
    /// auditctl's: a key holding the key separator byte.
    KeyIllegalChar(Vec<u8>),
    /// auditctl's: the `possible` action (the line is skipped).
    PossibleAction,
    /// A number followed by text C's conversion stops at.
    TrailingText {
        /// The option or field (`-F uid`, `-S`, `-b` ...).
        what: String,
        /// The value as written.
        text: Vec<u8>,
        /// The part that was read.
        read: Vec<u8>,
    },
    /// A value with no number in it, read as 0.
    NotANumber {
        /// The option or field.
        what: String,
        /// The value as written.
        text: Vec<u8>,
    },
    /// A number that does not fit where auditctl stores it, so it wraps
    /// (or saturates) to another value.
    OutOfRange {
        /// The option or field.
        what: String,
        /// The value as written.
        text: Vec<u8>,
        /// The value the rule gets.
        taken: String,
    },
    /// A negative number for an unsigned id (other than -1, "unset").
    Negative {
        /// The field.
        what: String,
        /// The value as written.
        text: Vec<u8>,
        /// The value the rule gets.
        taken: u32,
    },
    /// A `-l -k`/`-D -k` key cut to the key size limit.
    KeyTruncated {
        /// The key as written.
        key: Vec<u8>,
        /// Bytes kept.
        kept: usize,
    },
    /// A control byte (CR, tab, ...) auditctl keeps inside a word.
    ControlByte {
        /// The byte.
        byte: u8,
        /// The word holding it (as auditctl splits the line).
        word: Vec<u8>,
    },
    /// A NUL byte: auditctl ignores the rest of the line.
    NulByte,
    /// A line longer than auditctl's buffer: the rest is read as a new line.
    LongLine {
        /// Bytes auditctl reads as this line.
        limit: usize,
    },
    /// Words past auditctl's per-line word array are dropped.
    WordsDropped {
        /// How many were dropped.
        dropped: usize,
    },
    /// A rules file with no command line at all.
    EmptyFile,
    /// A rules directory whose `*.rules` files hold no command line.
    EmptyDirectory {
        /// `*.rules` files found (0: none).
        files: usize,
        /// Other entries, which are ignored.
        ignored: usize,
    },
    /// A rules file or directory any user can write.
    WorldWritable {
        /// Its mode bits.
        mode: u32,
    },
    /// A rules file or directory owned by another user than root.
    NotOwnedByRoot {
        /// Its owner.
        uid: u32,
    },
}

/// Bytes for a message, control bytes escaped so they show.
pub fn shown(b: &[u8]) -> String {
    b.escape_ascii().to_string()
}

/// A control byte's usual name.
fn byte_name(b: u8) -> String {
    let name = match b {
        b'\r' => "carriage return",
        b'\t' => "tab",
        0x0b => "vertical tab",
        0x0c => "form feed",
        0x1b => "escape",
        0x7f => "delete",
        _ => "control character",
    };
    format!("{name} ({})", shown(&[b]))
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::RelativePath => write!(f, "relative path notation is not supported"),
            Warning::Wildcard => write!(f, "wildcard notation is not supported"),
            Warning::ArchMismatch => write!(
                f,
                "32/64 bit syscall mismatch, you should specify an arch (-F arch=b64 or b32)"
            ),
            Warning::KeyIllegalChar(k) => {
                write!(
                    f,
                    "key {} has an illegal character",
                    String::from_utf8_lossy(k)
                )
            }
            Warning::PossibleAction => write!(
                f,
                "the 'possible' action is deprecated; auditctl skips this line"
            ),
            Warning::TrailingText { what, text, read } => write!(
                f,
                "{what} {}: auditctl reads {} and ignores the rest ({})",
                shown(text),
                shown(read),
                shown(&text[read.len().min(text.len())..])
            ),
            Warning::NotANumber { what, text } => write!(
                f,
                "{what} {}: not a number; auditctl reads it as 0",
                shown(text)
            ),
            Warning::OutOfRange { what, text, taken } => write!(
                f,
                "{what} {}: out of range; auditctl stores it as {taken}",
                shown(text)
            ),
            Warning::Negative { what, text, taken } => write!(
                f,
                "{what} {}: negative; auditctl takes it as {taken}",
                shown(text)
            ),
            Warning::KeyTruncated { key, kept } => write!(
                f,
                "-k {}: auditctl keeps only the first {kept} bytes of the key",
                shown(key)
            ),
            Warning::ControlByte { byte, word } => write!(
                f,
                "{} in {}: auditctl keeps it as part of the word",
                byte_name(*byte),
                shown(word)
            ),
            Warning::NulByte => write!(f, "NUL byte: auditctl ignores the rest of the line"),
            Warning::LongLine { limit } => write!(
                f,
                "line longer than {limit} bytes: auditctl reads the rest as the next line"
            ),
            Warning::WordsDropped { dropped } => write!(
                f,
                "too many words for the line's length: auditctl drops the last {dropped}"
            ),
            Warning::EmptyFile => write!(
                f,
                "no rule or setting in this file (empty, or only comments and blank lines)"
            ),
            Warning::EmptyDirectory { files: 0, ignored } => write!(
                f,
                "no *.rules file in this directory ({ignored} other entries ignored): no rules"
            ),
            Warning::EmptyDirectory { files, .. } => write!(
                f,
                "none of the {files} *.rules files in this directory holds a rule or setting"
            ),
            Warning::WorldWritable { mode } => write!(
                f,
                "writable by any user (mode {:o}): anyone could change the audit rules",
                mode & 0o7777
            ),
            Warning::NotOwnedByRoot { uid } => write!(
                f,
                "owned by uid {uid}, not root: that user could change the audit rules"
            ),
        }
    }
}
