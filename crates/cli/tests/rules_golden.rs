//! Records the goldens that `crates/rules/tests/golden.rs` checks without
//! root: for every line of a few sets, what the real auditctl did (verdict,
//! stderr, the `auditctl -l` lines it added and removed, the final listing)
//! beside fastaudit's own answer, and every fact about this machine that
//! fastaudit consulted (user and group names, paths, machine type), which
//! the check replays instead of asking the live system.
//!
//! Record again (root; takes the kernel audit lock and restores the kernel:
//! no rules, audit disabled, `-a never,task`) after changing a set, the
//! generator, or when auditctl's answer should be taken anew:
//! `cargo test -p fastaudit --test rules_golden -- --ignored record`.
//! Control lines are never sent (`-e 2` could lock audit until reboot).
//!
//! Without root, `goldens_hold_the_current_lines` checks that the goldens
//! were recorded from the sets as they are now.

mod common;
#[path = "common/generate.rs"]
mod generate;
#[path = "../../rules/tests/support/golden.rs"]
mod golden;

use common::*;
use golden::{fastaudit_answers, listing_delta, Golden, RecordingHost, Verdict};
use std::path::{Path, PathBuf};

/// One recorded set: its golden file and its lines.
struct Set {
    name: &'static str,
    source: String,
    lines: Vec<Vec<u8>>,
}

/// How many lines of a generator batch the goldens hold.
const GENERATED_SAMPLE: usize = 400;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn golden_dir() -> PathBuf {
    manifest().join("../rules/tests/testdata")
}

fn file_set(name: &'static str, rel: &str) -> Set {
    Set {
        name,
        source: format!("crates/cli/{rel}"),
        lines: raw_lines(&manifest().join(rel)),
    }
}

/// The sets: the hand-written files, the shipped default rules, and the
/// first lines of the generator's batches a and b (`rules_generated`).
fn sets() -> Vec<Set> {
    let mut v = vec![
        file_set("mixed", "tests/data/mixed.rules"),
        file_set("cis-style", "tests/data/cis-style.rules"),
        file_set("default", "../../rules/default.rules"),
    ];
    for (name, seed) in [
        ("generated-a", "fastaudit-generated-a"),
        ("generated-b", "fastaudit-generated-b"),
    ] {
        v.push(Set {
            name,
            source: format!("generated {seed} {GENERATED_SAMPLE}"),
            lines: generate::generated(seed, GENERATED_SAMPLE),
        });
    }
    v
}

fn texts(lines: &[Vec<u8>]) -> Vec<String> {
    lines
        .iter()
        .map(|l| String::from_utf8(l.clone()).expect("golden lines are UTF-8"))
        .collect()
}

fn golden_path(set: &Set) -> PathBuf {
    golden_dir().join(format!("{}.golden", set.name))
}

#[test]
fn goldens_hold_the_current_lines() {
    let mut stale = Vec::new();
    for set in sets() {
        let path = golden_path(&set);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; record the goldens", path.display()));
        let g = Golden::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let recorded: Vec<&str> = g.records.iter().map(|r| r.text.as_str()).collect();
        if g.source != set.source || recorded != texts(&set.lines) {
            stale.push(set.name);
        }
    }
    assert!(
        stale.is_empty(),
        "goldens recorded from other lines: {stale:?}; record again as root: \
         cargo test -p fastaudit --test rules_golden -- --ignored record"
    );
}

#[test]
#[ignore = "root: records the goldens from the real auditctl"]
fn record() {
    assert!(
        nix::unistd::geteuid().is_root(),
        "recording the goldens needs root (auditctl loads rules into the kernel)"
    );
    let version = String::from_utf8_lossy(&auditctl(&["-v"]).stdout)
        .trim()
        .to_string();
    let ka = KernelAudit::acquire();
    for set in sets() {
        let sent = ka.record_lines(&set.lines);
        let host = RecordingHost::new(&fastaudit_rules::SystemHost);
        let lines = texts(&set.lines);
        let (mut records, _) = fastaudit_answers(&lines, &host);
        let mut before = String::new();
        for (r, s) in records.iter_mut().zip(&sent) {
            r.auditctl = Some(match s.verdict {
                None => Verdict::NotSent,
                Some(true) => Verdict::Accepted,
                Some(false) => Verdict::Refused,
            });
            r.auditctl_says = s.stderr.join(" | ");
            (r.added, r.removed) = listing_delta(&before, &s.listing);
            before.clone_from(&s.listing);
        }
        let g = Golden {
            comments: vec![
                format!("{} as auditctl saw it: each line sent alone with `auditctl -R`, one after another", set.name),
                format!("on a clean kernel rule list; recorded as root from {version}."),
                "Written by `cargo test -p fastaudit --test rules_golden -- --ignored record`; do not edit.".into(),
                "Checked without root by crates/rules/tests/golden.rs.".into(),
            ],
            source: set.source.clone(),
            host: host.facts(),
            records,
            listing: before,
        };
        std::fs::write(golden_path(&set), g.render()).expect("write golden");
    }
}
