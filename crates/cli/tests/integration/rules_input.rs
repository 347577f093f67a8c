//! `fastaudit rules check` on the bad inputs an administrator meets: a
//! file from Windows (CRLF), binary data, typos in names and operators,
//! duplicates, missing files, thousands of bad lines. Each is refused (or
//! warned about) once, clearly, naming the file, with a non-zero exit and
//! nothing loaded; `run` reads rules the same way. No kernel is needed.

use fastaudit_testsupport as support;
use std::path::Path;
use std::process::{Command, Output};
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `data` written as `name` in a fresh directory; returns its path.
fn rules_file(name: &str, data: &[u8]) -> String {
    let p = tempdir().join(name);
    std::fs::write(&p, data).expect("write rules");
    p.to_str().expect("utf8").to_string()
}

/// `fastaudit rules ARGS`: refused (exit 1, no listing); its stderr.
fn refused(args: &[&str]) -> String {
    let out = fastaudit(FASTAUDIT, args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "no listing: {}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(!err.contains("os error"), "Rust's error suffix: {err}");
    err
}

#[test]
fn crlf_file_is_one_error_naming_the_fix() {
    let f = rules_file(
        "dos.rules",
        b"# from Windows\r\n-D\r\n-b 8192\r\n-w /etc/passwd -p wa\r\n",
    );
    let err = refused(&["rules", "list", &f]);
    assert_eq!(
        err,
        format!(
            "{f}: CRLF line endings (4 lines end in \\r, the first is line 1), refused: \
             auditctl would keep each \\r as part of the line's last word; \
             convert the file with dos2unix\n"
        )
    );
    // One line with a CR ending is enough: its watch would be on "passwd\r".
    let f = rules_file("one.rules", b"-D\n-w /etc/passwd\r\n-b 100\n");
    let err = refused(&["rules", "check", &f]);
    assert!(
        err.starts_with(&format!(
            "{f}: CRLF line endings (1 line ends in \\r, the first is line 2), refused"
        )),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn crlf_member_of_a_directory_is_named() {
    let d = tempdir();
    std::fs::write(d.join("10-base.rules"), "-D\n-b 8192\n").unwrap();
    std::fs::write(d.join("20-win.rules"), "-w /etc/shadow -p wa\r\n").unwrap();
    let err = refused(&["rules", "check", d.to_str().unwrap()]);
    assert!(
        err.starts_with(&format!(
            "{}: CRLF line endings",
            d.join("20-win.rules").display()
        )),
        "{err}"
    );
}

#[test]
fn binary_file_is_one_error_naming_the_line() {
    // The tester's input: 60 MiB of NUL bytes.
    let f = rules_file("zeros.rules", &vec![0u8; 60 << 20]);
    let err = refused(&["rules", "check", &f]);
    assert_eq!(
        err,
        format!("{f}: binary data (a NUL byte at line 1), refused: not a rules file\n")
    );
    let f = rules_file("late.rules", b"-D\n-b 8192\n-w /etc/group\0 -p x\n");
    let err = refused(&["rules", "list", &f]);
    assert_eq!(
        err,
        format!("{f}: binary data (a NUL byte at line 3), refused: not a rules file\n")
    );
}

#[test]
fn typos_name_the_nearest_known_name() {
    let f = rules_file(
        "typos.rules",
        b"-a always,exit -F arch=b64 -S opne -k a\n\
          -a always,exit -F arch=b64 -S open -F auidd>=1000 -k b\n\
          -a alwyas,exit -F arch=b64 -S open -k c\n\
          -a always,exit -F arch=b64 -S socketcall -k d\n",
    );
    let err = refused(&["rules", "check", &f]);
    assert_eq!(
        err,
        format!(
            "{f}:1: -S: syscall name unknown: opne (did you mean open?)\n\
             {f}:2: -F: unknown field: auidd (did you mean auid?)\n\
             {f}:3: -a alwyas,exit: bad list or action keyword (did you mean always,exit?)\n\
             {f}:4: -S: syscall name unknown: socketcall (a syscall of i386: give -F arch=b32 before -S)\n\
             4 errors, 0 warnings in {f}\n"
        )
    );
}

#[test]
fn malformed_operator_is_named_not_blamed_on_the_value() {
    let f = rules_file(
        "op.rules",
        b"-a always,exit -F arch=b64 -S open -F uid=>0 -k t\n",
    );
    let err = refused(&["rules", "check", &f]);
    assert_eq!(
        err,
        format!(
            "{f}:1: -F uid=>0: malformed operator => (the operators are =, !=, <, >, <=, >=, &, &=); did you mean uid>=0?\n"
        )
    );
}

#[test]
fn duplicate_names_the_earlier_file_and_line() {
    let a = rules_file(
        "a.rules",
        b"-D\n\n-a always,exit -F arch=b64 -S chmod -k perm\n",
    );
    let b = rules_file(
        "b.rules",
        b"-w /etc/passwd -p wa\n-a always,exit -F arch=b64 -S chmod -k perm\n-w /etc/passwd -p aw\n",
    );
    let err = refused(&["rules", "check", &a, &b]);
    assert_eq!(
        err,
        format!(
            "{b}:2: rule exists: the same rule is already loaded from {a}:3\n\
             {b}:3: rule exists: the same rule is already loaded from {b}:1\n\
             2 errors, 0 warnings in {b}\n"
        )
    );
}

#[test]
fn system_errors_read_as_the_system_says_them() {
    let err = refused(&["rules", "check", "/nonexistent/x.rules"]);
    assert_eq!(
        err,
        "/nonexistent/x.rules: cannot read: No such file or directory\n"
    );
    let f = rules_file("w.rules", b"-w /nonexistent/dir/x -p wa\n");
    let err = refused(&["rules", "check", &f]);
    assert_eq!(
        err,
        format!("{f}:1: watch /nonexistent/dir/x: No such file or directory\n")
    );
}

#[test]
fn thousands_of_bad_lines_are_capped_and_counted() {
    let data: String = (1..=5000)
        .map(|i| format!("-a always,exit -F bogus={i}\n"))
        .collect();
    let f = rules_file("many.rules", data.as_bytes());
    let err = refused(&["rules", "check", &f]);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 102, "{err}");
    assert_eq!(lines[0], format!("{f}:1: -F: unknown field: bogus"));
    assert_eq!(lines[99], format!("{f}:100: -F: unknown field: bogus"));
    assert_eq!(lines[100], format!("{f}: ... and 4900 more not shown"));
    assert_eq!(lines[101], format!("5000 errors, 0 warnings in {f}"));
}

#[test]
fn warnings_are_capped_too_and_the_load_goes_on() {
    let data: String = (1..=150)
        .map(|i| format!("-a always,exit -F arch=b64 -S open -F auid>=1000abc -k k{i}\n"))
        .collect();
    let f = rules_file("warn.rules", data.as_bytes());
    let out = fastaudit(FASTAUDIT, &["rules", "check", &f]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 102, "{err}");
    assert!(lines[0].starts_with(&format!("{f}:1: warning: -F auid value 1000abc")));
    assert_eq!(lines[100], format!("{f}: ... and 50 more not shown"));
    assert_eq!(lines[101], format!("0 errors, 150 warnings in {f}"));
}

/// `fastaudit run --explain --rules FILE` as uid/gid 65534 (util-linux
/// setpriv): the plan is compiled without probing or touching the kernel.
fn run_explain_as_nobody(file: &str) -> Output {
    Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(FASTAUDIT)
        // --strict: refused as `rules check` refuses (without it the run
        // loads around a refused line, as auditctl -R: partial_rules.rs).
        .args(["run", "--explain", "--strict", "--rules", file])
        .output()
        .expect("run setpriv")
}

/// `path` chmod'ed to `mode`.
fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn run_reads_rules_the_same_way() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: needs root for setpriv");
        return;
    }
    let d = tempdir();
    chmod(&d, 0o755);
    let dos = d.join("dos.rules");
    std::fs::write(&dos, "-w /etc/passwd -p wa\r\n").unwrap();
    chmod(&dos, 0o644);
    let dos = dos.to_str().unwrap();
    let out = run_explain_as_nobody(dos);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "no plan");
    assert!(
        text(&out.stderr).starts_with(&format!("{dos}: CRLF line endings")),
        "{}",
        text(&out.stderr)
    );

    let many = d.join("many.rules");
    let data: String = (1..=300).map(|i| format!("-S opne{i}\n")).collect();
    std::fs::write(&many, data).unwrap();
    chmod(&many, 0o644);
    let many = many.to_str().unwrap();
    let out = run_explain_as_nobody(many);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.ends_with(&format!(
            "{many}: ... and 200 more not shown\n300 errors, 0 warnings in {many}\n"
        )),
        "{err}"
    );
}
