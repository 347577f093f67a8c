//! `fastaudit status`: the kernel audit's status (as `auditctl -s` prints
//! it) and, when `fastaudit run` is going, its counters.

use anyhow::{Context, Result};
use fastaudit_daemon::run_dir::RUN_DIR;
use fastaudit_netlink::{AuditSocket, SavedState};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// Print the status.
pub fn run() -> Result<ExitCode> {
    // The kernel answers AUDIT_GET only to CAP_AUDIT_CONTROL.
    const ROOT: &str =
        "fastaudit status needs root (CAP_AUDIT_CONTROL) to read the kernel audit status";
    let mut sock = AuditSocket::open(Duration::from_secs(1)).context(ROOT)?;
    let s = sock.status().context(ROOT)?;
    println!("kernel:");
    for (k, v) in [
        ("enabled", s.enabled),
        ("failure", s.failure),
        ("pid", s.pid),
        ("rate_limit", s.rate_limit),
        ("backlog_limit", s.backlog_limit),
        ("lost", s.lost),
        ("backlog", s.backlog),
        ("backlog_wait_time", s.backlog_wait_time),
        ("backlog_wait_time_actual", s.backlog_wait_time_actual),
    ] {
        println!("  {k} {v}");
    }
    let alive = |pid: &str| Path::new(&format!("/proc/{pid}")).exists();
    let status = std::fs::read_to_string(Path::new(RUN_DIR).join("status")).ok();
    let running = status.as_deref().and_then(|t| {
        let pid = t.lines().find_map(|l| l.strip_prefix("pid "))?;
        alive(pid).then_some(t)
    });
    match running {
        Some(t) => {
            println!("fastaudit: running");
            for l in t.lines() {
                println!("  {l}");
            }
        }
        None => println!("fastaudit: not running"),
    }
    let state_file = Path::new(RUN_DIR).join("kernel-state");
    if let Ok(Some(saved)) = SavedState::load(&state_file) {
        if !alive(&saved.owner.to_string()) {
            println!(
                "note: fastaudit pid {} did not stop cleanly; the kernel holds its settings; the next `fastaudit run` puts back, at its stop, the state saved in {}",
                saved.owner,
                state_file.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
