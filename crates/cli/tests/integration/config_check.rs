//! `fastaudit config check [FILE]`: auditd.conf, the rules and the plugins
//! checked together as `fastaudit run` would start with them, run as an
//! unprivileged user (nobody, through setpriv) on files that user can
//! read: a STIG-hardened auditd.conf with the STIG rules of the shared
//! corpus, a rules line refused, an auditd.conf refused, plugins. Its
//! errors are run's own (the same lines as `run` prints for the same
//! file). Nothing here touches the kernel: `run` is only asked about an
//! auditd.conf it refuses before it reads the rules.

use fastaudit_testsupport as support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::tempdir;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// nobody, as Debian numbers it.
const NOBODY: &str = "65534";

/// The DISA STIG rules of the shared corpus (upstream auditd's
/// rules/30-stig.rules).
fn stig_rules() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/rules/audit-userspace/30-stig.rules");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Its first 59 lines: the time, identity and hostname rules, whose paths
/// every Debian host has (line 60 watches /etc/NetworkManager/, which a
/// host without NetworkManager refuses).
fn stig_head() -> Vec<String> {
    stig_rules().lines().take(59).map(String::from).collect()
}

/// auditd.conf as OpenSCAP's remediation leaves it for the DISA STIG
/// (Debian's auditd.conf otherwise), with the log in `log_dir` and the
/// plugins in `plugin_dir`.
fn stig_conf(log_dir: &Path, plugin_dir: &Path) -> String {
    format!(
        "local_events = yes\nwrite_logs = yes\nlog_file = {}/audit.log\nlog_group = root\n\
         log_format = ENRICHED\nflush = INCREMENTAL_ASYNC\nfreq = 50\nmax_log_file = 8\nnum_logs = 5\n\
         priority_boost = 4\nname_format = NONE\nmax_log_file_action = keep_logs\nspace_left = 25%\n\
         space_left_action = email\nverify_email = yes\naction_mail_acct = root\nadmin_space_left = 5%\n\
         admin_space_left_action = single\ndisk_full_action = halt\ndisk_error_action = halt\n\
         use_libwrap = yes\ntcp_listen_queue = 5\ntcp_max_per_addr = 1\ntcp_client_max_idle = 0\n\
         transport = TCP\ndistribute_network = no\nq_depth = 2000\noverflow_action = SYSLOG\n\
         max_restarts = 10\nplugin_dir = {}\nend_of_event_timeout = 2\n",
        log_dir.display(),
        plugin_dir.display()
    )
}

/// A directory nobody can read, with files root owns (as auditd.conf and
/// the rules must be owned), readable by all.
struct Files(PathBuf);

impl Files {
    fn new() -> Files {
        let d = tempdir();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        Files(d)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        p
    }

    fn dir(&self, name: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::create_dir_all(&p).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }
}

/// `fastaudit ARGS` as nobody, with no supplementary group.
fn as_nobody(args: &[&str]) -> Output {
    Command::new("setpriv")
        .args([
            &format!("--reuid={NOBODY}"),
            &format!("--regid={NOBODY}"),
            "--clear-groups",
            FASTAUDIT,
        ])
        .args(args)
        .env_remove("FASTAUDIT_STRICT")
        .output()
        .expect("setpriv (util-linux)")
}

/// `config check CONF --rules RULES` with `more` after, as nobody.
fn check_as_nobody_with(conf: &Path, rules: &Path, more: &[&str]) -> Output {
    let mut args = vec![
        "config",
        "check",
        conf.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
    ];
    args.extend_from_slice(more);
    as_nobody(&args)
}

/// `config check CONF --rules RULES`, as nobody.
fn check_as_nobody(conf: &Path, rules: &Path) -> Output {
    check_as_nobody_with(conf, rules, &[])
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_stig_auditd_conf_and_the_stig_rules_pass_as_nobody() {
    let f = Files::new();
    let conf = f.write(
        "auditd.conf",
        &stig_conf(&f.dir("log"), &f.0.join("no-plugins.d")),
    );
    let rules = f.write("30-stig.rules", &(stig_head().join("\n") + "\n"));
    let whoami = Command::new("setpriv")
        .args([&format!("--reuid={NOBODY}"), "id", "-u"])
        .output()
        .unwrap();
    assert_eq!(text(&whoami.stdout).trim(), NOBODY, "setpriv drops root");
    let out = check_as_nobody(&conf, &rules);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    // The STIG actions are applied as auditd applies them.
    let applied = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("applied as auditd:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    for key in [
        "space_left_action (14)",
        "admin_space_left_action (18)",
        "disk_error_action (20)",
        "action_mail_acct (16)",
    ] {
        assert!(applied.contains(key), "{key} in {applied}");
    }
    assert!(
        stdout.contains("applied differently: disk_full_action (19)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "space_left 25%: email; admin_space_left 5%: single; disk_full: halt; disk_error: halt"
        ),
        "{stdout}"
    );
    // The listener keys: run's one warning line, with their lines.
    assert!(
        stderr.contains(&format!(
            "{}: warning: not applied, as they do nothing in auditd either without tcp_listen_port",
            conf.display()
        )) && stderr.contains("use_libwrap (line 21)"),
        "{stderr}"
    );
    assert!(
        stdout.contains(&format!("rules: {}: 26 rules", rules.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains("fastaudit run would start with all of it"),
        "{stdout}"
    );
}

#[test]
fn a_refused_rules_line_is_named_and_the_start_would_be_partial() {
    let f = Files::new();
    let conf = f.write(
        "auditd.conf",
        &stig_conf(&f.dir("log"), &f.0.join("no-plugins.d")),
    );
    // A mistyped field on line 37 of the STIG rules.
    let mut lines = stig_head();
    lines.insert(
        36,
        "-a always,exit -F arch=b64 -S chmod -F auid>=1000 -F uidd=0 -F key=perm_mod".into(),
    );
    let rules = f.write("30-stig.rules", &(lines.join("\n") + "\n"));
    let out = check_as_nobody(&conf, &rules);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    let at = format!("{}:37: ", rules.display());
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with(&at) && l.contains("uidd")),
        "{at} in {stderr}"
    );
    // The lines before it load, as auditctl -R loads them.
    assert!(
        stdout.contains(&format!("rules: {}: 6 rules", rules.display()))
            && stdout.contains(&format!("loading stopped at {}:37", rules.display())),
        "{stdout}"
    );
    assert!(stdout.contains("would start, without"), "{stdout}");
    // --strict, as the unit with FASTAUDIT_STRICT=yes: the start is refused.
    let out = check_as_nobody_with(&conf, &rules, &["--strict"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(text(&out.stderr).contains(&at), "{out:?}");
}

#[test]
fn a_refused_auditd_conf_names_every_line_as_run_does() {
    let f = Files::new();
    let mut conf_text = stig_conf(&f.dir("log"), &f.0.join("no-plugins.d"));
    conf_text.push_str("tcp_listen_port = 60\nspace_left_action = mail\nreport_interval = 5\n");
    let conf = f.write("auditd.conf", &conf_text);
    let rules = f.write("r.rules", "-a always,exit -F arch=b64 -S chmod -k x\n");
    let out = check_as_nobody(&conf, &rules);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("would refuse to start"), "{stdout}");
    // Every problem, with its line: auditd 4's report_interval is not a
    // 3.x key.
    let c = conf.display().to_string();
    for want in [
        format!("{c}:33: space_left_action"),
        format!("{c}:34: unknown keyword \"report_interval\""),
    ] {
        assert!(
            stderr.lines().any(|l| l.starts_with(&want)),
            "{want} in {stderr}"
        );
    }
    // The rules are checked all the same.
    assert!(stdout.contains("rules: "), "{stdout}");
    // `run` (root, refused before it reads the rules or touches the
    // kernel) prints the same lines.
    let run = Command::new(FASTAUDIT)
        .args(["run", "--config", &c, "--rules", rules.to_str().unwrap()])
        .env_remove("FASTAUDIT_STRICT")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    for l in text(&run.stderr).lines() {
        assert!(stderr.contains(l), "run's {l:?} in config check's {stderr}");
    }
    // The refusal that needs the key table: tcp_listen_port, once the
    // value errors are mended.
    let conf = f.write(
        "auditd.conf",
        &(stig_conf(&f.0.join("log"), &f.0.join("no-plugins.d")) + "tcp_listen_port = 60\n"),
    );
    let out = check_as_nobody(&conf, &rules);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        text(&out.stderr).contains(&format!(
            "{}:32: tcp_listen_port: fastaudit has no network listener",
            conf.display()
        )),
        "{out:?}"
    );
}

#[test]
fn the_plugins_run_would_start_are_listed_and_a_skipped_one_makes_it_partial() {
    let f = Files::new();
    let plugins = f.dir("plugins.d");
    f.write(
        "plugins.d/copy.conf",
        "active = yes\ndirection = out\npath = /bin/cat\ntype = always\nformat = string\n",
    );
    let conf = f.write("auditd.conf", &stig_conf(&f.dir("log"), &plugins));
    let rules = f.write("r.rules", "-a always,exit -F arch=b64 -S chmod -k x\n");
    let out = check_as_nobody(&conf, &rules);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout.contains(&format!("plugins: {} ", plugins.display()))
            && stdout.contains("copy.conf (/bin/cat)"),
        "{stdout}"
    );
    // One fastaudit cannot run (binary format): named, and the start
    // would go on without it.
    f.write(
        "plugins.d/bin.conf",
        "active = yes\ndirection = out\npath = /bin/cat\ntype = always\nformat = binary\n",
    );
    let out = check_as_nobody(&conf, &rules);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(
        text(&out.stderr).contains("bin.conf: format = binary is not supported by fastaudit"),
        "{out:?}"
    );
}
