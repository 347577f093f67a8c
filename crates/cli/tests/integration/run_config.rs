//! `fastaudit run --config FILE`: auditd.conf's refusals and warnings with
//! FILE:LINE, and keys set away from auditd's defaults taking effect in a
//! real run (log place and format, node name, log group, rotation,
//! priority), with flags winning over the file.

use fastaudit_testsupport as support;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// The sanity checks need space_left above admin_space_left.
const BASE: &str = "space_left = 75\nadmin_space_left = 50\n";

fn run_with(conf: &Path, dir: &Path) -> std::process::Output {
    let rules = dir.join("empty.rules");
    std::fs::write(&rules, "").unwrap();
    fastaudit(
        FASTAUDIT,
        &[
            "run",
            "--config",
            conf.to_str().unwrap(),
            "--rules",
            rules.to_str().unwrap(),
            "--log",
            dir.join("never.log").to_str().unwrap(),
        ],
    )
}

fn refused(conf: &Path, dir: &Path, text: &str) -> Vec<String> {
    std::fs::write(conf, text).unwrap();
    let out = run_with(conf, dir);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(!dir.join("never.log").exists(), "refused before the log");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bad_values_and_unsupported_settings_are_refused_with_file_and_line() {
    let dir = tempdir();
    let conf = dir.join("auditd.conf");
    let c = conf.display().to_string();
    assert_eq!(
        refused(
            &conf,
            &dir,
            &format!("{BASE}# values\nflush = sometimes\nbogus = 1\nnum_logs = 1000\nfreq=5\n")
        ),
        [
            format!("{c}:4: flush: option sometimes not found"),
            format!("{c}:5: unknown keyword \"bogus\""),
            format!("{c}:6: num_logs: num_logs must be 999 or less"),
            format!("{c}:7: freq=5: wrong number of arguments"),
        ]
    );
    // Values fastaudit cannot honour: refused, not ignored.
    // (write_logs = no is applied: tests/reconfigure.rs.)
    let lines = refused(
        &conf,
        &dir,
        &format!("{BASE}write_logs = no\ntcp_listen_port = 60\nlocal_events = no\n"),
    );
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!("{c}:5: local_events = no")),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with(&format!("{c}:4: tcp_listen_port")),
        "{lines:?}"
    );
    // auditd's cross-key checks.
    assert_eq!(
        refused(&conf, &dir, "space_left = 10\nadmin_space_left = 20\n"),
        [format!(
            "{c}:1: space_left(10) must be larger than admin_space_left(20)"
        )]
    );
    // auditd's file checks: not world writable, no symlink, must exist.
    std::fs::write(&conf, BASE).unwrap();
    std::fs::set_permissions(&conf, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = run_with(&conf, &dir);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        format!("{c}: is world writable")
    );
    std::fs::set_permissions(&conf, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.join("link.conf");
    std::os::unix::fs::symlink(&conf, &link).unwrap();
    let out = run_with(&link, &dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("error opening config file"),
        "{out:?}"
    );
    let out = run_with(&dir.join("missing.conf"), &dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(!dir.join("never.log").exists());
}

fn nice_of(pid: u32) -> i64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the ")" of comm: state is field 3, nice field 19.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    rest.split(' ').nth(16).unwrap().parse().unwrap()
}

fn mode_gid(p: &Path) -> (u32, u32) {
    let m = std::fs::metadata(p).unwrap();
    (m.permissions().mode() & 0o777, m.gid())
}

#[test]
fn keys_away_from_their_defaults_take_effect_and_flags_win() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    let conf = dir.join("auditd.conf");
    let plugins = dir.join("plugins.d");
    std::fs::create_dir(&plugins).unwrap();
    // plugin_dir from the file: a plugin that copies its input to a file.
    let copied = dir.join("plugin.out");
    std::fs::write(
        plugins.join("copy.conf"),
        format!(
            "active = yes\ndirection = out\npath = /usr/bin/tee\ntype = always\nargs = {}\nformat = string\n",
            copied.display()
        ),
    )
    .unwrap();
    std::fs::write(plugins.join("off.conf"), "active = no\n").unwrap();
    let text = format!(
        "{BASE}log_file = {}/audit.log\nlog_format = RAW\nlog_group = adm\nflush = DATA\nmax_log_file = 1\nnum_logs = 3\nmax_log_file_action = ROTATE\nname_format = USER\nname = ops-node\npriority_boost = 7\ntcp_listen_queue = 9\nplugin_dir = {}\n",
        logs.display(),
        plugins.display()
    );
    std::fs::write(&conf, text).unwrap();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        target::rules_here("-a always,exit -F arch=b64 -S chmod -S fchmodat -k opsconf\n"),
    )
    .unwrap();
    let target = dir.join("target");
    std::fs::write(&target, "").unwrap();
    let fa = FastauditRun::spawn(
        FASTAUDIT,
        &[
            "run",
            "--config",
            conf.to_str().unwrap(),
            "--rules",
            rules.to_str().unwrap(),
            "--bpf-only",
            // The burst below is ~4.4 MiB in the ring (about 1.5 KiB an
            // event with its CWD and PATH), more than the default 4 MiB:
            // with flush = DATA and a rotation on a slow disk the reader
            // can be away for all of it (CI lost 13 of 3000 so). The
            // test is about the keys, not a burst, so the ring holds it.
            "--ring-buffer-kib",
            "16384",
        ],
    );
    let c = conf.display().to_string();
    assert_eq!(
        fa.before_ready,
        [format!("{c}: warning: not applied, as they do nothing in auditd either without tcp_listen_port (fastaudit has no network listener (auditd's tcp_listen_port)): tcp_listen_queue (line 13)")]
    );
    assert_eq!(nice_of(fa.pid()), -7, "priority_boost = 7");
    // About 1.5 MiB of records: past max_log_file once.
    const N: usize = 3000;
    let out = Command::new("perl")
        .args(["-e", &format!("chmod 0600, $ARGV[0] for 1..{N}")])
        .arg(&target)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    wait_until(30, "the log to rotate", || {
        logs.join("audit.log.1").exists()
    });
    let said = fa.stop();
    let adm = 4;
    let live = logs.join("audit.log");
    let old = logs.join("audit.log.1");
    assert!(old.exists(), "rotated at max_log_file = 1");
    assert!(!logs.join("audit.log.3").exists(), "num_logs = 3");
    assert_eq!(mode_gid(&live), (0o640, adm), "log_group = adm");
    assert_eq!(mode_gid(&old), (0o440, adm), "a rotated log is read-only");
    assert_eq!(mode_gid(&logs), (0o750, adm));
    let mut keyed = 0;
    for f in [logs.join("audit.log.2"), old, live] {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for l in text.lines() {
            assert!(l.starts_with("node=ops-node type="), "{l}");
            assert!(
                !l.contains('\x1d'),
                "RAW, not auditd's default ENRICHED: {l}"
            );
            keyed += usize::from(l.contains("key=\"opsconf\""));
        }
    }
    assert_eq!(
        keyed, N,
        "every event once, across the rotated files; fastaudit said: {said:#?}"
    );
    // The plugin got auditd's lines, node= included.
    let copied = std::fs::read_to_string(&copied).unwrap();
    let to_plugin = copied
        .lines()
        .filter(|l| l.contains("key=\"opsconf\""))
        .inspect(|l| assert!(l.starts_with("node=ops-node type=SYSCALL"), "{l}"))
        .count();
    assert_eq!(to_plugin, N, "every event to the plugin of plugin_dir");

    // The flags win over the file: another log, ENRICHED; the log group
    // applies to the file, not to a directory the file never named.
    let flag_log = dir.join("flag.log");
    let fa = FastauditRun::spawn(
        FASTAUDIT,
        &[
            "run",
            "--config",
            conf.to_str().unwrap(),
            "--rules",
            rules.to_str().unwrap(),
            "--bpf-only",
            "--format",
            "enriched",
            "--log",
            flag_log.to_str().unwrap(),
        ],
    );
    let out = Command::new("chmod")
        .args(["600", target.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    wait_until(20, "the chmod to be logged", || {
        file_holds(&flag_log, "key=\"opsconf\"")
    });
    fa.stop();
    let text = std::fs::read_to_string(&flag_log).unwrap();
    let event = text
        .lines()
        .find(|l| l.contains("key=\"opsconf\""))
        .expect("the chmod is logged");
    assert!(
        event.starts_with("node=ops-node type=SYSCALL")
            && event.contains(&format!(
                "\x1dARCH={} SYSCALL=fchmodat",
                target::this_target().name()
            )),
        "{event}"
    );
    assert_eq!(mode_gid(&flag_log), (0o640, adm));
    assert_eq!(mode_gid(&dir).0, 0o755, "{}", dir.display());
}

#[test]
fn space_keys_and_a_json_log_format_from_the_file_take_effect() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let conf = dir.join("auditd.conf");
    let log = dir.join("audit.json");
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S fchmodat -k opsspace\n",
    )
    .unwrap();
    let target = dir.join("target");
    std::fs::write(&target, "").unwrap();
    let chmod = || {
        let out = Command::new("chmod")
            .args(["600", target.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success());
        // In some steps the event must not be logged at all: each step
        // stops the daemon next, which drains the ring before the log is
        // read, so a wrong event would be in it.
    };
    let start = || {
        FastauditRun::spawn(
            FASTAUDIT,
            &[
                "run",
                "--config",
                conf.to_str().unwrap(),
                "--rules",
                rules.to_str().unwrap(),
                "--bpf-only",
            ],
        )
    };
    // Below space_left (10 TB) with SYSLOG: a warning, and logging goes on,
    // as JSON lines.
    std::fs::write(
        &conf,
        format!(
            "log_file = {}\nlog_format = JSON\nspace_left = 10000000\nspace_left_action = SYSLOG\nadmin_space_left = 0\n",
            log.display()
        ),
    )
    .unwrap();
    let fa = start();
    chmod();
    // The first write (DAEMON_START) comes before "ready".
    let mut printed = fa.before_ready.clone();
    printed.extend(fa.stop());
    assert!(
        printed.iter().any(|l| l.contains("below space_left")),
        "{printed:?}"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let keyed = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["SYSCALL"]["key"] == serde_json::json!(["opsspace"]))
        .count();
    assert_eq!(keyed, 1, "{text}");
    // Below admin_space_left with SUSPEND: nothing more is written, and the
    // events are counted as dropped.
    std::fs::remove_file(&log).unwrap();
    std::fs::write(
        &conf,
        format!(
            "log_file = {}\nspace_left = 10000001\nadmin_space_left = 10000000\nadmin_space_left_action = SUSPEND\n",
            log.display()
        ),
    )
    .unwrap();
    let fa = start();
    chmod();
    let after = fa.stop();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "", "suspended");
    let stopped = after
        .iter()
        .find(|l| l.starts_with("fastaudit: stopped:"))
        .expect("the stop line");
    assert!(!stopped.ends_with(", 0 dropped by the log"), "{stopped}");
}
