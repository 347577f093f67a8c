//! The rule sets a benchmark runs with: none, N non-matching rules, or a
//! real rule set, prepared into one file both the kernel and fastaudit load.

use crate::{io, BenchError};
use fastaudit_rules::{source, RuleSet, SystemHost};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Named real rule sets, relative to the corpus directory (`--corpus`).
pub const CORPUS_SETS: &[(&str, &str)] = &[
    ("stig", "audit-userspace/30-stig.rules"),
    ("ospp", "audit-userspace/30-ospp-v42.rules"),
    ("pci-dss", "audit-userspace/30-pci-dss-v31.rules"),
    ("neo23x0", "community/neo23x0-audit.rules"),
];

/// Where Debian's auditd package installs audit-userspace's example rules,
/// the corpus's `audit-userspace/` directory: the stig, ospp and pci-dss
/// sets are taken from there when no corpus is found (an installed
/// fastaudit, away from a source checkout).
pub const AUDITD_EXAMPLES: (&str, &str) =
    ("audit-userspace/", "/usr/share/doc/auditd/examples/rules");

/// The CIS-style set shipped with fastaudit (the corpus holds no CIS set).
pub const CIS_RULES: &str = include_str!("../../../rules/bench/cis.rules");

/// The `uring` set: the io_uring list on every op the kernel audits that
/// a program opening, connecting and renaming uses, for an auid no
/// process has (no record is written; every op is judged).
pub const URING_RULES: &str = "-a always,io_uring -S openat,openat2,close,connect,accept,renameat,unlinkat,mkdirat -F auid=1000000 -k fa-bench-uring\n";

/// The `uring-skipped` set: [`URING_RULES`] and the same test on the ops
/// the kernel never audits that a ring does most (nop, reads, writes,
/// sends, receives, statx).
pub const URING_SKIPPED_RULES: &str = "-a always,io_uring -S nop,read,write,readv,writev,read_fixed,write_fixed,send,recv,statx -F auid=1000000 -k fa-bench-uring-skipped\n";

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
    /// io_uring rules on the ops the kernel audits that no process
    /// matches ([`URING_RULES`]): the cost of judging every op.
    Uring,
    /// The same rules on the ops the kernel skips too (nop, read, ...),
    /// fastaudit run with `--audit-skipped-uring-ops` (the kernel takes
    /// the rules and never audits those ops).
    UringSkipped,
    /// A rules file or directory.
    File {
        /// Its path.
        path: PathBuf,
    },
}

impl Spec {
    /// Parse a name: `none`, a number, `cis`, a corpus set name, or a path.
    /// Without a corpus, the corpus sets auditd's examples hold are taken
    /// from there ([`AUDITD_EXAMPLES`]).
    pub fn parse(name: &str, corpus: Option<&Path>) -> Result<Spec, BenchError> {
        Spec::parse_in(name, corpus, Path::new(AUDITD_EXAMPLES.1))
    }

    fn parse_in(name: &str, corpus: Option<&Path>, examples: &Path) -> Result<Spec, BenchError> {
        if name == "none" || name == "0" {
            return Ok(Spec::None);
        }
        if let Ok(count) = name.parse::<u32>() {
            return Ok(Spec::NonMatching { count });
        }
        if name == "cis" {
            return Ok(Spec::Cis);
        }
        if name == "uring" {
            return Ok(Spec::Uring);
        }
        if name == "uring-skipped" {
            return Ok(Spec::UringSkipped);
        }
        if let Some((_, rel)) = CORPUS_SETS.iter().find(|(n, _)| *n == name) {
            if let Some(corpus) = corpus {
                return Ok(Spec::File {
                    path: corpus.join(rel),
                });
            }
            let example = rel
                .strip_prefix(AUDITD_EXAMPLES.0)
                .map(|file| examples.join(file));
            return match example {
                Some(path) if path.is_file() => Ok(Spec::File { path }),
                Some(path) => Err(BenchError::Refused(format!(
                    "rule set {name}: no corpus of rule sets was found and {} does not exist: give --corpus DIR (a directory holding {rel}), or install auditd",
                    path.display()
                ))),
                None => Err(BenchError::Refused(format!(
                    "rule set {name}: no corpus of rule sets was found: give --corpus DIR (a directory holding {rel})"
                ))),
            };
        }
        let path = PathBuf::from(name);
        if path.exists() {
            return Ok(Spec::File { path });
        }
        Err(BenchError::Refused(format!(
            "rule set {name:?}: not none, a number, cis, uring, uring-skipped, {}, or an existing file",
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
    /// The file fastaudit loads (every rule).
    pub file: PathBuf,
    /// The file auditctl loads for the kernel: every rule but the io_uring
    /// list's, which auditctl 3.0.9 cannot send (absent from older runs' JSON).
    #[serde(default)]
    pub kernel_file: PathBuf,
    /// The io_uring list's rules as the kernel takes them over netlink
    /// (`audit_rule_data`), in order.
    #[serde(skip)]
    pub uring_rules: Vec<Vec<u8>>,
    /// Arguments the fastaudit mode's `fastaudit run` gets beside the rules.
    #[serde(default)]
    pub fastaudit_args: Vec<String>,
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
        Spec::Uring => text.push_str(URING_RULES),
        Spec::UringSkipped => {
            text.push_str(URING_RULES);
            text.push_str(URING_SKIPPED_RULES);
        }
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
    // The listing puts the io_uring list last, one line per rule.
    let uring =
        |l: &&[u8]| l.starts_with(b"-a always,io_uring") || l.starts_with(b"-a never,io_uring");
    let kernel_lines: Vec<&[u8]> = listing
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty() && !uring(l))
        .collect();
    let kernel_file = dir.join(format!("{}.kernel.rules", file_name(name)));
    let mut kernel_text = kernel_lines.join(&b'\n');
    if !kernel_text.is_empty() {
        kernel_text.push(b'\n');
    }
    std::fs::write(&kernel_file, kernel_text).map_err(io("writing a rule set"))?;
    let uring_rules = set
        .rules()
        .filter(|l| l.rule.list == fastaudit_rules::abi::list::URING_EXIT)
        .map(|l| l.rule.to_data())
        .collect();
    let mut fastaudit_args = Vec::new();
    if *spec == Spec::UringSkipped {
        // The kernel takes the same rules and never audits those ops.
        fastaudit_args.push("--audit-skipped-uring-ops".to_string());
    }
    Ok(Prepared {
        name: name.to_string(),
        spec: spec.clone(),
        rules: set.len(),
        left_out,
        file,
        kernel_file,
        uring_rules,
        fastaudit_args,
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
/// the binary was built in (none for an installed binary: see
/// [`AUDITD_EXAMPLES`]).
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
        assert!(Spec::parse("no-such-set", None).is_err());
        assert_eq!(
            Spec::parse("stig", Some(Path::new("/c"))).unwrap(),
            Spec::File {
                path: PathBuf::from("/c/audit-userspace/30-stig.rules")
            }
        );
    }

    #[test]
    fn without_a_corpus_the_sets_come_from_auditds_examples_or_are_refused() {
        let dir = std::env::temp_dir().join(format!("fa-bench-ex-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("30-stig.rules"), "").unwrap();
        assert_eq!(
            Spec::parse_in("stig", None, &dir).unwrap(),
            Spec::File {
                path: dir.join("30-stig.rules")
            }
        );
        let err = Spec::parse_in("ospp", None, &dir).unwrap_err().to_string();
        assert!(
            err.contains("--corpus DIR") && err.contains("install auditd"),
            "{err}"
        );
        // Not among auditd's examples.
        let err = Spec::parse_in("neo23x0", None, &dir)
            .unwrap_err()
            .to_string();
        assert!(err.contains("community/neo23x0-audit.rules"), "{err}");
        // A corpus wins over the examples.
        assert_eq!(
            Spec::parse_in("stig", Some(Path::new("/c")), &dir).unwrap(),
            Spec::File {
                path: PathBuf::from("/c/audit-userspace/30-stig.rules")
            }
        );
        std::fs::remove_dir_all(&dir).unwrap();
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
    fn io_uring_rules_go_to_the_kernel_over_netlink() {
        let dir = std::env::temp_dir().join(format!("fa-bench-uring-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = prepare(
            "uring",
            &Spec::Uring,
            "-a always,exit -F arch=b64 -S fchmodat -k y\n",
            &dir,
        )
        .unwrap();
        assert_eq!((p.rules, p.uring_rules.len()), (2, 1));
        let all = std::fs::read_to_string(&p.file).unwrap();
        assert!(
            all.contains("-a always,io_uring -S accept,connect,openat,"),
            "{all}"
        );
        let kernel = std::fs::read_to_string(&p.kernel_file).unwrap();
        assert_eq!(kernel, "-a always,exit -F arch=b64 -S fchmodat -F key=y\n");
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
