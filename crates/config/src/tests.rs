//! Parsing tests with a fixed host.

use super::*;

struct Fixed;

impl Host for Fixed {
    fn group_id(&self, name: &str) -> Option<u32> {
        (name == "adm").then_some(4)
    }
    fn check_log_file(&self, path: &str) -> Result<Vec<String>, String> {
        if path.starts_with("/missing/") {
            Err(format!(
                "could not open dir {} (No such file or directory)",
                values::dirname(path)
            ))
        } else {
            Ok(Vec::new())
        }
    }
    fn check_exe(&self, path: &str) -> Result<(), String> {
        if path == "/usr/local/bin/ok" {
            Ok(())
        } else {
            Err(format!("unable to stat {path} (No such file or directory)"))
        }
    }
    fn mail_command_executable(&self) -> bool {
        false
    }
    fn look_up_mail_domain(&self, domain: &str) -> Result<(), String> {
        if domain.ends_with(".invalid") {
            Err("Name or service not known".into())
        } else {
            Ok(())
        }
    }
}

const DEBIAN: &str = include_str!("../tests/testdata/debian-auditd.conf");

fn parse_text(text: &str) -> Result<Conf, ConfigError> {
    parse(Path::new("/etc/audit/auditd.conf"), text, &Fixed)
}

fn errors(text: &str) -> Vec<String> {
    match parse_text(text) {
        Ok(c) => panic!("accepted: {c:?}"),
        Err(ConfigError::Invalid(d)) => d.iter().map(ToString::to_string).collect(),
        Err(e) => vec![e.to_string()],
    }
}

/// A valid base (space_left above admin_space_left) plus `more`.
fn with(more: &str) -> String {
    format!("space_left = 75\nadmin_space_left = 50\n{more}")
}

#[test]
fn every_default_is_a_valid_value() {
    let c = Conf::defaults("x");
    for k in KEYS {
        let v = c.get(k.name);
        assert_eq!(v.is_some(), k.default.is_some(), "{}", k.name);
        assert_ne!(v, Some(&Value::Nothing), "{}", k.name);
    }
    assert_eq!(c.word("log_format"), Some("enriched"));
    assert_eq!(c.text("log_file"), Some("/var/log/audit/audit.log"));
    assert_eq!(c.number("q_depth"), 2000);
    assert!(c.yes("write_logs"));
}

#[test]
fn debians_file_is_accepted_with_its_values() {
    let c = parse_text(DEBIAN).expect("Debian's auditd.conf");
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert_eq!(c.get("log_group"), Some(&Value::Gid(4)));
    assert_eq!(c.word("flush"), Some("incremental_async"));
    assert_eq!(c.number("freq"), 50);
    assert_eq!(c.word("max_log_file_action"), Some("rotate"));
    assert_eq!(
        c.get("disk_full_action"),
        Some(&Value::Action {
            word: "suspend",
            exe: None
        })
    );
    assert_eq!(c.line("log_file"), Some(7));
    let unsupported: Vec<&str> = c.unsupported().iter().map(|u| u.key.name).collect();
    assert_eq!(
        unsupported,
        [
            "use_libwrap",
            "tcp_listen_queue",
            "tcp_max_per_addr",
            "tcp_client_max_idle",
            "transport",
            "krb5_principal",
            "distribute_network"
        ]
    );
}

#[test]
fn refusals_carry_file_and_line() {
    let e = errors(&with("# c\nflush = sometimes\n"));
    assert_eq!(
        e,
        ["/etc/audit/auditd.conf:4: flush: option sometimes not found"]
    );
    let e = errors(&with("num_logs = 1000\nfreq = 5x\nbogus = 1\n"));
    assert_eq!(
        e,
        [
            "/etc/audit/auditd.conf:3: num_logs: num_logs must be 999 or less",
            "/etc/audit/auditd.conf:4: freq: value 5x should only be numbers",
            "/etc/audit/auditd.conf:5: unknown keyword \"bogus\""
        ]
    );
    assert_eq!(
        errors(&with("log_file=/var/log/x\n")),
        ["/etc/audit/auditd.conf:3: log_file=/var/log/x: wrong number of arguments"]
    );
    assert_eq!(
        errors(&with("freq = 1 2\n")),
        ["/etc/audit/auditd.conf:3: keyword \"freq\" has invalid option \"2\""]
    );
    assert_eq!(
        errors(&with("log_file = /a/x.log\n")),
        ["/etc/audit/auditd.conf:3: log_file: the directory name: /a is too short"]
    );
    assert_eq!(
        errors(&with("log_file = /missing/x.log\n")),
        ["/etc/audit/auditd.conf:3: log_file: could not open dir /missing (No such file or directory)"]
    );
    assert_eq!(
        errors(&with("log_group = nosuch\n")),
        ["/etc/audit/auditd.conf:3: log_group: group ID is non-numeric and unknown (nosuch)"]
    );
    assert_eq!(
        errors(&with("disk_error_action = rotate\ndisk_full_action = email\n")),
        [
            "/etc/audit/auditd.conf:3: disk_error_action: illegal option rotate for disk_error_action",
            "/etc/audit/auditd.conf:4: disk_full_action: illegal option email for disk_full_action"
        ]
    );
    assert_eq!(
        errors(&with("space_left_action = exec /usr/bin/x\nadmin_space_left_action = exec\n")),
        [
            "/etc/audit/auditd.conf:3: space_left_action: unable to stat /usr/bin/x (No such file or directory)",
            "/etc/audit/auditd.conf:4: admin_space_left_action: executable path needed"
        ]
    );
    assert_eq!(
        errors(&with("tcp_listen_port = 0\ntcp_max_per_addr = 1025\n")),
        [
            "/etc/audit/auditd.conf:3: tcp_listen_port: converted number (0) is too small",
            "/etc/audit/auditd.conf:4: tcp_max_per_addr: converted number (1025) is too large"
        ]
    );
    assert_eq!(
        errors(&with("max_log_file = 99999999999999999999\n")),
        ["/etc/audit/auditd.conf:3: max_log_file: error converting 99999999999999999999 to a number (Numerical result out of range)"]
    );
    assert_eq!(
        errors(&with("action_mail_acct = a@b\n")),
        ["/etc/audit/auditd.conf:3: action_mail_acct: email: a@b should have . after @"]
    );
}

#[test]
fn auditds_sanity_checks() {
    assert_eq!(
        errors("log_format = RAW\n"),
        ["/etc/audit/auditd.conf: space_left(0) must be larger than admin_space_left(0)"]
    );
    assert_eq!(
        errors("space_left = 50\nadmin_space_left = 60\n"),
        ["/etc/audit/auditd.conf:1: space_left(50) must be larger than admin_space_left(60)"]
    );
    // Percentages are compared later, against the disk.
    assert!(parse_text("space_left = 10%\nadmin_space_left = 60\n").is_ok());
    assert_eq!(
        errors(&with("flush = incremental\n")),
        ["/etc/audit/auditd.conf:3: incremental flushing chosen, but 0 selected for freq"]
    );
    assert_eq!(
        errors(&with("log_group = 4\nlog_file = /var/log/audit.log\n")),
        ["/etc/audit/auditd.conf:3: log_file is directly in /var/log and chgrp will alter a system directory's permissions. Use another directory."]
    );
    let c = parse_text(&with("flush = data\nfreq = 20\n")).unwrap();
    assert_eq!(
        c.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["/etc/audit/auditd.conf:4: freq is non-zero and incremental flushing not selected"]
    );
    // An empty file is auditd's defaults, without the checks.
    assert!(parse_text("").is_ok());
}

#[test]
fn values_are_read_as_auditd_reads_them() {
    let c = parse_text(&with(
        "LOG_FORMAT = Raw\nlog_group = 12abc\nspace_left_action = exec /usr/local/bin/ok\nadmin_space_left_action = email\nname_format = USER\nname = web-1\nlog_format = nolog\ndisp_qos = lossy\n",
    ))
    .unwrap();
    assert_eq!(c.word("log_format"), Some("nolog"));
    assert!(!c.yes("write_logs"), "NOLOG sets write_logs = no");
    assert_eq!(c.get("log_group"), Some(&Value::Gid(12)));
    assert_eq!(
        c.get("space_left_action"),
        Some(&Value::Action {
            word: "exec",
            exe: Some("/usr/local/bin/ok".into())
        })
    );
    assert_eq!(c.text("name"), Some("web-1"));
    let w: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        w,
        [
            "/etc/audit/auditd.conf:6: admin_space_left_action: email option is specified but /usr/lib/sendmail doesn't seem executable",
            "/etc/audit/auditd.conf:9: log_format: the NOLOG option to log_format is deprecated (auditd: use write_logs = no); it sets write_logs = no",
            "/etc/audit/auditd.conf:10: disp_qos: the disp_qos option is deprecated"
        ]
    );
    // A last line without a newline is skipped, as auditd skips it.
    let c = parse_text(&with("freq = 7")).unwrap();
    assert_eq!(c.number("freq"), 0);
    assert_eq!(c.warnings.len(), 1);
    assert!(c.warnings[0]
        .to_string()
        .starts_with("/etc/audit/auditd.conf:3: no newline"));
}

#[test]
fn without_write_logs_the_log_file_need_not_be_there() {
    // Either order: write_logs may come after log_file.
    for text in [
        "log_file = /missing/x.log\nwrite_logs = no\n",
        "write_logs = no\nlog_file = /missing/x.log\n",
        "log_format = NOLOG\nlog_file = /missing/x.log\n",
    ] {
        let c = parse_text(&with(text)).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(!c.yes("write_logs"));
        assert_eq!(c.text("log_file"), Some("/missing/x.log"));
    }
    assert_eq!(
        errors(&with("log_file = /missing/x.log\nwrite_logs = yes\nfreq = x\n")),
        [
            "/etc/audit/auditd.conf:3: log_file: could not open dir /missing (No such file or directory)",
            "/etc/audit/auditd.conf:5: freq: value x should only be numbers"
        ]
    );
}

#[test]
fn verify_email_looks_the_domain_up_and_keeps_the_address_when_it_fails() {
    let c = parse_text(&with("action_mail_acct = secops@mail.example.invalid\n")).unwrap();
    assert_eq!(
        c.text("action_mail_acct"),
        Some("secops@mail.example.invalid")
    );
    let w: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        w,
        ["/etc/audit/auditd.conf:3: action_mail_acct: verify_email: failed looking up host for mail.example.invalid (Name or service not known); the address is kept, as auditd keeps it"]
    );
    let c = parse_text(&with("action_mail_acct = secops@example.com\n")).unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    // verify_email = no, read before the account, checks nothing (auditd
    // reads the lines in order); read after it, it is too late.
    let c = parse_text(&with("verify_email = no\naction_mail_acct = a@b\n")).unwrap();
    assert!(c.warnings.is_empty() && c.text("action_mail_acct") == Some("a@b"));
    assert_eq!(
        errors(&with("action_mail_acct = a@b\nverify_email = no\n")),
        ["/etc/audit/auditd.conf:3: action_mail_acct: email: a@b should have . after @"]
    );
}

#[test]
fn a_stig_auditd_conf_as_openscap_writes_it_is_accepted() {
    let c = parse_text(
        "space_left = 25%\nspace_left_action = email\naction_mail_acct = root\nadmin_space_left = 5%\nadmin_space_left_action = single\ndisk_full_action = HALT\ndisk_error_action = halt\nmax_log_file_action = keep_logs\n",
    )
    .unwrap();
    let action = |k: &str| match c.get(k) {
        Some(Value::Action { word, exe: None }) => *word,
        v => panic!("{k}: {v:?}"),
    };
    assert_eq!(action("space_left_action"), "email");
    assert_eq!(action("admin_space_left_action"), "single");
    assert_eq!(action("disk_full_action"), "halt");
    assert_eq!(action("disk_error_action"), "halt");
    assert_eq!(c.word("max_log_file_action"), Some("keep_logs"));
}
