//! What a run reads and writes and the signals it answers, said once for
//! the man pages (FILES, SIGNALS of fastaudit(8) and fastaudit-run(8)) and
//! docs/configuration.md, beside the constants that name the files.

use crate::control::socket::socket_path;
use crate::run_dir::{self, RUN_DIR};
use crate::settings::DEFAULT_LOG;
use fastaudit_config::DEFAULT_PATH;

/// The environment file the unit reads (`FASTAUDIT_STRICT=yes`).
pub const ENVIRONMENT_FILE: &str = "/etc/default/fastaudit";

/// The unit, where the package installs it.
pub const UNIT: &str = "/usr/lib/systemd/system/fastaudit.service";

/// Every file a run reads or writes, with what it is to fastaudit.
pub fn files() -> Vec<(String, &'static str)> {
    let plugin_dir = fastaudit_plugins::Settings::default().plugin_dir;
    let auditd_log = fastaudit_config::keys::lookup("log_file")
        .and_then(|k| k.default)
        .unwrap_or_default();
    vec![
        (
            DEFAULT_PATH.into(),
            "auditd's configuration, read at start and on SIGHUP when it exists (--config FILE reads another, --no-config none): fastaudit-auditd.conf(5).",
        ),
        (
            format!("{}/*.rules", crate::rules::RULES_D),
            "the rules, combined as augenrules combines them, when --rules is not given; only when the directory does not exist are the built-in default rules used. /etc/audit/audit.rules, augenrules' output, is not read.",
        ),
        (
            format!("{}/*.conf", plugin_dir.display()),
            "the plugins (auditd.conf's plugin_dir): each active one is started and fed every event.",
        ),
        (
            auditd_log.into(),
            "the log when auditd.conf is read (its log_file), with rotated logs beside it (audit.log.1, ...).",
        ),
        (
            DEFAULT_LOG.into(),
            "the log when no auditd.conf is read and --log is not given.",
        ),
        (
            RUN_DIR.into(),
            "the run directory (0700), kept across restarts:",
        ),
        (
            run_dir::file(crate::status::STATUS).display().to_string(),
            "the running daemon's counters, rewritten every second (fastaudit status prints them);",
        ),
        (
            socket_path().display().to_string(),
            "the control socket (root only) fastaudit ctl talks to;",
        ),
        (
            run_dir::file(crate::kernel::STATE_FILE).display().to_string(),
            "the kernel audit's state found at start, put back at stop (after a crash, by the next run).",
        ),
        (
            ENVIRONMENT_FILE.into(),
            "read by the unit: FASTAUDIT_STRICT=yes makes the start all or nothing (--strict).",
        ),
        (
            UNIT.into(),
            "the systemd unit (fastaudit.service): Type=notify, ExecReload is fastaudit ctl --signal reload, Conflicts=auditd.service.",
        ),
        (
            fastaudit_log::system_actions::mail::SENDMAIL.into(),
            "run by the email actions, as auditd runs it.",
        ),
        (
            fastaudit_log::runlevel::INIT.into(),
            "run with 1 or 0 by the single and halt actions, as auditd runs it.",
        ),
    ]
}

/// The signals a run answers (signals.rs), and SIGCONT, which auditd
/// answers and fastaudit does not.
pub const SIGNALS: &[(&str, &str)] = &[
    (
        "SIGHUP",
        "Read auditd.conf and the rules again and apply them while running, without a gap. A refused file is named (FILE:LINE) on stderr and in syslog, and the running configuration or rules stay; a DAEMON_CONFIG record says which. fastaudit ctl --signal reload (systemctl reload fastaudit) does the same and waits for the answer.",
    ),
    (
        "SIGUSR1",
        "Rotate the log now; DAEMON_ROTATE is the new file's first record.",
    ),
    (
        "SIGUSR2",
        "Resume logging suspended by a disk fault or a suspend or exec action, and passing events to plugins after overflow_action = suspend.",
    ),
    (
        "SIGTERM, SIGINT",
        "Stop: detach the BPF programs, drain what is queued, put the kernel audit back as it was found, write DAEMON_END, print how many events were generated, logged and lost, and exit 0.",
    ),
    (
        "SIGXFSZ",
        "Caught, so that a file size limit (ulimit -f) fails a write (EFBIG: disk_error_action) instead of ending fastaudit.",
    ),
    (
        "SIGCONT",
        "Not caught: auditd writes a state report on it; fastaudit's state is always in the status file (fastaudit status).",
    ),
];
