//! The log under attack and under faults, through the real binary: a
//! planted symlink, foreign-owned or writable logs and directories are
//! refused; a full disk (a small tmpfs) and a failing write (a file size
//! limit) follow their auditd actions with every event counted
//! (generated = logged + lost, in the final counts and a DAEMON_ERR);
//! rotation keeps O_APPEND; kill -9 in a storm leaves a log ausearch reads,
//! and the restart repeats no serial.

use fastaudit_testsupport as support;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::auditd;
use support::logread::*;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// The workload's chmod mode (0o1601 = 0x381): its calls and no others.
/// (`chmods_rule`: chmod's or fchmodat's mode argument, by machine.)
fn rule() -> String {
    chmods_rule("fill")
}

fn rules(dir: &Path) -> PathBuf {
    let r = dir.join("r.rules");
    std::fs::write(&r, rule()).unwrap();
    r
}

fn signal(pid: u32, sig: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), sig).unwrap();
}

fn run_once(log: &Path, rules: &Path) -> Output {
    fastaudit(
        FASTAUDIT,
        &[
            "run",
            "--bpf-only",
            "--rules",
            rules.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
        ],
    )
}

fn refused_with(log: &Path, rules: &Path, why: &str) {
    let out = run_once(log, rules);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{} accepted", log.display());
    assert!(err.contains(why), "{}: {err}", log.display());
}

#[test]
fn planted_foreign_and_writable_logs_are_refused() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = rules(&dir);
    let nobody = |p: &Path| std::os::unix::fs::lchown(p, Some(65534), Some(65534)).unwrap();

    // Another user's file, reached through a symlink planted as the log.
    let victim = dir.join("victim");
    std::fs::write(&victim, "theirs\n").unwrap();
    nobody(&victim);
    let planted = dir.join("planted.log");
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    refused_with(&planted, &rules, "planted.log: is a symbolic link: refused");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "theirs\n");

    let foreign = dir.join("foreign.log");
    std::fs::write(&foreign, "").unwrap();
    std::fs::set_permissions(&foreign, std::fs::Permissions::from_mode(0o600)).unwrap();
    nobody(&foreign);
    refused_with(&foreign, &rules, "is owned by uid 65534, not root: refused");

    let their_dir = dir.join("theirs");
    std::fs::create_dir(&their_dir).unwrap();
    nobody(&their_dir);
    refused_with(
        &their_dir.join("audit.log"),
        &rules,
        "theirs: is owned by uid 65534, not root: refused",
    );
    assert!(!their_dir.join("audit.log").exists());

    let open_dir = dir.join("open");
    std::fs::create_dir(&open_dir).unwrap();
    std::fs::set_permissions(&open_dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
    refused_with(
        &open_dir.join("audit.log"),
        &rules,
        "open: is writable by group or others (mode 1777)",
    );

    // Writable by others: anyone may have forged records in it.
    let writable = dir.join("writable.log");
    std::fs::write(&writable, "").unwrap();
    std::fs::set_permissions(&writable, std::fs::Permissions::from_mode(0o666)).unwrap();
    refused_with(
        &writable,
        &rules,
        "writable.log: is writable by group or others (mode 0666)",
    );
    assert_eq!(std::fs::metadata(&writable).unwrap().mode() & 0o777, 0o666);

    // Only readable by others: made 0600, as auditd does, and used.
    let readable = dir.join("readable.log");
    std::fs::write(&readable, "").unwrap();
    std::fs::set_permissions(&readable, std::fs::Permissions::from_mode(0o644)).unwrap();
    let fa = FastauditRun::start(FASTAUDIT, &rules, &readable, &["--bpf-only"]);
    assert_eq!(std::fs::metadata(&readable).unwrap().mode() & 0o777, 0o600);
    fa.stop();

    // A fresh log and its new directory: 0600 in 0700.
    let fresh = dir.join("new/audit.log");
    let fa = FastauditRun::start(FASTAUDIT, &rules, &fresh, &["--bpf-only"]);
    fa.stop();
    assert_eq!(std::fs::metadata(&fresh).unwrap().mode() & 0o7777, 0o600);
    assert_eq!(
        std::fs::metadata(dir.join("new")).unwrap().mode() & 0o7777,
        0o700
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let d = tempdir().join("fs");
        std::fs::create_dir_all(&d).unwrap();
        nix::mount::mount(
            Some("tmpfs"),
            &d,
            Some("tmpfs"),
            nix::mount::MsFlags::empty(),
            Some(format!("size={size},mode=0700").as_str()),
        )
        .expect("mount a tmpfs");
        Tmpfs(d)
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = nix::mount::umount2(&self.0, nix::mount::MntFlags::MNT_DETACH);
    }
}

/// The DAEMON_ERR log-fault records of these logs: (reason, action, lost).
fn fault_records(logs: &[PathBuf]) -> Vec<(String, String, u64)> {
    logs.iter()
        .flat_map(|l| records(l))
        .filter(|r| r.ty == "DAEMON_ERR" && r.body.starts_with("op=log-fault "))
        .map(|r| {
            let word = |k: &str| {
                r.body
                    .split(' ')
                    .find_map(|w| w.strip_prefix(k))
                    .unwrap_or("")
                    .to_string()
            };
            (
                word("reason="),
                word("action="),
                field(&r.body, "lost").unwrap(),
            )
        })
        .collect()
}

/// The workload's events in these logs.
fn events_in(logs: &[PathBuf]) -> u64 {
    logs.iter()
        .flat_map(|l| records(l))
        .filter(|r| r.ty == "SYSCALL" && r.body.ends_with("key=\"fill\""))
        .count() as u64
}

/// Events the running daemon has lost so far: `fastaudit ctl -s`'s
/// `lost`, less the kernel's own that it adds (`auditctl -s`).
fn lost_so_far() -> u64 {
    let out = fastaudit(FASTAUDIT, &["ctl", "-s"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "ctl -s: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("lost "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no lost in ctl -s: {text}"));
    let kernel: u64 = auditd::status_field("lost").parse().unwrap_or(0);
    ours.saturating_sub(kernel)
}

/// Wait until the daemon has handled the workload's first `n` events,
/// each written to `logs` or counted lost: it handles them in order, so
/// what comes next (space freed, SIGUSR2, more events) comes after them.
fn handled(logs: &[PathBuf], n: u64) {
    wait_until(20, &format!("{n} events logged or counted lost"), || {
        events_in(logs) + lost_so_far() >= n
    });
}

/// Wait until `log` (after SIGUSR2) holds the DAEMON_RESUME record:
/// logging is back before the next events are made.
fn resumed(log: &Path) {
    wait_until(20, "DAEMON_RESUME", || {
        records(log).iter().any(|r| r.ty == "DAEMON_RESUME")
    });
}

/// Fill a 512 KiB tmpfs with `action` as disk_full_action; free space as
/// an administrator would; check the counts.
fn disk_full(action: &str) {
    const N: u64 = 6000;
    const MORE: u64 = 20;
    let fs = Tmpfs::mount("512k");
    let dir = tempdir();
    let rules = rules(&dir);
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    let log = fs.0.join("audit.log");
    let fa = FastauditRun::start(
        FASTAUDIT,
        &rules,
        &log,
        &[
            "--bpf-only",
            "--max-log-file",
            "0",
            "--num-logs",
            "2",
            "--space-left",
            "0",
            "--admin-space-left",
            "0",
            "--disk-full-action",
            action,
        ],
    );
    chmods(&target, N);
    let rotated = fs.0.join("audit.log.1");
    // Rotation frees space by itself and no administrator step follows,
    // so there the order of the two batches is the ring's alone.
    if action != "rotate" {
        handled(std::slice::from_ref(&log), N);
    }
    // The administrator frees space (the log itself here) and, for
    // suspend, says so with SIGUSR2.
    if action == "rotate" {
        // Rotation frees it: nothing to do.
    } else if action == "suspend" {
        std::fs::remove_file(&log).unwrap();
        signal(fa.pid(), nix::sys::signal::SIGUSR2);
    } else {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&log)
            .unwrap()
            .set_len(0)
            .unwrap();
    }
    // Resumed on SIGUSR2; with ignore or syslog the next write finds the
    // space freed, with nothing to wait for.
    if action == "suspend" {
        resumed(&log);
    }
    chmods(&target, MORE);
    // The stop drains the ring first: the final counts are of every event.
    let said = fa.stop();
    let (generated, logged, ring, dropped) =
        final_counts(&said).unwrap_or_else(|| panic!("{action}: no final counts: {said:?}"));
    eprintln!("{action}: {generated} generated, {logged} logged, {ring} ring, {dropped} dropped");
    assert_eq!(generated, N + MORE, "{action}: {said:?}");
    assert_eq!(generated, logged + ring + dropped, "{action}: {said:?}");
    assert!(dropped > 0, "{action}: the disk filled up: {said:?}");
    let logs = [log.clone(), rotated];
    let faults = fault_records(&logs);
    assert!(
        !faults.is_empty() && faults.iter().all(|f| f.0 == "disk-full" && f.1 == action),
        "{action}: {faults:?}"
    );
    if action != "rotate" {
        // Nothing rotated away: the reports add up to at least what was
        // dropped (they count fastaudit's own lost records too).
        let reported: u64 = faults.iter().map(|f| f.2).sum();
        assert!(reported >= dropped, "{action}: {faults:?} vs {dropped}");
        // The events written after space came back are all there.
        assert!(events_in(&logs) >= MORE, "{action}");
    }
    if action == "suspend" {
        assert!(
            said.iter()
                .any(|l| l.contains("logging suspended") && l.contains("SIGUSR2")),
            "{said:?}"
        );
        let recs = records(&log);
        assert_eq!(recs.first().map(|r| r.ty.as_str()), Some("DAEMON_RESUME"));
        assert_eq!(
            faults,
            [("disk-full".into(), "suspend".into(), dropped)],
            "suspended once: lost events are exactly the dropped ones"
        );
    }
    for l in logs.iter().filter(|l| l.exists()) {
        let out = Command::new("ausearch")
            .arg("-if")
            .arg(l)
            .args(["-m", "DAEMON_ERR"])
            .output()
            .unwrap();
        assert!(
            out.status.success() || !records(l).iter().any(|r| r.ty == "DAEMON_ERR"),
            "ausearch reads {}",
            l.display()
        );
    }
    drop(fs);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_full_disk_follows_disk_full_action_and_counts_every_event() {
    let _ka = KernelAudit::acquire();
    for action in ["suspend", "ignore", "syslog", "rotate"] {
        disk_full(action);
    }
}

#[test]
fn low_space_runs_the_space_actions() {
    const N: u64 = 3000;
    let _ka = KernelAudit::acquire();
    let fs = Tmpfs::mount("512k");
    let dir = tempdir();
    let rules = rules(&dir);
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    let log = fs.0.join("audit.log");
    let fa = FastauditRun::start(
        FASTAUDIT,
        &rules,
        &log,
        &[
            "--bpf-only",
            "--space-left",
            "60%",
            "--space-left-action",
            "syslog",
            "--admin-space-left",
            "40%",
            "--admin-space-left-action",
            "suspend",
        ],
    );
    chmods(&target, N);
    handled(std::slice::from_ref(&log), N);
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(size < 400 << 10, "suspended before the disk filled: {size}");
    std::fs::remove_file(&log).unwrap();
    signal(fa.pid(), nix::sys::signal::SIGUSR2);
    resumed(&log);
    chmods(&target, 10);
    // The stop drains the ring first: the final counts are of every event.
    let said = fa.stop();
    assert!(
        said.iter()
            .any(|l| l.contains("low on disk space for logging") && l.contains("below space_left")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|l| l.contains("free space is below admin_space_left: logging suspended")),
        "{said:?}"
    );
    let (generated, logged, ring, dropped) = final_counts(&said).expect("final counts");
    assert_eq!(generated, N + 10);
    assert_eq!(generated, logged + ring + dropped, "{said:?}");
    assert!(dropped > 0);
    assert_eq!(
        fault_records(std::slice::from_ref(&log)),
        [("admin-space-left".into(), "suspend".into(), dropped)]
    );
    assert_eq!(
        events_in(std::slice::from_ref(&log)),
        10,
        "written after SIGUSR2"
    );
    drop(fs);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn actions_a_key_does_not_take_are_refused_with_the_reason() {
    let dir = tempdir();
    for (flag, word, why) in [
        (
            "--disk-full-action",
            "email",
            "`email` is not an action for it",
        ),
        (
            "--disk-error-action",
            "rotate",
            "`rotate` is not an action for it",
        ),
        ("--space-left-action", "bogus", "not an auditd action"),
        // exec's program is set in auditd.conf only.
        ("--admin-space-left-action", "exec", "exec needs a program"),
    ] {
        let out = fastaudit(
            FASTAUDIT,
            &["run", "--log", dir.join("l").to_str().unwrap(), flag, word],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(why),
            "{flag} {word}: {err}"
        );
    }
    assert!(!dir.join("l").exists());
}

/// The flags of the descriptor `fd` of `pid` (/proc/PID/fdinfo, octal).
fn fd_flags(pid: u32, log: &Path) -> u32 {
    for e in std::fs::read_dir(format!("/proc/{pid}/fd")).unwrap() {
        let e = e.unwrap();
        if std::fs::read_link(e.path()).ok().as_deref() == Some(log) {
            let info = std::fs::read_to_string(format!(
                "/proc/{pid}/fdinfo/{}",
                e.file_name().to_str().unwrap()
            ))
            .unwrap();
            let flags = info
                .lines()
                .find_map(|l| l.strip_prefix("flags:"))
                .unwrap()
                .trim();
            return u32::from_str_radix(flags, 8).unwrap();
        }
    }
    panic!("{} not open in {pid}", log.display());
}

#[test]
fn rotation_keeps_o_append_whatever_num_logs() {
    const O_APPEND: u32 = 0o2000;
    const O_CLOEXEC: u32 = 0o2000000;
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = rules(&dir);
    for num_logs in ["0", "1", "2"] {
        let log = dir.join(format!("n{num_logs}.log"));
        let fa = FastauditRun::start(
            FASTAUDIT,
            &rules,
            &log,
            &["--bpf-only", "--num-logs", num_logs],
        );
        let flags = fd_flags(fa.pid(), &log);
        assert_eq!(
            flags & (O_APPEND | O_CLOEXEC),
            O_APPEND | O_CLOEXEC,
            "{flags:o}"
        );
        signal(fa.pid(), nix::sys::signal::SIGUSR1);
        wait_until(20, "DAEMON_ROTATE", || {
            records(&log).iter().any(|r| r.ty == "DAEMON_ROTATE")
        });
        let flags = fd_flags(fa.pid(), &log);
        assert_eq!(
            flags & (O_APPEND | O_CLOEXEC),
            O_APPEND | O_CLOEXEC,
            "--num-logs {num_logs}: {flags:o}"
        );
        let said = fa.stop();
        let rotated = log.with_file_name(format!("n{num_logs}.log.1"));
        // auditd: fewer than 2 logs are never rotated (nor truncated).
        assert_eq!(rotated.exists(), num_logs == "2", "--num-logs {num_logs}");
        if num_logs != "2" {
            assert!(
                said.iter()
                    .any(|l| l.contains("log rotation disabled (num_logs < 2)")),
                "{said:?}"
            );
            assert_eq!(records(&log)[0].ty, "DAEMON_START", "nothing truncated");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_write_error_follows_disk_error_action_and_resumes_on_sigusr2() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = rules(&dir);
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    let log = dir.join("audit.log");
    let fa = FastauditRun::start(
        FASTAUDIT,
        &rules,
        &log,
        &["--bpf-only", "--disk-error-action", "suspend"],
    );
    // A file size limit on the daemon: its writes past it fail (EFBIG).
    let pid = fa.pid().to_string();
    let prlimit = |v: &str| {
        assert!(Command::new("prlimit")
            .args(["--pid", &pid, &format!("--fsize={v}")])
            .status()
            .unwrap()
            .success())
    };
    // The soft limit only: raising it back needs no privilege.
    prlimit("200000:unlimited");
    chmods(&target, 3000);
    handled(std::slice::from_ref(&log), 3000);
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(size <= 200000, "{size}");
    let bytes = std::fs::read(&log).unwrap();
    assert!(bytes.ends_with(b"\n"), "no part of a line is left");
    prlimit("unlimited:unlimited");
    signal(fa.pid(), nix::sys::signal::SIGUSR2);
    resumed(&log);
    chmods(&target, 10);
    // The stop drains the ring first: the final counts are of every event.
    let said = fa.stop();
    let (generated, logged, ring, dropped) = final_counts(&said).expect("final counts");
    assert_eq!(generated, 3010);
    assert_eq!(generated, logged + ring + dropped, "{said:?}");
    assert!(dropped > 0);
    assert_eq!(events_in(std::slice::from_ref(&log)), logged);
    let faults = fault_records(std::slice::from_ref(&log));
    assert_eq!(faults, [("disk-error".into(), "suspend".into(), dropped)]);
    let err = records(&log)
        .into_iter()
        .find(|r| r.body.starts_with("op=log-fault"))
        .unwrap();
    assert!(err.body.contains(" errno=EFBIG "), "{}", err.body);
    assert!(records(&log).iter().any(|r| r.ty == "DAEMON_RESUME"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kill_9_in_a_storm_then_restart_repeats_no_serial() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = rules(&dir);
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    let log = dir.join("audit.log");
    let fa = FastauditRun::start(
        FASTAUDIT,
        &rules,
        &log,
        &["--bpf-only", "--max-log-file", "0"],
    );
    let script = format!(
        "import os\nfor _ in range(100000): os.chmod({:?}, 0o1601)\n",
        target.to_str().unwrap()
    );
    let storm = Command::new("python3")
        .args(["-c", &script])
        .spawn()
        .unwrap();
    // The point: the daemon is killed in the middle of the storm, once
    // it is writing the storm's events (100000 of them: far from done).
    wait_until(20, "the storm's first events in the log", || {
        events_in(std::slice::from_ref(&log)) > 0
    });
    fa.kill();
    let status = storm.wait_with_output().unwrap().status;
    assert!(status.success());
    let before = records(&log);
    let before_bytes = std::fs::read(&log).unwrap();
    let last_own = before
        .iter()
        .map(|r| r.serial)
        .filter(|&s| s >= 1 << 31)
        .max()
        .expect("records before the kill");
    assert!(
        events_in(std::slice::from_ref(&log)) > 0,
        "killed mid-storm"
    );

    let fa = FastauditRun::start(
        FASTAUDIT,
        &rules,
        &log,
        &["--bpf-only", "--max-log-file", "0"],
    );
    chmods(&target, 100);
    // The stop drains the ring before the last records are written.
    fa.stop();
    let all = records(&log);
    let after: Vec<&Rec> = all[before.len()..].iter().collect();
    assert_eq!(after[0].ty, "DAEMON_START");
    assert!(
        after.iter().all(|r| r.serial > last_own),
        "the restart continues above {last_own}"
    );
    let own: Vec<Rec> = all
        .iter()
        .filter(|r| r.serial >= 1 << 31)
        .cloned()
        .collect();
    assert_eq!(repeated_serials(&own), Vec::<u64>::new());
    // ausearch reads every record: all of them whole lines (a torn line
    // at the kill, if any, is the only line it may skip).
    let out = Command::new("ausearch")
        .arg("-if")
        .arg(&log)
        .arg("--raw")
        .output()
        .unwrap();
    assert!(out.status.success());
    let read = String::from_utf8_lossy(&out.stdout).lines().count();
    assert_eq!(read, all.len(), "ausearch reads every record");
    let torn = !before_bytes.ends_with(b"\n");
    eprintln!(
        "{} records before the kill (torn last line: {torn}), {} after the restart",
        before.len(),
        after.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
