//! fastaudit against goldens recorded once from the real auditctl (as
//! root, in `crates/cli/tests/integration/rules_golden.rs`): runs anywhere, without
//! root or the kernel, in well under a second.
//!
//! For every `tests/testdata/*.golden` (format in `fastaudit_testsupport::golden`) the
//! lines are loaded one after another, as `fastaudit rules check` loads a
//! file (the control lines each on its own), on a host that replays the
//! facts recorded with the golden, not the live system. Then:
//! - a line auditctl accepted (or that was never sent: control lines) must
//!   be accepted, one it refused must be refused;
//! - each line must add and remove the same `auditctl -l` lines, and the
//!   final listing must be the same, byte for byte;
//! - fastaudit's own message and warnings must be the recorded ones, so a
//!   changed message shows in review. `FASTAUDIT_GOLDEN_BLESS=1` rewrites
//!   only those (auditctl's part stays as recorded).
//!
//! Re-recording (root, takes the kernel audit lock):
//! `cargo test -p fastaudit --test integration rules_golden:: -- --ignored record`.

use fastaudit_testsupport::golden::{fastaudit_answers, Golden, ReplayHost, Verdict};
use std::path::{Path, PathBuf};

fn golden_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/testdata present")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "golden"))
        .collect();
    v.sort();
    v
}

/// Differences of one golden: (verdict and listing differences, message differences).
fn check(name: &str, g: &mut Golden, bless: bool) -> (Vec<String>, Vec<String>) {
    let host = ReplayHost::new(&g.host);
    let lines: Vec<String> = g.records.iter().map(|r| r.text.clone()).collect();
    let (ours, listing) = fastaudit_answers(&lines, &host, g.alone);
    let (mut hard, mut soft) = (Vec::new(), Vec::new());
    for (want, got) in g.records.iter_mut().zip(&ours) {
        let at = format!("{name}:{}", want.lineno);
        if want.lineno != got.lineno {
            hard.push(format!("{at}: records out of order"));
            break;
        }
        let fa_ok = got.fastaudit.is_none();
        match want.auditctl {
            Some(Verdict::Accepted) | Some(Verdict::NotSent) if !fa_ok => hard.push(format!(
                "{at}: auditctl {} but fastaudit refuses ({}): {}",
                if want.auditctl == Some(Verdict::NotSent) {
                    "was not sent this control line"
                } else {
                    "accepts"
                },
                got.fastaudit.as_deref().unwrap_or_default(),
                want.text
            )),
            Some(Verdict::Refused) if fa_ok => hard.push(format!(
                "{at}: auditctl refuses ({}) but fastaudit accepts: {}",
                want.auditctl_says, want.text
            )),
            None => hard.push(format!("{at}: no auditctl verdict recorded")),
            _ => {}
        }
        if (&want.added, &want.removed) != (&got.added, &got.removed) {
            hard.push(format!(
                "{at}: listing changes differ: {}\n  auditctl -l: +{:?} -{:?}\n  fastaudit:   +{:?} -{:?}",
                want.text, want.added, want.removed, got.added, got.removed
            ));
        }
        if (&want.fastaudit, &want.warnings) != (&got.fastaudit, &got.warnings) {
            soft.push(format!(
                "{at}: fastaudit's message changed: {}\n  recorded: {:?} {:?}\n  now:      {:?} {:?}",
                want.text, want.fastaudit, want.warnings, got.fastaudit, got.warnings
            ));
            if bless {
                want.fastaudit.clone_from(&got.fastaudit);
                want.warnings.clone_from(&got.warnings);
            }
        }
    }
    if g.records.len() != ours.len() {
        hard.push(format!("{name}: record count differs"));
    }
    if listing != g.listing {
        hard.push(format!(
            "{name}: final listing differs\n--- auditctl -l\n{}--- fastaudit\n{listing}",
            g.listing
        ));
    }
    for m in host.missing() {
        hard.push(format!(
            "{name}: host fact not recorded ({m}); record the golden again"
        ));
    }
    (hard, soft)
}

#[test]
fn fastaudit_matches_recorded_auditctl() {
    let bless = std::env::var_os("FASTAUDIT_GOLDEN_BLESS").is_some();
    let files = golden_files();
    assert!(!files.is_empty(), "no golden files in tests/testdata");
    let mut diffs = Vec::new();
    let mut lines = 0;
    for file in files {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&file).expect("read golden");
        let mut g = Golden::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        lines += g.records.len();
        let (hard, soft) = check(&name, &mut g, bless);
        if bless && !soft.is_empty() {
            std::fs::write(&file, g.render()).expect("rewrite golden");
        } else {
            diffs.extend(soft);
        }
        diffs.extend(hard);
    }
    assert!(lines > 100, "goldens hold only {lines} lines");
    assert!(
        diffs.is_empty(),
        "{} differences from the goldens:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

#[test]
fn golden_format_round_trips() {
    for file in golden_files() {
        let text = std::fs::read_to_string(&file).expect("read golden");
        let g = Golden::parse(&text).expect("parse golden");
        assert_eq!(g.render(), text, "{}", file.display());
    }
}
