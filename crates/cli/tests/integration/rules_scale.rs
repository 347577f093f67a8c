//! 100,000 distinct rules are all accepted and listed (not timed here: the
//! time is measured by `fastaudit bench rules-scale`).

use fastaudit_testsupport as support;
use std::fmt::Write as _;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

#[test]
fn a_hundred_thousand_distinct_rules_are_accepted() {
    let n = 100_000;
    let mut text = String::new();
    for i in 0..n {
        let id = 1_000_000 + i;
        let _ = match i % 4 {
            0 => writeln!(
                text,
                "-a always,exit -F arch=b64 -S chmod -F auid={id} -k k{i}"
            ),
            1 => writeln!(
                text,
                "-a always,exit -F arch=b64 -S openat -F uid={id} -F success=0"
            ),
            2 => writeln!(text, "-a never,exit -F arch=b32 -S open -F a1={i}"),
            _ => writeln!(text, "-w /etc/fastaudit-scale-{i} -p wa -k w{i}"),
        };
    }
    let f = tempdir().join("scale.rules");
    std::fs::write(&f, &text).unwrap();
    let out = fastaudit(FASTAUDIT, &["rules", "list", f.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "no warning");
    let listing = String::from_utf8(out.stdout).unwrap();
    assert_eq!(listing.lines().count(), n);
    assert_eq!(
        listing.lines().last(),
        Some("-w /etc/fastaudit-scale-99999 -p wa -k w99999")
    );
}
