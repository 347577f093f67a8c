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
//! `cargo test -p fastaudit --test integration rules_golden:: -- --ignored record`.
//! Control lines are never sent (`-e 2` could lock audit until reboot).
//!
//! Without root, `goldens_hold_the_current_lines` checks that the goldens
//! were recorded from the sets as they are now.

use fastaudit_testsupport as support;
use fastaudit_testsupport::control;
use fastaudit_testsupport::generate;
use fastaudit_testsupport::golden;

use golden::{fastaudit_answers, listing_delta, Golden, RecordingHost, Verdict};
use std::path::{Path, PathBuf};
use support::*;

/// One recorded set: its golden file and its lines.
struct Set {
    name: &'static str,
    source: String,
    lines: Vec<Vec<u8>>,
    /// Control lines: each sent alone, the audit status restored after it
    /// (as `rules_control` sends them), rather than one after another.
    alone: bool,
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
        alone: false,
    }
}

/// The sets: the hand-written files, the shipped default rules, the
/// control lines of `rules_control`, and the first lines of the
/// generator's batches a and b (`rules_generated`).
fn sets() -> Vec<Set> {
    let mut v = vec![
        file_set("mixed", "tests/data/mixed.rules"),
        file_set("cis-style", "tests/data/cis-style.rules"),
        file_set("default", "../../rules/default.rules"),
        Set {
            name: "control",
            source: "crates/testsupport/src/control.rs LINES".into(),
            lines: control::LINES
                .iter()
                .map(|l| l.as_bytes().to_vec())
                .collect(),
            alone: true,
        },
    ];
    for (name, seed) in [
        ("generated-a", "fastaudit-generated-a"),
        ("generated-b", "fastaudit-generated-b"),
    ] {
        v.push(Set {
            name,
            source: format!("generated {seed} {GENERATED_SAMPLE}"),
            // Recorded on x86_64 (the goldens replay that host): the
            // lines as drawn, whatever machine checks them.
            lines: generate::generated_for(fastaudit_rules::Target::X86_64, seed, GENERATED_SAMPLE),
            alone: false,
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
        if g.source != set.source || g.alone != set.alone || recorded != texts(&set.lines) {
            stale.push(set.name);
        }
    }
    assert!(
        stale.is_empty(),
        "goldens recorded from other lines: {stale:?}; record again as root: \
         cargo test -p fastaudit --test integration rules_golden:: -- --ignored record"
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
        let sent = if set.alone {
            record_alone(&set.lines)
        } else {
            ka.record_lines(&set.lines)
        };
        let host = RecordingHost::new(&fastaudit_rules::SystemHost);
        let lines = texts(&set.lines);
        let (mut records, _) = fastaudit_answers(&lines, &host, set.alone);
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
        let how = if set.alone {
            "each on its own (a line saying -i given as arguments instead), the audit status restored after it"
        } else {
            "one line after another"
        };
        let g = Golden {
            comments: vec![
                format!(
                    "{}: what auditctl did with every line, each in a one-line file for `auditctl -R`,",
                    set.name
                ),
                format!("{how}, from an empty kernel rule list; recorded as root with {version}."),
                "Written by `cargo test -p fastaudit --test integration rules_golden:: -- --ignored record`; do not edit.".into(),
                "Checked without root by crates/rules/tests/integration/golden.rs.".into(),
            ],
            source: set.source.clone(),
            alone: set.alone,
            host: host.facts(),
            records,
            listing: before,
        };
        std::fs::write(golden_path(&set), g.render()).expect("write golden");
    }
}

/// Send control lines one at a time, each from a clean rule list, the audit
/// status saved before and restored after it (`-e 2` and
/// `--loginuid-immutable` are refused here: they cannot be undone).
fn record_alone(lines: &[Vec<u8>]) -> Vec<Sent> {
    let saved = control::status();
    let dir = tempdir();
    let one = dir.join("one.rules");
    let one_name = one.display().to_string();
    let mut sent = Vec::new();
    for line in texts(lines) {
        assert!(
            !line.contains("-e 2") && !line.contains("--lo"),
            "unsafe control line {line}"
        );
        control::restore(&saved);
        auditctl(&["-D"]);
        let out = control::send_control_line(&line, &one);
        let listing = String::from_utf8_lossy(&auditctl(&["-l"]).stdout).into_owned();
        control::restore(&saved);
        sent.push(Sent {
            verdict: Some(out.status.success()),
            stderr: String::from_utf8_lossy(&out.stderr)
                .lines()
                .map(|l| l.replace(&one_name, "RULES"))
                .collect(),
            listing,
        });
    }
    control::restore(&saved);
    let _ = std::fs::remove_dir_all(&dir);
    sent
}
