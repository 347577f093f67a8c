//! The io_uring differential harness: the same rules in the kernel (loaded
//! over netlink: auditctl 3.0.9 cannot send io_uring rules) with auditd
//! as its daemon, and in `fastaudit run --bpf-only`; a scripted io_uring
//! workload (`fastaudit-bench bench-worker`, uring-script); then the
//! workload's URINGOP records, with the SYSCALL, SOCKADDR, CWD, PATH and
//! PROCTITLE records the kernel writes with them, compared event by event.

use crate::auditd::Auditd;
use crate::bench_bin;
use crate::kernel::{auditctl, restore_kernel, KernelAudit};
use crate::run::{tempdir, FastauditRun};
use fastaudit_rules::{RuleSet, SystemHost};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// URINGOP fields compared (all it has).
const URINGOP_FIELDS: &[&str] = &[
    "uring_op", "success", "exit", "items", "ppid", "pid", "uid", "gid", "euid", "suid", "fsuid",
    "egid", "sgid", "fsgid", "key",
];
/// SYSCALL fields compared (io_uring_enter's, grouped with inline ops).
const SYSCALL_FIELDS: &[&str] = &["syscall", "success", "exit", "items", "pid", "uid", "key"];
/// PATH fields compared (all but `cap_*`, which the harness's files lack).
const PATH_FIELDS: &[&str] = &[
    "item", "name", "inode", "dev", "mode", "ouid", "ogid", "rdev", "nametype",
];
/// CWD and SOCKADDR: their one field.
const CWD_FIELDS: &[&str] = &["cwd"];
const SOCKADDR_FIELDS: &[&str] = &["saddr"];

/// One scenario.
pub struct Scenario<'a> {
    /// Named in the differences.
    pub name: &'a str,
    /// Rules; DIR stands for the scenario's scratch directory.
    pub rules: &'a str,
    /// Workload steps (see the bench worker's uring_script); DIR as above.
    pub steps: &'a [&'a str],
    /// Submit through an SQPOLL ring.
    pub sqpoll: bool,
    /// Run the workload as this uid/gid (setpriv) instead of root.
    pub as_user: Option<u32>,
    /// Fields (lower case) or record types (upper case) left out of the
    /// comparison, with the reason.
    pub not_compared: &'a [&'a str],
}

/// One event of a log: its records of the compared types, in order.
type Event = Vec<String>;

/// The events of `log` with a record of process `pid`, by serial, each
/// record as `TYPE field=value ...` restricted to the compared fields.
fn events(log: &Path, pid: &str, skip: &[&str]) -> Vec<Event> {
    let text = String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default()).into_owned();
    let mut by_serial: BTreeMap<String, Event> = BTreeMap::new();
    let mut order = Vec::new();
    for line in text.lines() {
        let Some((head, body)) = line.split_once("): ") else {
            continue;
        };
        let ty = head.strip_prefix("type=").and_then(|h| h.split(' ').next());
        let serial = head.rsplit(':').next().unwrap_or("").to_string();
        if ty.is_some_and(|t| skip.contains(&t)) {
            continue;
        }
        let fields: &[&str] = match ty {
            Some("URINGOP") => URINGOP_FIELDS,
            Some("SYSCALL") => SYSCALL_FIELDS,
            Some("PROCTITLE") => &[],
            Some("PATH") => PATH_FIELDS,
            Some("CWD") => CWD_FIELDS,
            Some("SOCKADDR") => SOCKADDR_FIELDS,
            _ => continue,
        };
        let kv: BTreeMap<&str, &str> = body
            .split('\x1d')
            .next()
            .unwrap_or("")
            .split(' ')
            .filter_map(|w| w.split_once('='))
            .collect();
        let mut rec = ty.unwrap_or("").to_string();
        for f in fields.iter().filter(|f| !skip.contains(f)) {
            rec.push_str(&format!(" {f}={}", kv.get(f).unwrap_or(&"-")));
        }
        if !by_serial.contains_key(&serial) {
            order.push(serial.clone());
        }
        by_serial.entry(serial).or_default().push(rec);
    }
    order
        .into_iter()
        .filter_map(|s| by_serial.remove(&s))
        .filter(|e| e.iter().any(|r| r.contains(&format!(" pid={pid}"))))
        .filter(|e| e.iter().any(|r| r.starts_with("URINGOP")))
        .collect()
}

/// Load `rules` into the kernel over netlink, in order.
fn load_into_kernel(rules_file: &Path) {
    let set = RuleSet::load(&[rules_file.to_path_buf()], &SystemHost).expect("rules load");
    let mut sock =
        fastaudit_netlink::AuditSocket::open(Duration::from_secs(2)).expect("audit socket");
    for r in set.rules() {
        sock.add_rule(&r.rule.to_data())
            .unwrap_or_else(|e| panic!("kernel refused {}: {e}", r.origin));
    }
}

/// The workload's report: its pid and each step's CQE result.
fn run_workload(bin: &str, dir: &Path, s: &Scenario) -> (String, Vec<i64>) {
    let steps: Vec<String> = s
        .steps
        .iter()
        .map(|st| st.replace("DIR", dir.to_str().expect("utf8")))
        .collect();
    let job = serde_json::json!({
        "work": {"work": "uring-script", "sqpoll": s.sqpoll, "steps": steps},
        "pin": null,
    });
    let bench = bench_bin::build_bench_binary(bin);
    let mut cmd = match s.as_user {
        Some(id) => {
            let mut c = Command::new("setpriv");
            c.args([
                format!("--reuid={id}"),
                format!("--regid={id}"),
                "--clear-groups".into(),
            ])
            .arg(&bench);
            c
        }
        None => Command::new(&bench),
    };
    let out = cmd
        .args(["bench-worker", &job.to_string()])
        .output()
        .expect("run the workload");
    assert!(
        out.status.success(),
        "workload failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report");
    let results = report["results"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_i64()).collect())
        .unwrap_or_default();
    (report["pid"].to_string(), results)
}

/// Run a scenario with the fastaudit binary `bin`; returns the differences (empty when both agree) and
/// the workload's CQE results.
pub fn run(bin: &str, s: &Scenario) -> (Vec<String>, Vec<i64>) {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    // Writable by the workload whatever its uid.
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o777))
        .expect("chmod scratch dir");
    let rules_file = dir.join("rules");
    std::fs::write(&rules_file, s.rules.replace("DIR", dir.to_str().unwrap())).unwrap();
    let auditd = Auditd::start(&dir, "RAW");
    load_into_kernel(&rules_file);
    auditctl(&["-e", "1"]);
    // The scratch directory is writable by everyone; the log must not be
    // (fastaudit refuses a log directory others can write into).
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).expect("log directory");
    let fa_log = logs.join("fastaudit.log");
    let fa = FastauditRun::start(bin, &rules_file, &fa_log, &["--bpf-only"]);
    let (pid, results) = run_workload(bin, &dir, s);
    // The workload has exited: its events are in fastaudit's ring buffer,
    // which it reads to the end when stopped, and in the kernel's queue,
    // which auditd has written once it is caught up.
    auditd.wait_caught_up();
    fa.stop();
    auditctl(&["-e", "0"]);
    drop(auditd);
    restore_kernel();

    // As multisets: an inline op's records wait for its io_uring_enter's
    // end, while a worker's records of the same moment come between.
    let mut kernel = events(&dir.join("kernel.log"), &pid, s.not_compared);
    let mut ours = events(&fa_log, &pid, s.not_compared);
    kernel.sort();
    ours.sort();
    let mut diffs = Vec::new();
    if kernel.is_empty() {
        diffs.push(format!(
            "{}: the kernel wrote no URINGOP for the workload (the scenario tests nothing)",
            s.name
        ));
    }
    for i in 0..kernel.len().max(ours.len()) {
        let (k, o) = (kernel.get(i), ours.get(i));
        if k != o {
            diffs.push(format!(
                "{}: event {i}:\n  kernel:    {k:?}\n  fastaudit: {o:?}",
                s.name
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    (diffs, results)
}

/// `BIN run --bpf-only` alone with `rules` and `fa_args` while the
/// workload runs `steps`: its log and the workload's pid.
pub fn fastaudit_only(
    bin: &str,
    rules: &str,
    steps: &[&str],
    fa_args: &[&str],
) -> (String, String) {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules_file = dir.join("rules");
    std::fs::write(&rules_file, rules).unwrap();
    let fa_log = dir.join("fastaudit.log");
    let mut args = vec!["--bpf-only"];
    args.extend_from_slice(fa_args);
    let fa = FastauditRun::start(bin, &rules_file, &fa_log, &args);
    let s = Scenario {
        name: "fastaudit-only",
        rules,
        steps,
        sqpoll: false,
        as_user: None,
        not_compared: &[],
    };
    let (pid, _) = run_workload(bin, &dir, &s);
    // The workload has exited: its events are in the ring buffer, which
    // fastaudit reads to the end when stopped.
    fa.stop();
    let log = String::from_utf8_lossy(&std::fs::read(&fa_log).unwrap_or_default()).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    (log, pid)
}

/// The `uring_op=` values of the URINGOP records of process `pid`.
pub fn uring_ops(log: &str, pid: &str) -> Vec<String> {
    log.lines()
        .filter(|l| l.starts_with("type=URINGOP ") && l.contains(&format!(" pid={pid} ")))
        .filter_map(|l| l.split(' ').find_map(|w| w.strip_prefix("uring_op=")))
        .map(str::to_string)
        .collect()
}
