//! Starting an action's program and reaping it on a thread of its own:
//! what mail, program and runlevel share.

use crate::syslog::{syslog, Priority};
use std::io::Write;
use std::process::{Command, Stdio};

/// Start `cmd` (empty environment, working directory /, stdin `input` or
/// /dev/null, stdout and stderr fastaudit's own, so they reach the same
/// journal) and leave it to a thread that feeds its stdin, waits for it
/// and says to syslog when it failed: `what` names it there.
pub(super) fn spawn_reaped(
    mut cmd: Command,
    what: String,
    input: Option<Vec<u8>>,
) -> std::io::Result<()> {
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
