//! A rules error never leaves the host without an audit daemon: a file
//! refused at line N is loaded as `auditctl -R` (augenrules) loads it, the
//! lines before N, and the daemon runs; the refused line is named
//! FILE:LINE on stderr and in a DAEMON_ERR record, and the status file
//! says the set is partial. `-c` goes on past the error; `--strict` (or
//! FASTAUDIT_STRICT=yes) refuses the whole set; `rules check` still fails.
//!
//! The refused line is the one Debian's 30-stig.rules has on a host without
//! NetworkManager: a `dir=` rule naming a directory that does not exist,
//! which the kernel refuses too.

use fastaudit_testsupport as support;
use std::path::Path;
use support::{tempdir, wait_until, FastauditRun, KernelAudit};

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// The running daemon's status file.
const STATUS: &str = "/run/fastaudit/status";

/// A rule before the error (key `before`), the refused line (2), a rule
/// after it (key `after`).
fn rules(dir: &Path, first: &str) -> std::path::PathBuf {
    // dir= needs its directory at load time (the kernel's rule too).
    std::fs::create_dir_all(dir.join("work")).unwrap();
    let f = dir.join("30-stig.rules");
    std::fs::write(
        &f,
        format!(
            "{first}-a always,exit -F arch=b64 -S mkdir,mkdirat -F dir={d}/work -k before\n\
             -a always,exit -F dir=/nonexistent-fastaudit-test/NetworkManager/ -F perm=wa -k nm\n\
             -a always,exit -F arch=b64 -S rmdir,unlinkat -F dir={d}/work -k after\n",
            d = dir.display()
        ),
    )
    .unwrap();
    f
}

fn records(log: &Path, key: &str) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("type=SYSCALL ") && l.contains(&format!("key=\"{key}\"")))
        .count()
}

/// mkdir then rmdir in the watched directory, then a marker (a mkdir
/// audited in every case) so that "nothing more appears" is a condition.
fn workload(dir: &Path, log: &Path, n: usize) {
    let work = dir.join("work");
    let d = work.join(format!("d{n}"));
    std::fs::create_dir(&d).unwrap();
    std::fs::remove_dir(&d).unwrap();
    let marker = work.join(format!("marker{n}"));
    std::fs::create_dir(&marker).unwrap();
    wait_until(10, "the marker's record", || {
        records(log, "before") >= 2 * (n + 1)
    });
}

#[test]
fn a_refused_line_leaves_the_lines_before_it_running_and_is_named() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let f = rules(&dir, "");
    let log = dir.join("audit.log");
    let fa = FastauditRun::start(FASTAUDIT, &f, &log, &[]);
    let at = format!("{}:2: ", f.display());
    assert!(
        fa.before_ready.iter().any(|l| l.starts_with(&at)),
        "FILE:LINE on stderr: {:?}",
        fa.before_ready
    );
    assert!(
        fa.before_ready
            .iter()
            .any(|l| l.contains("the rule set is partial") && l.contains("stopped at")),
        "{:?}",
        fa.before_ready
    );
    workload(&dir, &log, 0);
    assert_eq!(
        records(&log, "after"),
        0,
        "line 3 comes after the error: not loaded"
    );
    let body = std::fs::read_to_string(&log).unwrap();
    let rec = body
        .lines()
        .find(|l| l.starts_with("type=DAEMON_ERR ") && l.contains("op=rules-refused"))
        .unwrap_or_else(|| panic!("no DAEMON_ERR for the refused line: {body}"));
    assert!(
        rec.contains(&format!("file=\"{}\" line=2 ", f.display())),
        "{rec}"
    );
    wait_until(10, "the status file saying partial", || {
        let s = std::fs::read_to_string(STATUS).unwrap_or_default();
        s.contains(&format!("pid {}\n", fa.pid()))
            && s.contains("rules_complete no\n")
            && s.contains("rules_refused 1\n")
            && s.contains(&format!("rules_refused_line {}:2\n", f.display()))
    });
    let st = support::fastaudit(FASTAUDIT, &["status"]);
    assert!(
        String::from_utf8_lossy(&st.stdout).contains("rules_complete no"),
        "{st:?}"
    );
    fa.stop();
    // `rules check` still fails on the file, naming the line.
    let out = support::fastaudit(FASTAUDIT, &["rules", "check", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&at),
        "{out:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn c_loads_past_the_error_and_strict_refuses_all() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let f = rules(&dir, "-c\n");
    let log = dir.join("audit.log");
    let fa = FastauditRun::start(FASTAUDIT, &f, &log, &[]);
    assert!(
        fa.before_ready
            .iter()
            .any(|l| l.starts_with(&format!("{}:3: ", f.display()))),
        "{:?}",
        fa.before_ready
    );
    workload(&dir, &log, 0);
    wait_until(10, "the rule after the error (-c)", || {
        records(&log, "after") >= 1
    });
    fa.stop();

    // All or nothing, by the flag and by the unit's environment key.
    let f = rules(&dir, "");
    for env in [None, Some("yes")] {
        let mut cmd = std::process::Command::new(FASTAUDIT);
        cmd.args(["run", "--no-config", "--rules", f.to_str().unwrap()])
            .args(["--log", dir.join("strict.log").to_str().unwrap()]);
        match env {
            None => {
                cmd.arg("--strict").env_remove("FASTAUDIT_STRICT");
            }
            Some(v) => {
                cmd.env("FASTAUDIT_STRICT", v);
            }
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{env:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("{}:2: ", f.display())), "{err}");
        assert!(!err.contains("fastaudit: ready"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
