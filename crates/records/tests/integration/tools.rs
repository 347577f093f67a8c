//! Running auditd's tools (ausearch, aureport) on the logs the tests write.

use std::process::Command;

/// Run `cmd args`: whether it succeeded, and its stdout.
pub fn run(cmd: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd} (apt-get install auditd): {e}"));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}
