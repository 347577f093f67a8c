//! A loaded rule set: rules files and directories applied line by line, as
//! `auditctl -R` (or augenrules for a directory) would load them into the
//! kernel, with every refused line reported by file and line.

use crate::host::Host;
use crate::lexer;
use crate::listing::Lister;
use crate::parse::{self, Parsed, Request};
use crate::rule::{self, KernelError, Rule};
use crate::settings::{Query, Setting};
use std::cmp::Ordering;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
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
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{origin}: {message}")]
pub struct LineError {
    /// The offending line.
    pub origin: Origin,
    /// What is wrong, naming the option or value.
    pub message: String,
}

/// Every refused line of a load, in file order.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{} line(s) refused", .0.len())]
pub struct LoadErrors(pub Vec<LineError>);

/// A rule in a loaded set, with the line that added it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// The rule as the kernel would hold it.
    pub rule: Rule,
    /// The line that added it.
    pub origin: Origin,
}

/// Rules per filter list in kernel order, plus the control settings seen.
#[derive(Clone, Debug, Default)]
pub struct RuleSet {
    lists: [Vec<Loaded>; crate::abi::list::COUNT],
    /// Control settings, in the order given.
    pub settings: Vec<(Origin, Setting)>,
    /// Read-only queries found in the files (they change nothing).
    pub queries: Vec<(Origin, Query)>,
    /// Warnings auditctl would print for accepted lines.
    pub warnings: Vec<(Origin, String)>,
}

impl RuleSet {
    /// All rules in the order the kernel lists them (user, task, exit, exclude, filesystem, io_uring).
    pub fn rules(&self) -> impl Iterator<Item = &Loaded> {
        self.lists.iter().flatten()
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.lists.iter().map(Vec::len).sum()
    }

    /// Whether the set has no rules.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Apply one parsed line; on error nothing changes.
    pub fn apply(
        &mut self,
        parsed: Parsed,
        origin: &Origin,
        host: &dyn Host,
    ) -> Result<(), KernelError> {
        match parsed.request {
            Some(Request::Add { mut rule, prepend }) => {
                rule.expand_syscall_classes();
                rule::check_entry(&rule)?;
                let list = &mut self.lists[rule.list as usize];
                // The kernel marks a prepended rule until it is inserted, so
                // it never equals a loaded one: -A never reports "exists".
                if !prepend && list.iter().any(|l| l.rule == rule) {
                    return Err(KernelError::Exists);
                }
                rule::check_paths(&rule, host)?;
                let loaded = Loaded {
                    rule,
                    origin: origin.clone(),
                };
                if prepend {
                    list.insert(0, loaded);
                } else {
                    list.push(loaded);
                }
            }
            Some(Request::Delete(mut rule)) => {
                rule.expand_syscall_classes();
                rule::check_entry(&rule)?;
                let list = &mut self.lists[rule.list as usize];
                let at = list
                    .iter()
                    .position(|l| l.rule == rule)
                    .ok_or(KernelError::NoMatch)?;
                list.remove(at);
            }
            Some(Request::DeleteAll { key }) => {
                for list in &mut self.lists {
                    list.retain(|l| !key_matches(&l.rule, &key));
                }
            }
            None => {}
        }
        self.settings
            .extend(parsed.settings.into_iter().map(|s| (origin.clone(), s)));
        self.queries
            .extend(parsed.queries.into_iter().map(|q| (origin.clone(), q)));
        self.warnings
            .extend(parsed.warnings.into_iter().map(|w| (origin.clone(), w)));
        Ok(())
    }

    /// Parse and apply one line of words.
    pub fn apply_words(
        &mut self,
        words: &[Vec<u8>],
        origin: &Origin,
        host: &dyn Host,
    ) -> Result<(), LineError> {
        let fail = |message: String| LineError {
            origin: origin.clone(),
            message,
        };
        let parsed = parse::parse_words(words, host).map_err(|e| fail(e.0))?;
        self.apply(parsed, origin, host)
            .map_err(|e| fail(e.to_string()))
    }

    /// Write the rules as `auditctl -l` would.
    pub fn write_listing(&self, out: &mut dyn Write, host: &dyn Host) -> io::Result<()> {
        Lister::new(host).write_all(out, self.rules().map(|l| &l.rule))
    }

    /// Load rules files and directories in order into a new set. Every line
    /// is tried (a refused line changes nothing); all refusals are returned.
    pub fn load(paths: &[PathBuf], host: &dyn Host) -> Result<RuleSet, LoadErrors> {
        let mut set = RuleSet::default();
        let mut errors = Vec::new();
        for path in paths {
            match source_lines(path) {
                Err(e) => errors.push(e),
                Ok(lines) => {
                    for (origin, words) in lines {
                        if let Err(e) = set.apply_words(&words, &origin, host) {
                            errors.push(e);
                        }
                    }
                }
            }
        }
        if errors.is_empty() {
            Ok(set)
        } else {
            Err(LoadErrors(errors))
        }
    }
}

/// `-D -k key`: auditctl deletes rules whose key contains `key`.
fn key_matches(rule: &Rule, key: &[u8]) -> bool {
    if key.is_empty() {
        return true;
    }
    rule.key()
        .is_some_and(|k| k.windows(key.len()).any(|w| w == key))
}

type Words = Vec<Vec<u8>>;

/// The command lines of a file, or of a directory combined as augenrules does.
pub fn source_lines(path: &Path) -> Result<Vec<(Origin, Words)>, LineError> {
    let whole = |message: String| LineError {
        origin: Origin {
            file: path.to_path_buf(),
            line: 0,
        },
        message,
    };
    let meta = std::fs::metadata(path).map_err(|e| whole(format!("cannot read: {e}")))?;
    if !meta.is_dir() {
        let data = std::fs::read(path).map_err(|e| whole(format!("cannot read: {e}")))?;
        return Ok(lexer::lines(&data)
            .into_iter()
            .map(|l| {
                (
                    Origin {
                        file: path.to_path_buf(),
                        line: l.lineno,
                    },
                    l.words,
                )
            })
            .collect());
    }
    let mut names: Vec<_> = std::fs::read_dir(path)
        .map_err(|e| whole(format!("cannot read directory: {e}")))?
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| n.as_encoded_bytes().ends_with(b".rules"))
        .collect();
    names.sort_by(|a, b| version_cmp(a.as_encoded_bytes(), b.as_encoded_bytes()));
    let mut raw = Vec::new();
    for name in names {
        let file = path.join(&name);
        let data = std::fs::read(&file).map_err(|e| LineError {
            origin: Origin {
                file: file.clone(),
                line: 0,
            },
            message: format!("cannot read: {e}"),
        })?;
        for (line, text) in lexer::raw_lines(&data) {
            raw.push((
                Origin {
                    file: file.clone(),
                    line,
                },
                text.to_vec(),
            ));
        }
    }
    Ok(augenrules_order(raw)
        .into_iter()
        .filter_map(|(o, text)| lexer::words(&text).map(|w| (o, w)))
        .collect())
}

/// augenrules' reordering: the last bare `-D` first, then the last `-b` and
/// `-f`, the other lines in order, and the last `-e` at the very end; empty
/// and comment lines dropped. Debian runs augenrules' awk program with mawk,
/// where its `\s` means a literal `s`, so an indented `-e` or a `-D ` with a
/// trailing space stays in place; this follows that awk, the oracle here.
fn augenrules_order(raw: Vec<(Origin, Vec<u8>)>) -> Vec<(Origin, Vec<u8>)> {
    let (mut d, mut b, mut f, mut e) = (None, None, None, None);
    let mut rest = Vec::new();
    for (o, text) in raw {
        let body = &text[text.iter().take_while(|&&c| c == b's').count()..];
        if text.is_empty() || body.starts_with(b"#") {
            continue;
        }
        if body.starts_with(b"-e") {
            e = Some((o, text));
        } else if body.starts_with(b"-D") && body[2..].iter().all(|&c| c == b's') {
            d = Some((o, text));
        } else if body.starts_with(b"-f") {
            f = Some((o, text));
        } else if body.starts_with(b"-b") {
            b = Some((o, text));
        } else {
            rest.push((o, text));
        }
    }
    [d, b, f]
        .into_iter()
        .flatten()
        .chain(rest)
        .chain(e)
        .collect()
}

/// `ls -v` order: digit runs compare by value, the rest byte by byte.
pub fn version_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let si = i;
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let (x, y) = (trim_zeros(&a[si..i]), trim_zeros(&b[sj..j]));
            let ord = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
            if ord != Ordering::Equal {
                return ord;
            }
        } else {
            if a[i] != b[j] {
                return a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j)).then_with(|| a.cmp(b))
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|&&c| c == b'0').count();
    &d[n.min(d.len().saturating_sub(1))..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_sort() {
        let mut v = vec!["10-a.rules", "9-b.rules", "99-z.rules", "10-A.rules"];
        v.sort_by(|a, b| version_cmp(a.as_bytes(), b.as_bytes()));
        assert_eq!(
            v,
            vec!["9-b.rules", "10-A.rules", "10-a.rules", "99-z.rules"]
        );
    }
}
