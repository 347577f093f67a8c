//! A loaded rule set: rules files and directories applied line by line, as
//! `auditctl -R` (or augenrules for a directory) would load them into the
//! kernel, with every refused line reported by file and line.

use crate::host::Host;
use crate::listing::Lister;
use crate::origin::by_origin;
pub use crate::origin::{LineError, Origin};
use crate::parse::{self, Parsed, Request};
use crate::report;
use crate::rule::{self, KernelError, Rule};
use crate::settings::{Query, Setting};
use crate::source;
use crate::warning::Warning;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::PathBuf;
use thiserror::Error;

/// Every refused line of a load, with the warnings about what was read
/// (nothing is loaded, but they are worth fixing in the same pass).
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{} line(s) refused", .errors.len())]
pub struct LoadErrors {
    /// The refusals, in the order the lines were applied.
    pub errors: Vec<LineError>,
    /// The warnings, by file and line.
    pub warnings: Vec<(Origin, Warning)>,
    /// Refusals left out of `errors`, counted by file (past the number
    /// printed for a file).
    pub unlisted: HashMap<PathBuf, usize>,
    /// Messages printed per file (0: all).
    pub limit: usize,
}

impl LoadErrors {
    /// The refusals and warnings as printed, `FILE:LINE: ...` (see [`report`]).
    pub fn report(&self) -> Vec<String> {
        report::lines(&self.errors, &self.warnings, &self.unlisted, self.limit)
    }
}

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
    /// How often each rule stands in each list, so that "exists" is one
    /// lookup, not a scan (loading n rules stays linear).
    counts: [HashMap<Rule, usize>; crate::abi::list::COUNT],
    /// Control settings, in the order given.
    pub settings: Vec<(Origin, Setting)>,
    /// Read-only queries found in the files (they change nothing).
    pub queries: Vec<(Origin, Query)>,
    /// Warnings about the inputs and their accepted lines, in file order.
    pub warnings: Vec<(Origin, Warning)>,
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
                let at = rule.list as usize;
                // The kernel marks a prepended rule until it is inserted, so
                // it never equals a loaded one: -A never reports "exists".
                if !prepend && self.counts[at].contains_key(&rule) {
                    // Scanned for only on the refusal, to name the line.
                    let earlier = self.lists[at].iter().find(|l| l.rule == rule);
                    return Err(KernelError::Exists {
                        earlier: earlier.map(|l| l.origin.clone()),
                    });
                }
                rule::check_paths(&rule, host)?;
                *self.counts[at].entry(rule.clone()).or_default() += 1;
                let list = &mut self.lists[at];
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
                let counts = &mut self.counts[rule.list as usize];
                if let Some(n) = counts.get_mut(&rule) {
                    *n -= 1;
                    if *n == 0 {
                        counts.remove(&rule);
                    }
                }
            }
            Some(Request::DeleteAll { key }) => {
                for (list, counts) in self.lists.iter_mut().zip(&mut self.counts) {
                    list.retain(|l| !key_matches(&l.rule, &key));
                    counts.clear();
                    for l in list.iter() {
                        *counts.entry(l.rule.clone()).or_default() += 1;
                    }
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
        self.apply_words_with(words, origin, host, true)
    }

    /// [`RuleSet::apply_words`]; `hints`: a refusal names the likely fix.
    fn apply_words_with(
        &mut self,
        words: &[Vec<u8>],
        origin: &Origin,
        host: &dyn Host,
        hints: bool,
    ) -> Result<(), LineError> {
        let fail = |message: String| LineError {
            origin: origin.clone(),
            message,
        };
        let parsed = parse::parse_words_with(words, host, hints).map_err(|e| fail(e.0))?;
        self.apply(parsed, origin, host)
            .map_err(|e| fail(e.to_string()))
    }

    /// The rules of `text` (lines applied in order, named `file` in errors):
    /// rules already in memory, as a control request or a test holds them.
    pub fn from_text(text: &[u8], file: &str, host: &dyn Host) -> Result<RuleSet, LineError> {
        let mut set = RuleSet::default();
        for l in crate::lexer::lines(text) {
            let origin = Origin {
                file: file.into(),
                line: l.lineno,
            };
            set.apply_words(&l.words, &origin, host)?;
        }
        Ok(set)
    }

    /// Write the rules as `auditctl -l` would.
    pub fn write_listing(&self, out: &mut dyn Write, host: &dyn Host) -> io::Result<()> {
        Lister::new(host).write_all(out, self.rules().map(|l| &l.rule))
    }

    /// Load rules files and directories in order into a new set. Every line
    /// is tried (a refused line changes nothing); the refusals are returned,
    /// up to [`report::MESSAGES_PER_FILE`] a file (the rest are counted).
    pub fn load(paths: &[PathBuf], host: &dyn Host) -> Result<RuleSet, LoadErrors> {
        RuleSet::load_with(paths, host, false)
    }

    /// [`RuleSet::load`]; with `strict`, every warning is a refusal too
    /// (`--strict`: nothing is loaded unless the input is clean).
    pub fn load_with(
        paths: &[PathBuf],
        host: &dyn Host,
        strict: bool,
    ) -> Result<RuleSet, LoadErrors> {
        RuleSet::load_limited(paths, host, strict, report::MESSAGES_PER_FILE)
    }

    /// [`RuleSet::load_with`], keeping (and printing) at most `limit`
    /// messages a file, 0 for all (`rules check --max-messages`).
    pub fn load_limited(
        paths: &[PathBuf],
        host: &dyn Host,
        strict: bool,
        limit: usize,
    ) -> Result<RuleSet, LoadErrors> {
        let mut set = RuleSet::default();
        let mut errors = Vec::new();
        // Refusals per file: kept up to the number printed, then counted
        // (a garbled input can have millions of lines).
        let mut kept: HashMap<PathBuf, usize> = HashMap::new();
        let mut unlisted: HashMap<PathBuf, usize> = HashMap::new();
        for path in paths {
            let first = errors.len();
            let seen = set.warnings.len();
            match source::read_source(path) {
                Err(e) => errors.push(e),
                Ok(src) => {
                    set.warnings.extend(src.warnings);
                    for (origin, words) in src.lines {
                        let shown = kept.get(&origin.file).copied().unwrap_or(0);
                        let listed = limit == 0 || shown < limit;
                        if let Err(e) = set.apply_words_with(&words, &origin, host, listed) {
                            let count = if listed { &mut kept } else { &mut unlisted };
                            *count.entry(origin.file.clone()).or_default() += 1;
                            if listed {
                                errors.push(e);
                            }
                        }
                    }
                }
            }
            // This input's warnings (whole file first) by file and line.
            set.warnings[seen..].sort_by(|a, b| by_origin(&a.0, &b.0));
            if strict && !set.warnings.is_empty() {
                errors.extend(set.warnings.drain(..).map(|(origin, w)| LineError {
                    origin,
                    message: format!("{w} (a warning, refused by --strict)"),
                }));
                errors[first..].sort_by(|a, b| by_origin(&a.origin, &b.origin));
            }
        }
        if errors.is_empty() {
            Ok(set)
        } else {
            Err(LoadErrors {
                errors,
                warnings: set.warnings,
                unlisted,
                limit,
            })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::FixedHost;

    fn line(set: &mut RuleSet, text: &str) -> Result<(), LineError> {
        line_at(set, text, 1)
    }

    fn line_at(set: &mut RuleSet, text: &str, n: usize) -> Result<(), LineError> {
        let words: Vec<Vec<u8>> = text.split(' ').map(|w| w.as_bytes().to_vec()).collect();
        let origin = Origin {
            file: "t.rules".into(),
            line: n,
        };
        set.apply_words(&words, &origin, &FixedHost)
    }

    #[test]
    fn a_duplicate_names_the_line_that_loaded_the_rule() {
        let mut set = RuleSet::default();
        line_at(&mut set, "-a always,exit -F arch=b64 -S open -k a", 3).unwrap();
        line_at(&mut set, "-a always,exit -F arch=b64 -S chmod -k k", 7).unwrap();
        let err = line_at(&mut set, "-a always,exit -F arch=b64 -S chmod -k k", 12).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.rules:12: rule exists: the same rule is already loaded from t.rules:7"
        );
        // The same permissions in another order are the same rule.
        line_at(&mut set, "-w /etc/passwd -p wa", 20).unwrap();
        let err = line_at(&mut set, "-w /etc/passwd -p aw", 21).unwrap_err();
        assert_eq!(
            err.message,
            "rule exists: the same rule is already loaded from t.rules:20"
        );
    }

    #[test]
    fn a_load_keeps_the_refusals_it_prints_and_counts_the_rest() {
        let dir = std::env::temp_dir().join(format!("fa-ruleset-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("many.rules");
        let text: String = (0..report::MESSAGES_PER_FILE + 25)
            .map(|i| format!("-a always,exit -F arch=b64 -S opne{i}\n"))
            .collect();
        std::fs::write(&f, text).unwrap();
        let e = RuleSet::load(std::slice::from_ref(&f), &FixedHost).unwrap_err();
        assert_eq!(e.errors.len(), report::MESSAGES_PER_FILE);
        assert_eq!(e.unlisted.get(&f), Some(&25));
        let printed = e.report();
        assert_eq!(
            printed[report::MESSAGES_PER_FILE..],
            [
                format!("{}: ... and 25 more not shown", f.display()),
                format!(
                    "{} errors, 0 warnings in {}",
                    report::MESSAGES_PER_FILE + 25,
                    f.display()
                )
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn exists_is_judged_by_lookup_with_the_kernel_semantics() {
        let mut set = RuleSet::default();
        let a = "-a always,exit -F arch=b64 -S chmod -k k";
        line(&mut set, a).unwrap();
        assert!(line(&mut set, a).is_err(), "a duplicate exists");
        line(&mut set, "-A always,exit -F arch=b64 -S chmod -k k").unwrap();
        line(&mut set, "-d always,exit -F arch=b64 -S chmod -k k").unwrap();
        assert!(line(&mut set, a).is_err(), "one copy is still loaded");
        line(&mut set, "-d always,exit -F arch=b64 -S chmod -k k").unwrap();
        line(&mut set, a).unwrap();
        line(&mut set, "-D -k k").unwrap();
        assert_eq!(set.len(), 0);
        line(&mut set, a).unwrap();
        assert_eq!(set.len(), 1);
    }
}
