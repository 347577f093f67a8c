//! `fastaudit run` as the kernel's audit daemon, against the real auditd:
//! the same actions (a user message, su's PAM records, a loginuid write, a
//! rule change, an abort) give the same records in both logs; ausearch
//! finds them; the kernel is left exactly as found; another daemon is
//! refused (or taken over); a kill -9 stalls no record writer, and the next
//! run puts back the state the killed one found.

use fastaudit_testsupport as support;
use fastaudit_testsupport::daemon_log as records;
use records::*;
use std::path::Path;
use std::process::{Command, Stdio};
use support::auditd::*;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// The kernel settings `restore_kernel` does not reset, put back on drop:
/// the tests change them to see them restored.
struct Settings(Vec<(String, String)>);

impl Settings {
    fn save() -> Settings {
        let s = String::from_utf8_lossy(&auditctl(&["-s"]).stdout).into_owned();
        let get = |k: &str| {
            s.lines()
                .find_map(|l| l.strip_prefix(&format!("{k} ")))
                .unwrap_or("0")
                .to_string()
        };
        Settings(vec![
            ("-b".into(), get("backlog_limit")),
            ("--backlog_wait_time".into(), get("backlog_wait_time")),
            ("-f".into(), get("failure")),
            ("-r".into(), get("rate_limit")),
        ])
    }
}

impl Drop for Settings {
    fn drop(&mut self) {
        for (opt, v) in &self.0 {
            auditctl(&[opt, v]);
        }
        // A failed test may leave a killed run's saved state: not for the next.
        let _ = std::fs::remove_file("/run/fastaudit/kernel-state");
    }
}

fn status_and_rules() -> String {
    let s = auditctl(&["-s"]);
    let l = auditctl(&["-l"]);
    format!(
        "{}---\n{}",
        String::from_utf8_lossy(&s.stdout),
        String::from_utf8_lossy(&l.stdout)
    )
}

/// The group of the loginuid writer: a task created with it gets an audit
/// context on auditd's side (`-a never,task -F gid!=100`), as every task
/// does under stock audit.
const LOGIN_GID: u32 = 100;

/// The actions both daemons see. Returns the pids whose records belong to
/// them, in order, with a label (pids differ by run, labels do not).
fn actions(dir: &Path) -> Vec<(String, &'static str)> {
    let mut pids = Vec::new();
    let mut run = |label: &'static str, cmd: &mut Command| {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn action");
        pids.push((child.id().to_string(), label));
        child.wait().expect("wait action");
    };
    run(
        "auditctl-m",
        &mut support::auditctl_command(&["-m", "fastaudit daemon test"]),
    );
    run("su", Command::new("su").args(["-s", "/bin/true", "nobody"]));
    // As login does through pam_loginuid: a LOGIN record, which stock
    // audit follows with the write's SYSCALL and PROCTITLE (same stamp)
    // when the writer has an audit context. The writer is created with
    // gid 100 (LOGIN_GID), which auditd's side exempts from never,task
    // so that it gets a context; it writes its pid first.
    let pid_file = dir.join("loginuid.pid");
    let script = format!(
        "sh -c 'echo $$ > {}; echo 1000 > /proc/self/loginuid'; true",
        pid_file.display()
    );
    let mut setpriv = Command::new("setpriv");
    setpriv.args([
        &format!("--regid={LOGIN_GID}"),
        "--keep-groups",
        "sh",
        "-c",
        &script,
    ]);
    run("loginuid-parent", &mut setpriv);
    let writer = std::fs::read_to_string(&pid_file).expect("the writer's pid");
    // A rule change through netlink: CONFIG_CHANGE add_rule, remove_rule,
    // which stock audit follows with the sendto's SYSCALL, SOCKADDR and
    // PROCTITLE when the sender has a context: auditctl is forked by a
    // shell of gid 100, as the loginuid writer.
    for (label, op) in [("rule-add", "-a"), ("rule-del", "-d")] {
        let auditctl =
            format!("auditctl {op} always,exit -F arch=b64 -S fchownat -k fa-behind; true");
        run(
            label,
            Command::new("setpriv").args([
                &format!("--regid={LOGIN_GID}"),
                "--keep-groups",
                "sh",
                "-c",
                &auditctl,
            ]),
        );
    }
    // An abort: ANOM_ABEND is logged before any core-size check, so no
    // core is written and core_pattern stays as it is.
    let script = dir.join("fa-abort");
    std::fs::write(&script, "#!/bin/sh\nkill -ABRT $$\n").unwrap();
    let _ = Command::new("chmod")
        .args(["755", script.to_str().unwrap()])
        .status();
    run("abort", &mut Command::new(&script));
    pids.push((writer.trim().to_string(), "loginuid"));
    pids
}

#[test]
fn kernel_and_user_records_match_auditd_and_the_kernel_is_put_back() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let _ka = KernelAudit::acquire();
    let _settings = Settings::save();
    let dir = tempdir();

    // auditd as the daemon, the kernel set up as fastaudit sets it up,
    // but for the loginuid writer, which gets a context as under stock
    // audit (the kernel then writes its SYSCALL and PROCTITLE).
    auditctl(&["-a", "never,task", "-F", &format!("gid!={LOGIN_GID}")]);
    let auditd = Auditd::start(&dir, "ENRICHED");
    auditctl(&["-e", "1"]);
    let theirs = actions(&dir);
    // Records reach the daemon through kauditd.
    auditd.wait_caught_up();
    auditctl(&["-e", "0"]);
    let kernel_log = auditd.stop();
    restore_kernel();

    // A kernel state of its own, to be found again after fastaudit.
    auditctl(&["-D"]);
    auditctl(&[
        "-a",
        "always,exit",
        "-F",
        "arch=b64",
        "-S",
        target::first_present(&["chmod", "fchmodat"]),
        "-k",
        "fa-keep",
    ]);
    auditctl(&["-w", "/etc/hostname", "-p", "wa", "-k", "fa-watch"]);
    auditctl(&["-b", "320"]);
    auditctl(&["--backlog_wait_time", "6000"]);
    let before = status_and_rules();

    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "-b 4321\n--backlog_wait_time 3000\n-r 0\n-f 1\n-a always,exit -F arch=b64 -S fchmodat -k fa-bpf\n",
    )
    .unwrap();
    let log = dir.join("fastaudit.log");
    let fa = FastauditRun::start(FASTAUDIT, &rules, &log, &["--format", "enriched"]);
    // While it runs: it is the daemon, audit is on, the rules' settings
    // apply, and the kernel has no rule but -a never,task.
    assert_eq!(status_field("pid"), fa.pid().to_string());
    assert_eq!(status_field("enabled"), "1");
    assert_eq!(status_field("backlog_limit"), "4321");
    assert_eq!(status_field("backlog_wait_time"), "3000");
    assert_eq!(
        String::from_utf8_lossy(&auditctl(&["-l"]).stdout),
        "-a never,task\n"
    );
    let status = fastaudit(FASTAUDIT, &["status"]);
    let status = String::from_utf8_lossy(&status.stdout).into_owned();
    assert!(
        status.contains("fastaudit: running") && status.contains("backlog_limit 4321"),
        "{status}"
    );
    let ours = actions(&dir);
    wait_caught_up(&log);
    // Someone deletes every kernel rule: never,task comes back.
    auditctl(&["-D"]);
    wait_until(20, "never,task to be put back", || {
        String::from_utf8_lossy(&auditctl(&["-l"]).stdout) == "-a never,task\n"
    });
    fa.stop();
    assert_eq!(status_and_rules(), before, "kernel state put back");
    assert!(!Path::new("/run/fastaudit/kernel-state").exists());

    // The same records, field for field (pids and session ids aside).
    let k = records_of(&kernel_log, &theirs);
    let o = records_of(&log, &ours);
    let types: Vec<&str> = k.iter().map(|r| r.split(' ').next().unwrap()).collect();
    assert_eq!(
        types,
        [
            "USER",
            "USER_AUTH",
            "USER_ACCT",
            "CRED_ACQ",
            "USER_START",
            "USER_END",
            "CRED_DISP",
            "LOGIN",
            "SYSCALL",
            "PROCTITLE",
            "CONFIG_CHANGE",
            "SYSCALL",
            "SOCKADDR",
            "PROCTITLE",
            "CONFIG_CHANGE",
            "SYSCALL",
            "SOCKADDR",
            "PROCTITLE",
            "ANOM_ABEND"
        ],
        "auditd's records for the actions:\n{}",
        k.join("\n")
    );
    // ENRICHED on both sides: the interpreted ids are compared too
    // (PROCTITLE has nothing to interpret).
    assert!(
        k.iter()
            .chain(&o)
            .all(|r| r.contains('\x1d') || r.starts_with("PROCTITLE ")),
        "enriched records"
    );
    assert_eq!(o, k, "fastaudit's records equal auditd's");
    // LOGIN, SYSCALL, PROCTITLE contiguous under one stamp, on both sides
    // (fastaudit's from the kernel's LOGIN).
    let three = ["type=LOGIN", "type=SYSCALL", "type=PROCTITLE"].map(String::from);
    assert_eq!(login_event(&kernel_log), (three.to_vec(), true));
    assert_eq!(login_event(&log), (three.to_vec(), true));

    // ausearch reads the log and finds them.
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(ausearch(&log, &["-m", "USER_START"]).contains("exe=\"/usr/bin/su\""));
    let login = ausearch(&log, &["-m", "LOGIN"]);
    assert!(login.contains("auid=1000"), "{login}");
    assert!(ausearch(&log, &["-ua", "1000"]).contains("type=LOGIN"));
    let ses = login
        .split(' ')
        .find_map(|w| w.strip_prefix("ses="))
        .expect("ses in LOGIN")
        .trim()
        .to_string();
    assert!(ausearch(&log, &["--session", &ses]).contains("type=LOGIN"));
    assert!(ausearch(&log, &["-m", "DAEMON_START"]).contains("op=start"));
    assert!(ausearch(&log, &["-m", "DAEMON_END"]).contains("op=terminate"));
    assert!(ausearch(&log, &["-m", "ANOM_ABEND"]).contains("sig=6"));
    // The BPF side still logs into the same file, from fastaudit's serials.
    let serials: Vec<u64> = text
        .lines()
        .filter_map(|l| l.split_once(':')?.1.split_once(')')?.0.parse().ok())
        .collect();
    let first = text.lines().next().unwrap_or("");
    assert!(first.starts_with("type=DAEMON_START "), "{first}");
    assert!(
        text.lines()
            .last()
            .unwrap_or("")
            .starts_with("type=DAEMON_END "),
        "DAEMON_END is the last record"
    );
    assert!(
        text.lines()
            .filter(|l| l.starts_with("type=DAEMON_"))
            .all(|l| l.contains(":2147483")),
        "fastaudit's own records are stamped from 2^31 up"
    );
    assert!(serials.iter().any(|&s| s < 1 << 31) && serials.iter().any(|&s| s >= 1 << 31));
    // DAEMON_END names who sent SIGTERM: this test process, with the LSM
    // context the kernel's signal info gives, as auditd's DAEMON_END does
    // (this process stopped it the same way). AppArmor kernels give
    // `subj=unconfined` up to 6.12; Debian's 7.3 gives none.
    let sender = |line: &str| {
        let from = line.find(" pid=")?;
        let to = line.find(" res=success")? + " res=success".len();
        line.get(from..to).map(str::to_string)
    };
    let daemon_end = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("type=DAEMON_END "))
            .unwrap_or("")
            .to_string()
    };
    let end = daemon_end(&text);
    let auditd_end = daemon_end(&std::fs::read_to_string(&kernel_log).unwrap());
    let theirs = sender(&auditd_end).unwrap_or_default();
    assert!(
        theirs.starts_with(&format!(" pid={} ", std::process::id())),
        "auditd's DAEMON_END sender: {auditd_end}"
    );
    assert_eq!(
        sender(&end).unwrap_or_default(),
        theirs,
        "DAEMON_END sender: {end}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn another_daemon_is_refused_or_taken_over() {
    let _ka = KernelAudit::acquire();
    let _settings = Settings::save();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(&rules, "").unwrap();
    let auditd = Auditd::start(&dir, "ENRICHED");
    let auditd_pid = auditd.child.id().to_string();
    let before = status_and_rules();
    let out = fastaudit(
        FASTAUDIT,
        &[
            "run",
            // The machine's auditd.conf is not part of the test.
            "--no-config",
            "--rules",
            rules.to_str().unwrap(),
            "--log",
            dir.join("refused.log").to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("another audit daemon is registered")
            && err.contains(&format!("pid {auditd_pid} (auditd)"))
            && err.contains("--take-over"),
        "{err}"
    );
    assert_eq!(status_and_rules(), before, "nothing changed");

    // --bpf-only runs beside it and leaves the kernel audit alone.
    let beside = FastauditRun::start(FASTAUDIT, &rules, &dir.join("beside.log"), &["--bpf-only"]);
    assert_eq!(status_field("pid"), auditd_pid);
    beside.stop();
    assert_eq!(status_and_rules(), before, "--bpf-only changed nothing");

    let log = dir.join("fastaudit.log");
    let fa = FastauditRun::start(FASTAUDIT, &rules, &log, &["--take-over"]);
    assert_eq!(status_field("pid"), fa.pid().to_string());
    let mut auditd = auditd;
    wait_until(10, "the old daemon to stop", || {
        auditd.child.try_wait().ok().flatten().is_some()
    });
    // SIGUSR1 rotates, as auditd: DAEMON_ROTATE opens the new file.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(fa.pid() as i32),
        nix::sys::signal::SIGUSR1,
    )
    .unwrap();
    let rotated = dir.join("fastaudit.log.1");
    wait_until(20, "the log to rotate", || rotated.exists());
    fa.stop();
    assert!(std::fs::read_to_string(&rotated)
        .unwrap()
        .starts_with("type=DAEMON_START "));
    let new = std::fs::read_to_string(&log).unwrap();
    let first = new.lines().next().unwrap_or("");
    assert!(
        first.starts_with("type=DAEMON_ROTATE ")
            && first.ends_with(&format!(
                "op=rotate-logs auid={} uid=0 ses={} pid={} res=success",
                // The sender's loginuid, its uid (root) when unset.
                match std::fs::read_to_string("/proc/self/loginuid")
                    .unwrap()
                    .trim()
                {
                    "4294967295" => "0".to_string(),
                    l => l.to_string(),
                },
                std::fs::read_to_string("/proc/self/sessionid")
                    .unwrap()
                    .trim(),
                std::process::id()
            )),
        "{new}"
    );
    assert!(ausearch(&log, &["-m", "DAEMON_ROTATE"]).contains("op=rotate-logs"));
    assert_eq!(status_field("pid"), "0", "unregistered at stop");
    drop(auditd);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn panic_on_failure_runs_as_f_1_without_the_explicit_option() {
    // A hardened rules file with -f 2 must not leave the host without an
    // audit daemon: fastaudit runs, the kernel gets -f 1 (never 2 here),
    // and the note and the status file say -f 2 was asked, not applied.
    let _ka = KernelAudit::acquire();
    let _settings = Settings::save();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        target::rules_here("-f 2\n-a always,exit -F arch=b64 -S mkdir -S mkdirat -k f2\n"),
    )
    .unwrap();
    let log = dir.join("l");
    let fa = FastauditRun::start(FASTAUDIT, &rules, &log, &[]);
    let note = format!("{}:1: note: -f 2: not applied", rules.display());
    assert!(
        fa.before_ready.iter().any(|l| l.starts_with(&note)
            && l.contains("needs --apply-irreversible")
            && l.contains("the kernel gets -f 1")),
        "{:?}",
        fa.before_ready
    );
    let status = status_and_rules();
    assert!(status.contains("\nfailure 1\n"), "{status}");
    wait_until(10, "the status file's irreversible lines", || {
        let s = std::fs::read_to_string("/run/fastaudit/status").unwrap_or_default();
        s.contains(&format!("pid {}\n", fa.pid()))
            && s.contains("irreversible_asked -f 2\n")
            && s.contains("irreversible_applied_to_kernel none\n")
            && s.contains("failure_on_own_losses 1\n")
    });
    // It audits.
    let made = dir.join("made");
    std::fs::create_dir(&made).unwrap();
    wait_until(10, "the mkdir's record", || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .any(|l| l.starts_with("type=SYSCALL ") && l.contains("key=\"f2\""))
    });
    fa.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A record writer that goes through the kernel's backlog wait: loginuid
/// writes (LOGIN records, allocated GFP_KERNEL by the writing task), timed
/// one by one; prints `T_SECONDS LATENCY_SECONDS` per write.
const WRITER: &str = r#"
import time, sys
end = time.time() + float(sys.argv[1])
while time.time() < end:
    t = time.time()
    with open('/proc/self/loginuid', 'w') as f:
        f.write('1000')
    print(t, time.time() - t)
"#;

#[test]
fn kill_9_stalls_no_writer_and_the_next_run_puts_the_kernel_back() {
    let _ka = KernelAudit::acquire();
    let _settings = Settings::save();
    let dir = tempdir();
    auditctl(&["-a", "never,task"]);
    let before = status_and_rules();
    let rules = dir.join("r.rules");
    // A small backlog: if the kernel waited for a dead reader, writers
    // would stall backlog_wait_time (60 s) per record.
    std::fs::write(&rules, "-b 64\n--backlog_wait_time 15000\n").unwrap();
    let log = dir.join("fastaudit.log");
    let fa = FastauditRun::start(FASTAUDIT, &rules, &log, &[]);
    let fa_pid = fa.pid();
    let writer = Command::new("python3")
        .args(["-c", WRITER, "4"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("writer");
    // The point: fastaudit is killed while the writer is under way (its
    // loginuid writes logged: LOGIN records), 4 s of writes ahead of it.
    wait_until(20, "the writer's LOGIN records", || {
        file_holds(&log, "type=LOGIN ")
    });
    let killed_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    fa.kill();
    let out = writer.wait_with_output().expect("writer output");
    let samples: Vec<(f64, f64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (t, d) = l.split_once(' ')?;
            Some((t.parse().ok()?, d.parse().ok()?))
        })
        .collect();
    let after: Vec<f64> = samples
        .iter()
        .filter(|(t, _)| *t > killed_at)
        .map(|s| s.1)
        .collect();
    let before_kill: Vec<f64> = samples
        .iter()
        .filter(|(t, _)| *t <= killed_at)
        .map(|s| s.1)
        .collect();
    let max = after.iter().cloned().fold(0.0, f64::max);
    let mean = after.iter().sum::<f64>() / after.len().max(1) as f64;
    let mean_before = before_kill.iter().sum::<f64>() / before_kill.len().max(1) as f64;
    eprintln!(
        "loginuid writes: {} before the kill (mean {:.1} us), {} after (mean {:.1} us, max {:.1} ms)",
        before_kill.len(),
        mean_before * 1e6,
        after.len(),
        mean * 1e6,
        max * 1e3
    );
    assert!(
        after.len() > 100,
        "writes went on after the kill: {}",
        after.len()
    );
    assert!(
        max < 1.0,
        "no write waited for the dead reader: max {max} s"
    );
    // The kernel noticed (ECONNREFUSED at the next record) and let go.
    assert_eq!(status_field("pid"), "0");
    assert!(
        std::fs::read_to_string("/run/fastaudit/kernel-state")
            .unwrap()
            .contains(&format!("owner {fa_pid}")),
        "the state found at start is left for the next run"
    );
    // The next run finds the crashed run's state and puts it back at stop.
    let fa = FastauditRun::start(FASTAUDIT, &rules, &dir.join("second.log"), &[]);
    fa.stop();
    // backlog_wait_time_actual counts the jiffies writers waited at the
    // backlog limit: a counter nobody can set back, like lost.
    let waited = |s: &str| -> u64 {
        s.lines()
            .find_map(|l| l.strip_prefix("backlog_wait_time_actual "))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let after = status_and_rules();
    eprintln!(
        "jiffies writers waited at the backlog limit around the kill: {}",
        waited(&after) - waited(&before)
    );
    assert!(
        waited(&after) - waited(&before) < 250,
        "less than a second in all"
    );
    // `lost` may grow too: records the kernel emitted while no daemon was
    // registered are dropped and counted, which the administrator should
    // see; it can only be reset to 0, so it is compared as a counter.
    let lost = |s: &str| -> u64 {
        s.lines()
            .find_map(|l| l.strip_prefix("lost "))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    assert!(lost(&after) >= lost(&before), "lost is a counter");
    let without = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("backlog_wait_time_actual ") && !l.starts_with("lost "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without(&after), without(&before), "kernel state put back");
    assert!(!Path::new("/run/fastaudit/kernel-state").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
