//! The exit codes of every command, and what each means: the man pages'
//! EXIT STATUS is written from [`STATUSES`].

/// Done: `run` stopped by SIGTERM or SIGINT, a check found nothing wrong.
pub const OK: u8 = 0;
/// Refused input: auditd.conf or the rules (`run` starts nothing; `rules
/// check` names the line), a request `fastaudit ctl` sent and the daemon
/// refused, or no daemon to send it to.
pub const REFUSED: u8 = 1;
/// A usage error (clap's code), or a failure: the error says what failed.
pub const FAILED: u8 = 2;
/// `config check`: run would start, but without some of what it is given.
pub const PARTIAL: u8 = 3;
/// `ctl` without root, auditctl's code.
pub const NOT_ROOT: u8 = fastaudit_daemon::control::socket::NOT_ROOT_CODE;

/// Each code and what it means, for the man pages, in order.
pub const STATUSES: &[(u8, &str)] = &[
    (
        OK,
        "Success. For run: stopped by SIGTERM or SIGINT after writing DAEMON_END.",
    ),
    (
        REFUSED,
        "Refused input, nothing done: auditd.conf or the rules were refused (run starts nothing; \
         with --strict, any refused rules line or warning refuses the start), or fastaudit ctl's \
         request was refused by the daemon or no daemon runs. The unit does not restart fastaudit \
         after this code (RestartPreventExitStatus=1): a restart cannot mend the input.",
    ),
    (
        FAILED,
        "A usage error, or a failure the message names: run without root, the log that cannot be \
         opened, the kernel's audit or BPF refusing the start, an error while running.",
    ),
    (
        PARTIAL,
        "config check only: run would start, but without some of what it is given (refused rules \
         lines, loaded around as auditctl -R does, or plugins skipped).",
    ),
    (NOT_ROOT, "ctl only: not run as root, as auditctl's code."),
];
