//! Control lines against auditctl: which it accepts and which it refuses
//! must match fastaudit. These change kernel audit settings, so the status
//! is saved before and restored after every line. `-e 2` and
//! `--loginuid-immutable` are never sent (they cannot be undone).

use control::{restore, send_control_line, status, LINES};
use fastaudit_testsupport as support;
use fastaudit_testsupport::control;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

#[test]
fn control_lines_match_auditctl() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let _ka = KernelAudit::acquire();
    let saved = status();
    let dir = tempdir();
    let one = dir.join("one.rules");
    let mut diffs = Vec::new();
    for line in LINES {
        assert!(
            !line.contains("-e 2") && !line.contains("--lo"),
            "unsafe test line {line}"
        );
        let k = send_control_line(line, &one).status.success();
        restore(&saved);
        let f = fastaudit(FASTAUDIT, &["rules", "check", one.to_str().unwrap()])
            .status
            .success();
        if k != f {
            diffs.push(format!(
                "{line:?}: auditctl {} but fastaudit {}",
                ok(k),
                ok(f)
            ));
        }
    }
    restore(&saved);
    assert_agrees(&diffs);
}

fn ok(b: bool) -> &'static str {
    if b {
        "accepts"
    } else {
        "refuses"
    }
}
