//! What the binary says to someone who meets it first: each help text and
//! refusal here names the problem and what to do. No kernel changes: the
//! status is only read, as a user.

use fastaudit_testsupport as support;
use std::os::unix::process::CommandExt;
use std::process::Command;
use support::{fastaudit, tempdir};

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn status_says_it_needs_root() {
    let help = text(&fastaudit(FASTAUDIT, &["status", "--help"]).stdout);
    assert!(help.contains("(root)"), "{help}");
    // As nobody: the kernel refuses AUDIT_GET, and the error says why.
    let out = Command::new(FASTAUDIT)
        .arg("status")
        .uid(65534)
        .gid(65534)
        .current_dir("/")
        .output()
        .expect("run fastaudit status as nobody");
    assert!(!out.status.success(), "{out:?}");
    let err = text(&out.stderr);
    assert!(
        err.contains("fastaudit status needs root (CAP_AUDIT_CONTROL)"),
        "{err}"
    );
}

#[test]
fn settings_are_printed_by_list_and_refused_by_check() {
    let dir = tempdir();
    let rules = dir.join("a.rules");
    std::fs::write(&rules, "-b 8192\n-w /etc/passwd -p wa -k passwd\n").unwrap();
    let path = rules.to_str().unwrap();
    let out = fastaudit(FASTAUDIT, &["rules", "list", "--settings", path]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        "-b 8192\n-w /etc/passwd -p wa -k passwd\n"
    );
    // check prints nothing: --settings would do nothing, so it is refused.
    let out = fastaudit(FASTAUDIT, &["rules", "check", "--settings", path]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(text(&out.stderr).contains("--settings"), "{out:?}");
    assert!(fastaudit(FASTAUDIT, &["rules", "check", path])
        .status
        .success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_help_says_what_the_hook_kinds_and_explain_do() {
    let out = fastaudit(FASTAUDIT, &["run", "--help"]);
    assert!(out.status.success(), "{out:?}");
    let help = text(&out.stdout);
    // fexit is used (module loads, clock adjustments), not only probed.
    assert!(!help.contains("no plan uses it"), "{help}");
    for record in ["KERN_MODULE", "TIME_ADJNTPVAL", "TIME_INJOFFSET"] {
        assert!(help.contains(record), "--hook-kinds names {record}: {help}");
    }
    // --explain as root loads programs: the help says so, and that none stays.
    assert!(help.contains("loads the plan's programs"), "{help}");
    assert!(help.contains("all are unloaded before it exits"), "{help}");
    let out = fastaudit(FASTAUDIT, &["rules", "check", "--help"]);
    let help = text(&out.stdout);
    assert!(help.contains("--max-messages <N>"), "{help}");
    assert!(help.contains("for each file"), "{help}");
}
