//! "Did you mean": the known name nearest to a misspelt one, so that a
//! refusal can name the likely fix (`-S opne`: did you mean open?).

use std::cmp::Reverse;

/// Edits allowed between a word and a name suggested for it: enough for a
/// typo (a swap of two neighbours counts as one), few enough that the
/// suggestion is likely what was meant. Words of two bytes or less get
/// none: too many names are one edit from them.
fn max_edits(len: usize) -> usize {
    match len {
        0..=2 => 0,
        3..=5 => 1,
        6..=9 => 2,
        _ => 3,
    }
}

/// Whether `word` is `name` with digits after it (`fchmodat2`, `fchmodat`):
/// a newer version of the name more likely than a typo of it.
pub fn numbered_variant(word: &[u8], name: &str) -> bool {
    word.len() > name.len()
        && word[..name.len()].eq_ignore_ascii_case(name.as_bytes())
        && word[name.len()..].iter().all(u8::is_ascii_digit)
}

/// The name of `known` nearest to `word` (ASCII case folded, as the lookups
/// fold it), if one is within a typo of it; ties go to the name sharing
/// more of the word's start (`umount2`, not `mount`, for `umount`), then
/// to the first in alphabetical order.
pub fn nearest<'a>(word: &[u8], known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = String::from_utf8_lossy(&word.to_ascii_lowercase()).into_owned();
    let max = max_edits(word.chars().count());
    if max == 0 {
        return None;
    }
    let mut best: Option<(usize, Reverse<u32>, &str)> = None;
    for name in known {
        if name.len().abs_diff(word.len()) > max {
            continue;
        }
        let lower = name.to_ascii_lowercase();
        let d = strsim::osa_distance(&word, &lower);
        if d > max {
            continue;
        }
        // Jaro-Winkler weighs a shared start; scaled to order exactly.
        let start = Reverse((strsim::jaro_winkler(&word, &lower) * 1e6) as u32);
        let key = (d, start, name);
        if best.is_none_or(|b| key < b) {
            best = Some(key);
        }
    }
    best.map(|(_, _, name)| name)
}

/// ` (did you mean NAME?)` for a refusal's message, or nothing.
pub fn did_you_mean<'a>(word: &[u8], known: impl IntoIterator<Item = &'a str>) -> String {
    nearest(word, known)
        .map(|n| format!(" (did you mean {n}?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &[
        "open", "openat", "close", "fchmodat", "uid", "auid", "mount", "umount2",
    ];

    #[test]
    fn typos_find_the_name() {
        let n = |w: &str| nearest(w.as_bytes(), NAMES.iter().copied());
        assert_eq!(n("opne"), Some("open"), "a swap is one edit");
        assert_eq!(n("OPNE"), Some("open"), "case is folded");
        assert_eq!(n("opnat"), Some("openat"));
        assert_eq!(n("clsoe"), Some("close"));
        assert_eq!(n("uidd"), Some("uid"));
        // A shared start wins a tie: `umount` is one edit from both.
        assert_eq!(n("umount"), Some("umount2"));
    }

    #[test]
    fn far_or_numbered_words_get_nothing() {
        let n = |w: &str| nearest(w.as_bytes(), NAMES.iter().copied());
        assert_eq!(n("fchmodat2"), Some("fchmodat"));
        assert!(numbered_variant(b"fchmodat2", "fchmodat"));
        assert!(numbered_variant(b"PREAD64", "pread"));
        assert!(!numbered_variant(b"pread", "pread"));
        assert!(!numbered_variant(b"preadv", "pread"));
        assert_eq!(n("socketcall"), None);
        assert_eq!(n("ud"), None, "too short to guess");
        assert_eq!(n(""), None);
        assert_eq!(did_you_mean(b"zzzz", NAMES.iter().copied()), "");
        assert_eq!(
            did_you_mean(b"opne", NAMES.iter().copied()),
            " (did you mean open?)"
        );
    }
}
