//! `fastaudit ctl` against a running `fastaudit run`: the rules it lists are
//! the daemon's (as `fastaudit rules list`, and so auditctl -l, lists
//! them); rules added, deleted and cleared take effect in the running
//! engine and are logged as the kernel logs auditctl's CONFIG_CHANGE; a bad
//! request changes nothing; `-e` stops, resumes and locks fastaudit's
//! auditing (never the kernel's); only root may use it.

use fastaudit_testsupport as support;
use fastaudit_testsupport::plugins;
use plugins::{lines, signal};
use std::path::Path;
use std::process::{Command, Output};
use support::wait_until;
use support::{tempdir, FastauditRun, KernelAudit};

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// `fastaudit ctl ARGS`, as root.
fn ctl(args: &[&str]) -> Output {
    Command::new(FASTAUDIT)
        .arg("ctl")
        .args(args)
        .output()
        .expect("run fastaudit ctl")
}

/// `fastaudit ctl ARGS` as nobody.
fn ctl_as_nobody(args: &[&str]) -> Output {
    Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(FASTAUDIT)
        .arg("ctl")
        .args(args)
        .output()
        .expect("run setpriv")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Succeeds, prints nothing on stderr; its stdout.
fn ok(args: &[&str]) -> String {
    let o = ctl(args);
    assert!(
        o.status.success() && o.stderr.is_empty(),
        "fastaudit ctl {args:?}: {} {}",
        o.status,
        text(&o.stderr)
    );
    text(&o.stdout)
}

/// Refused with exit `code` and `message` on stderr.
fn refused(args: &[&str], code: i32, message: &str) {
    let o = ctl(args);
    assert_eq!(o.status.code(), Some(code), "fastaudit ctl {args:?}");
    assert!(
        text(&o.stderr).contains(message),
        "fastaudit ctl {args:?}: {}",
        text(&o.stderr)
    );
}

/// fastaudit's own CONFIG_CHANGE records (its serial range), as written.
fn config_changes(log: &Path) -> Vec<String> {
    lines(log)
        .into_iter()
        .filter(|l| l.starts_with("type=CONFIG_CHANGE ") && plugins::own_serial(l))
        .collect()
}

/// SYSCALL records of `key`.
fn events(log: &Path, key: &str) -> usize {
    let k = format!(" key=\"{key}\"");
    lines(log)
        .iter()
        .filter(|l| l.starts_with("type=SYSCALL ") && l.contains(&k))
        .count()
}

/// Our login uid and session, as the kernel names a sender (ctl inherits them).
fn session() -> String {
    let read = |f: &str| {
        std::fs::read_to_string(format!("/proc/self/{f}"))
            .expect("proc")
            .trim()
            .to_string()
    };
    format!("auid={} ses={}", read("loginuid"), read("sessionid"))
}

fn chmod(path: &Path) {
    let st = Command::new("chmod")
        .arg("600")
        .arg(path)
        .status()
        .expect("chmod");
    assert!(st.success());
}

/// A daemon on a rules file of one chmod rule (key `start`) and one watch.
struct Setup {
    dir: std::path::PathBuf,
    rules: std::path::PathBuf,
    log: std::path::PathBuf,
    target: std::path::PathBuf,
}

fn setup() -> Setup {
    let dir = tempdir();
    let target = dir.join("target");
    std::fs::write(&target, "x").expect("target");
    std::fs::write(dir.join("watched"), "x").expect("watched");
    let rules = dir.join("start.rules");
    std::fs::write(
        &rules,
        format!(
            "-a always,exit -F arch=b64 -S fchmodat -F path={} -k start\n-w {} -p wa -k watched\n",
            target.display(),
            dir.join("watched").display()
        ),
    )
    .expect("rules");
    let log = dir.join("audit.log");
    Setup {
        dir,
        rules,
        log,
        target,
    }
}

#[test]
fn ctl_lists_adds_deletes_and_clears_the_running_rules() {
    let _ka = KernelAudit::acquire();
    let s = setup();
    let run = FastauditRun::start(FASTAUDIT, &s.rules, &s.log, &[]);
    // The daemon's rules, listed as `fastaudit rules list` lists the file.
    let listed = support::fastaudit(
        FASTAUDIT,
        &["rules", "list", s.rules.to_str().expect("utf8")],
    );
    assert!(listed.status.success());
    assert_eq!(ok(&["-l"]), text(&listed.stdout));

    // -s: auditctl's fields, fastaudit's values.
    let status = ok(&["-s"]);
    let keys: Vec<&str> = status
        .lines()
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(
        keys,
        [
            "enabled",
            "failure",
            "pid",
            "rate_limit",
            "backlog_limit",
            "lost",
            "backlog",
            "backlog_wait_time",
            "backlog_wait_time_actual"
        ],
        "{status}"
    );
    assert!(status.contains("enabled 1\n"), "{status}");
    assert!(status.contains(&format!("pid {}\n", run.pid())), "{status}");

    // -a: a new rule fires in the running engine.
    let other = s.dir.join("other");
    std::fs::write(&other, "x").expect("other");
    chmod(&other);
    let add = format!(
        "-a always,exit -F arch=b64 -S fchmodat -F path={} -k added",
        other.display()
    );
    let add: Vec<&str> = add.split(' ').collect();
    ok(&add);
    refused(&add, 1, "rule exists");
    chmod(&other);
    wait_until(10, "the added rule's event", || {
        events(&s.log, "added") == 1
    });
    let listing = ok(&["-l"]);
    assert!(
        listing.ends_with(&format!(
            "-a always,exit -F arch=b64 -S fchmodat -F path={} -F key=added\n",
            other.display()
        )),
        "{listing}"
    );
    // -w: a new watch fires too.
    let watched2 = s.dir.join("watched2");
    std::fs::write(&watched2, "x").expect("watched2");
    let w = watched2.to_str().expect("utf8");
    ok(&["-w", w, "-p", "wa", "-k", "watch2"]);
    std::fs::write(&watched2, "y").expect("write");
    wait_until(10, "the added watch's event", || {
        events(&s.log, "watch2") >= 1
    });

    // -d and -W: gone from the engine and the listing.
    let mut del = add.clone();
    del[0] = "-d";
    ok(&del);
    ok(&["-W", w, "-p", "wa", "-k", "watch2"]);
    refused(&del, 1, "no loaded rule matches");
    chmod(&other);
    std::fs::write(&watched2, "z").expect("write");
    assert_eq!(ok(&["-l"]), text(&listed.stdout));

    // -R FILE: all of its lines at once.
    let more = s.dir.join("more.rules");
    std::fs::write(
        &more,
        format!(
            "-a always,exit -F arch=b64 -S fchmodat -F path={} -k fromfile\n-A always,exit -F arch=b64 -S mkdir -k first_in_list\n",
            other.display()
        ),
    )
    .expect("more rules");
    ok(&["-R", more.to_str().expect("utf8")]);
    let listing = ok(&["-l"]);
    assert!(
        listing.starts_with("-a always,exit -F arch=b64 -S mkdir -F key=first_in_list\n"),
        "{listing}"
    );
    assert!(listing.contains("-F key=fromfile\n"), "{listing}");
    chmod(&other);
    wait_until(10, "the file's rule's event", || {
        events(&s.log, "fromfile") == 1
    });

    // -D -k: the rules whose key contains it; -D: all.
    ok(&["-D", "-k", "first_in"]);
    assert!(!ok(&["-l"]).contains("first_in_list"));
    ok(&["-D"]);
    assert_eq!(ok(&["-l"]), "No rules\n");
    chmod(&s.target);
    // With no rule the chmod must not be logged: the stop drains the ring
    // before the log is read, so a wrong event would be in it.
    run.stop();

    assert_eq!(events(&s.log, "added"), 1, "only while the rule was loaded");
    assert_eq!(events(&s.log, "fromfile"), 1);
    assert_eq!(
        events(&s.log, "start"),
        0,
        "no chmod of the target before -D"
    );
    let who = session();
    let rc = |op: &str, key: &str| format!("{who} op={op} key=\"{key}\" list=4 res=1");
    let expected = [
        rc("add_rule", "added"),
        rc("add_rule", "watch2"),
        rc("remove_rule", "added"),
        rc("remove_rule", "watch2"),
        rc("add_rule", "fromfile"),
        rc("add_rule", "first_in_list"),
        rc("remove_rule", "first_in_list"),
        rc("remove_rule", "start"),
        rc("remove_rule", "watched"),
        rc("remove_rule", "fromfile"),
    ];
    let changes = config_changes(&s.log);
    let bodies: Vec<&str> = changes
        .iter()
        .map(|l| l.split_once("): ").map_or("", |x| x.1))
        .collect();
    assert_eq!(bodies, expected, "{changes:#?}");
}

#[test]
fn a_bad_request_is_refused_whole_and_changes_nothing() {
    let _ka = KernelAudit::acquire();
    let s = setup();
    let run = FastauditRun::start(FASTAUDIT, &s.rules, &s.log, &[]);
    let before = ok(&["-l"]);
    // A rules file whose second line is wrong: its first line is not applied.
    let bad = s.dir.join("bad.rules");
    std::fs::write(
        &bad,
        "-a always,exit -F arch=b64 -S mkdir -k good\n-a always,exit -F arch=b64 -S mkdir -F bogus=1\n",
    )
    .expect("bad rules");
    refused(
        &["-R", bad.to_str().expect("utf8")],
        1,
        &format!("{}:2: ", bad.display()),
    );
    refused(&["-a", "always,exit", "-S", "nosuchcall"], 1, "nosuchcall");
    refused(&["-a", "always,exit", "-S", "mkdir", "-R", "x"], 1, "-R");
    refused(&["-b", "100"], 1, "not supported by fastaudit ctl");
    refused(&[], 1, "no option given");
    assert_eq!(ok(&["-l"]), before);
    run.stop();
    assert!(
        config_changes(&s.log).is_empty(),
        "{:#?}",
        config_changes(&s.log)
    );
}

#[test]
fn enable_stops_resumes_and_locks_fastaudits_rules_only() {
    let _ka = KernelAudit::acquire();
    let s = setup();
    let mut run = FastauditRun::start(FASTAUDIT, &s.rules, &s.log, &[]);
    chmod(&s.target);
    wait_until(10, "an event", || events(&s.log, "start") == 1);
    // -e 0: nothing audited, the rules stay loaded.
    ok(&["-e", "0"]);
    assert!(ok(&["-s"]).starts_with("enabled 0\n"));
    chmod(&s.target);
    ok(&[
        "-a",
        "always,exit",
        "-F",
        "arch=b64",
        "-S",
        "mkdir",
        "-k",
        "while_off",
    ]);
    assert!(ok(&["-l"]).contains("key=while_off"));
    // -e 1: the rules (with the one added while off) apply again.
    ok(&["-e", "1"]);
    chmod(&s.target);
    wait_until(10, "an event after -e 1", || events(&s.log, "start") == 2);
    // -e 2: fastaudit's rules are locked until it restarts.
    ok(&["-e", "2"]);
    assert!(ok(&["-s"]).starts_with("enabled 2\n"));
    let immutable = "The audit system is in immutable mode, no rule changes allowed";
    refused(
        &["-a", "always,exit", "-F", "arch=b64", "-S", "rmdir"],
        1,
        immutable,
    );
    refused(&["-D"], 1, immutable);
    refused(
        &[
            "-d",
            "always,exit",
            "-F",
            "arch=b64",
            "-S",
            "mkdir",
            "-k",
            "while_off",
        ],
        1,
        immutable,
    );
    refused(
        &["-e", "1"],
        1,
        "Error sending enable request (Operation not permitted)",
    );
    // SIGHUP is refused too: the rules stay.
    let listing = ok(&["-l"]);
    std::fs::write(&s.rules, "").expect("rules");
    signal(run.pid(), nix::sys::signal::SIGHUP);
    // The refused SIGHUP changes nothing, once it has been refused.
    run.wait_said(10, "the SIGHUP refused", |l| {
        l.contains("SIGHUP: the rules were refused")
    });
    assert_eq!(ok(&["-l"]), listing);
    chmod(&s.target);
    wait_until(10, "an event while locked", || events(&s.log, "start") == 3);
    // The stop drains the ring before the log is read: a fourth, wrong,
    // event would be in it.
    let printed = run.stop();
    assert_eq!(
        events(&s.log, "start"),
        3,
        "the chmod made under -e 0 is not audited"
    );
    assert!(
        printed
            .iter()
            .any(|l| l.contains("cannot change until fastaudit restarts")),
        "{printed:#?}"
    );
    let who = session();
    let bodies: Vec<String> = config_changes(&s.log)
        .iter()
        .map(|l| {
            l.split_once("): ")
                .map_or(String::new(), |x| x.1.to_string())
        })
        .collect();
    assert_eq!(
        bodies,
        [
            format!("op=set audit_enabled=0 old=1 {who} res=1"),
            format!("{who} op=add_rule key=\"while_off\" list=4 res=1"),
            format!("op=set audit_enabled=1 old=0 {who} res=1"),
            format!("op=set audit_enabled=2 old=1 {who} res=1"),
            format!("op=set audit_enabled=1 old=2 {who} res=0"),
        ]
    );
}

#[test]
fn signal_reload_answers_once_the_rules_read_again_run() {
    let _ka = KernelAudit::acquire();
    let s = setup();
    let run = FastauditRun::start(FASTAUDIT, &s.rules, &s.log, &[]);
    let rule = |key: &str| {
        format!(
            "-a always,exit -F arch=b64 -S fchmodat -F path={} -k {key}\n",
            s.target.display()
        )
    };
    // The answer comes once the new rules run (what `systemctl reload`
    // waits for): the very next chmod is judged by them.
    std::fs::write(&s.rules, rule("reloaded")).expect("rules");
    let said = ok(&["--signal", "reload"]);
    assert!(said.contains("switched to the rules read again"), "{said}");
    chmod(&s.target);
    wait_until(30, "the chmod's event", || {
        events(&s.log, "reloaded") + events(&s.log, "start") > 0
    });
    assert_eq!(events(&s.log, "start"), 0, "judged by the old rules");
    assert!(ok(&["-l"]).contains("key=reloaded"));
    // A rules file with an error: refused with its line, the rules stay.
    std::fs::write(
        &s.rules,
        "-a always,exit -F arch=b64 -S fchmodat -F bogus=1\n",
    )
    .expect("rules");
    refused(
        &["--signal", "HUP"],
        1,
        &format!("{}:1: ", s.rules.display()),
    );
    assert!(ok(&["-l"]).contains("key=reloaded"));
    // The other signals are not sent this way.
    refused(&["--signal", "stop"], 1, "only reload (HUP)");
    refused(&["--signal"], 1, "--signal takes one signal name");
    run.stop();
}

#[test]
fn only_root_may_use_the_control_socket() {
    let _ka = KernelAudit::acquire();
    let s = setup();
    let run = FastauditRun::start(FASTAUDIT, &s.rules, &s.log, &[]);
    let socket = Path::new("/run/fastaudit/control");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(socket).expect("socket").permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    let before = ok(&["-l"]);
    let add = ["-a", "always,exit", "-F", "arch=b64", "-S", "mkdir"];
    // The socket's mode keeps others out...
    let o = ctl_as_nobody(&add);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), "You must be root to run this program.\n");
    // ...and so does the daemon's check of the peer, when the mode does not.
    std::fs::set_permissions(socket, std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .expect("chmod");
    let o = ctl_as_nobody(&add);
    std::fs::set_permissions(socket, std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .expect("chmod");
    assert_eq!(o.status.code(), Some(4), "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), "You must be root to run this program.\n");
    assert_eq!(ok(&["-l"]), before);
    run.stop();
    assert!(!socket.exists(), "the socket goes with the daemon");
}

#[test]
fn a_change_under_load_is_switched_with_no_gap_and_no_duplicate() {
    let _ka = KernelAudit::acquire();
    let s = setup();
    let run = FastauditRun::start(FASTAUDIT, &s.rules, &s.log, &[]);
    // The load runs until the new rules have judged some of it (a switch
    // can take longer than any fixed count of chmods on a busy machine),
    // then says how many it made.
    let stop = s.dir.join("stop");
    let count = s.dir.join("count");
    let mut load = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "i=0; while [ ! -e '{stop}' ] && [ $i -lt 200000 ]; do chmod 600 '{t}'; i=$((i+1)); done; echo $i > '{count}'",
            stop = stop.display(),
            t = s.target.display(),
            count = count.display()
        ))
        .spawn()
        .expect("workload");
    wait_until(60, "the first rules' events", || {
        events(&s.log, "start") >= 200
    });
    // One request: the running rule out, another in (all or nothing).
    let swap = s.dir.join("swap.rules");
    std::fs::write(
        &swap,
        format!(
            "-d always,exit -F arch=b64 -S fchmodat -F path={t} -k start\n-a always,exit -F arch=b64 -S fchmodat -F path={t} -k second\n",
            t = s.target.display()
        ),
    )
    .expect("swap rules");
    ok(&["-R", swap.to_str().expect("utf8")]);
    wait_until(60, "the second rules' events", || {
        events(&s.log, "second") >= 200
    });
    std::fs::write(&stop, "").expect("stop file");
    assert!(load.wait().expect("workload").success());
    let n: usize = std::fs::read_to_string(&count)
        .expect("the load's count")
        .trim()
        .parse()
        .expect("a count");
    wait_until(30, "every chmod logged", || {
        lines(&s.log)
            .iter()
            .filter(|l| l.starts_with("type=SYSCALL ") && l.contains("comm=\"chmod\""))
            .count()
            >= n
    });
    // The stop drains the ring before the log is read: a chmod logged
    // twice would be in it.
    run.stop();
    let chmods: Vec<String> = lines(&s.log)
        .into_iter()
        .filter(|l| l.starts_with("type=SYSCALL ") && l.contains("comm=\"chmod\""))
        .collect();
    let pids: std::collections::HashSet<&str> = chmods
        .iter()
        .filter_map(|l| l.split(' ').find(|w| w.starts_with("pid=")))
        .collect();
    assert_eq!(chmods.len(), n, "every chmod recorded once (no gap)");
    assert_eq!(pids.len(), n, "no chmod recorded twice");
    let keys: Vec<bool> = chmods
        .iter()
        .map(|l| l.contains("key=\"second\""))
        .collect();
    let switch = keys
        .iter()
        .position(|k| *k)
        .expect("the second rule's events");
    assert!(switch >= 200);
    assert!(
        keys[switch..].iter().all(|k| *k),
        "after the switch every chmod is judged by the new rules"
    );
}
