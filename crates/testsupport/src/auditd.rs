//! The real auditd, run in the foreground as the oracle daemon, with a
//! private configuration; its records go to `kernel.log` in the test's
//! directory (auditd -f writes them to stdout).

use crate::kernel::auditctl;
use crate::wait::wait_until;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A field of `auditctl -s`.
pub fn status_field(k: &str) -> String {
    String::from_utf8_lossy(&auditctl(&["-s"]).stdout)
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{k} ")).map(str::to_string))
        .unwrap_or_default()
}

/// auditd in the foreground, registered with the kernel; stopped on drop
/// (`child` is there for tests that watch it exit).
pub struct Auditd {
    /// The auditd process.
    pub child: Child,
    log: PathBuf,
}

impl Auditd {
    /// Start auditd writing `log_format` (RAW or ENRICHED) records to
    /// `dir/kernel.log`, and wait until the kernel has its pid.
    pub fn start(dir: &Path, log_format: &str) -> Auditd {
        let conf = dir.join("conf");
        std::fs::create_dir_all(conf.join("plugins")).unwrap();
        std::fs::write(
            conf.join("auditd.conf"),
            format!(
                "local_events = yes\nwrite_logs = yes\nlog_file = {d}/unused.log\nlog_format = {log_format}\nflush = INCREMENTAL_ASYNC\nfreq = 50\nname_format = NONE\nmax_log_file = 64\nmax_log_file_action = IGNORE\nspace_left = 2\nspace_left_action = IGNORE\nadmin_space_left = 1\nadmin_space_left_action = IGNORE\ndisk_full_action = IGNORE\ndisk_error_action = IGNORE\nplugin_dir = {d}/conf/plugins\nq_depth = 2000\noverflow_action = IGNORE\nend_of_event_timeout = 2\n",
                d = dir.display()
            ),
        )
        .unwrap();
        let log = dir.join("kernel.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new("auditd")
            .args(["-f", "-c", conf.to_str().unwrap()])
            .stdout(out)
            .stderr(Stdio::null())
            .spawn()
            .expect("auditd");
        let pid = child.id().to_string();
        wait_until(20, "auditd to register", || status_field("pid") == pid);
        Auditd { child, log }
    }

    /// Its log.
    pub fn log(&self) -> &Path {
        &self.log
    }

    /// Wait until its log holds every record the kernel has queued so far
    /// (see [`crate::kernel::wait_caught_up`]).
    pub fn wait_caught_up(&self) {
        crate::kernel::wait_caught_up(&self.log);
    }

    /// Stop auditd (SIGTERM) and return its log.
    pub fn stop(mut self) -> PathBuf {
        self.terminate();
        self.log.clone()
    }

    fn terminate(&mut self) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::SIGTERM,
        );
        let _ = self.child.wait();
    }
}

impl Drop for Auditd {
    fn drop(&mut self) {
        self.terminate();
    }
}
