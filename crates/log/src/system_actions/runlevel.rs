//! auditd's `single` and `halt`: `/sbin/init 1` or `/sbin/init 0` run
//! once, with nothing else in its argument list or environment (auditd's
//! `change_runlevel`, for the log's actions and for the dispatcher's
//! `overflow_action` alike). Init does the rest: systemd's init, run by
//! another process, hands the request to systemd as `telinit` does.

use std::process::Command;

/// The program auditd asks (`init_pgm`).
pub const INIT: &str = "/sbin/init";

/// The two runlevels auditd's actions ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runlevel {
    /// Runlevel 1, single user mode (`single`).
    Single,
    /// Runlevel 0, the system halted (`halt`).
    Halt,
}

impl Runlevel {
    /// init's argument.
    pub fn arg(self) -> &'static str {
        match self {
            Runlevel::Single => "1",
            Runlevel::Halt => "0",
        }
    }

    /// What asking for it does, for messages: "changing the system to
    /// single user mode", "halting the system".
    pub fn doing(self) -> &'static str {
        match self {
            Runlevel::Single => "changing the system to single user mode",
            Runlevel::Halt => "halting the system",
        }
    }
}

/// Run `/sbin/init LEVEL` in the background (its exit is reaped and a
/// failure said to syslog). An error: it could not be started.
pub fn change(level: Runlevel) -> std::io::Result<()> {
    // The unit tests of this crate never reach here (they use a recorder);
    // this stops one that would, before it asks this machine's init.
    if cfg!(test) {
        panic!("a unit test asked for /sbin/init {}", level.arg());
    }
    let mut cmd = Command::new(INIT);
    cmd.arg(level.arg());
    super::spawn::spawn_reaped(cmd, format!("{INIT} {}", level.arg()), None)
}
