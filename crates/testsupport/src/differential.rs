//! The differential harness: auditd and `fastaudit run` side by side on
//! the same rules and workload, and the comparison of their events: the
//! sequence of records of each and every field of every record.

use crate::auditd::Auditd;
use crate::kernel::{auditctl, auditctl_command, restore_kernel, KernelAudit};
use crate::run::{attrs_masked_for, tempdir, FastauditRun};
use crate::target::{rules_here, syscall_number, syscall_numbers};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Appended to every scenario's rules: forks, so the workload's process
/// tree can be followed (written for x86_64, as every scenario's rules:
/// [`crate::target::rules_here`] makes it this machine's).
pub const TREE_RULE: &str = "-a always,exit -F arch=b64 -S clone,clone3,fork,vfork -k fa-tree\n";
/// The SYSCALL `key=` of [`TREE_RULE`]'s records.
pub const TREE_KEY: &str = "\"fa-tree\"";

/// The records the kernel's `audit_log_exit` writes for a syscall, in
/// its order (kernel/auditsc.c): an event's records of these types are
/// compared, in sequence. Records the kernel makes inside a syscall by
/// other paths (LOGIN, CONFIG_CHANGE, AVC, ...) are not: with
/// `--bpf-only` fastaudit leaves them to auditd.
pub const EXIT_RECORDS: &[&str] = &[
    "SYSCALL",
    "BPRM_FCAPS",
    "SOCKETCALL",
    "IPC",
    "IPC_SET_PERM",
    "MQ_OPEN",
    "MQ_SENDRECV",
    "MQ_NOTIFY",
    "MQ_GETSETATTR",
    "CAPSET",
    "MMAP",
    "OPENAT2",
    "EXECVE",
    "KERN_MODULE",
    "TIME_ADJNTPVAL",
    "TIME_INJOFFSET",
    "FD_PAIR",
    "SOCKADDR",
    "OBJ_PID",
    "CWD",
    "PATH",
    "PROCTITLE",
];

/// The after-SYSCALL record types fastaudit never writes (README,
/// "Records after SYSCALL"): left out of every comparison; none is left.
/// Everything fastaudit writes (PATH, CWD and SYSCALL's `items=` among
/// them) is compared.
pub const NOT_WRITTEN: &[&str] = &[];

/// Fields never compared, as (record type, field): values that differ
/// between the two logs of one run for the same syscall. Both daemons
/// record the same syscall instances, so pids, inode numbers and ids
/// agree; only the stamp (`msg=audit(TIME:SERIAL)`, not a field here)
/// differs. `items` is masked only when PATH records are not compared.
pub const MASKED: &[(&str, &str)] = &[];

/// One record: its type name and its fields, in order, values as encoded.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rec {
    /// Type name.
    pub ty: String,
    /// `key=value` fields, in order.
    pub fields: Vec<(String, String)>,
}

/// The audit_log_exit records of a log, grouped by serial into events (in
/// order of first appearance), each event's records in log order.
pub fn events(log: &Path) -> Vec<Vec<Rec>> {
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let mut order: Vec<String> = Vec::new();
    let mut by_serial: BTreeMap<String, Vec<Rec>> = BTreeMap::new();
    for l in text.lines() {
        let Some(rest) = l.strip_prefix("type=") else {
            continue;
        };
        let Some((ty, rest)) = rest.split_once(' ') else {
            continue;
        };
        if !EXIT_RECORDS.contains(&ty) {
            continue;
        }
        let Some((stamp, body)) = rest.split_once("): ") else {
            continue;
        };
        let serial = stamp.rsplit(':').next().unwrap_or("").to_string();
        // RAW logs only: an ENRICHED suffix is not the kernel's.
        let body = body.split('\x1d').next().unwrap_or("");
        let fields = body
            .split(' ')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if !by_serial.contains_key(&serial) {
            order.push(serial.clone());
        }
        by_serial.entry(serial).or_default().push(Rec {
            ty: ty.to_string(),
            fields,
        });
    }
    order
        .into_iter()
        .filter_map(|s| by_serial.remove(&s))
        .collect()
}

/// An event's SYSCALL fields (empty when it has none).
pub fn syscall_fields(ev: &[Rec]) -> BTreeMap<String, String> {
    ev.iter()
        .find(|r| r.ty == "SYSCALL")
        .map(|r| r.fields.iter().cloned().collect())
        .unwrap_or_default()
}

/// An event as compared: its records of the compared types, each with its
/// unmasked fields, one line per record.
fn comparable(bin: &str, ev: &[Rec], skip: &[&str]) -> String {
    let mut out = String::new();
    let changed = attrs_changed_by(bin, ev);
    for r in ev.iter().filter(|r| !skip.contains(&r.ty.as_str())) {
        out.push_str("\n  ");
        out.push_str(&r.ty);
        for (k, v) in &r.fields {
            let masked = MASKED.contains(&(r.ty.as_str(), k.as_str()))
                || (r.ty == "SYSCALL" && k == "items" && skip.contains(&"PATH"))
                || (r.ty == "PATH" && changed.contains(&k.as_str()));
            if !masked {
                out.push_str(&format!(" {k}={v}"));
            }
        }
    }
    out
}

/// The PATH fields left out for an event's syscall (`attrs_masked_for`).
fn attrs_changed_by(bin: &str, ev: &[Rec]) -> &'static [&'static str] {
    let fields = syscall_fields(ev);
    match (fields.get("arch"), fields.get("syscall")) {
        (Some(arch), Some(nr)) => attrs_masked_for(bin, arch, nr),
        _ => &[],
    }
}

/// Run a scenario with the fastaudit binary `bin` (every function here
/// takes it); returns the differences (empty when both agree).
pub fn scenario(bin: &str, name: &str, rules: &str, workload: &[&str]) -> Vec<String> {
    run_scenario(bin, name, rules, workload, &[]).0
}

/// [`scenario`], leaving records of the types in `skip` out of the
/// comparison.
pub fn scenario_except(
    bin: &str,
    skip: &[&str],
    name: &str,
    rules: &str,
    workload: &[&str],
) -> Vec<String> {
    run_scenario_except(bin, skip, name, rules, workload, &[]).0
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
pub fn scenario_every_key(bin: &str, name: &str, rules: &str, workload: &[&str]) -> Vec<String> {
    every_key(name, rules, run_scenario(bin, name, rules, workload, &[]))
}

/// [`scenario_every_key`], leaving records of the types in `skip` out.
pub fn scenario_every_key_except(
    bin: &str,
    skip: &[&str],
    name: &str,
    rules: &str,
    workload: &[&str],
) -> Vec<String> {
    every_key(
        name,
        rules,
        run_scenario_except(bin, skip, name, rules, workload, &[]),
    )
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

/// The kernel's events for the workload: their SYSCALL fields.
pub type Events = Vec<BTreeMap<String, String>>;

/// Run a scenario, `fastaudit run` getting `fa_args` too; returns the
/// differences and the kernel's events for the workload. Every record
/// of every event is compared.
pub fn run_scenario(
    bin: &str,
    name: &str,
    rules: &str,
    workload: &[&str],
    fa_args: &[&str],
) -> (Vec<String>, Events) {
    run_scenario_except(bin, &[], name, rules, workload, fa_args)
}

/// [`run_scenario`], leaving records of the types in `skip` out of the
/// comparison.
pub fn run_scenario_except(
    bin: &str,
    skip: &[&str],
    name: &str,
    rules: &str,
    workload: &[&str],
    fa_args: &[&str],
) -> (Vec<String>, Events) {
    let (diffs, kernel) = run_full(bin, skip, name, rules, workload, fa_args);
    (diffs, kernel.iter().map(|e| syscall_fields(e)).collect())
}

/// The kernel's events for the workload, every record.
pub type FullEvents = Vec<Vec<Rec>>;

/// Run a scenario; returns the differences and the kernel's events for
/// the workload with all their records.
pub fn run_full(
    bin: &str,
    skip: &[&str],
    name: &str,
    rules: &str,
    workload: &[&str],
    fa_args: &[&str],
) -> (Vec<String>, FullEvents) {
    run_full_then(bin, skip, name, rules, workload, fa_args, |_, _| Vec::new())
}

/// [`run_full`], then `after(kernel_log, fastaudit_log)` (both in the
/// scenario's directory, where FILE is), whose differences are added.
pub fn run_full_then(
    bin: &str,
    skip: &[&str],
    name: &str,
    rules: &str,
    workload: &[&str],
    fa_args: &[&str],
    after: impl FnOnce(&Path, &Path) -> Vec<String>,
) -> (Vec<String>, FullEvents) {
    let _ka = KernelAudit::acquire();
    let place = ScenarioDir::new(rules);
    let (shells, fa_log) = record_both(bin, &place, workload, fa_args);
    let kernel_full = events(&place.dir.join("kernel.log"));
    let ours_full = events(&fa_log);
    let pids = workload_pids(shells, &kernel_full, &ours_full);
    let of_workload = |e: &Vec<Rec>| {
        syscall_fields(e)
            .get("pid")
            .is_some_and(|p| pids.contains(p))
    };
    let mine: FullEvents = kernel_full
        .iter()
        .filter(|e| of_workload(e))
        .cloned()
        .collect();
    let mut diffs = Vec::new();
    if mine
        .iter()
        .all(|e| syscall_fields(e).get("key").is_some_and(|k| k == TREE_KEY))
    {
        diffs.push(format!("{name}: the kernel recorded nothing for the workload (scenario is not testing anything)"));
    }
    // Events as multisets: the same records twice must be recorded twice.
    let pick = |v: &FullEvents| {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for e in v.iter().filter(|e| of_workload(e)) {
            *counts.entry(comparable(bin, e, skip)).or_default() += 1;
        }
        counts
    };
    diffs.extend(multiset_diffs(name, &pick(&kernel_full), &pick(&ours_full)));
    diffs.extend(after(&place.dir.join("kernel.log"), &fa_log));
    let _ = std::fs::remove_dir_all(&place.dir);
    (diffs, mine)
}

/// A scenario's directory: its rules file (the scenario's rules, FILE and
/// TREE spelled out, then [`TREE_RULE`], both as this machine names their
/// syscalls: [`rules_here`]), and FILE and TREE, a file and a directory
/// tree of its own.
struct ScenarioDir {
    dir: PathBuf,
    rules_file: PathBuf,
    file: PathBuf,
    tree: PathBuf,
}

impl ScenarioDir {
    fn new(rules: &str) -> ScenarioDir {
        let dir = tempdir();
        let place = ScenarioDir {
            rules_file: dir.join("rules"),
            file: dir.join("file"),
            tree: dir.join("tree"),
            dir,
        };
        // Appended (so it decides nothing the scenario's rules decide): every
        // fork is recorded, and its exit value names the child, so the
        // workload's process tree is known even where a process in the middle
        // has no event of its own.
        std::fs::write(
            &place.rules_file,
            rules_here(&format!("{}{TREE_RULE}", place.paths(rules))),
        )
        .unwrap();
        std::fs::write(&place.file, "x").unwrap();
        std::fs::create_dir_all(place.tree.join("sub")).unwrap();
        place
    }

    /// `s` with FILE and TREE replaced by their paths.
    fn paths(&self, s: &str) -> String {
        s.replace("FILE", self.file.to_str().unwrap())
            .replace("TREE", self.tree.to_str().unwrap())
    }

    /// A workload command as run: [`ScenarioDir::paths`], and each
    /// `NR(name)` the number of syscall `name` on this machine
    /// ([`syscall_numbers`]).
    fn command(&self, s: &str) -> String {
        syscall_numbers(&self.paths(s))
    }
}

/// Run the workload with auditd (the kernel's daemon, writing
/// `kernel.log`) and `fastaudit run --bpf-only` side by side on the
/// scenario's rules, each command in its own shell; returns the shells'
/// pids and fastaudit's log, once both logs hold everything and the
/// kernel is put back.
fn record_both(
    bin: &str,
    place: &ScenarioDir,
    workload: &[&str],
    fa_args: &[&str],
) -> (BTreeSet<String>, PathBuf) {
    let auditd = Auditd::start(&place.dir, "RAW");
    assert!(
        auditctl_command(&[std::ffi::OsStr::new("-R"), place.rules_file.as_os_str()])
            .status()
            .unwrap()
            .success(),
        "kernel takes the rules"
    );
    auditctl(&["-e", "1"]);
    let fa_log = place.dir.join("fastaudit.log");
    // auditd is the kernel's daemon here: fastaudit runs beside it.
    let mut args = vec!["--bpf-only"];
    args.extend_from_slice(fa_args);
    let fa = FastauditRun::start(bin, &place.rules_file, &fa_log, &args);

    let mut shells = BTreeSet::new();
    for cmd in workload {
        let mut child = Command::new("sh")
            .args(["-c", &place.command(cmd)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        shells.insert(child.id().to_string());
        child.wait().unwrap();
    }
    // A workload's records can come after it is reaped (a thread's
    // `exit` on 6.18), so no event of its own says all are written: a
    // fork of this process after it ([`TREE_RULE`] records it in both
    // logs, and it is no part of the workload) is the barrier.
    fork_recorded_in(&fa_log);
    // Then everything the kernel has queued is in auditd's log once it is
    // caught up; fastaudit reads its ring buffer to the end when stopped.
    auditd.wait_caught_up();
    fa.stop();
    auditctl(&["-e", "0"]);
    drop(auditd);
    restore_kernel();
    (shells, fa_log)
}

/// Start and reap a child of this process, and wait until `log` holds
/// the SYSCALL record of the fork that made it (this process's pid, the
/// child's as its exit value): everything recorded before it is written.
pub fn fork_recorded_in(log: &Path) {
    let mut child = Command::new("true").spawn().expect("run true");
    let mark = (
        format!(" exit={} ", child.id()),
        format!(" pid={} ", std::process::id()),
    );
    child.wait().unwrap();
    crate::wait::wait_until(
        20,
        &format!("{} to record the fork of {}", log.display(), mark.0),
        || {
            String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default())
                .lines()
                .any(|l| {
                    l.starts_with("type=SYSCALL ") && l.contains(&mark.0) && l.contains(&mark.1)
                })
        },
    );
}

/// The workload's processes: the shells and everything they started,
/// found through the kernel's fork records (and any event's ppid).
fn workload_pids(
    mut pids: BTreeSet<String>,
    kernel: &FullEvents,
    ours: &FullEvents,
) -> BTreeSet<String> {
    let kernel: Events = kernel.iter().map(|e| syscall_fields(e)).collect();
    let ours: Events = ours.iter().map(|e| syscall_fields(e)).collect();
    // clone, fork, vfork, clone3 (those of them this machine has).
    let forks: Vec<String> = ["clone", "fork", "vfork", "clone3"]
        .into_iter()
        .filter_map(|n| syscall_number(false, n))
        .map(|n| n.to_string())
        .collect();
    loop {
        let before = pids.len();
        for e in &kernel {
            if !e.get("pid").is_some_and(|p| pids.contains(p)) {
                continue;
            }
            if e.get("syscall").is_some_and(|n| forks.contains(n))
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
            return pids;
        }
    }
}

/// The differences of two multisets of comparable events: what only the
/// kernel recorded, then what only fastaudit did (with how many times).
fn multiset_diffs(
    name: &str,
    kernel: &BTreeMap<String, usize>,
    ours: &BTreeMap<String, usize>,
) -> Vec<String> {
    let mut diffs = Vec::new();
    for (e, &n) in kernel {
        let m = ours.get(e).copied().unwrap_or(0);
        if n > m {
            diffs.push(format!("{name}: only the kernel recorded ({}x) {e}", n - m));
        }
    }
    for (e, &n) in ours {
        let m = kernel.get(e).copied().unwrap_or(0);
        if n > m {
            diffs.push(format!("{name}: only fastaudit recorded ({}x) {e}", n - m));
        }
    }
    diffs
}

/// What auditors' tools answer on both logs for executable `exe`:
/// `ausearch -x EXE --raw` must give the same events (every record but
/// those in `skip`), and `aureport -x --summary` the same count.
pub fn tool_diffs(
    bin: &str,
    name: &str,
    kernel: &Path,
    ours: &Path,
    exe: &Path,
    skip: &[&str],
) -> Vec<String> {
    let tool = |cmd: &str, log: &Path, args: &[&str]| -> String {
        let out = Command::new(cmd)
            .arg("-if")
            .arg(log)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{cmd}: {e}"));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let exe = exe.to_str().expect("utf8 path");
    let mut diffs = Vec::new();
    let found = |log: &Path| -> BTreeMap<String, usize> {
        let text = tool("ausearch", log, &["-x", exe, "--raw"]);
        let tmp = log.with_extension("ausearch");
        std::fs::write(&tmp, text).expect("write ausearch output");
        let mut counts = BTreeMap::new();
        for e in events(&tmp) {
            *counts.entry(comparable(bin, &e, skip)).or_default() += 1;
        }
        counts
    };
    let (k, o) = (found(kernel), found(ours));
    if k.is_empty() {
        diffs.push(format!(
            "{name}: ausearch -x {exe} found nothing in the kernel's log"
        ));
    }
    if k != o {
        diffs.push(format!(
            "{name}: ausearch -x {exe} differs:\n kernel: {k:?}\n fastaudit: {o:?}"
        ));
    }
    let summary = |log: &Path| -> Option<String> {
        tool("aureport", log, &["-x", "--summary"])
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(exe))
            .map(str::to_string)
    };
    let (k, o) = (summary(kernel), summary(ours));
    if k.is_none() || k != o {
        diffs.push(format!(
            "{name}: aureport -x --summary for {exe}: kernel {k:?}, fastaudit {o:?}"
        ));
    }
    diffs
}
