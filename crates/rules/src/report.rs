//! What a load tells the administrator: each refusal and warning as
//! `FILE:LINE: ...`, by file and line; at most [`MESSAGES_PER_FILE`] of
//! them for a file (a garbled input would otherwise print one for each of
//! its thousands of lines), then, for a file with several messages and an
//! error, or with messages left out, how many there were.

use crate::origin::{by_origin, LineError, Origin};
use crate::warning::Warning;
use std::collections::HashMap;
use std::path::PathBuf;

/// Messages printed for one file; the rest are counted. Far above what a
/// real rule set has (the largest corpus set refuses 53 lines on a machine
/// without its paths), a screenful or two.
pub const MESSAGES_PER_FILE: usize = 100;

/// One message of a load (formatted only if it is printed).
enum Message<'a> {
    Error(&'a LineError),
    Warning(&'a Origin, &'a Warning),
}

impl Message<'_> {
    fn origin(&self) -> &Origin {
        match self {
            Message::Error(e) => &e.origin,
            Message::Warning(o, _) => o,
        }
    }

    fn text(&self) -> String {
        match self {
            Message::Error(e) => e.to_string(),
            Message::Warning(o, w) => format!("{o}: warning: {w}"),
        }
    }
}

/// `n` of `what`, in the plural unless one.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The lines to print for a load's errors and warnings (and the number of
/// errors `unlisted` for a file, found but not kept): by file, then line;
/// `limit` per file (0: all), then `FILE: ... and K more not shown`; then `N errors,
/// M warnings in FILE` for a file with left-out messages, or with errors
/// and more than one message (one message counts itself).
pub fn lines(
    errors: &[LineError],
    warnings: &[(Origin, Warning)],
    unlisted: &HashMap<PathBuf, usize>,
    limit: usize,
) -> Vec<String> {
    let mut all: Vec<Message> = errors
        .iter()
        .map(Message::Error)
        .chain(warnings.iter().map(|(o, w)| Message::Warning(o, w)))
        .collect();
    all.sort_by(|a, b| by_origin(a.origin(), b.origin()));
    let limit = if limit == 0 { usize::MAX } else { limit };
    let mut out = Vec::new();
    for group in all.chunk_by(|a, b| a.origin().file == b.origin().file) {
        let Some(first) = group.first() else { continue };
        let file = first.origin().file.display();
        out.extend(group.iter().take(limit).map(Message::text));
        let more = unlisted.get(&first.origin().file).copied().unwrap_or(0);
        let hidden = group.len().saturating_sub(limit) + more;
        if hidden > 0 {
            out.push(format!("{file}: ... and {hidden} more not shown"));
        }
        let kept = group
            .iter()
            .filter(|m| matches!(m, Message::Error(_)))
            .count();
        if hidden > 0 || (kept > 0 && group.len() > 1) {
            out.push(format!(
                "{}, {} in {file}",
                count(kept + more, "error"),
                count(group.len() - kept, "warning")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none() -> HashMap<PathBuf, usize> {
        HashMap::new()
    }

    fn at(file: &str, line: usize) -> Origin {
        Origin {
            file: file.into(),
            line,
        }
    }

    fn error(file: &str, line: usize) -> LineError {
        LineError {
            origin: at(file, line),
            message: format!("bad {line}"),
        }
    }

    #[test]
    fn by_file_and_line_with_a_count_for_files_with_errors() {
        let errors = [error("b", 3), error("b", 1)];
        let warnings = [
            (at("a", 2), Warning::EmptyFile),
            (at("b", 2), Warning::Wildcard),
        ];
        assert_eq!(
            lines(&errors, &warnings, &none(), 100),
            vec![
                "a:2: warning: no rule or setting in this file (empty, or only comments and blank lines)",
                "b:1: bad 1",
                "b:2: warning: wildcard notation is not supported",
                "b:3: bad 3",
                "2 errors, 1 warning in b",
            ]
        );
        // Warnings alone: no count (the load goes on).
        assert_eq!(lines(&[], &warnings[..1], &none(), 100).len(), 1);
        assert!(lines(&[], &[], &none(), 100).is_empty());
    }

    #[test]
    fn at_most_limit_per_file_then_what_was_left_out() {
        let errors: Vec<LineError> = (1..=5000).map(|l| error("big", l)).collect();
        let warnings = [
            (at("big", 7), Warning::Wildcard),
            (at("small", 1), Warning::Wildcard),
        ];
        let out = lines(&errors, &warnings, &none(), 50);
        assert_eq!(out.len(), 50 + 2 + 1, "{out:?}");
        assert_eq!(out[0], "big:1: bad 1");
        assert_eq!(
            out[49], "big:49: bad 49",
            "the warning of line 7 is among them"
        );
        assert_eq!(out[50], "big: ... and 4951 more not shown");
        assert_eq!(out[51], "5000 errors, 1 warning in big");
        assert_eq!(
            out[52],
            "small:1: warning: wildcard notation is not supported"
        );
        let out = lines(&errors[..2], &[], &none(), 1);
        assert_eq!(
            out,
            vec![
                "big:1: bad 1",
                "big: ... and 1 more not shown",
                "2 errors, 0 warnings in big"
            ]
        );
        // Errors found but not kept count as left out.
        let unlisted = HashMap::from([(PathBuf::from("big"), 7)]);
        assert_eq!(
            lines(&errors[..1], &[], &unlisted, 1),
            vec![
                "big:1: bad 1",
                "big: ... and 7 more not shown",
                "8 errors, 0 warnings in big"
            ]
        );
        // A single error is its own count.
        assert_eq!(lines(&errors[..1], &[], &none(), 1), vec!["big:1: bad 1"]);
    }
}
