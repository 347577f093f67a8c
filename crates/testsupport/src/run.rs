//! The `fastaudit` binary under test: one-shot commands and a `fastaudit
//! run` in the background. The binary's path is the calling test's
//! `env!("CARGO_BIN_EXE_fastaudit")`, which cargo gives only the cli
//! package's integration tests, so every function here takes it as `bin`.

use crate::kernel::in_vm_guest;
use fastaudit_rules::tables::Machine;
use fastaudit_rules::Target;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Run the fastaudit binary `bin` with `args`.
pub fn fastaudit(bin: &str, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .output()
        .expect("run fastaudit")
}
/// The PATH fields native syscall `nr` of audit arch `arch` (a SYSCALL
/// record's `syscall=` and `arch=`, as written) changes and fastaudit reads
/// after the change where [`attrs_after_change`] says so: chmod's mode,
/// chown's owner (fchmodat, fchownat and the others of the families; by
/// name, so on x86_64 and aarch64 alike). Empty otherwise: compared.
pub fn attrs_masked_for(bin: &str, arch: &str, nr: &str) -> &'static [&'static str] {
    const MODE: &[&str] = &["chmod", "fchmod", "fchmodat", "fchmodat2"];
    const OWNER: &[&str] = &["chown", "fchown", "lchown", "fchownat"];
    let Some(elf) = u32::from_str_radix(arch, 16).ok() else {
        return &[];
    };
    let (Some(m), Ok(nr)) = (Machine::from_elf(elf), nr.parse::<u32>()) else {
        return &[];
    };
    // Native syscalls only: a compat one's attributes are compared.
    if Target::of_machine(m).and_then(|t| t.abi_of(elf)) != Some(false) {
        return &[];
    }
    let is = |names: &[&str]| {
        names.iter().any(|n| {
            m.syscall_number(n.as_bytes())
                .or_else(|| m.newer_syscall_number(n.as_bytes()))
                == Some(nr)
        })
    };
    if !(is(MODE) || is(OWNER)) || !attrs_after_change(bin) {
        return &[];
    }
    if is(MODE) {
        &["mode"]
    } else {
        &["ouid", "ogid"]
    }
}

/// Whether fastaudit reads a changed object's attributes after the change
/// on this kernel, by its own account.
pub fn attrs_after_change(bin: &str) -> bool {
    static AFTER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AFTER.get_or_init(|| {
        let dir = tempdir();
        let rules = dir.join("attrs.rules");
        std::fs::write(
            &rules,
            "-a always,exit -F arch=b64 -S fchmodat -F dir=/tmp -k attrs\n",
        )
        .expect("write rules");
        let out = fastaudit(
            bin,
            &[
                "run",
                "--no-config",
                "--rules",
                rules.to_str().expect("utf8"),
                "--explain",
            ],
        );
        let _ = std::fs::remove_dir_all(&dir);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("hooks:"),
            "fastaudit run --explain: {text}"
        );
        text.contains("PATH attributes of changed objects: as the syscall left them")
    })
}

/// `n` chmods of `target` (mode 01601), in one python process: an audited
/// burst far faster than a process per call.
pub fn chmods(target: &Path, n: u64) {
    let script = format!(
        "import os\nfor _ in range({n}): os.chmod({:?}, 0o1601)\n",
        target.to_str().expect("utf8")
    );
    assert!(Command::new("python3")
        .args(["-c", &script])
        .status()
        .expect("python3")
        .success());
}

/// The rule selecting [`chmods`]' calls and no others, keyed `key`: its
/// mode 0o1601 (0x381) as the call's mode argument. Python's os.chmod is
/// chmod(path, mode) where the machine has chmod (x86_64: the mode is
/// a1), fchmodat(AT_FDCWD, path, mode) where it has not (arm64: a2).
pub fn chmods_rule(key: &str) -> String {
    if crate::target::syscall_number(false, "chmod").is_some() {
        format!("-a always,exit -F arch=b64 -S chmod -F a1=0x381 -k {key}\n")
    } else {
        format!("-a always,exit -F arch=b64 -S fchmodat -F a2=0x381 -k {key}\n")
    }
}

/// A fresh private temporary directory.
pub fn tempdir() -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let d = std::env::temp_dir().join(format!("fastaudit-test-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}
/// A `fastaudit run` in the background, started and past "fastaudit: ready";
/// killed on drop if still running (a failed test leaves nothing attached).
pub struct FastauditRun {
    child: std::process::Child,
    stderr: std::sync::mpsc::Receiver<String>,
    /// What it printed after the ready line that [`FastauditRun::wait_said`]
    /// has read (given back by `stop` with the rest).
    said: Vec<String>,
    /// What it printed before "fastaudit: ready".
    pub before_ready: Vec<String>,
}

impl FastauditRun {
    /// `BIN run --rules RULES --log LOG EXTRA...`, waiting for the ready line.
    pub fn start(bin: &str, rules: &Path, log: &Path, extra: &[&str]) -> FastauditRun {
        let mut args = vec![
            "run",
            // The machine's auditd.conf is not part of the test.
            "--no-config",
            "--rules",
            rules.to_str().expect("utf8"),
            "--log",
            log.to_str().expect("utf8"),
        ];
        args.extend_from_slice(extra);
        FastauditRun::spawn(bin, &args)
    }

    /// `BIN ARGS...`, waiting for the ready line.
    pub fn spawn(bin: &str, args: &[&str]) -> FastauditRun {
        // `fastaudit run` applies a rules file's --loginuid-immutable to
        // the kernel (its -e 2 is fastaudit's own and never sent).
        if !in_vm_guest() {
            for (i, a) in args.iter().enumerate() {
                if *a == "--rules" {
                    let file = args.get(i + 1).map_or(Path::new(""), Path::new);
                    let text = std::fs::read(file).unwrap_or_default();
                    for line in text.split(|&b| b == b'\n') {
                        let words = fastaudit_rules::lexer::words(line).unwrap_or_default();
                        let lu = words.iter().any(|w| {
                            w.len() > 4 && b"--loginuid-immutable".starts_with(w.as_slice())
                        });
                        assert!(
                            !lu,
                            "refused: {} holds --loginuid-immutable, which fastaudit run would apply to this machine's kernel until reboot",
                            file.display()
                        );
                    }
                }
            }
        }
        let mut cmd = Command::new(bin);
        cmd.args(args);
        FastauditRun::spawn_command(cmd)
    }

    /// A command that runs `fastaudit run` (under a wrapper, say), waiting
    /// for the ready line.
    pub fn spawn_command(mut cmd: Command) -> FastauditRun {
        use std::io::BufRead;
        let mut child = cmd
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start fastaudit run");
        let stderr = child.stderr.take().expect("stderr piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                let _ = tx.send(l);
            }
        });
        let mut before_ready = Vec::new();
        let wait = std::time::Duration::from_secs(ready_timeout());
        loop {
            match rx.recv_timeout(wait) {
                Ok(l) if l == "fastaudit: ready" => break,
                Ok(l) => before_ready.push(l),
                Err(_) => match child.try_wait() {
                    Ok(Some(status)) => {
                        panic!("fastaudit run ended before ready ({status}): {before_ready:?}")
                    }
                    _ => panic!(
                        "fastaudit run not ready after {} s: {before_ready:?}",
                        wait.as_secs()
                    ),
                },
            }
        }
        FastauditRun {
            child,
            stderr: rx,
            said: Vec::new(),
            before_ready,
        }
    }

    /// Its pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Wait up to `secs` seconds for it to print a line `line` accepts,
    /// failing the test with `what` otherwise.
    pub fn wait_said(&mut self, secs: u64, what: &str, line: impl Fn(&str) -> bool) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(l) => {
                    let found = line(&l);
                    self.said.push(l);
                    if found {
                        return;
                    }
                }
                Err(_) => panic!(
                    "timed out after {secs} s waiting for {what}: {:#?}",
                    self.said
                ),
            }
        }
    }

    /// SIGKILL, as a crash: nothing of it runs afterwards.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM; asserts exit 0 and returns what it printed afterwards.
    pub fn stop(mut self) -> Vec<String> {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::SIGTERM,
        )
        .expect("signal fastaudit");
        let status = self.child.wait().expect("wait fastaudit");
        assert!(status.success(), "exit 0 after SIGTERM: {status}");
        let mut said = std::mem::take(&mut self.said);
        said.extend(rest_of(&self.stderr));
        said
    }
}

/// How long `fastaudit run` may take to say it is ready, in seconds:
/// `$FASTAUDIT_TEST_READY_TIMEOUT`, else 30. An emulated guest (an arm64
/// kernel under QEMU's TCG on an x86_64 host) loads and verifies the BPF
/// programs many times slower than a machine does.
fn ready_timeout() -> u64 {
    std::env::var("FASTAUDIT_TEST_READY_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30)
}

/// A run left behind by a failing test is stopped, so that nothing stays
/// attached: SIGTERM first (it detaches and puts the kernel back), then SIGKILL.
impl Drop for FastauditRun {
    fn drop(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        if let Ok(None) = self.child.try_wait() {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::SIGTERM);
            let child = &mut self.child;
            if crate::wait::wait_for(5, || !matches!(child.try_wait(), Ok(None))) {
                return;
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The lines a stopped process printed last: read until its stderr is
/// closed (the reader thread ends), or for 5 s at most if something it
/// started still holds the pipe open.
pub(crate) fn rest_of(stderr: &std::sync::mpsc::Receiver<String>) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let mut lines = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match stderr.recv_timeout(left) {
            Ok(l) => lines.push(l),
            Err(_) => return lines,
        }
    }
}
