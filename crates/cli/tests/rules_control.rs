//! Control lines against auditctl: which it accepts and which it refuses
//! must match fastaudit. These change kernel audit settings, so the status
//! is saved before and restored after every line. `-e 2` and
//! `--loginuid-immutable` are never sent (they cannot be undone).

mod common;
#[path = "common/control.rs"]
mod control;
use common::*;
use control::{restore, send_control_line, status, LINES};

#[test]
fn control_lines_match_auditctl() {
    if common::skip_without_kernel_oracle("rules_control::control_lines_match_auditctl") {
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
        let f = fastaudit(&["rules", "check", one.to_str().unwrap()])
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
