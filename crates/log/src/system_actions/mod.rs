//! What the log's actions ask of the rest of the system, as auditd asks
//! it: a mail to `action_mail_acct` through /usr/lib/sendmail ([`mail`]),
//! an administrator's program for `exec` ([`program`]), and a runlevel
//! change through /sbin/init for `single` and `halt` ([`runlevel`], which
//! the plugin dispatcher's `overflow_action` uses too). Each runs as a
//! child of its own with an empty environment, as auditd's `execve(...,
//! NULL)` does, and is reaped by a thread: the writer never waits for it.

pub mod mail;
pub mod program;
pub mod runlevel;
mod spawn;

use std::path::Path;

/// The system the writer's actions reach: [`Real`] in the daemon, a
/// recorder in the unit tests (which must never ask this machine's init
/// for anything).
pub(crate) trait System: Send {
    fn send_mail(&self, mail: &mail::Mail) -> std::io::Result<()>;
    fn run_program(&self, path: &Path) -> std::io::Result<()>;
    fn change_runlevel(&self, level: runlevel::Runlevel) -> std::io::Result<()>;
}

/// The running system.
pub(crate) struct Real;

impl System for Real {
    fn send_mail(&self, m: &mail::Mail) -> std::io::Result<()> {
        mail::send(m)
    }
    fn run_program(&self, path: &Path) -> std::io::Result<()> {
        program::run(path)
    }
    fn change_runlevel(&self, level: runlevel::Runlevel) -> std::io::Result<()> {
        runlevel::change(level)
    }
}
