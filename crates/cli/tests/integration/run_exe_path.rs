//! exe= is the executable's whole path however deep it is (what the
//! kernel's d_path gives), or past PATH_MAX the kernel's own marker,
//! `"<too_long>"`: never a shorter path that could pass for another.

use fastaudit_testsupport as support;
use nix::fcntl::{openat, OFlag};
use nix::sys::stat::{mkdirat, Mode};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// A directory `name` made and opened inside `parent`.
fn sub_dir(parent: &OwnedFd, name: &str) -> OwnedFd {
    mkdirat(
        Some(parent.as_raw_fd()),
        name,
        Mode::from_bits_truncate(0o755),
    )
    .expect("mkdirat");
    let fd = openat(
        Some(parent.as_raw_fd()),
        name,
        OFlag::O_DIRECTORY | OFlag::O_RDONLY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .expect("openat");
    // SAFETY: openat returned a new descriptor that nothing else owns.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

#[test]
fn exe_is_whole_however_deep_or_marked_past_path_max() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let program = std::fs::read("/usr/bin/true").expect("read /usr/bin/true");

    // 30 components of 40 bytes: deeper and longer than the 16 names of
    // 64 bytes the walk used to keep (it logged the innermost 16 as if rooted).
    let mut deep = dir.clone();
    for i in 0..30 {
        deep.push(format!("d{i:02}-{}", "x".repeat(36)));
    }
    std::fs::create_dir_all(&deep).unwrap();
    let deep_true = deep.join("deep-true");
    std::fs::copy("/usr/bin/true", &deep_true).unwrap();

    // Past PATH_MAX (20 names of 250 bytes): such a path can only be made
    // and reached relative to an open directory.
    let mut fd = sub_dir(
        &std::fs::File::open(&dir).expect("open temp dir").into(),
        "long",
    );
    for i in 0..20 {
        fd = sub_dir(&fd, &format!("{i:02}{}", "y".repeat(248)));
    }
    let prog = openat(
        Some(fd.as_raw_fd()),
        "long-true",
        OFlag::O_CREAT | OFlag::O_WRONLY | OFlag::O_CLOEXEC,
        Mode::from_bits_truncate(0o755),
    )
    .expect("create long-true");
    // SAFETY: openat returned a new descriptor that nothing else owns.
    let prog = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(prog) });
    std::io::Write::write_all(&mut &prog, &program).unwrap();
    drop(prog);
    let long_true = format!("/proc/self/fd/{}/long-true", fd.as_raw_fd());

    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        format!(
            "-a always,exit -F arch=b64 -S execve -F ppid={} -F key=exe-depth\n",
            std::process::id()
        ),
    )
    .unwrap();
    let log = dir.join("log/audit.log");
    let fa = FastauditRun::start(FASTAUDIT, &rules, &log, &["--bpf-only"]);
    let ran = [
        Command::new(&deep_true).status(),
        Command::new(&long_true).status(),
    ];
    wait_until(20, "both executions to be logged", || {
        String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default())
            .lines()
            .filter(|l| l.starts_with("type=SYSCALL ") && l.contains("key=\"exe-depth\""))
            .count()
            >= 2
    });
    fa.stop();
    for r in &ran {
        assert!(r.as_ref().is_ok_and(|s| s.success()), "{ran:?}");
    }

    let text = String::from_utf8_lossy(&std::fs::read(&log).expect("log written")).into_owned();
    let exes: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("key=\"exe-depth\""))
        .filter_map(|l| l.split(" exe=").nth(1))
        .filter_map(|rest| rest.split(' ').next())
        .collect();
    let whole = format!("\"{}\"", deep_true.display());
    assert!(
        exes.contains(&whole.as_str()),
        "want exe={whole}\ngot {exes:?}"
    );
    assert!(exes.contains(&"\"<too_long>\""), "got {exes:?}");
    assert_eq!(exes.len(), 2, "{exes:?}");
    drop(fd);
    let _ = std::fs::remove_dir_all(&dir);
}
