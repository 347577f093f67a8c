//! SIGHUP while a workload runs: the rules are read again and switched to
//! without a gap: every audited syscall is judged by exactly one of the two
//! rule sets (the old before the switch, the new after), none is lost and
//! none recorded twice; the change is logged as the kernel's CONFIG_CHANGE
//! records; a rules file with an error is refused and the rules stay.

use fastaudit_testsupport as support;
use fastaudit_testsupport::plugins;
use plugins::*;
use std::collections::HashSet;
use support::{wait_until, KernelAudit};

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

#[test]
fn sighup_switches_rules_while_a_workload_runs_with_no_gap_and_no_duplicate() {
    let _ka = KernelAudit::acquire();
    let dir = support::tempdir();
    let target = dir.join("target");
    std::fs::write(&target, "x").expect("target");
    let rules = dir.join("live.rules");
    let set = |key: &str| {
        std::fs::write(
            &rules,
            format!(
                "-a always,exit -F arch=b64 -S fchmodat -F path={} -k {key}\n",
                target.display()
            ),
        )
        .expect("rules");
    };
    set("setA");
    let log = dir.join("audit.log");
    let mut d = Daemon::start(
        fastaudit_cmd(FASTAUDIT, &rules, &log, &dir.join("no-plugins"), &[]),
        "fastaudit: ready",
    );
    // The workload runs until told to stop (a rule switch takes seconds,
    // a fixed number of chmods may end before it), then says how many it made.
    let (stop, made) = (dir.join("stop"), dir.join("made"));
    let mut load = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "i=0; while [ ! -e '{}' ] && [ $i -lt 200000 ]; do chmod 600 '{}'; i=$((i+1)); done; echo $i > '{}'",
            stop.display(),
            target.display(),
            made.display()
        ))
        .spawn()
        .expect("workload");
    let count = |key: &str| {
        lines(&log)
            .iter()
            .filter(|l| l.starts_with("type=SYSCALL ") && l.contains(&format!("key=\"{key}\"")))
            .count()
    };
    wait_until(60, "set A's events", || count("setA") >= 200);
    set("setB");
    signal(d.pid(), nix::sys::signal::SIGHUP);
    wait_until(60, "set B's events", || count("setB") >= 200);
    std::fs::write(&stop, "").expect("stop file");
    // A rules file with an error: refused, set B stays.
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S fchmodat -F bogus=1\n",
    )
    .expect("rules");
    signal(d.pid(), nix::sys::signal::SIGHUP);
    assert!(load.wait().expect("workload").success());
    let n: usize = std::fs::read_to_string(&made)
        .expect("the workload's count")
        .trim()
        .parse()
        .expect("a count");
    let bad = format!("{}:1: ", rules.display());
    d.wait_printed(30, "the bad line to be named", |l| l.starts_with(&bad));
    wait_until(60, "every chmod to be logged", || {
        lines(&log)
            .iter()
            .filter(|l| l.starts_with("type=SYSCALL ") && l.contains("comm=\"chmod\""))
            .count()
            >= n
    });
    let printed = d.stop();
    let logged = lines(&log);
    let chmods: Vec<&String> = logged
        .iter()
        .filter(|l| l.starts_with("type=SYSCALL ") && l.contains("comm=\"chmod\""))
        .collect();
    let pids: HashSet<&str> = chmods
        .iter()
        .filter_map(|l| l.split(' ').find(|w| w.starts_with("pid=")))
        .collect();
    assert_eq!(chmods.len(), n, "every chmod recorded once (no gap)");
    assert_eq!(pids.len(), n, "no chmod recorded twice");
    // Set A up to the switch, set B from it: one run of each, in order.
    let keys: Vec<&str> = chmods
        .iter()
        .map(|l| {
            if l.contains("key=\"setA\"") {
                "A"
            } else if l.contains("key=\"setB\"") {
                "B"
            } else {
                "?"
            }
        })
        .collect();
    let switch = keys.iter().position(|k| *k != "A").expect("set B's events");
    assert!(switch >= 200);
    assert!(
        keys[switch..].iter().all(|k| *k == "B"),
        "after the switch every event is judged by set B"
    );
    let stamps: Vec<&str> = chmods.iter().filter_map(|l| stamp(l)).collect();
    assert!(
        stamps[..switch].iter().all(|s| *s < stamps[switch]),
        "set A's events come first"
    );
    // The change, as the kernel logs auditctl's (fastaudit's own session
    // and serial: the kernel's own records at stop are not these).
    let own = |l: &str| own_serial(l);
    let changes: Vec<&String> = logged
        .iter()
        .filter(|l| l.starts_with("type=CONFIG_CHANGE ") && l.contains("_rule ") && own(l))
        .collect();
    assert_eq!(changes.len(), 2, "{changes:#?}");
    assert!(
        changes[0].ends_with(" op=remove_rule key=\"setA\" list=4 res=1"),
        "{}",
        changes[0]
    );
    assert!(
        changes[1].ends_with(" op=add_rule key=\"setB\" list=4 res=1"),
        "{}",
        changes[1]
    );
    assert!(
        printed.iter().any(|l| l.starts_with(&bad)),
        "the bad line is named: {printed:#?}"
    );
    assert!(printed.iter().any(|l| l.contains("the running rules stay")));
}
