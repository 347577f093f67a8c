//! Rules files loaded as `auditctl -R` (what `augenrules --load` runs)
//! loads them, for a daemon that must keep auditing: the lines are applied
//! in order and the first refused line stops the load, keeping what came
//! before it; after a `-c` line refusals are passed over (auditctl still
//! fails), after a `-i` line they are ignored (auditctl succeeds). A file
//! that cannot be read counts as a refused line. auditctl 3.0.9 on this
//! project's test machine does exactly this for parse errors and kernel
//! refusals alike.

use crate::host::Host;
use crate::origin::{LineError, Origin};
use crate::report;
use crate::ruleset::{LoadErrors, RuleSet};
use crate::settings::Setting;
use crate::source;
use std::collections::HashMap;
use std::path::PathBuf;

/// What a load that keeps going made of the files.
#[derive(Debug)]
pub struct Partial {
    /// The rules and settings applied.
    pub set: RuleSet,
    /// The refused lines, up to `limit` a file (the rest counted), no
    /// warnings (those are in `set.warnings`); `None`: nothing refused.
    pub refused: Option<LoadErrors>,
    /// The refusal that stopped the load (no `-c` or `-i` before it): no
    /// line after it was applied.
    pub stopped: Option<Origin>,
    /// A `-i` line was in force at the first refusal: auditctl would
    /// succeed.
    pub ignored: bool,
}

impl Partial {
    /// Whether every line was applied.
    pub fn complete(&self) -> bool {
        self.refused.is_none()
    }

    /// One line for the journal and the log saying what was not loaded,
    /// and how to have all of it (`None` when complete).
    pub fn summary(&self) -> Option<String> {
        let refused = self.refused.as_ref()?;
        let n = refused.errors.len() + refused.unlisted.values().sum::<usize>();
        let mut s = format!("the rule set is partial: {n} line(s) refused");
        match &self.stopped {
            Some(at) => s.push_str(&format!(
                "; loading stopped at {at}, as auditctl -R stops: the lines after it were not loaded (a -c line before the error loads past it)"
            )),
            None if self.ignored => s.push_str("; the rest was loaded (-i: errors ignored)"),
            None => s.push_str("; the rest was loaded (-c)"),
        }
        Some(s)
    }
}

impl RuleSet {
    /// Load `paths` as `auditctl -R` would, keeping at most `limit`
    /// refusals a file (0: all).
    pub fn load_as_auditctl(paths: &[PathBuf], host: &dyn Host, limit: usize) -> Partial {
        let mut set = RuleSet::default();
        let mut errors: Vec<LineError> = Vec::new();
        let mut unlisted: HashMap<PathBuf, usize> = HashMap::new();
        let mut stopped = None;
        let mut ignored = false;
        let mut refuse = |e: LineError, errors: &mut Vec<LineError>| {
            let shown = errors
                .iter()
                .filter(|o| o.origin.file == e.origin.file)
                .count();
            if limit == 0 || shown < limit {
                errors.push(e);
            } else {
                *unlisted.entry(e.origin.file.clone()).or_default() += 1;
            }
        };
        'files: for path in paths {
            let lines = match source::read_source(path) {
                Ok(src) => {
                    set.warnings.extend(src.warnings);
                    src.lines
                }
                Err(e) => {
                    let at = e.origin.clone();
                    refuse(e, &mut errors);
                    match go_on(&set) {
                        Some(i) => ignored |= i,
                        None => {
                            stopped = Some(at);
                            break 'files;
                        }
                    }
                    continue;
                }
            };
            for (origin, words) in lines {
                if let Err(e) = set.apply_words(&words, &origin, host) {
                    refuse(e, &mut errors);
                    match go_on(&set) {
                        Some(i) => ignored |= i,
                        None => {
                            stopped = Some(origin);
                            break 'files;
                        }
                    }
                }
            }
        }
        set.warnings
            .sort_by(|a, b| crate::origin::by_origin(&a.0, &b.0));
        let refused = (!errors.is_empty() || !unlisted.is_empty()).then(|| LoadErrors {
            errors,
            warnings: Vec::new(),
            unlisted,
            limit,
        });
        Partial {
            set,
            refused,
            stopped,
            ignored,
        }
    }
}

/// After a refusal: `None` stops the load; `Some(ignored)` goes on (a
/// `-c` or `-i` line was applied before it; `ignored` for `-i`).
fn go_on(set: &RuleSet) -> Option<bool> {
    let mut on = None;
    for (_, s) in &set.settings {
        match s {
            Setting::IgnoreErrors => on = Some(true),
            Setting::ContinueOnErrors => on = Some(on.unwrap_or(false)),
            _ => {}
        }
    }
    on
}

/// The default number of refusals kept a file, as `fastaudit rules` prints.
pub const LIMIT: usize = report::MESSAGES_PER_FILE;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::FixedHost;
    use proptest::prelude::*;

    fn load(text: &str) -> Partial {
        // One directory a call: the tests run in parallel.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("fa-partial-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.rules");
        std::fs::write(&f, text).unwrap();
        let p = RuleSet::load_as_auditctl(std::slice::from_ref(&f), &FixedHost, LIMIT);
        let _ = std::fs::remove_dir_all(&dir);
        p
    }

    fn keys(p: &Partial) -> Vec<String> {
        p.set
            .rules()
            .filter_map(|l| {
                l.rule
                    .key()
                    .map(|k| String::from_utf8_lossy(k).into_owned())
            })
            .collect()
    }

    const GOOD_BAD_GOOD: &str = "-a always,exit -F arch=b64 -S mkdir -k a\n\
                                 -a always,exit -F arch=b64 -S bogus -k b\n\
                                 -a always,exit -F arch=b64 -S rmdir -k c\n";

    #[test]
    fn the_first_refusal_stops_the_load_and_keeps_what_came_before() {
        let p = load(GOOD_BAD_GOOD);
        assert_eq!(keys(&p), ["a"]);
        assert!(!p.complete() && !p.ignored);
        assert_eq!(p.stopped.as_ref().map(|o| o.line), Some(2));
        let s = p.summary().unwrap();
        assert!(
            s.contains("1 line(s) refused") && s.contains("t.rules:2"),
            "{s}"
        );
    }

    #[test]
    fn c_goes_on_past_errors_and_i_ignores_them() {
        let p = load(&format!("-c\n{GOOD_BAD_GOOD}"));
        assert_eq!(keys(&p), ["a", "c"]);
        assert!(p.stopped.is_none() && !p.ignored && !p.complete());
        let p = load(&format!("-i\n{GOOD_BAD_GOOD}"));
        assert_eq!(keys(&p), ["a", "c"]);
        assert!(p.stopped.is_none() && p.ignored);
        // Only from its own line on, as auditctl reads it.
        let p = load(&format!("{GOOD_BAD_GOOD}-c\n"));
        assert_eq!(keys(&p), ["a"]);
    }

    #[test]
    fn a_clean_file_is_complete() {
        let p = load("-a always,exit -F arch=b64 -S mkdir -k a\n");
        assert!(p.complete() && p.summary().is_none());
    }

    proptest! {
        /// Whatever the lines, what is loaded is exactly what the lines
        /// before the first refusal load on their own (nothing after it,
        /// nothing half-applied).
        #[test]
        fn a_partial_load_is_the_prefix_before_the_refusal(
            picks in proptest::collection::vec(0usize..4, 0..12)
        ) {
            const LINES: [&str; 4] = [
                "-a always,exit -F arch=b64 -S mkdir -k a",
                "-a always,exit -F arch=b64 -S rmdir -k b",
                "-a always,exit -F arch=b64 -S nosuchcall -k x",
                "-w /etc/passwd -p wa -k w",
            ];
            let text: String = picks.iter().map(|&i| format!("{}\n", LINES[i])).collect();
            let p = load(&text);
            let upto = p.stopped.as_ref().map_or(picks.len(), |o| o.line - 1);
            let prefix: String = picks[..upto].iter().map(|&i| format!("{}\n", LINES[i])).collect();
            let alone = RuleSet::from_text(prefix.as_bytes(), "t.rules", &FixedHost).unwrap();
            prop_assert_eq!(
                p.set.rules().map(|l| &l.rule).collect::<Vec<_>>(),
                alone.rules().map(|l| &l.rule).collect::<Vec<_>>()
            );
            prop_assert_eq!(p.complete(), p.stopped.is_none());
        }
    }
}
