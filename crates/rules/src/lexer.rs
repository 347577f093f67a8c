//! Splitting a rules file into lines and words exactly as `auditctl -R` does.
//!
//! auditctl reads with a fixed buffer (a longer line is cut into several),
//! stops a line at a NUL byte, splits on spaces only (a tab is part of a
//! word), lets `\ ` and `\\` escape a space or a backslash, and treats a line
//! whose first word starts with `#` as a comment.

/// The buffer auditctl reads lines with (`LINE_SIZE`), including the NUL.
const LINE_SIZE: usize = 6144;
const ESC_SPACE: u8 = 0x07;
const ESC_BACKSLASH: u8 = 0x04;

use crate::warning::Warning;

/// One command line of a rules file: its 1-based line number and its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Line number as auditctl counts it.
    pub lineno: usize,
    /// The words, as auditctl passes them to its option parser.
    pub words: Vec<Vec<u8>>,
}

/// One line as auditctl's `fgets` loop reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawLine<'a> {
    /// Line number as auditctl counts it.
    pub lineno: usize,
    /// The bytes auditctl sees (up to a NUL, without the newline).
    pub text: &'a [u8],
    /// The line went on past auditctl's buffer: the rest is the next line.
    pub cut: bool,
    /// A NUL byte hid the rest of the line from auditctl.
    pub nul: bool,
}

/// The lines of a file as auditctl's `fgets` loop reads them.
pub fn scan(data: &[u8]) -> Vec<RawLine<'_>> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut lineno = 1;
    while pos < data.len() {
        let max = (LINE_SIZE - 1).min(data.len() - pos);
        let chunk = &data[pos..pos + max];
        let newline = chunk.iter().position(|&b| b == b'\n');
        let take = newline.map_or(max, |i| i + 1);
        let mut line = &data[pos..pos + take];
        pos += take;
        if let Some(nl) = newline {
            line = &line[..nl];
        }
        let nul = line.iter().position(|&b| b == 0);
        if let Some(at) = nul {
            line = &line[..at];
        }
        out.push(RawLine {
            lineno,
            text: line,
            cut: newline.is_none() && pos < data.len(),
            nul: nul.is_some(),
        });
        lineno += 1;
    }
    out
}

/// Raw lines of a file as auditctl's `fgets` loop sees them, numbered.
pub fn raw_lines(data: &[u8]) -> Vec<(usize, &[u8])> {
    scan(data).into_iter().map(|l| (l.lineno, l.text)).collect()
}

/// What auditctl silently does to a line otherwise than it reads: cut it
/// at its buffer, stop at a NUL, keep a control byte inside a word, drop
/// words. Blank and comment lines only get the cut (their rest is a line).
pub fn line_warnings(line: &RawLine) -> Vec<Warning> {
    let mut out = Vec::new();
    if line.cut {
        out.push(Warning::LongLine {
            limit: LINE_SIZE - 1,
        });
    }
    let Some((words, dropped)) = split(line.text) else {
        return out;
    };
    if line.nul {
        out.push(Warning::NulByte);
    }
    if let Some(&byte) = line.text.iter().find(|&&b| b < 0x20 || b == 0x7f) {
        let word = words
            .iter()
            .find(|w| w.contains(&byte))
            .cloned()
            .unwrap_or_else(|| line.text.to_vec());
        out.push(Warning::ControlByte { byte, word });
    }
    if dropped > 0 {
        out.push(Warning::WordsDropped { dropped });
    }
    out
}

/// Words of one raw line, or `None` for a blank or comment line.
pub fn words(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    split(line).map(|(words, _)| words)
}

/// Words of one raw line and how many auditctl drops, or `None` for a
/// blank or comment line.
fn split(line: &[u8]) -> Option<(Vec<Vec<u8>>, usize)> {
    if line.iter().all(|&b| b == b' ') {
        return None;
    }
    // auditctl sizes its word array from the line length and silently drops
    // words past it; keep the same bound.
    let max_words = line.len() / 3 + 3;
    let mut buf = line.to_vec();
    preprocess(&mut buf);
    let mut words: Vec<Vec<u8>> = buf
        .split(|&b| b == b' ')
        .filter(|w| !w.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    if words.first().is_some_and(|w| w.first() == Some(&b'#')) {
        return None;
    }
    // argv[0] is "auditctl", so max_words - 1 slots remain for the words.
    let keep = max_words.saturating_sub(2);
    let dropped = words.len().saturating_sub(keep);
    words.truncate(keep);
    for w in words.iter_mut().skip(1) {
        *w = postprocess(w);
    }
    Some((words, dropped))
}

/// Mark escaped spaces and backslashes so the split does not see them.
fn preprocess(buf: &mut [u8]) {
    let mut esc = false;
    for i in 0..buf.len() {
        if buf[i] == b'\\' && !esc {
            esc = true;
        } else if esc {
            if buf[i] == b' ' {
                buf[i] = ESC_SPACE;
                buf[i - 1] = ESC_SPACE;
            } else if buf[i] == b'\\' {
                buf[i] = ESC_BACKSLASH;
                buf[i - 1] = ESC_BACKSLASH;
            }
            esc = false;
        }
    }
}

/// Turn each marked pair back into the character it escaped.
fn postprocess(word: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(word.len());
    let mut i = 0;
    while i < word.len() {
        match word[i] {
            ESC_SPACE => {
                out.push(b' ');
                i += 2;
            }
            ESC_BACKSLASH => {
                out.push(b'\\');
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// All command lines of a rules file.
pub fn lines(data: &[u8]) -> Vec<Line> {
    raw_lines(data)
        .into_iter()
        .filter_map(|(lineno, l)| words(l).map(|words| Line { lineno, words }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn w(s: &str) -> Option<Vec<String>> {
        words(s.as_bytes()).map(|v| {
            v.into_iter()
                .map(|x| String::from_utf8(x).unwrap())
                .collect()
        })
    }

    #[test]
    fn splits_on_spaces_only() {
        assert_eq!(
            w("  -a  always,exit\t-S x"),
            Some(vec!["-a".into(), "always,exit\t-S".into(), "x".into()])
        );
        assert_eq!(w("   "), None);
        assert_eq!(w("# -a x"), None);
        assert_eq!(w("  #x"), None);
    }

    #[test]
    fn escapes_space_and_backslash() {
        assert_eq!(
            w(r"-w /tmp/a\ b -k x\\y"),
            Some(vec![
                "-w".into(),
                "/tmp/a b".into(),
                "-k".into(),
                r"x\y".into()
            ])
        );
    }

    #[test]
    fn long_lines_are_cut_like_fgets() {
        let long = "a".repeat(7000);
        let data = format!("{long}\n-D\n");
        let l = raw_lines(data.as_bytes());
        assert_eq!(l.len(), 3);
        assert_eq!(l[0].1.len(), 6143);
        assert_eq!(l[2], (3, &b"-D"[..]));
    }

    #[test]
    fn what_auditctl_does_silently_is_noted() {
        let data = b"-w /etc/passwd\r\n# c\r\n-D\0 -k x\n";
        let l = scan(data);
        assert_eq!(
            line_warnings(&l[0]),
            vec![Warning::ControlByte {
                byte: b'\r',
                word: b"/etc/passwd\r".to_vec()
            }]
        );
        assert!(line_warnings(&l[1]).is_empty(), "a comment");
        assert_eq!(line_warnings(&l[2]), vec![Warning::NulByte]);
        let long = format!("{}\n", "a ".repeat(4000));
        let l = scan(long.as_bytes());
        assert_eq!(line_warnings(&l[0])[0], Warning::LongLine { limit: 6143 });
        assert!(!l[1].cut);
        let l = scan(b"-a a a a a a a a a");
        assert_eq!(
            line_warnings(&l[0]),
            vec![Warning::WordsDropped { dropped: 2 }]
        );
    }

    proptest! {
        #[test]
        fn never_panics(data in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = lines(&data);
        }
    }
}
