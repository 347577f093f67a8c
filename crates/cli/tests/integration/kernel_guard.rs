//! The test support never lets a test lock this machine's kernel audit:
//! every auditctl command the tests make goes through
//! `fastaudit_testsupport::auditctl_command`, which refuses `-e 2` and
//! `--loginuid-immutable` however they are spelled (as arguments, getopt
//! clusters, abbreviations, or a line of a `-R` file), and
//! `FastauditRun` refuses a rules file asking fastaudit for
//! `--loginuid-immutable`. None of these tests reaches the kernel.

use fastaudit_testsupport as support;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

fn words(line: &str) -> Vec<Vec<u8>> {
    line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
}

#[test]
fn every_spelling_of_a_lock_is_refused() {
    for locks in [
        "-e 2",
        "-e2",
        "-e 02",
        "-e +2",
        "-le 2",
        "-b 10 -e 2",
        "--loginuid-immutable",
        "--loginuid-imm",
        "--lo",
        "-a always,exit -S all -F key=x -e 2",
    ] {
        assert!(
            locks_kernel(&words(locks)).is_some(),
            "not refused: {locks}"
        );
    }
    for fine in [
        "-e 0",
        "-e 1",
        "-e 3",
        "-e -1",
        "-e",
        "-D",
        "-l",
        "-s",
        "-a always,exit -F arch=b64 -S open -k e2",
        "-w /etc/e -p wa -k 2",
        "-m -e 2",
        "-a never,task -- -e 2",
    ] {
        assert_eq!(locks_kernel(&words(fine)), None, "refused: {fine}");
    }
}

#[test]
fn auditctl_command_refuses_a_lock_without_running_it() {
    if in_vm_guest() {
        return;
    }
    for args in [&["-e", "2"][..], &["--loginuid-immutable"]] {
        let r = std::panic::catch_unwind(|| auditctl_command(args));
        assert!(r.is_err(), "auditctl {args:?} was not refused");
    }
    let dir = tempdir();
    let file = dir.join("locking.rules");
    std::fs::write(&file, "-D\n-a always,exit -F arch=b64 -S open -k k\n-e 2\n").unwrap();
    let r = std::panic::catch_unwind(|| {
        auditctl_command(&[std::ffi::OsStr::new("-R"), file.as_os_str()])
    });
    assert!(
        r.is_err(),
        "auditctl -R of a file holding -e 2 was not refused"
    );
    std::fs::write(&file, "-D\n-e 1\n").unwrap();
    let _ = auditctl_command(&[std::ffi::OsStr::new("-R"), file.as_os_str()]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fastaudit_run_is_not_given_loginuid_immutable() {
    if in_vm_guest() {
        return;
    }
    let dir = tempdir();
    let rules = dir.join("immutable.rules");
    std::fs::write(
        &rules,
        "--loginuid-immutable\n-a always,exit -F arch=b64 -S open -k k\n",
    )
    .unwrap();
    let log = dir.join("log");
    let r =
        std::panic::catch_unwind(|| FastauditRun::start(FASTAUDIT, &rules, &log, &["--bpf-only"]));
    assert!(
        r.is_err(),
        "a rules file with --loginuid-immutable reached fastaudit run"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
