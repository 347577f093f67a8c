//! The differential harness: auditd and `fastaudit run` side by side on
//! the same rules and workload, and the comparison of their SYSCALL events.

use super::common::auditd::*;
use super::common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Appended to every scenario's rules: forks, so the workload's process
/// tree can be followed.
pub const TREE_RULE: &str = "-a always,exit -F arch=b64 -S clone,clone3,fork,vfork -k fa-tree\n";
pub const TREE_KEY: &str = "\"fa-tree\"";

pub const COMPARED: &[&str] = &[
    "key", "arch", "syscall", "success", "exit", "a0", "a1", "a2", "a3", "pid", "ppid", "auid",
    "uid", "gid", "euid", "suid", "fsuid", "egid", "sgid", "fsgid", "tty", "ses", "comm", "exe",
];

/// SYSCALL records of a log as field maps (values as encoded). The
/// kernel's keyless SYSCALL of a loginuid write (beside its LOGIN) is
/// compared like any other: fastaudit writes it too.
pub fn syscalls(log: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    text.lines()
        .filter(|l| l.starts_with("type=SYSCALL "))
        .map(|l| {
            let body = l.split_once("): ").map(|x| x.1).unwrap_or("");
            let body = body.split('\x1d').next().unwrap_or("");
            body.split(' ')
                .filter_map(|kv| kv.split_once('='))
                .filter(|(k, _)| COMPARED.contains(k))
                // Values as written: the kernel's quoting/hex encoding must match too.
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Run a scenario; returns the differences (empty when both agree).
pub fn scenario(name: &str, rules: &str, workload: &[&str]) -> Vec<String> {
    run_scenario(name, rules, workload, &[]).0
}

/// The key field of a SYSCALL record as the kernel writes it for a rule's
/// keys: quoted when one, hex of the \x01-joined keys when several.
pub fn encoded_key(keys: &[&str]) -> String {
    match keys {
        [one] => format!("\"{one}\""),
        _ => keys
            .join("\x01")
            .bytes()
            .map(|b| format!("{b:02X}"))
            .collect(),
    }
}

/// Like [`scenario`], and also a difference for every keyed rule the
/// kernel never selected: each rule must be exercised by the workload.
pub fn scenario_every_key(name: &str, rules: &str, workload: &[&str]) -> Vec<String> {
    every_key(name, rules, run_scenario(name, rules, workload, &[]))
}

/// The differences of a run, plus one for every keyed rule of `rules` that
/// selected none of the kernel's workload events.
pub fn every_key(
    name: &str,
    rules: &str,
    (mut diffs, events): (Vec<String>, Events),
) -> Vec<String> {
    let seen: BTreeSet<&String> = events.iter().filter_map(|e| e.get("key")).collect();
    for line in rules.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let keys: Vec<&str> = words
            .windows(2)
            .filter(|w| w[0] == "-k")
            .map(|w| w[1])
            .collect();
        if !keys.is_empty() && !seen.contains(&encoded_key(&keys)) {
            diffs.push(format!(
                "{name}: no workload event selected by `{line}` (the rule is not tested)"
            ));
        }
    }
    diffs
}

/// SYSCALL events as field maps.
pub type Events = Vec<BTreeMap<String, String>>;

/// Run a scenario, `fastaudit run` getting `fa_args` too; returns the
/// differences and the kernel's events for the workload.
pub fn run_scenario(
    name: &str,
    rules: &str,
    workload: &[&str],
    fa_args: &[&str],
) -> (Vec<String>, Events) {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules_file = dir.join("rules");
    // FILE and TREE name a file and a directory tree of the scenario's own.
    let file = dir.join("file");
    let tree = dir.join("tree");
    let paths = |s: &str| {
        s.replace("FILE", file.to_str().unwrap())
            .replace("TREE", tree.to_str().unwrap())
    };
    // Appended (so it decides nothing the scenario's rules decide): every
    // fork is recorded, and its exit value names the child, so the
    // workload's process tree is known even where a process in the middle
    // has no event of its own.
    std::fs::write(&rules_file, format!("{}{TREE_RULE}", paths(rules))).unwrap();
    std::fs::write(&file, "x").unwrap();
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    let auditd = Auditd::start(&dir, "RAW");
    assert!(
        Command::new("auditctl")
            .arg("-R")
            .arg(&rules_file)
            .status()
            .unwrap()
            .success(),
        "kernel takes the rules"
    );
    auditctl(&["-e", "1"]);
    let fa_log = dir.join("fastaudit.log");
    // auditd is the kernel's daemon here: fastaudit runs beside it.
    let mut args = vec!["--bpf-only"];
    args.extend_from_slice(fa_args);
    let fa = FastauditRun::start(&rules_file, &fa_log, &args);

    let mut pids = BTreeSet::new();
    for cmd in workload {
        let cmd = paths(cmd);
        let mut child = Command::new("sh")
            .args(["-c", &cmd])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        pids.insert(child.id().to_string());
        child.wait().unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    fa.stop();
    auditctl(&["-e", "0"]);
    drop(auditd);
    restore_kernel();

    let kernel = syscalls(&dir.join("kernel.log"));
    let ours = syscalls(&fa_log);
    // The workload's processes: the shells and everything they started,
    // found through the kernel's fork records (and any event's ppid).
    let forks = ["56", "57", "58", "435"];
    loop {
        let before = pids.len();
        for e in &kernel {
            if !e.get("pid").is_some_and(|p| pids.contains(p)) {
                continue;
            }
            if e.get("syscall")
                .is_some_and(|n| forks.contains(&n.as_str()))
                && e.get("success").is_some_and(|v| v == "yes")
            {
                pids.insert(e["exit"].clone());
            }
        }
        for e in kernel.iter().chain(&ours) {
            if e.get("ppid").is_some_and(|p| pids.contains(p)) {
                pids.insert(e["pid"].clone());
            }
        }
        if pids.len() == before {
            break;
        }
    }
    // Events as multisets: the same fields twice must be recorded twice.
    let pick = |v: &[BTreeMap<String, String>]| {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for e in v
            .iter()
            .filter(|e| e.get("pid").is_some_and(|p| pids.contains(p)))
        {
            *counts.entry(format!("{e:?}")).or_default() += 1;
        }
        counts
    };
    let mine: Events = kernel
        .iter()
        .filter(|e| e.get("pid").is_some_and(|p| pids.contains(p)))
        .cloned()
        .collect();
    let (k, o) = (pick(&kernel), pick(&ours));
    let mut diffs = Vec::new();
    if mine
        .iter()
        .all(|e| e.get("key").is_some_and(|k| k == TREE_KEY))
    {
        diffs.push(format!("{name}: the kernel recorded nothing for the workload (scenario is not testing anything)"));
    }
    for (e, &n) in &k {
        let m = o.get(e).copied().unwrap_or(0);
        if n > m {
            diffs.push(format!("{name}: only the kernel recorded ({}x) {e}", n - m));
        }
    }
    for (e, &n) in &o {
        let m = k.get(e).copied().unwrap_or(0);
        if n > m {
            diffs.push(format!("{name}: only fastaudit recorded ({}x) {e}", n - m));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    (diffs, mine)
}
