//! auditd's reading of auditd.conf lines (`get_line`, `nv_split`): a line
//! holds `name = value [option]`, words split on spaces only (a tab is part
//! of a word), `#` starts a comment only as the first word, and a line is
//! at most 158 bytes (auditd's 160-byte buffer with the newline and NUL).

/// Longest line auditd reads; longer ones are skipped with an error.
pub const MAX_LINE: usize = 158;

/// One physical line, as auditd splits it.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// Empty or a comment.
    Blank,
    /// Skipped by auditd: too long, or the last line without a newline
    /// (auditd's `fgets` loop takes both for an over-long line).
    Skipped(&'static str),
    /// `name` without `=` or without a value: auditd stops reading there.
    Incomplete { name: &'a str, why: &'static str },
    /// `name = value [option]`; `extra`: words past the option (auditd
    /// reports them and goes on without them).
    Pair {
        name: &'a str,
        value: &'a str,
        option: Option<&'a str>,
        extra: bool,
    },
}

/// Split the file into numbered lines (from 1).
pub fn lines(text: &str) -> impl Iterator<Item = (usize, Line<'_>)> {
    let ends_with_newline = text.ends_with('\n');
    let count = text.split('\n').count();
    text.split('\n').enumerate().filter_map(move |(i, l)| {
        let last = i + 1 == count;
        // After the last newline (or in an empty file) there is no line.
        if last && l.is_empty() {
            return None;
        }
        let parsed = if l.len() > MAX_LINE {
            Line::Skipped("too long (auditd reads at most 158 bytes a line): skipped, as auditd skips it")
        } else if last && !ends_with_newline {
            Line::Skipped(
                "no newline at the end of the file: auditd 3.0.9 skips such a last line, and so does fastaudit",
            )
        } else {
            split(l)
        };
        Some((i + 1, parsed))
    })
}

fn split(l: &str) -> Line<'_> {
    let mut words = l.split(' ').filter(|w| !w.is_empty());
    let Some(name) = words.next() else {
        return Line::Blank;
    };
    if name.starts_with('#') {
        return Line::Blank;
    }
    match words.next() {
        None => {
            return Line::Incomplete {
                name,
                why: "wrong number of arguments",
            }
        }
        Some("=") => {}
        Some(_) => {
            return Line::Incomplete {
                name,
                why: "missing equal sign",
            }
        }
    }
    let Some(value) = words.next() else {
        return Line::Incomplete {
            name,
            why: "wrong number of arguments",
        };
    };
    let option = words.next();
    Line::Pair {
        name,
        value,
        option,
        extra: words.next().is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(l: &str) -> Line<'_> {
        split(l)
    }

    #[test]
    fn auditd_splitting() {
        assert_eq!(one(""), Line::Blank);
        assert_eq!(one("   # x = y"), Line::Blank);
        assert_eq!(
            one("  log_file   =  /x  "),
            Line::Pair {
                name: "log_file",
                value: "/x",
                option: None,
                extra: false
            }
        );
        assert_eq!(
            one("a = exec /bin/x more"),
            Line::Pair {
                name: "a",
                value: "exec",
                option: Some("/bin/x"),
                extra: true
            }
        );
        assert!(matches!(
            one("log_file=/x"),
            Line::Incomplete {
                why: "wrong number of arguments",
                ..
            }
        ));
        assert!(matches!(one("log_file\t=\t/x"), Line::Incomplete { .. }));
        assert!(matches!(
            one("freq 50"),
            Line::Incomplete {
                why: "missing equal sign",
                ..
            }
        ));
        assert!(matches!(one("freq ="), Line::Incomplete { .. }));
    }

    #[test]
    fn numbering_and_skips() {
        let long = format!("name = {}\n", "x".repeat(160));
        let text = format!("# c\n\nfreq = 1\n{long}q_depth = 9");
        let got: Vec<(usize, bool)> = lines(&text)
            .map(|(n, l)| (n, matches!(l, Line::Skipped(_))))
            .collect();
        assert_eq!(
            got,
            vec![(1, false), (2, false), (3, false), (4, true), (5, true)]
        );
        let exact = format!("name = {}\n", "x".repeat(MAX_LINE - 7));
        assert!(matches!(lines(&exact).next(), Some((1, Line::Pair { .. }))));
    }
}
