//! The rule sets a benchmark runs with: none, N non-matching rules, or a
//! real rule set, prepared into one file both the kernel and fastaudit load.

use crate::{io, BenchError};
use fastaudit_rules::{source, RuleSet, SystemHost};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Named real rule sets, relative to the corpus directory (`../shared/corpus/rules`).
pub const CORPUS_SETS: &[(&str, &str)] = &[
    ("stig", "audit-userspace/30-stig.rules"),
    ("ospp", "audit-userspace/30-ospp-v42.rules"),
    ("pci-dss", "audit-userspace/30-pci-dss-v31.rules"),
    ("neo23x0", "community/neo23x0-audit.rules"),
];

/// The CIS-style set shipped with fastaudit (the corpus holds no CIS set).
pub const CIS_RULES: &str = include_str!("../../../rules/bench/cis.rules");

/// The rule the `audited` scenario appends: every fchmodat is recorded.
pub const AUDITED_KEY: &str = "fa-bench-audited";

/// A rule set by name, as given on the command line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Spec {
    /// No rules at all.
    None,
    /// N rules `-a always,exit -F arch=b64 -S chmod -F auid=X` no process matches.
    NonMatching {
        /// How many.
        count: u32,
    },
    /// The shipped CIS-style set.
    Cis,
    /// A rules file or directory.
    File {
        /// Its path.
        path: PathBuf,
    },
}

impl Spec {
    /// Parse a name: `none`, a number, `cis`, a corpus set name, or a path.
    pub fn parse(name: &str, corpus: Option<&Path>) -> Result<Spec, BenchError> {
        if name == "none" || name == "0" {
            return Ok(Spec::None);
        }
        if let Ok(count) = name.parse::<u32>() {
            return Ok(Spec::NonMatching { count });
        }
        if name == "cis" {
            return Ok(Spec::Cis);
        }
        if let Some((_, rel)) = CORPUS_SETS.iter().find(|(n, _)| *n == name) {
            let corpus = corpus.ok_or_else(|| {
                BenchError::Refused(format!(
                    "rule set {name}: the shared corpus was not found (give --corpus DIR)"
                ))
            })?;
            return Ok(Spec::File {
                path: corpus.join(rel),
            });
        }
        let path = PathBuf::from(name);
        if path.exists() {
            return Ok(Spec::File { path });
        }
        Err(BenchError::Refused(format!(
            "rule set {name:?}: not none, a number, cis, {}, or an existing file",
            CORPUS_SETS
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }
}

/// A rule set ready to load: the rules as `auditctl -l` lists them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Prepared {
    /// The name it was asked for by.
    pub name: String,
    /// Where it came from.
    pub spec: Spec,
    /// Rules in it.
    pub rules: usize,
    /// Lines left out: settings (-b, -e, -f, ...) and lines auditctl or the
    /// kernel would refuse on this machine, with the reason.
    pub left_out: Vec<String>,
    /// The file both modes load.
    pub file: PathBuf,
}

/// Prepare `spec` under `dir`, with `extra` rules appended.
pub fn prepare(name: &str, spec: &Spec, extra: &str, dir: &Path) -> Result<Prepared, BenchError> {
    let host = SystemHost;
    let mut set = RuleSet::default();
    let mut left_out = Vec::new();
    let mut text = String::new();
    match spec {
        Spec::None => {}
        Spec::NonMatching { count } => {
            for i in 0..*count {
                // auid values no process has, distinct so none is a duplicate.
                text.push_str(&format!(
                    "-a always,exit -F arch=b64 -S chmod -F auid={}\n",
                    1_000_000 + i
                ));
            }
        }
        Spec::Cis => text.push_str(CIS_RULES),
        Spec::File { path } => {
            let lines = source::source_lines(path)
                .map_err(|e| BenchError::Refused(format!("rule set {name}: {}", e.message)))?;
            apply(&mut set, lines, &host, &mut left_out);
        }
    }
    text.push_str(extra);
    let scratch = dir.join(format!("{}.source.rules", file_name(name)));
    std::fs::write(&scratch, &text).map_err(io("writing a rule set"))?;
    let lines = source::source_lines(&scratch)
        .map_err(|e| BenchError::Refused(format!("rule set {name}: {}", e.message)))?;
    apply(&mut set, lines, &host, &mut left_out);
    let mut listing = Vec::new();
    // An empty set lists as "No rules", which is not a rules file.
    if !set.is_empty() {
        set.write_listing(&mut listing, &host)
            .map_err(io("listing a rule set"))?;
    }
    let file = dir.join(format!("{}.rules", file_name(name)));
    std::fs::write(&file, &listing).map_err(io("writing a rule set"))?;
    Ok(Prepared {
        name: name.to_string(),
        spec: spec.clone(),
        rules: set.len(),
        left_out,
        file,
    })
}

/// Apply every line that adds a rule; note every other line left out.
fn apply(
    set: &mut RuleSet,
    lines: Vec<(fastaudit_rules::Origin, Vec<Vec<u8>>)>,
    host: &SystemHost,
    left_out: &mut Vec<String>,
) {
    for (origin, words) in lines {
        let adds = words
            .first()
            .is_some_and(|w| [&b"-a"[..], b"-A", b"-w"].iter().any(|o| w.starts_with(o)));
        let text = String::from_utf8_lossy(&words.join(&b' ')).into_owned();
        if !adds {
            // Settings (-e 2 above all) and deletions are never sent.
            left_out.push(format!("{origin}: not a rule: {text}"));
            continue;
        }
        if let Err(e) = set.apply_words(&words, &origin, host) {
            left_out.push(e.to_string());
        }
    }
}

fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The shared corpus beside a checkout: `$FASTAUDIT_CORPUS`, else
/// `../shared/corpus/rules` from the working directory or from the checkout
/// the binary was built in.
pub fn find_corpus(exe: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("FASTAUDIT_CORPUS") {
        return Some(PathBuf::from(p));
    }
    let mut candidates = vec![PathBuf::from("../shared/corpus/rules")];
    // target/{release,debug}/fastaudit-bench -> the checkout -> ../shared
    for up in exe.ancestors().skip(1).take(4) {
        candidates.push(up.join("../shared/corpus/rules"));
    }
    candidates
        .into_iter()
        .find(|p| p.join(CORPUS_SETS[0].1).is_file())
        .map(|p| p.canonicalize().unwrap_or(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        assert_eq!(Spec::parse("none", None).unwrap(), Spec::None);
        assert_eq!(
            Spec::parse("100", None).unwrap(),
            Spec::NonMatching { count: 100 }
        );
        assert_eq!(Spec::parse("cis", None).unwrap(), Spec::Cis);
        assert!(Spec::parse("stig", None).is_err());
        assert!(Spec::parse("no-such-set", None).is_err());
        assert_eq!(
            Spec::parse("stig", Some(Path::new("/c"))).unwrap(),
            Spec::File {
                path: PathBuf::from("/c/audit-userspace/30-stig.rules")
            }
        );
    }

    #[test]
    fn non_matching_rules_are_distinct_and_settings_are_left_out() {
        let dir = std::env::temp_dir().join(format!("fa-bench-rs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = prepare("10", &Spec::NonMatching { count: 10 }, "", &dir).unwrap();
        assert_eq!(p.rules, 10);
        let listing = std::fs::read_to_string(&p.file).unwrap();
        assert_eq!(listing.lines().count(), 10);
        assert!(listing.contains("-F auid=1000009"));
        let p = prepare("none", &Spec::None, "", &dir).unwrap();
        assert_eq!((p.rules, std::fs::read(&p.file).unwrap().len()), (0, 0));
        let src = dir.join("set.rules");
        std::fs::write(
            &src,
            "-D\n-b 8192\n-e 2\n-a always,exit -S chmod -k x\n-a bogus\n",
        )
        .unwrap();
        let p = prepare(
            "file",
            &Spec::File { path: src },
            "-a always,exit -F arch=b64 -S fchmodat -k y\n",
            &dir,
        )
        .unwrap();
        assert_eq!(p.rules, 2);
        assert_eq!(p.left_out.len(), 4, "{:?}", p.left_out);
        let listing = std::fs::read_to_string(&p.file).unwrap();
        assert!(!listing.contains("-e"), "{listing}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_cis_set_parses_completely() {
        let dir = std::env::temp_dir().join(format!("fa-bench-cis-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = prepare("cis", &Spec::Cis, "", &dir).unwrap();
        let not_settings: Vec<_> = p
            .left_out
            .iter()
            .filter(|l| !l.contains("not a rule"))
            .collect();
        assert!(not_settings.is_empty(), "{not_settings:?}");
        assert!(p.rules > 20);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
