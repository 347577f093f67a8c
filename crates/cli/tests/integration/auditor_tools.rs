//! The tools auditors use give the same answers on fastaudit's log as on
//! the kernel's (auditd's) for the same workload: `ausearch -f FILE`,
//! `ausearch -i`, `aureport -f` and `aureport --summary`. Both daemons
//! run at once (fastaudit with `--bpf-only`); each log is cut down to the
//! workload's events (the machine's other processes come and go while
//! either daemon starts or stops), serial numbers are left out (each
//! daemon numbers its own), and the outputs are compared.

use fastaudit_testsupport as support;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use support::auditd::Auditd;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// The events (all their lines) of `log` whose SYSCALL's pid or ppid is
/// one of `pids`, growing `pids` with their children (fork exits).
fn workload_events(log: &Path, pids: &mut BTreeSet<String>) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let serial = |l: &str| {
        l.split("):")
            .next()
            .and_then(|s| s.rsplit(':').next())
            .map(str::to_string)
    };
    let field = |l: &str, k: &str| {
        l.split(' ')
            .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
            .map(str::to_string)
    };
    for _ in 0..4 {
        for l in text.lines().filter(|l| l.starts_with("type=SYSCALL ")) {
            if field(l, "ppid").is_some_and(|p| pids.contains(&p)) {
                if let Some(p) = field(l, "pid") {
                    pids.insert(p);
                }
            }
        }
    }
    let keep: BTreeSet<String> = text
        .lines()
        .filter(|l| l.starts_with("type=SYSCALL "))
        .filter(|l| field(l, "pid").is_some_and(|p| pids.contains(&p)))
        .filter_map(serial)
        .collect();
    // Where fastaudit reads chmod's mode and chown's owner after the
    // change (it says so; docs/differences.md), those fields are left out
    // of both logs' PATH records for those syscalls.
    let changed: Vec<(String, &[&str])> = text
        .lines()
        .filter(|l| l.starts_with("type=SYSCALL "))
        .filter_map(|l| {
            let fields = attrs_masked_for(FASTAUDIT, &field(l, "arch")?, &field(l, "syscall")?);
            (!fields.is_empty()).then_some((serial(l)?, fields))
        })
        .collect();
    text.lines()
        .filter(|l| serial(l).is_some_and(|s| keep.contains(&s)))
        .map(|l| {
            let masked = changed
                .iter()
                .find(|(s, _)| l.starts_with("type=PATH ") && serial(l).as_ref() == Some(s));
            match masked {
                Some((_, fields)) => l
                    .split(' ')
                    .filter(|kv| !fields.iter().any(|f| kv.starts_with(&format!("{f}="))))
                    .collect::<Vec<_>>()
                    .join(" "),
                None => l.to_string(),
            }
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A tool's output on `log` without what differs between two daemons
/// recording the same syscalls: serial numbers (each numbers its own)
/// and times (the kernel stamps a syscall at entry from a coarse clock,
/// fastaudit at its exit: ausearch's `time->` lines can fall on either
/// side of a second).
fn tool(args: &[&str], log: &Path) -> String {
    let out = Command::new(args[0])
        .args(&args[1..])
        .arg("-if")
        .arg(log)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter(|l| {
            !l.contains("time in logs")
                && !l.contains("time for report")
                && !l.starts_with("time->")
        })
        .map(|l| {
            if let Some((a, b)) = l.split_once("msg=audit(") {
                let rest = b.split_once(')').map_or("", |x| x.1);
                return format!("{a}msg=audit(){rest}");
            }
            // aureport rows: "N. DATE TIME ... SERIAL".
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.first() {
                Some(n) if n.ends_with('.') && w.len() > 4 => {
                    format!("{n} {}", w[3..w.len() - 1].join(" "))
                }
                _ => l.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn ausearch_and_aureport_agree_on_both_logs() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let tree = dir.join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    let t = tree.to_str().unwrap().to_string();
    let rules = dir.join("rules");
    std::fs::write(
        &rules,
        // Written for x86_64: this machine's calls (target::rules_here).
        target::rules_here(&format!("-w {t} -p wa -k tree\n-a always,exit -F arch=b64 -S execve -F dir={t} -k exec\n-a always,exit -F arch=b64 -S clone,clone3,fork,vfork -k fork\n")),
    )
    .unwrap();
    let auditd = Auditd::start(&dir, "RAW");
    assert!(
        support::auditctl_command(&[std::ffi::OsStr::new("-R"), rules.as_os_str()])
            .status()
            .unwrap()
            .success()
    );
    auditctl(&["-e", "1"]);
    let fa_log = dir.join("fastaudit.log");
    let fa = FastauditRun::start(FASTAUDIT, &rules, &fa_log, &["--bpf-only"]);
    let workload = format!(
        "echo a > {t}/f; chmod 600 {t}/f; ln {t}/f {t}/g; mv {t}/g {t}/h; rm {t}/h; mkdir {t}/d; printf '#!/bin/sh\\ntrue\\n' > {t}/s; chmod 755 {t}/s; {t}/s; rmdir {t}/d"
    );
    let mut child = Command::new("sh")
        .args(["-c", &workload])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut pids = BTreeSet::from([child.id().to_string()]);
    child.wait().unwrap();
    // fastaudit reads its ring buffer to the end when stopped; auditd has
    // written the workload's records once caught up.
    auditd.wait_caught_up();
    fa.stop();
    auditctl(&["-e", "0"]);
    let kernel_log = auditd.stop();
    restore_kernel();

    let k = dir.join("kernel.cut");
    let o = dir.join("fastaudit.cut");
    std::fs::write(&k, workload_events(&kernel_log, &mut pids)).unwrap();
    std::fs::write(&o, workload_events(&fa_log, &mut pids)).unwrap();
    let file = format!("{t}/f");
    let mut diffs = Vec::new();
    for args in [
        &["ausearch", "-f", file.as_str()][..],
        &["ausearch", "-f", t.as_str(), "-i"],
        &["ausearch", "-k", "tree", "-i"],
        &["aureport", "-f"],
        &["aureport", "-f", "-i"],
        &["aureport", "--summary"],
        &["aureport", "-x", "--summary"],
    ] {
        let (a, b) = (tool(args, &k), tool(args, &o));
        if a.trim().is_empty() || a.contains("<no matches>") {
            diffs.push(format!(
                "{args:?}: the kernel's log gives nothing to compare:\n{a}"
            ));
        }
        if a != b {
            diffs.push(format!("{args:?}:\n--- kernel\n{a}\n--- fastaudit\n{b}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_agrees(&diffs);
}
