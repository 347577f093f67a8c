//! Plugins as auditd runs them, with the real programs: a test plugin that
//! copies its stdin gets every logged record exactly once (plus EOE after
//! each syscall event), also across kills and restarts; a full queue drops
//! and counts without holding up the log; a plugin that keeps dying is
//! given up after max_restarts; audisp-remote delivers to a second, central
//! auditd; audisp-syslog reaches rsyslog; Laurel writes its JSON.

use fastaudit_testsupport as support;
use fastaudit_testsupport::plugins;
use plugins::*;
use std::collections::HashSet;
use std::path::Path;
use support::{file_holds, wait_until, KernelAudit};

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// A plugin that copies its stdin to `out` line by line (bash reads a
/// socket byte by byte, so it never holds more than the line it is on).
fn copying_plugin(dir: &Path, out: &Path) -> String {
    let p = dir.join("copy-plugin");
    script(
        &p,
        &format!(
            "#!/bin/bash\nwhile IFS= read -r l; do printf '%s\\n' \"$l\" >> '{}'; done\n",
            out.display()
        ),
    );
    p.display().to_string()
}

/// The plugin's lines without EOE; checks every syscall event (a SYSCALL
/// line's stamp) is closed by an EOE of its stamp before another stamp.
fn without_eoe(lines: &[String]) -> Vec<String> {
    let mut open: Option<String> = None;
    let mut out = Vec::new();
    for l in lines {
        let s = stamp(l).unwrap_or_default().to_string();
        if l.starts_with("type=EOE ") {
            assert_eq!(open.take(), Some(s), "EOE without its event: {l}");
            continue;
        }
        if let Some(o) = &open {
            assert_eq!(*o, s, "event {o} not closed by EOE before {l}");
        }
        if l.starts_with("type=SYSCALL ") {
            open = Some(s);
        }
        out.push(l.clone());
    }
    out
}

#[test]
fn test_plugin_gets_every_logged_event_once_also_across_kills_and_restarts() {
    let _ka = KernelAudit::acquire();
    let dir = support::tempdir();
    let out = dir.join("plugin.out");
    let target = dir.join("target");
    let rules = chmod_rules(&dir, &target);
    let plugins = dir.join("plugins");
    plugin_conf(&plugins, "copy", &copying_plugin(&dir, &out), "");
    let log = dir.join("audit.log");
    let d = Daemon::start(
        fastaudit_cmd(FASTAUDIT, &rules, &log, &plugins, &[]),
        "fastaudit: ready",
    );
    let caught_up = || {
        let want = lines(&log);
        !want.is_empty() && without_eoe(&lines(&out)) == want
    };
    chmods(&target, 30);
    support::auditctl(&["-m", "plugin-test-user-message"]);
    wait_until(30, "the plugin to have every logged record", caught_up);
    // Killed while idle: the events of the restart window reach the next one.
    let kids = d.children();
    assert_eq!(kids.len(), 1, "one plugin process: {kids:?}");
    signal(kids[0], nix::sys::signal::SIGKILL);
    chmods(&target, 30);
    wait_until(30, "the restarted plugin to have every record", caught_up);
    assert_ne!(d.children(), kids, "a new plugin process");
    // Killed under load, three times: bash may lose the one line it had
    // read and not yet written; fastaudit loses and repeats nothing.
    let load = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "i=0; while [ $i -lt 400 ]; do chmod 600 '{}'; i=$((i+1)); done",
            target.display()
        ))
        .spawn()
        .expect("load");
    let mut killed = 0;
    let mut load = load;
    while killed < 3 {
        // The time is what is tested here: the kills are spread over the
        // load, a restarted plugin killed again mid-feed (the check below
        // waits for the last restarted plugin).
        std::thread::sleep(std::time::Duration::from_millis(300));
        if let [k] = d.children()[..] {
            signal(k, nix::sys::signal::SIGKILL);
            killed += 1;
        }
    }
    assert!(load.wait().expect("load").success());
    // A killed plugin may lose the line it had read: the copy is complete
    // but for one line a kill.
    wait_until(30, "the plugin's copy of the log", || {
        let got: HashSet<String> = without_eoe(&lines(&out)).into_iter().collect();
        lines(&log).iter().filter(|l| !got.contains(*l)).count() <= killed
    });
    let printed = d.stop();
    let logged = lines(&log);
    let got = without_eoe(&lines(&out));
    let set: HashSet<&String> = got.iter().collect();
    assert_eq!(set.len(), got.len(), "a record reached the plugin twice");
    let missing: Vec<&String> = logged.iter().filter(|l| !set.contains(l)).collect();
    assert!(
        missing.len() <= killed,
        "{} logged records never reached the plugin (at most one per kill under load): {missing:#?}",
        missing.len()
    );
    let mut it = logged.iter();
    for l in &got {
        assert!(it.any(|x| x == l), "not logged, or out of order: {l}");
    }
    assert!(got
        .last()
        .is_some_and(|l| l.starts_with("type=DAEMON_END ")));
    assert!(
        logged
            .iter()
            .filter(|l| l.contains("key=\"plugtest\""))
            .count()
            >= 460
    );
    let report = printed
        .iter()
        .find(|l| l.starts_with("fastaudit: plugin copy.conf: "))
        .unwrap_or_else(|| panic!("a report line: {printed:#?}"));
    assert!(
        report.ends_with(" 0 dropped, 4 restarts"),
        "{report} (printed: {printed:#?})"
    );
}

/// A second auditd, the central collector: `local_events = no`, so it
/// never registers with the kernel (fastaudit is the system's daemon), and
/// listens on 127.0.0.1:`port`; its log is `dir/central.log`.
fn central_auditd(dir: &Path, port: u16) -> (std::process::Child, std::path::PathBuf) {
    let conf = dir.join("central");
    std::fs::create_dir_all(conf.join("plugins")).expect("central dir");
    let log = dir.join("central.log");
    std::fs::write(
        conf.join("auditd.conf"),
        format!(
            "local_events = no\nwrite_logs = yes\nlog_file = {log}\nlog_format = RAW\nflush = SYNC\nname_format = NONE\nmax_log_file = 64\nmax_log_file_action = IGNORE\nspace_left = 2\nspace_left_action = IGNORE\nadmin_space_left = 1\nadmin_space_left_action = IGNORE\ndisk_full_action = IGNORE\ndisk_error_action = IGNORE\ntcp_listen_port = {port}\ntcp_listen_queue = 5\ntcp_max_per_addr = 1\nuse_libwrap = no\ntcp_client_max_idle = 0\ntransport = TCP\ndistribute_network = no\nplugin_dir = {p}\nq_depth = 2000\noverflow_action = IGNORE\nmax_restarts = 10\nend_of_event_timeout = 2\n",
            log = log.display(),
            p = conf.join("plugins").display()
        ),
    )
    .expect("central auditd.conf");
    let child = std::process::Command::new("auditd")
        .args(["-n", "-c", conf.to_str().expect("utf8")])
        .stdin(std::process::Stdio::null())
        .spawn()
        .expect("start the central auditd");
    wait_until(20, "the central auditd to listen", || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    (child, log)
}

#[test]
fn audisp_remote_delivers_to_a_central_auditd() {
    let _ka = KernelAudit::acquire();
    let dir = support::tempdir();
    let port = 40000 + (std::process::id() % 20000) as u16;
    let (mut central, central_log) = central_auditd(&dir, port);
    // audisp-remote reads only /etc/audit/audisp-remote.conf: fastaudit
    // (and so its plugin) runs in a mount namespace where a test copy is
    // bound over it; the system's file is not touched.
    let remote_conf = dir.join("audisp-remote.conf");
    std::fs::write(
        &remote_conf,
        format!(
            "remote_server = 127.0.0.1\nport = {port}\ntransport = tcp\nmode = immediate\nqueue_depth = 10240\nformat = managed\nnetwork_retry_time = 1\nmax_tries_per_record = 3\nmax_time_per_record = 5\nheartbeat_timeout = 0\nnetwork_failure_action = syslog\ndisk_low_action = ignore\ndisk_full_action = warn_once\ndisk_error_action = warn_once\nremote_ending_action = reconnect\ngeneric_error_action = syslog\ngeneric_warning_action = syslog\nqueue_error_action = stop\noverflow_action = syslog\nstartup_failure_action = warn_once_continue\n"
        ),
    )
    .expect("audisp-remote.conf");
    let target = dir.join("target");
    let rules = chmod_rules(&dir, &target);
    let plugins = dir.join("plugins");
    plugin_conf(&plugins, "au-remote", "/sbin/audisp-remote", "");
    let log = dir.join("audit.log");
    let mut cmd = std::process::Command::new("unshare");
    cmd.args(["--mount", "--propagation", "private", "--", "sh", "-c"])
        .arg("mount --bind \"$1\" /etc/audit/audisp-remote.conf && shift && exec \"$@\"")
        .arg("sh")
        .arg(&remote_conf)
        .arg(FASTAUDIT)
        .args(fastaudit_cmd(FASTAUDIT, &rules, &log, &plugins, &[]).get_args());
    let d = Daemon::start(cmd, "fastaudit: ready");
    chmods(&target, 25);
    support::auditctl(&["-m", "to-the-central-collector"]);
    wait_until(20, "the user message to be logged", || {
        file_holds(&log, "to-the-central-collector")
    });
    let printed = d.stop();
    let logged = lines(&log);
    let central_has_all = || {
        let c: HashSet<String> = lines(&central_log).into_iter().collect();
        logged.iter().all(|l| c.contains(l))
    };
    let ok = support::wait_for(10, central_has_all);
    plugins::signal(central.id(), nix::sys::signal::SIGTERM);
    let _ = central.wait();
    let central: HashSet<String> = lines(&central_log).into_iter().collect();
    let missing: Vec<&String> = logged.iter().filter(|l| !central.contains(*l)).collect();
    assert!(
        ok,
        "the central log misses {} of {} records; fastaudit printed {printed:#?}\nmissing:\n{missing:#?}",
        missing.len(),
        logged.len()
    );
    assert_eq!(
        logged
            .iter()
            .filter(|l| l.contains("key=\"plugtest\""))
            .count(),
        25
    );
    assert!(logged
        .iter()
        .any(|l| l.contains("to-the-central-collector")));
}

#[test]
fn audisp_syslog_lines_reach_rsyslog() {
    let _ka = KernelAudit::acquire();
    let dir = support::tempdir();
    // rsyslog listens on DIR/dev/log; fastaudit (and so audisp-syslog)
    // runs in a mount namespace whose /dev is DIR/dev (with /dev/null), so
    // the system's /dev/log is neither needed nor touched.
    let dev = dir.join("dev");
    std::fs::create_dir_all(&dev).expect("dev dir");
    let out = dir.join("syslog.out");
    let conf = dir.join("rsyslog.conf");
    std::fs::write(
        &conf,
        format!(
            "global(workDirectory=\"{d}\")\nmodule(load=\"imuxsock\" SysSock.Name=\"{d}/dev/log\" SysSock.RateLimit.Interval=\"0\")\ntemplate(name=\"plain\" type=\"string\" string=\"%syslogtag%%msg%\\n\")\n*.* action(type=\"omfile\" file=\"{o}\" template=\"plain\")\n",
            d = dir.display(),
            o = out.display()
        ),
    )
    .expect("rsyslog.conf");
    let mut rsyslog = std::process::Command::new("rsyslogd")
        .arg("-n")
        .arg("-f")
        .arg(&conf)
        .arg("-i")
        .arg(dir.join("rsyslog.pid"))
        .spawn()
        .expect("rsyslogd (apt-get install rsyslog)");
    wait_until(20, "rsyslog's socket", || dev.join("log").exists());
    let target = dir.join("target");
    let rules = chmod_rules(&dir, &target);
    let plugins = dir.join("plugins");
    plugin_conf(&plugins, "syslog", "/sbin/audisp-syslog", "LOG_INFO");
    let log = dir.join("audit.log");
    std::fs::write(dev.join("null"), "").expect("dev/null mount point");
    let mut cmd = std::process::Command::new("unshare");
    cmd.args(["--mount", "--propagation", "private", "--", "sh", "-c"])
        .arg("mount --bind /dev/null \"$1/null\" && mount --rbind \"$1\" /dev && shift && exec \"$@\"")
        .arg("sh")
        .arg(&dev)
        .arg(FASTAUDIT)
        .args(fastaudit_cmd(FASTAUDIT, &rules, &log, &plugins, &[]).get_args());
    let d = Daemon::start(cmd, "fastaudit: ready");
    chmods(&target, 20);
    support::auditctl(&["-m", "to-syslog"]);
    wait_until(20, "the user message to be logged", || {
        file_holds(&log, "to-syslog")
    });
    let printed = d.stop();
    let logged = lines(&log);
    let in_syslog = || {
        let got = std::fs::read_to_string(&out).unwrap_or_default();
        logged
            .iter()
            .filter(|l| !got.contains(&format!("audisp-syslog: {l}\n")))
            .count()
    };
    let ok = support::wait_for(10, || in_syslog() == 0);
    plugins::signal(rsyslog.id(), nix::sys::signal::SIGTERM);
    let _ = rsyslog.wait();
    assert!(
        ok,
        "{} of {} logged records not in syslog; fastaudit printed {printed:#?}; syslog:\n{}",
        in_syslog(),
        logged.len(),
        std::fs::read_to_string(&out).unwrap_or_default()
    );
    assert_eq!(
        logged
            .iter()
            .filter(|l| l.contains("key=\"plugtest\""))
            .count(),
        20
    );
}

/// Laurel, installed by scripts/setup.sh (`cargo install laurel`).
const LAUREL: &str = "/usr/local/bin/laurel";

#[test]
fn laurel_turns_the_plugin_feed_into_its_json() {
    assert!(
        Path::new(LAUREL).exists(),
        "{LAUREL} missing: run scripts/setup.sh (cargo install laurel)"
    );
    let _ka = KernelAudit::acquire();
    let dir = support::tempdir();
    let out = dir.join("laurel");
    std::fs::create_dir_all(&out).expect("laurel dir");
    let conf = dir.join("laurel.toml");
    std::fs::write(
        &conf,
        format!(
            "directory = \"{}\"\nstatusreport-period = 0\ninput = \"stdin\"\n[auditlog]\nfile = \"audit.log\"\n",
            out.display()
        ),
    )
    .expect("laurel config");
    let target = dir.join("target");
    let rules = chmod_rules(&dir, &target);
    let plugins = dir.join("plugins");
    plugin_conf(
        &plugins,
        "laurel",
        LAUREL,
        &format!("--config {}", conf.display()),
    );
    let log = dir.join("audit.log");
    let d = Daemon::start(
        fastaudit_cmd(FASTAUDIT, &rules, &log, &plugins, &[]),
        "fastaudit: ready",
    );
    chmods(&target, 15);
    support::auditctl(&["-m", "to-laurel"]);
    wait_until(20, "the user message to be logged", || {
        file_holds(&log, "to-laurel")
    });
    let printed = d.stop();
    let logged = lines(&log);
    let json: Vec<serde_json::Value> = lines(&out.join("audit.log"))
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("laurel JSON: {e}: {l}")))
        .collect();
    let ids: HashSet<String> = json
        .iter()
        .filter_map(|v| v["ID"].as_str().map(str::to_string))
        .collect();
    for l in &logged {
        let id = stamp(l)
            .and_then(|s| s.strip_prefix("audit(")?.strip_suffix(')'))
            .expect("stamp");
        assert!(
            ids.contains(id),
            "laurel has no event {id} ({l}); fastaudit printed {printed:#?}"
        );
    }
    let chmods = json
        .iter()
        .filter(|v| v["SYSCALL"]["key"] == "plugtest" && v["PROCTITLE"]["ARGV"][0] == "chmod")
        .count();
    assert_eq!(chmods, 15, "{json:#?}");
    assert!(json.iter().any(|v| v["USER"]["msg"]
        .as_str()
        .is_some_and(|m| m.contains("to-laurel"))
        || v.to_string().contains("to-laurel")));
}

/// Records handed to plugins for a log: its lines, and an EOE per syscall event.
fn fed(logged: &[String]) -> u64 {
    let events = logged
        .iter()
        .filter(|l| l.starts_with("type=SYSCALL "))
        .count();
    (logged.len() + events) as u64
}

/// The numbers of a report line `plugin NAME: D records delivered, X dropped, R restarts`.
fn report(printed: &[String], name: &str) -> (u64, u64, u64, bool) {
    let l = printed
        .iter()
        .find_map(|l| l.strip_prefix(&format!("fastaudit: plugin {name}: ")))
        .unwrap_or_else(|| panic!("no report for {name}: {printed:#?}"));
    let n: Vec<u64> = l
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    (n[0], n[1], n[2], l.ends_with(", given up"))
}

#[test]
fn a_plugin_that_does_not_read_loses_its_records_counted_and_holds_up_nothing() {
    let _ka = KernelAudit::acquire();
    let dir = support::tempdir();
    let target = dir.join("target");
    let rules = chmod_rules(&dir, &target);
    let plugins = dir.join("plugins");
    let stuck = dir.join("stuck-plugin");
    script(&stuck, "#!/bin/sh\nexec sleep 600\n");
    plugin_conf(&plugins, "stuck", &stuck.display().to_string(), "");
    let log = dir.join("audit.log");
    let d = Daemon::start(
        fastaudit_cmd(
            FASTAUDIT,
            &rules,
            &log,
            &plugins,
            &["--q-depth", "10", "--overflow-action", "ignore"],
        ),
        "fastaudit: ready",
    );
    assert!(
        d.early
            .iter()
            .any(|l| l.contains("q_depth should be larger than 512")),
        "{:#?}",
        d.early
    );
    chmods(&target, 100);
    wait_until(20, "every chmod to be logged", || {
        lines(&log)
            .iter()
            .filter(|l| l.contains("key=\"plugtest\""))
            .count()
            == 100
    });
    let started = std::time::Instant::now();
    let printed = d.stop();
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
    let logged = lines(&log);
    assert_eq!(
        logged
            .iter()
            .filter(|l| l.contains("key=\"plugtest\""))
            .count(),
        100,
        "the log has every event"
    );
    let (delivered, dropped, restarts, gave_up) = report(&printed, "stuck.conf");
    assert_eq!((delivered, restarts, gave_up), (0, 0, false));
    assert_eq!(
        dropped,
        fed(&logged),
        "every record fed is counted as dropped"
    );
    let err = logged
        .iter()
        .find(|l| l.contains("op=plugin-dropped plugin=stuck.conf "))
        .expect("a DAEMON_ERR for the plugin's drops");
    assert!(err.starts_with("type=DAEMON_ERR "), "{err}");
}

#[test]
fn a_plugin_that_keeps_dying_is_given_up_after_max_restarts() {
    let _ka = KernelAudit::acquire();
    let dir = support::tempdir();
    let target = dir.join("target");
    let rules = chmod_rules(&dir, &target);
    let plugins = dir.join("plugins");
    let dying = dir.join("dying-plugin");
    let starts = dir.join("starts");
    script(
        &dying,
        &format!(
            "#!/bin/sh\necho started >> '{}'\nexit 3\n",
            starts.display()
        ),
    );
    plugin_conf(&plugins, "dying", &dying.display().to_string(), "");
    let log = dir.join("audit.log");
    let d = Daemon::start(
        fastaudit_cmd(FASTAUDIT, &rules, &log, &plugins, &["--max-restarts", "2"]),
        "fastaudit: ready",
    );
    chmods(&target, 10);
    // fastaudit gives the plugin up (and says so only at stop) once its
    // last start has ended: started three times, no plugin process left.
    wait_until(20, "the plugin's last start to end", || {
        lines(&starts).len() >= 3 && d.children().is_empty()
    });
    let early = d.early.clone();
    let printed = d.stop();
    let logged = lines(&log);
    assert_eq!(lines(&starts).len(), 3, "started once and restarted twice");
    let (delivered, dropped, restarts, gave_up) = report(&printed, "dying.conf");
    assert_eq!((delivered, restarts, gave_up), (0, 2, true), "{printed:#?}");
    assert_eq!(dropped, fed(&logged));
    assert!(
        early
            .iter()
            .chain(&printed)
            .any(|l| l.ends_with("has exceeded max_restarts")),
        "{early:#?} {printed:#?}"
    );
}
