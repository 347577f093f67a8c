//! Pieces of the plugin tests: a daemon started from any command line and
//! stopped with SIGTERM, plugin programs and configurations, log lines.

use std::io::BufRead;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

/// A daemon (fastaudit, maybe under `unshare`) past its ready line.
pub struct Daemon {
    child: Child,
    stderr: Receiver<String>,
    /// What it printed after ready that [`Daemon::wait_printed`] read.
    printed: Vec<String>,
    /// What it printed before ready.
    pub early: Vec<String>,
}

impl Daemon {
    /// Spawn `cmd` and wait for the stderr line `ready`.
    pub fn start(mut cmd: Command, ready: &str) -> Daemon {
        let mut child = cmd
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn daemon");
        let err = child.stderr.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        let mut early = Vec::new();
        loop {
            match rx.recv_timeout(Duration::from_secs(60)) {
                Ok(l) if l == ready => break,
                Ok(l) => early.push(l),
                Err(_) => panic!("daemon ended or hung before {ready:?}: {early:#?}"),
            }
        }
        Daemon {
            child,
            stderr: rx,
            printed: Vec::new(),
            early,
        }
    }

    /// Wait up to `secs` seconds for a stderr line for which `ok` holds,
    /// failing the test with `what` otherwise. The lines read are kept
    /// for [`Daemon::stop`].
    pub fn wait_printed(&mut self, secs: u64, what: &str, ok: impl Fn(&str) -> bool) {
        let deadline = std::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(l) => {
                    let done = ok(&l);
                    self.printed.push(l);
                    if done {
                        return;
                    }
                }
                Err(_) => panic!(
                    "timed out after {secs} s waiting for {what}: {:#?}",
                    self.printed
                ),
            }
        }
    }

    /// Its pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its child processes (the plugins).
    pub fn children(&self) -> Vec<u32> {
        let out = Command::new("pgrep")
            .args(["-P", &self.pid().to_string()])
            .output()
            .expect("pgrep");
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect()
    }

    /// SIGTERM; asserts exit 0 and returns what it printed after ready.
    pub fn stop(mut self) -> Vec<String> {
        signal(self.pid(), nix::sys::signal::SIGTERM);
        let status = self.child.wait().expect("wait daemon");
        let mut printed = std::mem::take(&mut self.printed);
        printed.extend(crate::run::rest_of(&self.stderr));
        assert!(
            status.success(),
            "exit 0 after SIGTERM: {status}: {printed:#?}"
        );
        printed
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            signal(self.pid(), nix::sys::signal::SIGTERM);
            let _ = self.child.wait();
        }
    }
}

/// Send `sig` to `pid`.
pub fn signal(pid: u32, sig: nix::sys::signal::Signal) {
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), sig);
}

/// Write an executable (mode 0750, as auditd requires of a plugin).
pub fn script(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o750)).expect("chmod");
}

/// A plugin configuration `dir/NAME.conf` for `path` with `args`.
pub fn plugin_conf(dir: &Path, name: &str, path: &str, args: &str) -> PathBuf {
    std::fs::create_dir_all(dir).expect("plugin dir");
    let f = dir.join(format!("{name}.conf"));
    let args = if args.is_empty() {
        String::new()
    } else {
        format!("args = {args}\n")
    };
    std::fs::write(
        &f,
        format!(
            "active = yes\ndirection = out\npath = {path}\ntype = always\n{args}format = string\n"
        ),
    )
    .expect("write plugin conf");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    f
}

/// The complete lines of a file (a last line without newline is left out).
pub fn lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut v: Vec<String> = text.split('\n').map(str::to_string).collect();
    v.pop();
    v
}

/// `n` chmods of `file`, one process each (an audited fchmodat each).
pub fn chmods(file: &Path, n: usize) {
    let st = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "i=0; while [ $i -lt {n} ]; do chmod 600 '{}'; i=$((i+1)); done",
            file.display()
        ))
        .status()
        .expect("sh");
    assert!(st.success());
}

/// The stamp `audit(...)` of a record line.
pub fn stamp(line: &str) -> Option<&str> {
    let s = line.find("msg=audit(")? + "msg=".len();
    let e = line[s..].find(')')? + s + 1;
    Some(&line[s..e])
}

/// Whether a record line is fastaudit's own (its serials are in
/// [2^31, 2^32); the kernel's own records keep theirs).
pub fn own_serial(line: &str) -> bool {
    stamp(line)
        .and_then(|s| {
            s.trim_end_matches(')')
                .rsplit(':')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .is_some_and(|n| n >= 1 << 31)
}

/// A rules file selecting chmods of `target` (fchmodat), key `plugtest`.
pub fn chmod_rules(dir: &Path, target: &Path) -> PathBuf {
    std::fs::write(target, "x").expect("target");
    let r = dir.join("chmod.rules");
    std::fs::write(
        &r,
        format!(
            "-a always,exit -F arch=b64 -S fchmodat -F path={} -k plugtest\n",
            target.display()
        ),
    )
    .expect("rules");
    r
}

/// `BIN run` with `rules`, `log`, the plugin directory and `extra`.
pub fn fastaudit_cmd(
    bin: &str,
    rules: &Path,
    log: &Path,
    plugin_dir: &Path,
    extra: &[&str],
) -> Command {
    let mut c = Command::new(bin);
    c.arg("run")
        // The machine's auditd.conf is not part of the test.
        .arg("--no-config")
        .arg("--rules")
        .arg(rules)
        .arg("--log")
        .arg(log)
        .arg("--plugin-dir")
        .arg(plugin_dir)
        .args(extra);
    c
}
