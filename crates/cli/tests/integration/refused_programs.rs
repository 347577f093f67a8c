//! A BPF program the kernel refuses costs only the features that need it.
//!
//! The test switch `FASTAUDIT_TEST_REFUSE_PROG` makes the named programs
//! fail the kernel's verifier at load, as a kernel that cannot run them
//! would (Debian's 7.3 refused `fa_ctime_xchg`). fastaudit then starts
//! without them: the journal (stderr) and a DAEMON_ERR `op=degraded`
//! record name what was refused and what runs without it, and the rules
//! that do not need it still audit. Only without the syscall exit judge
//! in every hook kind does it refuse to start, naming the programs and
//! the verifier's reason.

use fastaudit_testsupport as support;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::logread::records;
use support::{tempdir, wait_until, FastauditRun, KernelAudit};

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// The test switch (crates/engine/src/refusal.rs).
const REFUSE: &str = "FASTAUDIT_TEST_REFUSE_PROG";

/// The inode change programs of every kind this engine may plan (the
/// timestamp tracepoint's two kinds, the kprobe of kernels before 6.13).
const INODE_PROGRAMS: &str = "fa_ctime_xchg,fa_rtp_ctime_xchg,fa_kprobe_current_time";

fn start(rules: &Path, log: &Path, refuse: &str) -> FastauditRun {
    let mut cmd = Command::new(FASTAUDIT);
    cmd.args(["run", "--no-config", "--rules"])
        .arg(rules)
        .arg("--log")
        .arg(log)
        .env(REFUSE, refuse);
    FastauditRun::spawn_command(cmd)
}

/// Whether the log holds a SYSCALL record with key `key`.
fn has_key(log: &Path, key: &str) -> bool {
    let k = format!("key=\"{key}\"");
    records(log)
        .iter()
        .any(|r| r.ty == "SYSCALL" && r.body.contains(&k))
}

/// A private directory with a file to chmod and `rules`: the file, the
/// rules file and the log's path.
fn chmod_case(rules_text: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = tempdir();
    let target = dir.join("target");
    std::fs::write(&target, "x").unwrap();
    let rules = dir.join("r.rules");
    std::fs::write(&rules, rules_text).unwrap();
    (target, rules, dir.join("audit.log"))
}

fn chmod(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
}

/// Start with `rules` while the kernel refuses `refuse`: before ready,
/// fastaudit says each of `said_has`; a chmod is still recorded (by
/// `through`, the hooks that took the refused one's place).
fn degraded_start_audits(rules: &str, refuse: &str, said_has: &[&str], through: &str) {
    let _ka = KernelAudit::acquire();
    let (target, rules, log) = chmod_case(rules);
    let fa = start(&rules, &log, refuse);
    let said = fa.before_ready.join("\n");
    for s in said_has {
        assert!(said.contains(s), "{said}");
    }
    chmod(&target);
    wait_until(
        10,
        &format!("chmod's SYSCALL record through {through}"),
        || has_key(&log, "ch"),
    );
    fa.stop();
}

#[test]
fn refused_inode_hooks_cost_only_the_watches() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let watched = dir.join("watched");
    let other = dir.join("other");
    std::fs::write(&watched, "x").unwrap();
    std::fs::write(&other, "x").unwrap();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        format!(
            "-w {} -p wa -k wt\n-a always,exit -F arch=b64 -S chmod,fchmodat -F key=ch\n",
            watched.display()
        ),
    )
    .unwrap();
    let log = dir.join("audit.log");
    let fa = start(&rules, &log, INODE_PROGRAMS);
    let said = fa.before_ready.join("\n");
    let line1 = format!("{}:1", rules.display());
    assert!(
        said.contains("fastaudit: degraded: inode changes") && said.contains("refused ("),
        "the journal names the refused program and its reason: {said}"
    );
    assert!(
        said.contains(&format!("rule {line1}: unavailable")),
        "the watch is named unavailable: {said}"
    );
    chmod(&other);
    wait_until(10, "chmod's SYSCALL record (key ch)", || {
        has_key(&log, "ch")
    });
    std::fs::write(&watched, "y").unwrap();
    chmod(&other);
    wait_until(10, "a second chmod record", || {
        records(&log)
            .iter()
            .filter(|r| r.ty == "SYSCALL" && r.body.contains("key=\"ch\""))
            .count()
            >= 2
    });
    assert!(
        !has_key(&log, "wt"),
        "the unavailable watch records nothing"
    );
    let degraded: Vec<String> = records(&log)
        .into_iter()
        .filter(|r| r.ty == "DAEMON_ERR" && r.body.contains("op=degraded "))
        .map(|r| r.body)
        .collect();
    assert!(
        degraded
            .iter()
            .any(|b| b.contains("inode changes") && b.contains("refused (")),
        "{degraded:?}"
    );
    assert!(degraded.iter().any(|b| b.contains(&line1)), "{degraded:?}");
    fa.stop();
}

#[test]
fn a_refused_tp_btf_program_is_replaced_by_its_raw_tp_twin() {
    // A rule of both ABIs: the raw syscall exit hook judges it.
    degraded_start_audits(
        "-a always,exit -S chmod,fchmodat -F key=ch\n",
        "fa_raw_exit",
        &["fa_raw_exit refused", "fa_rtp_raw_exit used instead"],
        "raw_tp",
    );
}

#[test]
fn a_refused_per_syscall_program_gives_way_to_the_raw_hooks() {
    degraded_start_audits(
        "-a always,exit -F arch=b64 -S chmod,fchmodat -F key=ch\n",
        "fa_syscall_exit",
        &["degraded: per-syscall tracepoints: fa_syscall_exit refused"],
        "the raw hooks",
    );
}

#[test]
fn without_any_syscall_exit_judge_the_start_is_refused_with_the_reasons() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(&rules, "-a always,exit -F arch=b64 -S chmod -F key=ch\n").unwrap();
    let log = dir.join("audit.log");
    let out = Command::new(FASTAUDIT)
        .args(["run", "--no-config", "--rules"])
        .arg(&rules)
        .arg("--log")
        .arg(&log)
        .env(REFUSE, "fa_syscall_exit,fa_raw_exit,fa_rtp_raw_exit")
        .output()
        .expect("fastaudit run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("nothing can be audited"), "{err}");
    assert!(
        err.contains("fa_raw_exit refused by the kernel:")
            && err.contains("fa_rtp_raw_exit refused by the kernel:"),
        "{err}"
    );
    // The verifier's own words are given.
    assert!(err.contains("verifier: "), "{err}");
}

#[test]
fn explain_names_what_a_refused_program_costs() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "-w /etc/shadow -p wa -k wt\n-a always,exit -F arch=b64 -S chmod -F key=ch\n",
    )
    .unwrap();
    let out = Command::new(FASTAUDIT)
        .args(["run", "--explain", "--rules"])
        .arg(&rules)
        .env(REFUSE, INODE_PROGRAMS)
        .output()
        .expect("fastaudit run --explain");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("degraded (programs this kernel refused):\n  inode changes"),
        "{text}"
    );
    assert!(
        text.contains(&format!("rule {}:1: unavailable", rules.display())),
        "{text}"
    );
    assert!(
        !text.contains("ctime_xchg by"),
        "no refused program is planned: {text}"
    );
}

#[test]
fn a_missing_attach_point_degrades_as_a_refused_load_does() {
    degraded_start_audits(
        "-a always,exit -F arch=b64 -S chmod,fchmodat -F key=ch\n",
        "attach:fa_syscall_exit",
        &[
            "fa_syscall_exit refused by the kernel: attaching tracepoint/syscalls:",
            "degraded: per-syscall tracepoints: fa_syscall_exit refused",
        ],
        "the raw hooks",
    );
}
