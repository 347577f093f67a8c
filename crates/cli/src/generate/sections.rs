//! The sections an administrator looks for in fastaudit(8) and
//! fastaudit-run(8) beyond clap's synopsis and options: more DESCRIPTION,
//! FILES, SIGNALS, EXIT STATUS and EXAMPLES. FILES and SIGNALS are the
//! daemon's own list (fastaudit_daemon::reference), EXIT STATUS the codes
//! the binary uses (crate::exit).

use super::prose::inlines;
use crate::exit;
use clap_mangen::roff::{bold, Roff};

/// What a page adds.
pub struct Extra {
    /// Paragraphs after clap's DESCRIPTION.
    pub description: &'static [&'static str],
    /// The exit codes the command can give.
    pub exit_codes: &'static [u8],
    /// EXAMPLES: what, then the command line.
    pub examples: &'static [(&'static str, &'static str)],
}

const RUN_DESCRIPTION: &[&str] = &[
    "fastaudit run is the system's audit daemon, in auditd's place: it reads auditd.conf (fastaudit-auditd.conf(5) says what it does with each key), loads the rules as augenrules and auditctl -R would, compiles them into BPF programs that judge each syscall as the kernel audit's rules would, and writes the records those programs and the kernel send to the log, in auditd's formats, and to auditd's plugins. It becomes the kernel's registered audit daemon, so the kernel's own records (logins, AVCs, CONFIG_CHANGE) are logged too, and loads only `-a never,task` into the kernel audit, so that the kernel audits no syscall itself while the BPF programs do.",
    "A rules line auditctl would refuse is named (FILE:LINE) on stderr, in the log (DAEMON_ERR op=rules-refused) and in fastaudit status, and the lines are loaded around it as auditctl -R loads them; --strict (FASTAUDIT_STRICT=yes) refuses the start instead. An auditd.conf with an error refuses the start, every problem named. Check both beforehand, without root, with fastaudit config check.",
    "It runs in the foreground, its messages on stderr (the journal under systemd), and tells systemd once the rules are attached and audit is on (Type=notify). It must be started as root; --explain (print the plan and exit) does not need it.",
];

const TOP_DESCRIPTION: &[&str] = &[
    "Each command has its own page: fastaudit-run(8) for the daemon, with its files and signals; fastaudit-config-check(8) to check auditd.conf and the rules before switching from auditd; fastaudit-rules-check(8) and fastaudit-rules-list(8) for rules files; fastaudit-status(8); fastaudit-ctl(8), auditctl's options for the running daemon. fastaudit-auditd.conf(5) lists every auditd.conf key and what fastaudit does with it.",
];

const RUN_EXAMPLES: &[(&str, &str)] = &[
    (
        "Check auditd.conf, the rules and the plugins as run would start with them (no root needed for files you can read):",
        "fastaudit config check",
    ),
    (
        "Switch from auditd to fastaudit's unit:",
        "systemctl disable --now auditd && systemctl enable --now fastaudit",
    ),
    (
        "See the plan (hooks, hook kinds, rules per syscall) without attaching anything:",
        "fastaudit run --explain",
    ),
    (
        "Run in the foreground with another rules file, a JSON log and no auditd.conf:",
        "fastaudit run --no-config --rules /root/test.rules --log /var/log/fastaudit/audit.log --format json",
    ),
    (
        "Read auditd.conf and the rules again, and wait for the answer:",
        "systemctl reload fastaudit",
    ),
    ("Rotate the log now:", "kill -USR1 $(pidof fastaudit)"),
    (
        "Search the log as auditd's:",
        "ausearch -i -k identity --start today",
    ),
];

const TOP_EXAMPLES: &[(&str, &str)] = &[
    (
        "Before switching from auditd: check auditd.conf with the rules and plugins:",
        "fastaudit config check /etc/audit/auditd.conf",
    ),
    (
        "Check a rules file:",
        "fastaudit rules check /etc/audit/rules.d/50-local.rules",
    ),
    (
        "The running daemon's state and counters:",
        "fastaudit status",
    ),
    (
        "The running daemon's rules, as auditctl -l:",
        "fastaudit ctl -l",
    ),
];

/// The additions of `page`, if it has any.
pub fn extra(page: &str) -> Option<Extra> {
    match page {
        "fastaudit" => Some(Extra {
            description: TOP_DESCRIPTION,
            exit_codes: &[
                exit::OK,
                exit::REFUSED,
                exit::FAILED,
                exit::PARTIAL,
                exit::NOT_ROOT,
            ],
            examples: TOP_EXAMPLES,
        }),
        "fastaudit-run" => Some(Extra {
            description: RUN_DESCRIPTION,
            exit_codes: &[exit::OK, exit::REFUSED, exit::FAILED],
            examples: RUN_EXAMPLES,
        }),
        _ => None,
    }
}

/// The paragraphs after clap's DESCRIPTION.
pub fn description(extra: &Extra, roff: &mut Roff) {
    for p in extra.description {
        roff.control("PP", []);
        roff.text(inlines(p));
    }
}

/// FILES, SIGNALS, EXIT STATUS and EXAMPLES.
pub fn sections(extra: &Extra, roff: &mut Roff) {
    roff.control("SH", ["FILES"]);
    for (path, what) in fastaudit_daemon::reference::files() {
        roff.control("TP", []);
        roff.text([bold(path)]);
        roff.text(inlines(what));
    }
    roff.control("SH", ["SIGNALS"]);
    for (sig, what) in fastaudit_daemon::reference::SIGNALS {
        roff.control("TP", []);
        roff.text([bold(*sig)]);
        roff.text(inlines(what));
    }
    roff.control("SH", ["EXIT STATUS"]);
    for (code, what) in exit::STATUSES {
        if extra.exit_codes.contains(code) {
            roff.control("TP", []);
            roff.text([bold(code.to_string())]);
            roff.text(inlines(what));
        }
    }
    roff.control("SH", ["EXAMPLES"]);
    for (what, cmd) in extra.examples {
        roff.control("PP", []);
        roff.text(inlines(what));
        roff.control("RS", []);
        roff.control("nf", []);
        roff.text([bold(*cmd)]);
        roff.control("fi", []);
        roff.control("RE", []);
    }
}
