//! What /proc says of a process: its login uid and session, as fastaudit's
//! own records name a process.

use fastaudit_records::daemon::Subject;

/// A number in a /proc file; 4294967295 (unset) when it cannot be read.
pub fn proc_u32(path: &str) -> u32 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(u32::MAX)
}

/// fastaudit itself, as DAEMON_START names it.
pub fn me() -> Subject {
    Subject {
        auid: proc_u32("/proc/self/loginuid"),
        pid: std::process::id(),
        uid: nix::unistd::getuid().as_raw(),
        ses: proc_u32("/proc/self/sessionid"),
        // Fails (EINVAL) where no LSM gives contexts: no subj= then.
        subj: std::fs::read_to_string("/proc/self/attr/current")
            .ok()
            .map(|c| c.trim_end_matches('\0').to_string())
            .filter(|c| !c.trim().is_empty()),
    }
}
