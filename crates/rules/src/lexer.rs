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

/// One command line of a rules file: its 1-based line number and its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Line number as auditctl counts it.
    pub lineno: usize,
    /// The words, as auditctl passes them to its option parser.
    pub words: Vec<Vec<u8>>,
}

/// Raw lines of a file as auditctl's `fgets` loop sees them, numbered.
pub fn raw_lines(data: &[u8]) -> Vec<(usize, &[u8])> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut lineno = 1;
    while pos < data.len() {
        let max = (LINE_SIZE - 1).min(data.len() - pos);
        let chunk = &data[pos..pos + max];
        let take = chunk
            .iter()
            .position(|&b| b == b'\n')
            .map_or(max, |i| i + 1);
        let mut line = &data[pos..pos + take];
        pos += take;
        if let Some(nl) = line.iter().position(|&b| b == b'\n') {
            line = &line[..nl];
        }
        if let Some(nul) = line.iter().position(|&b| b == 0) {
            line = &line[..nul];
        }
        out.push((lineno, line));
        lineno += 1;
    }
    out
}

/// Words of one raw line, or `None` for a blank or comment line.
pub fn words(line: &[u8]) -> Option<Vec<Vec<u8>>> {
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
    words.truncate(max_words.saturating_sub(2));
    for w in words.iter_mut().skip(1) {
        *w = postprocess(w);
    }
    Some(words)
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

    proptest! {
        #[test]
        fn never_panics(data in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = lines(&data);
        }
    }
}
