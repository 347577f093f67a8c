//! `fastaudit rules` behaviour that needs no kernel: error format, exit
//! status, directories combined as augenrules does, settings.

use fastaudit_testsupport as support;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn refusal_names_file_and_line_and_prints_nothing() {
    let d = tempdir();
    let f = write(
        &d,
        "bad.rules",
        "# c\n-a always,exit -F arch=b64 -S open\n\n-a always,exit -F nosuch=1\n-k x\n",
    );
    let out = fastaudit(FASTAUDIT, &["rules", "list", &f]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert_eq!(lines[2], format!("2 errors, 0 warnings in {f}"));
    assert!(
        lines[0].starts_with(&format!("{f}:4: ")) && lines[0].contains("nosuch"),
        "{err}"
    );
    assert!(
        lines[1].starts_with(&format!("{f}:5: ")) && lines[1].contains("-k"),
        "{err}"
    );
}

#[test]
fn directory_is_combined_like_augenrules() {
    let d = tempdir();
    write(
        &d,
        "10-base.rules",
        "-D\n-b 8192\n-a always,exit -F arch=b64 -S open -k ten\n",
    );
    write(
        &d,
        "9-first.rules",
        "-e 1\n-a always,exit -F arch=b64 -S close -k nine\n-D\n",
    );
    write(&d, "99-last.rules", "-b 100\n-e 2\n");
    write(&d, "ignored.txt", "-a bogus\n");
    let out = fastaudit(
        FASTAUDIT,
        &["rules", "list", "--settings", d.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "-b 100\n-e 2\n-a always,exit -F arch=b64 -S close -F key=nine\n-a always,exit -F arch=b64 -S open -F key=ten\n"
    );
}

#[test]
fn control_lines_are_settings_not_rules() {
    let d = tempdir();
    let f = write(
        &d,
        "c.rules",
        "-e 2\n--loginuid-immutable\n-f 1\n--backlog_wait_time 60000\n-r 0\n--reset-lost\n",
    );
    let out = fastaudit(FASTAUDIT, &["rules", "list", "--settings", &f]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "-e 2\n--loginuid-immutable\n-f 1\n--backlog_wait_time 60000\n-r 0\n--reset-lost\nNo rules\n"
    );
    let bad = write(&d, "b.rules", "-e 3\n-b x\n");
    let out = fastaudit(FASTAUDIT, &["rules", "check", &bad]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap().lines().count(),
        3,
        "two refusals and their count"
    );
}

#[test]
fn empty_privileged_recipe_parses_to_no_rules() {
    let f = corpus().join("audit-userspace/31-privileged.rules");
    let out = fastaudit(FASTAUDIT, &["rules", "list", f.to_str().unwrap()]);
    assert!(out.status.success());
    assert_eq!(out.stdout, b"No rules\n");
}

#[test]
fn missing_file_is_an_error() {
    let out = fastaudit(FASTAUDIT, &["rules", "check", "/nonexistent/x.rules"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "/nonexistent/x.rules: cannot read: No such file or directory\n"
    );
}
