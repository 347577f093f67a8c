//! `fastaudit bench --quick` end to end: every scenario in every mode,
//! interleaved, every sample in the JSON, the report written, the event
//! accounting exact, and the machine left as it was found. No timing is
//! asserted anywhere.

use fastaudit_testsupport as support;

use nix::fcntl::Flock;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs::File;
use support::{auditctl, tempdir};

use std::process::Output;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

const SCENARIOS: [&str; 7] = [
    "getpid", "audited", "lmbench", "threads", "io_uring", "compile", "redis",
];
const MODES: [&str; 3] = ["off", "kernel", "fastaudit"];
/// On a kernel whose audit is locked (`enabled 2`, until reboot) the kernel
/// mode cannot be set up: the quick run then covers off and fastaudit, and
/// says on stderr that the kernel side was left out.
const MODES_LOCKED: [&str; 2] = ["off", "fastaudit"];

/// `fastaudit ARGS...` once `fastaudit-bench` is built beside it.
fn fastaudit(args: &[&str]) -> Output {
    support::bench_bin::build_bench_binary(FASTAUDIT);
    support::fastaudit(FASTAUDIT, args)
}

/// The two tests look at kernel state; one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn machine_is_clean() -> Result<(), String> {
    let status = String::from_utf8_lossy(&auditctl(&["-s"]).stdout).into_owned();
    // A locked kernel stays enabled 2 whatever anyone does; the rest holds.
    let enabled = if support::kernel_audit_locked() {
        "enabled 2"
    } else {
        "enabled 0"
    };
    for want in [enabled, "pid 0"] {
        if !status.lines().any(|l| l == want) {
            return Err(format!("auditctl -s lacks {want:?}:\n{status}"));
        }
    }
    let rules = String::from_utf8_lossy(&auditctl(&["-l"]).stdout).into_owned();
    if rules.trim() != "-a never,task" {
        return Err(format!("kernel rules left: {rules}"));
    }
    for name in ["auditd", "fastaudit"] {
        let out = std::process::Command::new("pgrep")
            .args(["-x", name])
            .output()
            .expect("pgrep");
        if out.status.success() {
            return Err(format!("{name} still running"));
        }
    }
    let progs = std::process::Command::new("bpftool")
        .args(["prog", "show"])
        .output()
        .expect("bpftool");
    if String::from_utf8_lossy(&progs.stdout).contains(" name fa_") {
        return Err("fastaudit BPF programs still loaded".into());
    }
    Ok(())
}

/// The kernel-audit lock: while it is held, no other test (of this or
/// another checkout) nor bench changes the kernel, so what is read of it is
/// what the last holder left.
fn kernel_lock() -> Flock<File> {
    fastaudit_netlink::lock::lock_kernel_audit().expect("the kernel audit lock")
}

/// BPF programs are freed a moment after their last user closes them.
fn wait_clean() {
    let _lock = kernel_lock();
    let mut last = Ok(());
    if !support::wait_for(10, || {
        last = machine_is_clean();
        last.is_ok()
    }) {
        panic!("{}", last.unwrap_err());
    }
}

#[test]
fn quick_run_covers_every_scenario_and_mode_and_restores_the_machine() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempdir();
    let json = dir.join("bench.json");
    let report = dir.join("report");
    let locked = support::kernel_audit_locked();
    let modes: &[&str] = if locked {
        eprintln!("kernel audit locked (enabled 2): the quick run leaves the kernel mode out");
        &MODES_LOCKED
    } else {
        &MODES
    };
    let modes_arg = modes.join(",");
    let out = fastaudit(&[
        "bench",
        "--quick",
        "--modes",
        &modes_arg,
        "--json",
        json.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "bench failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    wait_clean();

    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let samples = v["samples"].as_array().unwrap();
    for g in v["groups"].as_array().unwrap() {
        let not_run = g["not_run"].as_object().unwrap();
        assert!(not_run.is_empty(), "modes not run: {g}");
    }
    // Every scenario in every mode, in rounds run interleaved: within each
    // scenario/rule set/metric the samples go off, kernel, fastaudit, off, ...
    let mut seq: BTreeMap<(String, String, String), Vec<(u64, String)>> = BTreeMap::new();
    for s in samples {
        let value = s["value"].as_f64().unwrap();
        assert!(value.is_finite() && value > 0.0, "sample {s}");
        assert!(!s["batches"].as_array().unwrap().is_empty());
        let key = (
            s["scenario"].as_str().unwrap().to_string(),
            s["rule_set"].as_str().unwrap().to_string(),
            s["metric"].as_str().unwrap().to_string(),
        );
        seq.entry(key).or_default().push((
            s["round"].as_u64().unwrap(),
            s["mode"].as_str().unwrap().to_string(),
        ));
    }
    for scenario in SCENARIOS {
        assert!(
            seq.keys().any(|(s, _, _)| s == scenario),
            "no samples for {scenario}"
        );
    }
    for (key, runs) in &seq {
        let got: Vec<&str> = runs
            .iter()
            .map(|(_, m)| m.as_str())
            .filter(|m| *m != "off-residue")
            .collect();
        let want: Vec<&str> = modes
            .iter()
            .cycle()
            .take(2 * modes.len())
            .copied()
            .collect();
        assert_eq!(got, want, "{key:?}: two interleaved rounds of each mode");
    }
    // The residue of -e 0 without never,task is measured beside getpid
    // (it needs the kernel's audit switched on and off).
    if !locked {
        assert!(samples.iter().any(|s| s["mode"] == "off-residue"));
        assert!(stdout.contains("without -a never,task"), "{stdout}");
    }

    // Audited events: generated = logged + lost, exactly, in both auditing modes.
    let audited: Vec<&Value> = samples
        .iter()
        .filter(|s| s["scenario"] == "audited" && s["mode"] != "off")
        .collect();
    assert_eq!(audited.len(), 2 * (modes.len() - 1));
    for s in audited {
        let e = &s["events"];
        let n = |k: &str| e[k].as_f64().unwrap_or(f64::NAN);
        assert!(n("generated") > 0.0, "{s}");
        assert_eq!(n("generated"), n("logged") + n("lost"), "{s}");
        assert_eq!(n("unaccounted"), 0.0, "{s}");
    }

    // The facts, the table and the report.
    assert!(v["facts"]["kernel"].as_str().is_some_and(|k| !k.is_empty()));
    assert!(v["facts"]["cpus"].as_u64().unwrap() >= 1);
    // Every hook kind probed, with the kernel's answer.
    let probed: Vec<&str> = v["facts"]["hooks"]["probed"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for kind in ["fexit", "tracepoint", "tp_btf", "raw_tp"] {
        assert!(
            probed.iter().any(|l| l.starts_with(&format!("{kind}: "))
                && (l.contains("works") || l.contains("refused"))),
            "{kind} in {probed:?}"
        );
    }
    let md = std::fs::read_to_string(report.join("report.md")).unwrap();
    assert!(md.contains("](getpid-rules.svg)"), "{md}");
    if !locked {
        assert!(stdout.contains("fastaudit/kernel"), "{stdout}");
        assert!(md.contains("| kernel/off |"), "{md}");
    }
    let svg = std::fs::read_to_string(report.join("getpid-rules.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("fastaudit"), "{svg}");

    // The JSON holds everything the table and report are made from.
    let again = dir.join("again");
    let out = fastaudit(&[
        "bench",
        "--from-json",
        json.to_str().unwrap(),
        "--report",
        again.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), stdout);
    assert_eq!(
        std::fs::read_to_string(again.join("report.md")).unwrap(),
        md
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_refused_before_anything_changes() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Built first: the lock is not held while cargo builds.
    support::bench_bin::build_bench_binary(FASTAUDIT);
    // Held throughout, so that only the bench could change the rules. The
    // bench refuses these arguments before it takes the lock; were it to
    // take it, this test would hang rather than pass.
    let _lock = kernel_lock();
    let before = String::from_utf8_lossy(&auditctl(&["-l"]).stdout).into_owned();
    let out = fastaudit(&["bench", "no-such-scenario"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown scenario"));
    let out = fastaudit(&["bench", "getpid", "--rules-sets", "no-such-set"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-set"), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&auditctl(&["-l"]).stdout),
        before,
        "nothing changed"
    );
}
