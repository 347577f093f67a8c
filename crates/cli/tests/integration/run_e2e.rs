//! `fastaudit run` end to end: start, "ready", a workload in child
//! processes, SIGTERM, a log that ausearch reads, nothing left attached.

use fastaudit_testsupport as support;
use std::process::Command;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

#[test]
fn run_records_a_workload_that_ausearch_finds() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S fchmodat -F key=run-e2e\n",
    )
    .unwrap();
    let log = dir.join("log/audit.log");
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    // A program whose name needs the kernel's hex encoding.
    let odd = dir.join("my chmod");
    std::fs::copy("/usr/bin/chmod", &odd).unwrap();

    let fa = FastauditRun::start(FASTAUDIT, &rules, &log, &["--format", "enriched"]);
    let ok = Command::new("chmod")
        .args(["600", target.to_str().unwrap()])
        .status()
        .unwrap();
    let odd_ok = Command::new(&odd)
        .args(["640", target.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(ok.success() && odd_ok.success());
    wait_until(20, "both chmods to be logged", || {
        String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default())
            .lines()
            .filter(|l| l.starts_with("type=SYSCALL ") && l.contains("key=\"run-e2e\""))
            .count()
            == 2
    });
    let tail = fa.stop();
    assert!(
        tail.iter()
            .any(|l| l.starts_with("fastaudit: stopped: ") && l.contains(" 0 lost")),
        "{tail:?}"
    );

    let raw = std::fs::read(&log).expect("log written");
    assert!(raw.contains(&0x1d), "enriched format");
    let out = Command::new("ausearch")
        .args(["-if", log.to_str().unwrap(), "-k", "run-e2e", "-i"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "ausearch finds the key");
    assert!(
        text.contains("syscall=fchmodat") && text.contains("comm=chmod"),
        "{text}"
    );
    assert!(
        text.contains("comm=my chmod"),
        "hex-encoded comm decoded: {text}"
    );
    assert!(
        text.contains(&format!("proctitle=chmod 600 {}", target.display())),
        "{text}"
    );
    let links = Command::new("bpftool")
        .args(["link", "show"])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&links.stdout).contains("fa_"),
        "nothing left attached"
    );
}

#[test]
fn run_refuses_a_rule_before_anything_starts() {
    // Under --strict a rule the kernel would refuse (path= on the io_uring
    // list) stops the run, with its line, before anything is attached or
    // logged (without it the run loads around the line: partial_rules.rs).
    let dir = tempdir();
    let rules = dir.join("w.rules");
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S open -k ok\n-a always,io_uring -S openat -F path=/etc/passwd -k ft\n",
    )
    .unwrap();
    let out = fastaudit(
        FASTAUDIT,
        &[
            "run",
            "--strict",
            // The machine's auditd.conf is not part of the test.
            "--no-config",
            "--rules",
            rules.to_str().unwrap(),
            "--log",
            dir.join("l").to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("w.rules:2:") && err.contains("path="), "{err}");
    assert!(!dir.join("l").exists(), "nothing started");
}

#[test]
fn explain_shows_the_plan_without_attaching() {
    let dir = tempdir();
    let rules = dir.join("e.rules");
    std::fs::write(&rules, "-a always,exit -F arch=b64 -S chmod -k c\n").unwrap();
    let out = fastaudit(
        FASTAUDIT,
        &["run", "--rules", rules.to_str().unwrap(), "--explain"],
    );
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("syscalls:sys_exit_chmod") && text.contains("chmod: 1 rule(s)"),
        "{text}"
    );
    std::fs::write(&rules, "").unwrap();
    let out = fastaudit(
        FASTAUDIT,
        &["run", "--rules", rules.to_str().unwrap(), "--explain"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("sys_exit_write by fa_syscall_exit (nr 1, loginuid writes")
            && text.contains("audited syscalls: 0"),
        "no rule: only loginuid writes are hooked\n{text}"
    );
}

#[test]
fn hook_kinds_are_probed_and_the_cheapest_usable_one_chosen() {
    let dir = tempdir();
    let rules = dir.join("k.rules");
    // Arch-less: ia32 chmod too, which only the raw hooks see.
    std::fs::write(&rules, "-a always,exit -S chmod -k c\n").unwrap();
    let explain = |kinds: &str| {
        let out = fastaudit(
            FASTAUDIT,
            &[
                "run",
                // The machine's auditd.conf is not part of the test.
                "--no-config",
                "--rules",
                rules.to_str().unwrap(),
                "--explain",
                "--hook-kinds",
                kinds,
            ],
        );
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let all = explain("fexit,tracepoint,tp_btf,raw_tp");
    assert!(all.contains("tp_btf/raw_syscalls:sys_exit"), "{all}");
    // Each kind is reported as probed here (root), whatever the answer.
    for kind in ["fexit", "tracepoint", "tp_btf", "raw_tp"] {
        let line = all
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{kind}: ")))
            .unwrap_or_else(|| panic!("no {kind} line in {all}"));
        assert!(line.contains("works") || line.contains("refused"), "{line}");
    }
    let raw_tp = explain("raw_tp");
    assert!(raw_tp.contains("raw_tp/raw_syscalls:sys_exit"), "{raw_tp}");
    assert!(
        raw_tp.contains("tp_btf: excluded by --hook-kinds"),
        "{raw_tp}"
    );
    // Without tracepoints, a native-only rule set goes to the raw hooks.
    std::fs::write(&rules, "-a always,exit -F arch=b64 -S chmod -k c\n").unwrap();
    let no_tp = explain("tp_btf");
    assert!(no_tp.contains("tp_btf/raw_syscalls:sys_exit"), "{no_tp}");
    assert!(!no_tp.contains("syscalls:sys_exit_chmod"), "{no_tp}");
    // No usable kind for the raw hooks: a clear error at start, nothing attached.
    let out = fastaudit(
        FASTAUDIT,
        &[
            "run",
            // The machine's auditd.conf is not part of the test.
            "--no-config",
            "--rules",
            rules.to_str().unwrap(),
            "--log",
            dir.join("l").to_str().unwrap(),
            "--hook-kinds",
            "fexit",
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("neither tp_btf nor raw_tp"), "{err}");
    assert!(!dir.join("l").exists(), "refused before the log is opened");
}

#[test]
fn burst_larger_than_the_ring_buffer_loses_nothing_silently() {
    const N: usize = 200_000;
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("burst.rules");
    // 0o1601 as chmod's mode argument marks the workload's calls.
    std::fs::write(&rules, chmods_rule("burst")).unwrap();
    let log = dir.join("audit.log");
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    // One log file, never rotated, so every record can be counted in it.
    let fa = FastauditRun::start(
        FASTAUDIT,
        &rules,
        &log,
        &["--ring-buffer-kib", "64", "--max-log-file", "0"],
    );
    let script = format!(
        "import os\nfor _ in range({N}): os.chmod({:?}, 0o1601)\n",
        target.to_str().unwrap()
    );
    assert!(Command::new("python3")
        .args(["-c", &script])
        .status()
        .unwrap()
        .success());
    // The burst may lose events by design (counted in the summary): the
    // stop drains the ring before the summary's counts.
    let summary = fa.stop();

    let text = String::from_utf8(std::fs::read(&log).unwrap()).unwrap();
    let logged = text
        .lines()
        .filter(|l| l.starts_with("type=SYSCALL ") && l.ends_with("key=\"burst\""))
        .count();
    let lost: usize = text
        .lines()
        .filter(|l| l.starts_with("type=DAEMON_ERR ") && l.contains("op=lost-events"))
        .filter_map(|l| {
            l.split(' ')
                .find_map(|kv| kv.strip_prefix("lost="))?
                .parse::<usize>()
                .ok()
        })
        .sum();
    assert!(
        lost > 0,
        "the burst must overflow a 64 KiB ring buffer: {summary:?}"
    );
    assert_eq!(logged + lost, N, "generated = logged + lost: {summary:?}");
    assert!(
        summary.iter().any(|l| l.contains(&format!(
            "{N} events generated, {logged} logged, {lost} lost"
        ))),
        "{summary:?}"
    );
    let out = Command::new("ausearch")
        .args(["-if", log.to_str().unwrap(), "-m", "DAEMON_ERR"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ausearch finds the lost-events record"
    );
}
