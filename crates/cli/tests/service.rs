//! dist/fastaudit.service: `systemd-analyze verify` finds nothing to say
//! about it, and fastaudit runs as the audit daemon with only the
//! capabilities its CapabilityBoundingSet leaves, telling systemd it is
//! ready. (systemd is not PID 1 in the test container: the unit itself is
//! not started here.)

mod common;
use common::*;
use std::path::PathBuf;
use std::process::Command;

fn unit() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../dist/fastaudit.service");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn value<'a>(unit: &'a str, key: &str) -> &'a str {
    unit.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key}= in the unit"))
}

#[test]
fn the_unit_passes_systemd_analyze_verify() {
    let text = unit();
    assert_eq!(value(&text, "Conflicts"), "auditd.service shutdown.target");
    let exec = value(&text, "ExecStart");
    assert_eq!(
        exec,
        "/usr/local/sbin/fastaudit run --config /etc/audit/auditd.conf"
    );
    assert_eq!(value(&text, "Type"), "notify");
    // verify checks that ExecStart's program exists: the one just built
    // stands in for the installed one.
    let dir = tempdir();
    let copy = dir.join("fastaudit.service");
    std::fs::write(
        &copy,
        text.replace("/usr/local/sbin/fastaudit", env!("CARGO_BIN_EXE_fastaudit")),
    )
    .unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&copy)
        .output()
        .expect("systemd-analyze (package systemd: scripts/setup.sh installs it)");
    assert!(out.status.success(), "{out:?}");
    // Unknown or misspelt settings are only warned about: none allowed.
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{out:?}");
}

#[test]
fn the_units_capabilities_are_enough_to_run_as_the_audit_daemon() {
    let text = unit();
    let caps: Vec<String> = value(&text, "CapabilityBoundingSet")
        .split(' ')
        .map(|c| format!("+{}", c.trim_start_matches("CAP_").to_lowercase()))
        .collect();
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S fchmodat -k unitcaps\n",
    )
    .unwrap();
    let log = dir.join("audit.log");
    let notify = dir.join("notify.sock");
    let sock = std::os::unix::net::UnixDatagram::bind(&notify).unwrap();
    sock.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut cmd = Command::new("setpriv");
    cmd.arg("--bounding-set")
        .arg(format!("-all,{}", caps.join(",")))
        .args(["--inh-caps", "-all", "--no-new-privs", "--"])
        .arg(env!("CARGO_BIN_EXE_fastaudit"))
        .args(["run", "--no-config", "--rules"])
        .arg(&rules)
        .arg("--log")
        .arg(&log)
        .env("NOTIFY_SOCKET", &notify);
    let fa = FastauditRun::spawn_command(cmd);
    let mut buf = [0u8; 64];
    let n = sock.recv(&mut buf).expect("READY=1 from fastaudit");
    assert_eq!(&buf[..n], b"READY=1");
    let status = std::fs::read_to_string(format!("/proc/{}/status", fa.pid())).unwrap();
    let bnd = status
        .lines()
        .find_map(|l| l.strip_prefix("CapBnd:\t"))
        .unwrap()
        .to_string();
    let target = dir.join("f");
    std::fs::write(&target, "").unwrap();
    let out = Command::new("chmod")
        .args(["600", target.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    std::thread::sleep(std::time::Duration::from_millis(500));
    let pid = fa.pid().to_string();
    let s = auditctl(&["-s"]);
    assert!(
        String::from_utf8_lossy(&s.stdout).contains(&format!("pid {pid}")),
        "registered as the audit daemon: {s:?}"
    );
    fa.stop();
    assert_ne!(bnd, "000001ffffffffff", "the bounding set was reduced");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("key=\"unitcaps\""), "{logged}");
    assert!(logged.contains("type=DAEMON_END"), "{logged}");
    let s = auditctl(&["-s"]);
    assert!(
        String::from_utf8_lossy(&s.stdout).contains("pid 0"),
        "unregistered at stop: {s:?}"
    );
}
