//! The little markup the pages' prose is written in (the key table's and
//! the sections'): `code` in backquotes, nothing else. Rendered to roff
//! (bold) and to Markdown (a code span).

use clap_mangen::roff::{bold, roman, Inline};

/// `text` as roff inlines: the backquoted parts bold.
pub fn inlines(text: &str) -> Vec<Inline> {
    text.split('`')
        .enumerate()
        .filter(|(_, part)| !part.is_empty())
        .map(
            |(i, part)| {
                if i % 2 == 1 {
                    bold(part)
                } else {
                    roman(part)
                }
            },
        )
        .collect()
}

/// `text` for a Markdown table cell: pipes escaped.
#[cfg_attr(not(test), allow(dead_code))]
pub fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backquotes_are_bold_in_roff_and_kept_in_markdown() {
        let i = inlines("a `b` c");
        assert_eq!(i, vec![roman("a "), bold("b"), roman(" c")]);
        assert_eq!(cell("`yes|no`"), "`yes\\|no`");
    }
}
