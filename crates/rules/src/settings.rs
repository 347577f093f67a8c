//! Control lines of a rules file: kernel audit settings and one-shot
//! actions that are not rules, kept in order so nothing is dropped.

use std::fmt;

/// A control setting or action given on a rules line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    /// `-e 0|1|2`: audit enabled flag (2 locks the configuration).
    Enabled(u32),
    /// `-f 0|1|2`: what to do on a critical failure (silent, printk, panic).
    Failure(u32),
    /// `-r N`: message rate limit per second.
    RateLimit(u32),
    /// `-b N`: backlog limit.
    BacklogLimit(u32),
    /// `--backlog_wait_time N`.
    BacklogWaitTime(u32),
    /// `--loginuid-immutable`.
    LoginuidImmutable,
    /// `--reset-lost`.
    ResetLost,
    /// `--reset_backlog_wait_time_actual`.
    ResetBacklogWaitTimeActual,
    /// `-i`: ignore errors while loading.
    IgnoreErrors,
    /// `-c`: continue through errors while loading.
    ContinueOnErrors,
    /// `--signal SIG`: signal to send to the audit daemon.
    Signal(String),
    /// `-m text`: a user-space message to log.
    UserMessage(Vec<u8>),
    /// `-q mount,subtree`: make a subtree part of a mount's directory watches.
    MakeEquivalent(Vec<u8>, Vec<u8>),
    /// `-t`: trim directory watches.
    TrimSubtrees,
}

/// A read-only request (`-l`, `-s`, `-v`) that changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    /// `-l`.
    List,
    /// `-s`.
    Status,
    /// `-v`.
    Version,
}

impl fmt::Display for Setting {
    /// The setting in auditctl syntax.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        match self {
            Setting::Enabled(n) => write!(f, "-e {n}"),
            Setting::Failure(n) => write!(f, "-f {n}"),
            Setting::RateLimit(n) => write!(f, "-r {n}"),
            Setting::BacklogLimit(n) => write!(f, "-b {n}"),
            Setting::BacklogWaitTime(n) => write!(f, "--backlog_wait_time {n}"),
            Setting::LoginuidImmutable => write!(f, "--loginuid-immutable"),
            Setting::ResetLost => write!(f, "--reset-lost"),
            Setting::ResetBacklogWaitTimeActual => write!(f, "--reset_backlog_wait_time_actual"),
            Setting::IgnoreErrors => write!(f, "-i"),
            Setting::ContinueOnErrors => write!(f, "-c"),
            Setting::Signal(sig) => write!(f, "--signal {sig}"),
            Setting::UserMessage(m) => write!(f, "-m {}", s(m)),
            Setting::MakeEquivalent(a, b) => write!(f, "-q {},{}", s(a), s(b)),
            Setting::TrimSubtrees => write!(f, "-t"),
        }
    }
}
