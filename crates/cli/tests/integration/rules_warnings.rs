//! Warnings for what auditctl takes silently otherwise than it is written
//! (wrapped numbers, text after digits, control bytes, cut lines), for
//! empty inputs and for rules files others can change; `--strict` turns
//! each into a refusal. The listings expected here are the real
//! auditctl's (`auditctl -R` of the same line, then `auditctl -l`, on this
//! machine): a warning never changes what is loaded.

use fastaudit_testsupport as support;
use std::path::Path;
use std::process::{Command, Output};
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Write `data` as `case.rules` in a fresh directory; returns its path.
fn rules_file(data: &[u8]) -> String {
    let p = tempdir().join("case.rules");
    std::fs::write(&p, data).expect("write rules");
    p.to_str().expect("utf8").to_string()
}

/// `data` lists as `listing` with a `FILE:LINE: warning:` containing
/// `warning` on stderr, and `--strict` refuses it at that line.
fn warns(data: &[u8], line: usize, warning: &str, listing: &str) {
    let f = rules_file(data);
    let out = fastaudit(FASTAUDIT, &["rules", "list", "--settings", &f]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), listing, "the listing is auditctl's");
    let err = text(&out.stderr);
    let at = format!("{f}:{line}: warning: ");
    assert!(
        err.lines()
            .any(|l| l.starts_with(&at) && l.contains(warning)),
        "want {at}...{warning}\ngot:\n{err}"
    );
    let strict = fastaudit(FASTAUDIT, &["rules", "list", "--strict", &f]);
    assert_eq!(strict.status.code(), Some(1), "--strict refuses");
    assert!(strict.stdout.is_empty(), "--strict prints no listing");
    let err = text(&strict.stderr);
    assert!(
        err.lines().any(|l| l.starts_with(&format!("{f}:{line}: "))
            && l.contains(warning)
            && l.ends_with("(a warning, refused by --strict)")),
        "--strict names the line:\n{err}"
    );
}

macro_rules! warning_case {
    ($name:ident, $data:expr, $line:expr, $warning:expr, $listing:expr) => {
        #[test]
        fn $name() {
            warns($data, $line, $warning, $listing);
        }
    };
}

warning_case!(
    uid_past_32_bits_wraps_to_root,
    b"-a always,exit -F arch=b64 -S open -F uid=4294967296 -k t\n",
    1,
    "-F uid value 4294967296: out of range; auditctl stores it as 0",
    "-a always,exit -F arch=b64 -S open -F uid=0 -F key=t\n"
);

warning_case!(
    pid_past_32_bits_wraps,
    b"# c\n-a always,exit -F arch=b32 -S open -F pid=4294967297 -k t\n",
    2,
    "-F pid value 4294967297: out of range; auditctl stores it as 1",
    "-a always,exit -F arch=b32 -S open -F pid=1 -F key=t\n"
);

warning_case!(
    negative_uid_is_a_huge_id,
    b"-a always,exit -F arch=b64 -S fchmod -F uid=-2 -k t\n",
    1,
    "-F uid value -2: negative; auditctl takes it as 4294967294",
    "-a always,exit -F arch=b64 -S fchmod -F uid=-2 -F key=t\n"
);

warning_case!(
    a0_past_64_bits_saturates,
    b"-a always,exit -F arch=b64 -S chmod -F a0=0x10000000000000000 -k t\n",
    1,
    "-F a0 value 0x10000000000000000: out of range; auditctl stores it as 4294967295",
    "-a always,exit -F arch=b64 -S chmod -F a0=0xFFFFFFFF -F key=t\n"
);

warning_case!(
    exit_past_32_bits_wraps,
    b"-a always,exit -F arch=b64 -S close -F exit=-4294967297 -k t\n",
    1,
    "-F exit value -4294967297: out of range; auditctl stores it as -1",
    "-a always,exit -F arch=b64 -S close -F exit=-EPERM -F key=t\n"
);

warning_case!(
    auid_trailing_text_is_ignored,
    b"-a always,exit -F arch=b64 -S openat -F auid>=1000abc -k t\n",
    1,
    "-F auid value 1000abc: auditctl reads 1000 and ignores the rest (abc)",
    "-a always,exit -F arch=b64 -S openat -F auid>=1000 -F key=t\n"
);

warning_case!(
    syscall_number_with_junk_is_brk,
    b"-a always,exit -F arch=b64 -S 12abc -k t\n",
    1,
    "-S 12abc: auditctl reads 12 and ignores the rest (abc)",
    "-a always,exit -F arch=b64 -S brk -F key=t\n"
);

warning_case!(
    syscall_number_past_32_bits_wraps,
    b"-a always,exit -F arch=b64 -S 4294967298 -k t\n",
    1,
    "-S 4294967298: out of range; auditctl stores it as 2",
    "-a always,exit -F arch=b64 -S open -F key=t\n"
);

warning_case!(
    backlog_past_32_bits_wraps,
    b"-b 4294967297\n",
    1,
    "-b 4294967297: out of range; auditctl stores it as 1",
    "-b 1\nNo rules\n"
);

// A CR inside a line (a CR that ends lines refuses the whole file: see
// rules_input.rs).
warning_case!(
    carriage_return_stays_in_the_watched_name,
    b"-w /etc/passwd\r -p wa\n",
    1,
    "carriage return (\\r) in /etc/passwd\\r: auditctl keeps it as part of the word",
    "-w /etc/passwd\r -p wa\n"
);

warning_case!(
    control_byte_in_a_key,
    b"-w /etc/shadow -p wa -k x\x01y\n",
    1,
    "control character (\\x01) in x\\x01y",
    "-w /etc/shadow -p wa -k x -k y\n"
);

#[test]
fn long_line_is_read_as_two() {
    let mut line = b"-w /etc/hosts -p w".to_vec();
    line.resize(6143, b' ');
    line.extend_from_slice(b"-w /etc/hostname\n");
    warns(
        &line,
        1,
        "line longer than 6143 bytes: auditctl reads the rest as the next line",
        "-w /etc/hosts -p w\n-w /etc/hostname -p rwxa\n",
    );
}

#[test]
fn delete_all_key_cut_to_the_key_size() {
    let key = "k".repeat(300);
    warns(
        format!("-D -k {key}\n").as_bytes(),
        1,
        "auditctl keeps only the first 256 bytes of the key",
        "No rules\n",
    );
}

#[test]
fn empty_directory_and_empty_file_are_reported() {
    let d = tempdir();
    std::fs::write(d.join("audit.rule"), "-w /etc/passwd\n").unwrap();
    let dir = d.to_str().unwrap();
    let out = fastaudit(FASTAUDIT, &["rules", "check", dir]);
    assert!(out.status.success());
    assert_eq!(
        text(&out.stderr),
        format!("{dir}: warning: no *.rules file in this directory (1 other entries ignored): no rules\n")
    );
    let strict = fastaudit(FASTAUDIT, &["rules", "check", "--strict", dir]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(text(&strict.stderr).starts_with(&format!("{dir}: no *.rules file")));

    let f = rules_file(b"# nothing here\n\n   \n");
    let out = fastaudit(FASTAUDIT, &["rules", "list", &f]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "No rules\n");
    assert_eq!(
        text(&out.stderr),
        format!("{f}: warning: no rule or setting in this file (empty, or only comments and blank lines)\n")
    );
}

/// `path` chmod'ed to `mode`.
fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn world_writable_rules_file_and_directory_are_reported() {
    let f = rules_file(b"-w /etc/passwd -p wa\n");
    chmod(Path::new(&f), 0o666);
    let out = fastaudit(FASTAUDIT, &["rules", "list", &f]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "-w /etc/passwd -p wa\n");
    assert_eq!(
        text(&out.stderr),
        format!(
            "{f}: warning: writable by any user (mode 666): anyone could change the audit rules\n"
        )
    );
    let strict = fastaudit(FASTAUDIT, &["rules", "check", "--strict", &f]);
    assert_eq!(strict.status.code(), Some(1));

    let d = tempdir();
    std::fs::write(d.join("a.rules"), "-w /etc/passwd -p wa\n").unwrap();
    chmod(&d, 0o777);
    let out = fastaudit(FASTAUDIT, &["rules", "check", d.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(
        text(&out.stderr).starts_with(&format!(
            "{}: warning: writable by any user (mode 777)",
            d.display()
        )),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn rules_file_owned_by_another_user_is_reported() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: needs root to give a file away");
        return;
    }
    let f = rules_file(b"-w /etc/passwd -p wa\n");
    nix::unistd::chown(Path::new(&f), Some(nix::unistd::Uid::from_raw(65534)), None)
        .expect("chown");
    let out = fastaudit(FASTAUDIT, &["rules", "list", &f]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "-w /etc/passwd -p wa\n");
    assert_eq!(
        text(&out.stderr),
        format!(
            "{f}: warning: owned by uid 65534, not root: that user could change the audit rules\n"
        )
    );
}

/// `fastaudit ARGS` as uid/gid 65534 with no groups (util-linux setpriv),
/// inside a private mount namespace where `/etc/audit` is `etc_audit`.
fn as_nobody_with_etc_audit(etc_audit: &Path, args: &[&str]) -> Output {
    let script = format!(
        "mount --bind '{}' /etc/audit && exec setpriv --reuid=65534 --regid=65534 --clear-groups \"$0\" \"$@\"",
        etc_audit.display()
    );
    Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .arg(FASTAUDIT)
        .args(args)
        .output()
        .expect("run unshare")
}

#[test]
fn unreadable_default_rules_directory_is_an_error_not_the_built_in_rules() {
    if !nix::unistd::geteuid().is_root() || !Path::new("/etc/audit").is_dir() {
        eprintln!("skipped: needs root and /etc/audit to mount over");
        return;
    }
    let etc = tempdir();
    chmod(&etc, 0o755);
    let rules_d = etc.join("rules.d");
    std::fs::create_dir(&rules_d).unwrap();
    std::fs::write(
        rules_d.join("a.rules"),
        "-a always,exit -F arch=b64 -S getpid -k from-rules-d\n",
    )
    .unwrap();
    chmod(&rules_d.join("a.rules"), 0o644);

    // Readable: its rules are used (so the mount and the plan show them).
    chmod(&rules_d, 0o755);
    let out = as_nobody_with_etc_audit(&etc, &["run", "--explain"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("sys_exit_getpid"),
        "{}",
        text(&out.stdout)
    );

    // The directory cannot be listed: an error naming it and the reason.
    chmod(&rules_d, 0o700);
    let out = as_nobody_with_etc_audit(&etc, &["run", "--explain"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(out.stdout.is_empty(), "no plan: {}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains("/etc/audit/rules.d") && err.contains("Permission denied"),
        "{err}"
    );

    // Its parent cannot be searched (/etc/audit is 0750 root on Debian):
    // the same, not a silent fall back to the built-in rules.
    chmod(&rules_d, 0o755);
    chmod(&etc, 0o700);
    let out = as_nobody_with_etc_audit(&etc, &["run", "--explain"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("/etc/audit/rules.d: cannot read: Permission denied"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&etc);
}

#[test]
fn run_strict_refuses_before_anything_is_applied() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: needs root for setpriv");
        return;
    }
    let d = tempdir();
    chmod(&d, 0o755);
    let f = d.join("r.rules");
    std::fs::write(
        &f,
        "-a always,exit -F arch=b64 -S chmod -F auid>=1000abc -k t\n",
    )
    .unwrap();
    chmod(&f, 0o644);
    let f = f.to_str().unwrap();
    // As nobody, --explain compiles the plan without touching the kernel.
    let nobody = |extra: &[&str]| {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(FASTAUDIT)
            .args(["run", "--explain", "--rules", f])
            .args(extra)
            .output()
            .expect("run setpriv")
    };
    let out = nobody(&[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(&format!("{f}:1: warning: -F auid value 1000abc")));
    let out = nobody(&["--strict"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no plan");
    assert!(
        text(&out.stderr).starts_with(&format!("{f}:1: -F auid value 1000abc")),
        "{}",
        text(&out.stderr)
    );
}
