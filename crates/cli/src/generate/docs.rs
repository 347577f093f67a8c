//! The parts of docs/configuration.md that are the man pages' text in
//! Markdown: the auditd.conf keys (conf_page.rs) and the signals
//! (fastaudit_daemon::reference). Each sits between its markers; a test
//! checks that the doc holds what is generated now, and
//! `FASTAUDIT_DOCS_BLESS=1 cargo test -p fastaudit generated_docs` writes it.

use super::conf_page;
use super::prose::cell;

/// Writes one generated part.
type Generator = fn() -> String;

/// Each generated part: its name in the markers, and its text.
pub const BLOCKS: &[(&str, Generator)] = &[
    ("auditd.conf keys", conf_page::markdown),
    ("signals", signals),
];

/// The line before a part.
pub fn begin(name: &str) -> String {
    format!(
        "<!-- generated ({name}): edit the source, then FASTAUDIT_DOCS_BLESS=1 cargo test -p fastaudit generated_docs -->"
    )
}

/// The line after a part.
pub const END: &str = "<!-- end of generated text -->";

/// The signals `run` answers, as a table.
pub fn signals() -> String {
    let mut s = String::from("| signal | effect |\n| --- | --- |\n");
    for (sig, what) in fastaudit_daemon::reference::SIGNALS {
        s.push_str(&format!(
            "| `{}` | {} |\n",
            sig.replace(", ", "`, `"),
            cell(what)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/configuration.md holds each part as generated now.
    #[test]
    fn generated_docs_agree_with_their_sources() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md");
        let mut doc = std::fs::read_to_string(&path).unwrap();
        let mut stale = Vec::new();
        for (name, text) in BLOCKS {
            let begin = begin(name);
            let b = doc
                .find(&begin)
                .unwrap_or_else(|| panic!("{} lacks {begin}", path.display()));
            let e = b + doc[b..]
                .find(END)
                .unwrap_or_else(|| panic!("{} lacks {END} after {begin}", path.display()));
            let want = format!("\n\n{}", text());
            if doc[b + begin.len()..e] != want {
                stale.push(*name);
                doc = format!("{}{begin}{want}{}", &doc[..b], &doc[e..]);
            }
        }
        if !stale.is_empty() {
            if std::env::var_os("FASTAUDIT_DOCS_BLESS").is_some() {
                std::fs::write(&path, doc).unwrap();
                return;
            }
            panic!(
                "docs/configuration.md's {stale:?} are not what is generated: FASTAUDIT_DOCS_BLESS=1 cargo test -p fastaudit generated_docs"
            );
        }
    }
}
