//! SIGHUP reads auditd.conf again (`--config FILE`), as auditd's
//! reconfigure: a changed file is applied live (log_format, max_log_file
//! and num_logs, priority_boost, the plugins), a key read at start only is
//! reported, a file with an error is refused with FILE:LINE and the running
//! configuration stays; a flag keeps winning over the file read again;
//! DAEMON_CONFIG says which, as auditd writes it.
//! `write_logs = no`: no log, and the plugins still get every event.

use fastaudit_testsupport as support;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// The sanity checks need space_left above admin_space_left; no space
/// action may fire on the test machine.
const BASE: &str = "space_left = 2\nadmin_space_left = 1\nspace_left_action = IGNORE\nadmin_space_left_action = IGNORE\n";

fn lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn hup(fa: &FastauditRun) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(fa.pid() as i32),
        nix::sys::signal::SIGHUP,
    )
    .expect("SIGHUP");
}

/// `n` chmods of `target` by one process (one audited fchmodat each).
fn chmods(target: &Path, n: usize) {
    let out = Command::new("perl")
        .args(["-e", &format!("chmod 0600, $ARGV[0] for 1..{n}")])
        .arg(target)
        .output()
        .expect("perl");
    assert!(out.status.success(), "{out:?}");
}

fn write_conf(conf: &Path, text: &str) {
    std::fs::write(conf, format!("{BASE}{text}")).expect("conf");
    std::fs::set_permissions(conf, std::fs::Permissions::from_mode(0o640)).expect("chmod");
}

/// A daemon run (the kernel's audit daemon: the SIGHUP's sender is known)
/// with `conf` and rules selecting chmods of `target`, key `reconf`.
fn start(dir: &Path, conf: &Path, target: &Path) -> FastauditRun {
    start_with(dir, conf, target, &[])
}

/// [`start`] with more flags.
fn start_with(dir: &Path, conf: &Path, target: &Path, extra: &[&str]) -> FastauditRun {
    std::fs::write(target, "x").expect("target");
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        target::rules_here(&format!(
            "-a always,exit -F arch=b64 -S chmod -S fchmodat -F path={} -k reconf\n",
            target.display()
        )),
    )
    .expect("rules");
    let mut args = vec![
        "run",
        "--config",
        conf.to_str().expect("utf8"),
        "--rules",
        rules.to_str().expect("utf8"),
    ];
    args.extend_from_slice(extra);
    FastauditRun::spawn(FASTAUDIT, &args)
}

fn keyed(l: &str) -> bool {
    l.starts_with("type=SYSCALL ") && l.contains("key=\"reconf\"")
}

/// DAEMON_CONFIG records, in order.
fn daemon_config(all: &[String]) -> Vec<String> {
    all.iter()
        .filter(|l| l.starts_with("type=DAEMON_CONFIG "))
        .cloned()
        .collect()
}

fn nice_of(pid: u32) -> i64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let rest = &stat[stat.rfind(')').expect("comm") + 2..];
    rest.split(' ')
        .nth(16)
        .expect("nice")
        .parse()
        .expect("number")
}

#[test]
fn sighup_applies_a_changed_auditd_conf_while_running() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let logs = dir.join("logs");
    let conf = dir.join("auditd.conf");
    let c = conf.display().to_string();
    let target = dir.join("target");
    let log = logs.join("audit.log");
    std::fs::create_dir(&logs).expect("logs");
    let first = format!(
        "log_file = {}\nlog_format = RAW\nflush = INCREMENTAL_ASYNC\nfreq = 20\nmax_log_file = 0\nnum_logs = 5\npriority_boost = 0\nend_of_event_timeout = 2\nplugin_dir = {}\n",
        log.display(),
        dir.join("no-plugins").display()
    );
    write_conf(&conf, &first);
    let fa = start(&dir, &conf, &target);
    assert_eq!(nice_of(fa.pid()), 0);
    chmods(&target, 1);
    wait_until(30, "the first event", || {
        lines(&log).iter().any(|l| keyed(l))
    });
    // ENRICHED, rotation at 1 MiB keeping 2 files, a priority boost, a
    // flush after every event, and a key read at start only (line 11).
    let second = first
        .replace("log_format = RAW", "log_format = ENRICHED")
        .replace("flush = INCREMENTAL_ASYNC", "flush = DATA")
        .replace("freq = 20", "freq = 0")
        .replace("max_log_file = 0", "max_log_file = 1")
        .replace("num_logs = 5", "num_logs = 2\nmax_log_file_action = ROTATE")
        .replace("priority_boost = 0", "priority_boost = 6")
        .replace("end_of_event_timeout = 2", "end_of_event_timeout = 9");
    write_conf(&conf, &second);
    hup(&fa);
    wait_until(30, "DAEMON_CONFIG", || {
        !daemon_config(&lines(&log)).is_empty()
    });
    assert_eq!(nice_of(fa.pid()), -6, "priority_boost = 6, live");
    // About 1.5 MiB of ENRICHED records (about 980 bytes an event): past
    // max_log_file once, so both files kept hold every event.
    const N: usize = 1500;
    chmods(&target, N);
    let old = logs.join("audit.log.1");
    wait_until(30, "every chmod to be logged", || {
        lines(&old)
            .iter()
            .chain(&lines(&log))
            .filter(|l| keyed(l))
            .count()
            > N
    });
    let printed = fa.stop();
    assert!(old.exists(), "rotated at the new max_log_file");
    assert!(!logs.join("audit.log.2").exists(), "num_logs = 2");
    let mut all = lines(&old);
    all.extend(lines(&log));
    let config = daemon_config(&all);
    assert_eq!(config.len(), 1, "{config:?}");
    // auditd's record, written as the new format has it (ENRICHED: the
    // AUID interpreted after the separator).
    let me = std::process::id();
    assert!(
        config[0].contains(": op=reconfigure state=changed auid=")
            && config[0].contains(&format!(" pid={me} subj=? res=success")),
        "{}",
        config[0]
    );
    let events: Vec<&String> = all.iter().filter(|l| keyed(l)).collect();
    assert_eq!(
        events.len(),
        N + 1,
        "every event once, none lost at the change"
    );
    assert!(!events[0].contains('\x1d'), "RAW before: {}", events[0]);
    // perl's chmod: chmod where the machine has it, else fchmodat.
    let enriched = format!(
        "\x1dARCH={} SYSCALL={} ",
        target::this_target().name(),
        target::first_present(&["chmod", "fchmodat"])
    );
    assert!(
        events[1..].iter().all(|l| l.contains(&enriched)),
        "ENRICHED after"
    );
    let restart = format!(
        "{c}:13: warning: end_of_event_timeout changed: not applied until fastaudit restarts"
    );
    assert!(
        printed.iter().any(|l| l.starts_with(&restart)),
        "{printed:#?}"
    );
    assert!(
        printed
            .iter()
            .any(|l| l.ends_with("read again and applied")),
        "{printed:#?}"
    );
}

#[test]
fn a_broken_auditd_conf_is_refused_with_file_and_line_and_the_running_one_stays() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let conf = dir.join("auditd.conf");
    let c = conf.display().to_string();
    let target = dir.join("target");
    let log = dir.join("logs/audit.log");
    std::fs::create_dir(dir.join("logs")).expect("logs");
    let good = format!("log_file = {}\nlog_format = RAW\n", log.display());
    write_conf(&conf, &good);
    let fa = start(&dir, &conf, &target);
    // A good change (ENRICHED) beside two bad lines: nothing of it is taken.
    write_conf(
        &conf,
        &format!(
            "{}flush = sometimes\nbogus = 1\n",
            good.replace("RAW", "ENRICHED")
        ),
    );
    hup(&fa);
    wait_until(30, "DAEMON_CONFIG", || {
        !daemon_config(&lines(&log)).is_empty()
    });
    // A log that cannot be opened: refused too (its directory is a file).
    std::fs::write(dir.join("file"), "").expect("file");
    write_conf(
        &conf,
        &format!(
            "log_file = {}/file/audit.log\nlog_format = ENRICHED\n",
            dir.display()
        ),
    );
    hup(&fa);
    wait_until(30, "the second DAEMON_CONFIG", || {
        daemon_config(&lines(&log)).len() == 2
    });
    chmods(&target, 1);
    wait_until(30, "the chmod to be logged", || {
        lines(&log).iter().any(|l| keyed(l))
    });
    let printed = fa.stop();
    let all = lines(&log);
    for d in daemon_config(&all) {
        assert!(
            d.contains(": op=reconfigure state=no-change auid=")
                && d.contains(&format!(" pid={} res=failed", std::process::id())),
            "{d}"
        );
    }
    let event = all.iter().find(|l| keyed(l)).expect("the chmod is logged");
    assert!(!event.contains('\x1d'), "still RAW: {event}");
    for want in [
        format!("{c}:7: flush: option sometimes not found"),
        format!("{c}:8: unknown keyword \"bogus\""),
        "fastaudit: SIGHUP: the configuration was refused; the running configuration stays".into(),
    ] {
        assert!(printed.contains(&want), "{want}: {printed:#?}");
    }
    assert!(
        printed
            .iter()
            .any(|l| l.starts_with(&format!("{c}:5: log_file: "))),
        "{printed:#?}"
    );
}

#[test]
fn a_flag_keeps_winning_over_the_file_read_again() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let conf = dir.join("auditd.conf");
    let target = dir.join("target");
    let log = dir.join("logs/audit.log");
    std::fs::create_dir(dir.join("logs")).expect("logs");
    let text = format!("log_file = {}\nlog_format = ENRICHED\n", log.display());
    write_conf(&conf, &text);
    let fa = start_with(&dir, &conf, &target, &["--format", "raw"]);
    // The file changes its format and names the node: the node name is
    // taken, the format stays the flag's.
    write_conf(
        &conf,
        &format!(
            "{}name_format = USER\nname = hup-node\n",
            text.replace("ENRICHED", "JSON")
        ),
    );
    hup(&fa);
    wait_until(30, "DAEMON_CONFIG", || {
        lines(&log)
            .iter()
            .any(|l| l.starts_with("node=hup-node type=DAEMON_CONFIG "))
    });
    chmods(&target, 1);
    wait_until(30, "the chmod to be logged", || {
        lines(&log)
            .iter()
            .any(|l| l.starts_with("node=hup-node type=SYSCALL ") && l.contains("key=\"reconf\""))
    });
    fa.stop();
    let all = lines(&log);
    let event = all
        .iter()
        .find(|l| l.starts_with("node=hup-node type=SYSCALL ") && l.contains("key=\"reconf\""))
        .expect("the chmod, with the node name");
    assert!(!event.contains('\x1d'), "RAW, as --format says: {event}");
}

/// A plugin that copies its stdin to `out`, ignoring the SIGHUP auditd
/// (and fastaudit) sends plugins on a reconfiguration.
fn copy_plugin(dir: &Path, plugins: &Path, name: &str, out: &Path) {
    std::fs::create_dir_all(plugins).expect("plugin dir");
    let exe = dir.join(format!("{name}-plugin"));
    std::fs::write(
        &exe,
        format!(
            "#!/bin/bash\ntrap '' HUP\nwhile IFS= read -r l; do printf '%s\\n' \"$l\" >> '{}'; done\n",
            out.display()
        ),
    )
    .expect("plugin");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o750)).expect("chmod");
    let f = plugins.join(format!("{name}.conf"));
    std::fs::write(
        &f,
        format!(
            "active = yes\ndirection = out\npath = {}\ntype = always\nformat = string\n",
            exe.display()
        ),
    )
    .expect("plugin conf");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).expect("chmod");
}

#[test]
fn write_logs_no_writes_no_log_while_plugins_get_every_event() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let conf = dir.join("auditd.conf");
    let target = dir.join("target");
    let plugins = dir.join("plugins.d");
    let out: PathBuf = dir.join("copy.out");
    copy_plugin(&dir, &plugins, "copy", &out);
    // Its directory does not exist: with write_logs = no it need not.
    let missing = dir.join("missing");
    let text = format!(
        "write_logs = no\nlog_file = {}/audit.log\nlog_format = RAW\nplugin_dir = {}\n",
        missing.display(),
        plugins.display()
    );
    write_conf(&conf, &text);
    let fa = start(&dir, &conf, &target);
    const N: usize = 200;
    chmods(&target, N);
    // SIGUSR1 rotates nothing: there is no log.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(fa.pid() as i32),
        nix::sys::signal::SIGUSR1,
    )
    .expect("SIGUSR1");
    wait_until(30, "the plugin's copy", || {
        lines(&out).iter().filter(|l| keyed(l)).count() == N
    });
    assert!(!missing.exists(), "no log, no directory");
    // write_logs = yes again, in a directory that exists, and a second
    // plugin: the log starts, the first plugin goes on, the second starts.
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).expect("logs");
    let out2 = dir.join("copy2.out");
    copy_plugin(&dir, &plugins, "copy2", &out2);
    write_conf(
        &conf,
        &text
            .replace("write_logs = no", "write_logs = yes")
            .replace(&missing.display().to_string(), &logs.display().to_string()),
    );
    hup(&fa);
    let log = logs.join("audit.log");
    wait_until(30, "DAEMON_CONFIG", || {
        !daemon_config(&lines(&log)).is_empty()
    });
    chmods(&target, N);
    wait_until(30, "the plugin's copy of every event", || {
        lines(&out).iter().filter(|l| keyed(l)).count() >= 2 * N
    });
    let printed = fa.stop();
    assert!(!missing.exists());
    let copied = lines(&out);
    assert_eq!(
        copied.iter().filter(|l| keyed(l)).count(),
        2 * N,
        "the first plugin got every event, across the change: {printed:#?}"
    );
    for t in [
        "DAEMON_START",
        "DAEMON_ROTATE",
        "DAEMON_CONFIG",
        "DAEMON_END",
    ] {
        let n = copied
            .iter()
            .filter(|l| l.starts_with(&format!("type={t} ")))
            .count();
        assert_eq!(n, 1, "{t} to the plugin");
    }
    assert_eq!(
        lines(&out2).iter().filter(|l| keyed(l)).count(),
        N,
        "the plugin added on SIGHUP got what followed"
    );
    let logged = lines(&log);
    assert_eq!(logged.iter().filter(|l| keyed(l)).count(), N);
    assert!(logged[0].starts_with("type=DAEMON_CONFIG "), "{logged:#?}");
    assert!(
        !printed
            .iter()
            .any(|l| l.contains("terminated unexpectedly")),
        "{printed:#?}"
    );
}
