//! Where a rules line came from, and a refusal of one: what the loader
//! (`ruleset`), the file reader (`source`) and the report share.

use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

/// Where a line came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file, as named to the loader.
    pub file: PathBuf,
    /// 1-based line number (0 for errors about the whole file).
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file.display())
        } else {
            write!(f, "{}:{}", self.file.display(), self.line)
        }
    }
}

/// A refused line: where, and what is wrong with it.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{origin}: {message}")]
pub struct LineError {
    /// The offending line.
    pub origin: Origin,
    /// What is wrong, naming the option or value.
    pub message: String,
}

/// File, then line order (stable sorts keep a line's own order).
pub(crate) fn by_origin(a: &Origin, b: &Origin) -> std::cmp::Ordering {
    (&a.file, a.line).cmp(&(&b.file, b.line))
}
