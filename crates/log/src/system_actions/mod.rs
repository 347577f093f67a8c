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

use crate::syslog::{syslog, Priority};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

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

/// Start `cmd` (empty environment, working directory /, stdin `input` or
/// /dev/null, stdout and stderr fastaudit's own, so they reach the same
/// journal) and leave it to a thread that feeds its stdin, waits for it
/// and says to syslog when it failed: `what` names it there.
fn spawn_reaped(mut cmd: Command, what: String, input: Option<Vec<u8>>) -> std::io::Result<()> {
    cmd.env_clear().current_dir("/").stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.spawn()?;
    let stdin = child.stdin.take();
    std::thread::Builder::new()
        .name("fa-action".into())
        .spawn(move || {
            if let (Some(mut pipe), Some(bytes)) = (stdin, input) {
                // A program that exits without reading all of it fails
                // the write (EPIPE): its exit status says the rest.
                let _ = pipe.write_all(&bytes);
            }
            match child.wait() {
                Ok(s) if s.success() => {}
                Ok(s) => {
                    let m = format!("{what} failed: {s}");
                    eprintln!("fastaudit: {m}");
                    syslog(Priority::Alert, &m);
                }
                Err(e) => syslog(Priority::Alert, &format!("{what}: waiting for it: {e}")),
            }
        })?;
    Ok(())
}
