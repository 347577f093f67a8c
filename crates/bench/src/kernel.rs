//! The kernel audit as the harness drives it: auditctl, a private auditd,
//! and a guard that holds the machine-wide lock and puts the kernel back
//! as it was found.

use crate::{io, BenchError};
use fastaudit_netlink::lock::{lock_kernel_audit, KERNEL_AUDIT_LOCK};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The backlog the kernel mode runs with, as the shipped base config sets it.
pub const BACKLOG: u32 = 8192;

/// Run auditctl; its stdout, or an error with its stderr.
pub fn auditctl(args: &[&str]) -> Result<String, BenchError> {
    let out = Command::new("auditctl")
        .args(args)
        .output()
        .map_err(io("running auditctl (is the auditd package installed?)"))?;
    if !out.status.success() {
        return Err(BenchError::Command(format!(
            "auditctl {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Add rules (`audit_rule_data`) to the kernel over netlink, in order: the
/// io_uring list's, which this machine's auditctl (3.0.9) cannot send.
pub fn add_rules_over_netlink(rules: &[Vec<u8>]) -> Result<(), BenchError> {
    if rules.is_empty() {
        return Ok(());
    }
    let mut sock = fastaudit_netlink::AuditSocket::open(Duration::from_secs(2))
        .map_err(|e| BenchError::Command(format!("opening the audit netlink socket: {e}")))?;
    for r in rules {
        sock.add_rule(r)
            .map_err(|e| BenchError::Command(format!("adding an io_uring rule: {e}")))?;
    }
    Ok(())
}

/// The parts of `auditctl -s` the harness uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Status {
    /// 0 off, 1 on, 2 locked.
    pub enabled: u32,
    /// The registered audit daemon, 0 when none.
    pub pid: u32,
    /// Records the kernel queues before it waits or drops.
    pub backlog_limit: u32,
    /// Records the kernel lost since boot.
    pub lost: u64,
    /// Records queued for the daemon right now.
    pub backlog: u64,
}

impl Status {
    /// Parse `auditctl -s` output.
    pub fn parse(text: &str) -> Status {
        let mut s = Status::default();
        for line in text.lines() {
            let mut it = line.split_whitespace();
            let (Some(k), Some(v)) = (it.next(), it.next()) else {
                continue;
            };
            match k {
                "enabled" => s.enabled = v.parse().unwrap_or(0),
                "pid" => s.pid = v.parse().unwrap_or(0),
                "backlog_limit" => s.backlog_limit = v.parse().unwrap_or(0),
                "lost" => s.lost = v.parse().unwrap_or(0),
                "backlog" => s.backlog = v.parse().unwrap_or(0),
                _ => {}
            }
        }
        s
    }

    /// The kernel's current status.
    pub fn read() -> Result<Status, BenchError> {
        Ok(Status::parse(&auditctl(&["-s"])?))
    }
}

/// Holds the machine-wide lock for the run and restores the kernel audit
/// state found at the start (rules, enabled flag, backlog limit) when dropped.
pub struct KernelGuard {
    _lock: nix::fcntl::Flock<File>,
    saved_rules: Option<PathBuf>,
    saved: Status,
    /// Nothing is ever sent to the kernel (see [`KernelGuard::untouched`]).
    untouched: bool,
}

/// The only kernel rule list under which an untouched kernel is a clean
/// baseline: no task gets an audit context.
const NEVER_TASK_ONLY: &str = "-a never,task";

impl KernelGuard {
    /// Take the lock, check the kernel may be changed, save its state and
    /// leave it clean: no rules, audit off, `-a never,task`.
    pub fn take(scratch: &Path) -> Result<KernelGuard, BenchError> {
        let lock = take_lock()?;
        let saved = Status::read()?;
        if saved.enabled == 2 {
            return Err(BenchError::Refused(
                "the kernel audit configuration is locked (enabled 2) until reboot; the kernel mode cannot be set up".into(),
            ));
        }
        refuse_registered(saved)?;
        let listing = auditctl(&["-l"])?;
        let saved_rules = if listing.trim() == "No rules" || listing.trim().is_empty() {
            None
        } else {
            let p = scratch.join("saved-kernel.rules");
            std::fs::write(&p, &listing).map_err(io("saving the kernel rules"))?;
            Some(p)
        };
        let guard = KernelGuard {
            _lock: lock,
            saved_rules,
            saved,
            untouched: false,
        };
        clean()?;
        Ok(guard)
    }

    /// Take the lock and check, reading only (`auditctl -s`, `-l`), that
    /// the kernel as it is makes a clean baseline: its one rule is
    /// `-a never,task` (no task gets an audit context) and no audit daemon
    /// is registered. Nothing is sent to the kernel while this guard is
    /// held, nor when it is dropped: for a locked kernel (enabled 2),
    /// which refuses every change, with the off and fastaudit modes only.
    pub fn untouched() -> Result<KernelGuard, BenchError> {
        let lock = take_lock()?;
        let saved = Status::read()?;
        refuse_registered(saved)?;
        let listing = auditctl(&["-l"])?;
        if listing.trim() != NEVER_TASK_ONLY {
            return Err(BenchError::Refused(format!(
                "the kernel audit cannot be changed (enabled {}) and its rules are not \
                 `{NEVER_TASK_ONLY}` alone, so tasks may carry an audit context: no clean baseline",
                saved.enabled
            )));
        }
        Ok(KernelGuard {
            _lock: lock,
            saved_rules: None,
            saved,
            untouched: true,
        })
    }

    /// The status found at the start.
    pub fn saved(&self) -> Status {
        self.saved
    }

    /// Whether the kernel is left as it was found, never sent a change.
    pub fn is_untouched(&self) -> bool {
        self.untouched
    }
}

/// The kernel audit lock (`fastaudit_netlink::lock`), held while the
/// value lives.
pub(crate) fn take_lock() -> Result<nix::fcntl::Flock<File>, BenchError> {
    lock_kernel_audit().map_err(io(format!("locking {KERNEL_AUDIT_LOCK}")))
}

fn refuse_registered(saved: Status) -> Result<(), BenchError> {
    if saved.pid != 0 {
        return Err(BenchError::Refused(format!(
            "an audit daemon (pid {}) is registered with the kernel; stop it (systemctl stop auditd) before benchmarking",
            saved.pid
        )));
    }
    Ok(())
}

impl Drop for KernelGuard {
    fn drop(&mut self) {
        if self.untouched {
            return;
        }
        // Best effort on every step: a failure must not stop the others.
        let _ = auditctl(&["-e", "0"]);
        let _ = auditctl(&["-D"]);
        if let Some(p) = &self.saved_rules {
            if let Some(p) = p.to_str() {
                let _ = auditctl(&["-R", p]);
            }
        }
        if self.saved.backlog_limit != 0 {
            let _ = auditctl(&["-b", &self.saved.backlog_limit.to_string()]);
        }
        let _ = auditctl(&["-e", &self.saved.enabled.to_string()]);
    }
}

/// No rules, audit off, and no audit context for tasks created from now on.
pub fn clean() -> Result<(), BenchError> {
    auditctl(&["-e", "0"])?;
    auditctl(&["-D"])?;
    auditctl(&["-a", "never,task"])?;
    Ok(())
}

/// The private auditd.conf of a round: auditd's shipped flush policy
/// (INCREMENTAL_ASYNC every 50) and its other defaults (priority_boost 4:
/// nice -4); a log that never rotates so every record can be counted; no
/// disk-space action may touch the machine. The kernel mode's auditd and
/// the fastaudit modes are given the same.
pub fn auditd_conf(log: &Path, plugins: &Path) -> String {
    format!(
        "local_events = yes\nwrite_logs = yes\nlog_file = {log}\n\
         log_format = RAW\nflush = INCREMENTAL_ASYNC\nfreq = 50\nname_format = NONE\n\
         max_log_file = 0\nmax_log_file_action = IGNORE\nspace_left = 2\n\
         space_left_action = IGNORE\nadmin_space_left = 1\nadmin_space_left_action = IGNORE\n\
         disk_full_action = IGNORE\ndisk_error_action = IGNORE\nplugin_dir = {plugins}\n\
         q_depth = 2000\noverflow_action = IGNORE\nend_of_event_timeout = 2\n",
        log = log.display(),
        plugins = plugins.display()
    )
}

/// An auditd started as it runs in production (a daemon, writing its own
/// log file with its default flush policy), with a private configuration.
pub struct Auditd {
    pid: u32,
    /// Where its records go.
    pub log: PathBuf,
}

impl Auditd {
    /// Start it and wait until the kernel has registered it.
    pub fn start(dir: &Path) -> Result<Auditd, BenchError> {
        let conf = dir.join("auditd-conf");
        std::fs::create_dir_all(conf.join("plugins")).map_err(io("creating auditd config"))?;
        let log = dir.join("kernel-audit.log");
        let text = auditd_conf(&log, &conf.join("plugins"));
        std::fs::write(conf.join("auditd.conf"), text).map_err(io("writing auditd.conf"))?;
        // It daemonizes: the command returns once the daemon is set up.
        let status = own_group(Command::new("auditd").arg("-c").arg(&conf))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(io("starting auditd"))?;
        if !status.success() {
            return Err(BenchError::Command(format!(
                "auditd failed to start ({status})"
            )));
        }
        let start = Instant::now();
        loop {
            let pid = Status::read()?.pid;
            if pid != 0 {
                return Ok(Auditd { pid, log });
            }
            if start.elapsed() > Duration::from_secs(20) {
                return Err(BenchError::Command(
                    "auditd did not register with the kernel within 20 s".into(),
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM and wait until it is gone: it writes what it holds first.
    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if self.pid == 0 {
            return;
        }
        let pid = nix::unistd::Pid::from_raw(self.pid as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::SIGTERM);
        let start = Instant::now();
        while alive(self.pid) {
            if start.elapsed() > Duration::from_secs(30) {
                let _ = nix::sys::signal::kill(pid, nix::sys::signal::SIGKILL);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.pid = 0;
    }
}

impl Drop for Auditd {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// Whether a process exists and is not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            // The state follows the parenthesised command name.
            s.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Put a child in its own process group so a Ctrl-C at the terminal reaches
/// only the harness, which then stops everything in order.
pub fn own_group(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0)
}

/// SIGTERM, then SIGKILL after 30 s.
pub fn terminate(child: &mut Child) {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::SIGTERM);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30) {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_is_read_from_auditctl_output() {
        let s = Status::parse(
            "enabled 1\nfailure 1\npid 4242\nrate_limit 0\nbacklog_limit 8192\nlost 17\nbacklog 0\n",
        );
        assert_eq!(
            s,
            Status {
                enabled: 1,
                pid: 4242,
                backlog_limit: 8192,
                lost: 17,
                backlog: 0
            }
        );
    }
}
