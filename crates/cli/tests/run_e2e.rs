//! `fastaudit run` end to end: start, "ready", a workload in child
//! processes, SIGTERM, a log that ausearch reads, nothing left attached.

mod common;
use common::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn wait_ready(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    let stderr = child.stderr.take().expect("stderr piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let start = Instant::now();
    loop {
        let l = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("fastaudit run prints a line");
        if l == "fastaudit: ready" {
            return rx;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "no ready line");
    }
}

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

    let mut child = Command::new(env!("CARGO_BIN_EXE_fastaudit"))
        .args([
            "run",
            "--rules",
            rules.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
            "--format",
            "enriched",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fastaudit run");
    let rest = wait_ready(&mut child);
    let ok = Command::new("chmod")
        .args(["600", target.to_str().unwrap()])
        .status()
        .unwrap();
    let odd_ok = Command::new(&odd)
        .args(["640", target.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(ok.success() && odd_ok.success());
    std::thread::sleep(Duration::from_millis(200));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::SIGTERM,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "exit 0 after SIGTERM: {status}");
    let tail: Vec<String> = rest.try_iter().collect();
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
fn run_refuses_rules_it_cannot_enforce() {
    let dir = tempdir();
    let rules = dir.join("w.rules");
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S open -k ok\n-w /etc/passwd -p wa -k watch\n",
    )
    .unwrap();
    let out = fastaudit(&[
        "run",
        "--rules",
        rules.to_str().unwrap(),
        "--log",
        dir.join("l").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("w.rules:2:") && err.contains("file watches"),
        "{err}"
    );
    assert!(!dir.join("l").exists(), "nothing started");
}

#[test]
fn explain_shows_the_plan_without_attaching() {
    let dir = tempdir();
    let rules = dir.join("e.rules");
    std::fs::write(&rules, "-a always,exit -F arch=b64 -S chmod -k c\n").unwrap();
    let out = fastaudit(&["run", "--rules", rules.to_str().unwrap(), "--explain"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("syscalls:sys_exit_chmod") && text.contains("chmod: 1 rule(s)"),
        "{text}"
    );
    std::fs::write(&rules, "").unwrap();
    let out = fastaudit(&["run", "--rules", rules.to_str().unwrap(), "--explain"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("hooks: none"));
}

#[test]
fn burst_larger_than_the_ring_buffer_loses_nothing_silently() {
    const N: usize = 200_000;
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("burst.rules");
    // 0o1601 as chmod's mode argument marks the workload's calls.
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S chmod -F a1=0x381 -k burst\n",
    )
    .unwrap();
    let log = dir.join("audit.log");
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fastaudit"))
        .args([
            "run",
            "--rules",
            rules.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
            "--ring-buffer-kib",
            "64",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fastaudit run");
    let rest = wait_ready(&mut child);
    let script = format!(
        "import os\nfor _ in range({N}): os.chmod({:?}, 0o1601)\n",
        target.to_str().unwrap()
    );
    assert!(Command::new("python3")
        .args(["-c", &script])
        .status()
        .unwrap()
        .success());
    std::thread::sleep(Duration::from_millis(300));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::SIGTERM,
    )
    .unwrap();
    assert!(child.wait().unwrap().success());
    let summary: Vec<String> = rest.try_iter().collect();

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
