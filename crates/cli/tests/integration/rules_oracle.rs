//! `fastaudit rules` against the real kernel audit: every corpus rule file
//! and hand-written sets mixing every form, line for line.

use fastaudit_testsupport as support;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

#[test]
fn corpus_files_match_auditctl() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let ka = KernelAudit::acquire();
    let mut diffs = Vec::new();
    let files = corpus_files();
    assert!(files.len() > 30, "corpus missing");
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        diffs.extend(differential(FASTAUDIT, &ka, &name, &raw_lines(&file)));
    }
    assert_agrees(&diffs);
}

#[test]
fn hand_written_mixed_set_matches_auditctl() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let ka = KernelAudit::acquire();
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mixed.rules");
    let diffs = differential(FASTAUDIT, &ka, "mixed.rules", &raw_lines(&file));
    assert_agrees(&diffs);
}

#[test]
fn shipped_default_rules_match_auditctl() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let ka = KernelAudit::acquire();
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rules/default.rules");
    let lines = raw_lines(&file);
    let diffs = differential(FASTAUDIT, &ka, "default.rules", &lines);
    assert_agrees(&diffs);
    let out = fastaudit(FASTAUDIT, &["rules", "check", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "default rules must load: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn cis_style_set_matches_auditctl() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let ka = KernelAudit::acquire();
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cis-style.rules");
    assert_agrees(&differential(
        FASTAUDIT,
        &ka,
        "cis-style.rules",
        &raw_lines(&file),
    ));
}
