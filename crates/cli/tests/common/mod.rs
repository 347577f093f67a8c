//! Shared pieces of the integration tests: the real `fastaudit` binary and
//! the real kernel audit (through auditctl) as the oracle.
#![allow(dead_code)]

pub mod auditd;
pub mod bench_bin;
pub mod logread;

use std::fs::File;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

/// Run the fastaudit binary.
pub fn fastaudit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fastaudit"))
        .args(args)
        .output()
        .expect("run fastaudit")
}

/// The shared test material (`../shared/corpus`) beside the checkout.
pub fn corpus() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/rules");
    root.canonicalize().unwrap_or(root)
}

/// Every rules file of the shared corpus.
pub fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["audit-userspace", "community"] {
        let mut v: Vec<_> = std::fs::read_dir(corpus().join(dir))
            .expect("shared corpus present beside the checkout")
            .map(|e| e.expect("dir entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "rules"))
            .collect();
        v.sort();
        files.extend(v);
    }
    files
}

/// Holds the kernel audit for one test at a time (across test binaries, by
/// flock) and restores it on drop: no rules, audit disabled, `-a never,task`.
pub struct KernelAudit {
    _thread: MutexGuard<'static, ()>,
    _file: nix::fcntl::Flock<File>,
}

static THREAD_LOCK: Mutex<()> = Mutex::new(());

impl KernelAudit {
    /// Take the lock and start from a clean kernel rule list.
    pub fn acquire() -> KernelAudit {
        let guard = THREAD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let file = File::create("/tmp/fastaudit-kernel-audit.lock").expect("lock file");
        let file = nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive)
            .map_err(|(_, e)| e)
            .expect("flock");
        auditctl(&["-D"]);
        KernelAudit {
            _thread: guard,
            _file: file,
        }
    }

    /// Load `lines` one at a time, as separate `auditctl -R` runs; returns
    /// which were accepted and the final `auditctl -l`. Lines that are not
    /// safe to send (control lines) are not sent and count as `None`.
    pub fn load_lines(&self, lines: &[Vec<u8>]) -> (Vec<Option<bool>>, String) {
        auditctl(&["-D"]);
        let tmp =
            std::env::temp_dir().join(format!("fastaudit-oracle-{}.rules", std::process::id()));
        let mut verdicts = Vec::new();
        for line in lines {
            if !safe_to_send(line) {
                verdicts.push(None);
                continue;
            }
            let mut f = File::create(&tmp).expect("temp rules file");
            f.write_all(line)
                .and_then(|_| f.write_all(b"\n"))
                .expect("write temp rules");
            drop(f);
            let ok = auditctl_command(&[std::ffi::OsStr::new("-R"), tmp.as_os_str()])
                .output()
                .expect("run auditctl")
                .status
                .success();
            verdicts.push(Some(ok));
        }
        let _ = std::fs::remove_file(&tmp);
        let listing = auditctl(&["-l"]);
        auditctl(&["-D"]);
        (
            verdicts,
            String::from_utf8_lossy(&listing.stdout).into_owned(),
        )
    }
}

/// What auditctl did with one line of a set, for the goldens.
pub struct Sent {
    /// Whether `auditctl -R` took the line; `None`: a control line, not sent.
    pub verdict: Option<bool>,
    /// auditctl's stderr lines (the temporary file named `RULES`).
    pub stderr: Vec<String>,
    /// `auditctl -l` after the line.
    pub listing: String,
}

impl KernelAudit {
    /// Load `lines` as `load_lines` does, keeping what auditctl printed and
    /// listed after each. `auditctl -R` prints few reasons, so a refused
    /// line is given again as arguments (its words as fastaudit's lexer
    /// splits them) and what it says there is kept too, after `as arguments:`.
    pub fn record_lines(&self, lines: &[Vec<u8>]) -> Vec<Sent> {
        auditctl(&["-D"]);
        let tmp =
            std::env::temp_dir().join(format!("fastaudit-golden-{}.rules", std::process::id()));
        let tmp_name = tmp.display().to_string();
        let stderr_of = |o: &Output| -> Vec<String> {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .map(|l| l.replace(&tmp_name, "RULES"))
                .collect()
        };
        let mut listing = String::from_utf8_lossy(&auditctl(&["-l"]).stdout).into_owned();
        let mut sent = Vec::new();
        for line in lines {
            if !safe_to_send(line) {
                sent.push(Sent {
                    verdict: None,
                    stderr: Vec::new(),
                    listing: listing.clone(),
                });
                continue;
            }
            std::fs::write(&tmp, [line.as_slice(), b"\n"].concat()).expect("write temp rules");
            let out = auditctl_command(&[std::ffi::OsStr::new("-R"), tmp.as_os_str()])
                .output()
                .expect("run auditctl");
            let ok = out.status.success();
            let mut stderr = stderr_of(&out);
            if !ok {
                let words = fastaudit_rules::lexer::words(line).unwrap_or_default();
                let words: Vec<std::ffi::OsString> = words
                    .into_iter()
                    .map(std::os::unix::ffi::OsStringExt::from_vec)
                    .collect();
                let again = auditctl_command(&words).output().expect("run auditctl");
                assert!(
                    !again.status.success(),
                    "auditctl refused a line from a file but took it as arguments: {}",
                    String::from_utf8_lossy(line)
                );
                let said = stderr_of(&again);
                // Said already from the file: nothing new to keep.
                if !said.is_empty() && !said.iter().all(|l| stderr.contains(l)) {
                    stderr.push(format!("as arguments: {}", said.join(" | ")));
                }
            }
            listing = String::from_utf8_lossy(&auditctl(&["-l"]).stdout).into_owned();
            sent.push(Sent {
                verdict: Some(ok),
                stderr,
                listing: listing.clone(),
            });
        }
        let _ = std::fs::remove_file(&tmp);
        auditctl(&["-D"]);
        sent
    }
}

impl Drop for KernelAudit {
    fn drop(&mut self) {
        restore_kernel();
    }
}

/// Whether the kernel audit is locked (`enabled 2`) until reboot.
pub fn kernel_audit_locked() -> bool {
    let status = auditctl(&["-s"]);
    String::from_utf8_lossy(&status.stdout)
        .lines()
        .any(|l| l.trim() == "enabled 2")
}

/// Whether a test that needs the kernel's own audit as its oracle must be
/// skipped here, saying so: with `enabled 2` (sent once by mistake on a
/// development machine; only a reboot clears it) the kernel refuses every
/// rule change, so there is nothing to compare with. The skip is printed,
/// and appended to `$FASTAUDIT_SKIPPED_LOG` for scripts/test.sh's summary;
/// `FASTAUDIT_REQUIRE_ORACLE=1` turns it into a failure.
pub fn skip_without_kernel_oracle(test: &str) -> bool {
    if !kernel_audit_locked() {
        return false;
    }
    let why = "the kernel audit is locked (enabled 2) until reboot: no rule can be loaded into it to compare with";
    assert!(
        std::env::var_os("FASTAUDIT_REQUIRE_ORACLE").is_none(),
        "{test}: {why}"
    );
    eprintln!("SKIPPED {test}: {why}");
    if let Some(log) = std::env::var_os("FASTAUDIT_SKIPPED_LOG") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(log)
        {
            let _ = writeln!(f, "{test}");
        }
    }
    true
}

/// Leave the kernel as the project promises: no rules, audit off, never,task.
pub fn restore_kernel() {
    auditctl(&["-D"]);
    auditctl(&["-e", "0"]);
    auditctl(&["-a", "never,task"]);
}

/// Run auditctl with arguments (through [`auditctl_command`]).
pub fn auditctl(args: &[&str]) -> Output {
    auditctl_command(args)
        .output()
        .expect("auditctl installed (apt-get install auditd)")
}

/// The one way the tests make an auditctl command. It refuses (panics on)
/// anything that would lock this machine's kernel audit until reboot:
/// `-e 2` (as arguments or in a `-R` file) and `--loginuid-immutable`.
/// Inside a test VM guest (see [`in_vm_guest`]) both are allowed: the
/// guest's kernel is thrown away after the run.
pub fn auditctl_command<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Command {
    let words: Vec<Vec<u8>> = args
        .iter()
        .map(|a| std::os::unix::ffi::OsStrExt::as_bytes(a.as_ref()).to_vec())
        .collect();
    if !in_vm_guest() {
        if let Some(why) = locks_kernel(&words) {
            panic!("refused to run auditctl {}: {why}", show_words(&words));
        }
        // The file `-R` reads, line by line, as auditctl would.
        for (i, w) in words.iter().enumerate() {
            if w.as_slice() == b"-R" {
                let Some(file) = words.get(i + 1) else {
                    continue;
                };
                let path = Path::new(std::ffi::OsStr::from_bytes(file));
                let text = std::fs::read(path).unwrap_or_default();
                for line in text.split(|&b| b == b'\n') {
                    let line_words = fastaudit_rules::lexer::words(line).unwrap_or_default();
                    if let Some(why) = locks_kernel(&line_words) {
                        panic!("refused auditctl -R {}: {why}", path.display());
                    }
                }
            }
        }
    }
    let mut cmd = Command::new("auditctl");
    cmd.args(args);
    cmd
}

fn show_words(words: &[Vec<u8>]) -> String {
    words
        .iter()
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Why auditctl given `words` would lock the kernel audit until reboot,
/// if it would: `-e 2` (getopt clusters such as `-le2` and spellings such
/// as `02` included), or `--loginuid-immutable` (or an abbreviation
/// getopt_long takes for it).
pub fn locks_kernel(words: &[Vec<u8>]) -> Option<&'static str> {
    const TAKES_VALUE: &[u8] = b"CefrbaAdSFmRwWkpqUt";
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        if w.as_slice() == b"--" {
            break;
        }
        if let Some(long) = w.strip_prefix(b"--") {
            let name = long.split(|&b| b == b'=').next().unwrap_or(b"");
            if name.len() >= 2 && b"loginuid-immutable".starts_with(name) {
                return Some("--loginuid-immutable cannot be undone without a reboot");
            }
            continue;
        }
        if w.len() < 2 || w[0] != b'-' {
            continue;
        }
        for (at, &c) in w.iter().enumerate().skip(1) {
            if !TAKES_VALUE.contains(&c) {
                continue;
            }
            let value = if at + 1 < w.len() {
                w[at + 1..].to_vec()
            } else {
                let v = words.get(i).cloned().unwrap_or_default();
                i += 1;
                v
            };
            // auditctl sends only "0", "1" and "2" (an exact match) and
            // refuses any other value itself; refused here: whatever
            // reads as 2.
            let digits: Vec<u8> = value
                .iter()
                .copied()
                .skip_while(|&b| b == b' ' || b == b'+' || b == b'0')
                .collect();
            if c == b'e' && digits == b"2" {
                return Some("-e 2 locks the kernel audit until reboot");
            }
            break;
        }
    }
    None
}

/// Whether this process runs in a throw-away test VM guest (virtme-ng,
/// scripts/vm/): there, and only there, tests may lock the kernel audit.
pub fn in_vm_guest() -> bool {
    std::fs::read_to_string("/proc/cmdline").is_ok_and(|c| c.contains("virtme"))
        && std::env::var_os("FASTAUDIT_VM_GUEST").is_some()
}

/// Whether a line only adds or deletes rules, so the kernel may see it. Any
/// control option (-e above all: `-e 2` locks audit until reboot) makes it
/// unsafe. Short options are scanned the way getopt clusters them.
pub fn safe_to_send(line: &[u8]) -> bool {
    const CONTROL: &[u8] = b"ebfrmtqslvichRU";
    const TAKES_VALUE: &[u8] = b"CefrbaAdSFmRwWkpqU";
    let words: Vec<&[u8]> = line
        .split(|&b| b == b' ')
        .filter(|w| !w.is_empty())
        .collect();
    if words.first().is_some_and(|w| w.starts_with(b"#")) {
        return true;
    }
    let mut skip_next = false;
    for w in words {
        if skip_next {
            skip_next = false;
            continue;
        }
        if w == b"--" {
            // getopt stops here: the rest are plain words, never options.
            break;
        }
        if w.starts_with(b"--") {
            return false;
        }
        if w.len() < 2 || w[0] != b'-' {
            continue;
        }
        for (i, c) in w[1..].iter().enumerate() {
            if CONTROL.contains(c) || !c.is_ascii_alphabetic() {
                return false;
            }
            if TAKES_VALUE.contains(c) {
                skip_next = i + 2 == w.len();
                break;
            }
        }
    }
    true
}

/// Raw lines of a file (split on newlines, as written).
pub fn raw_lines(path: &Path) -> Vec<Vec<u8>> {
    let data = std::fs::read(path).expect("read rules file");
    let mut lines: Vec<Vec<u8>> = data.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    if data.ends_with(b"\n") {
        lines.pop();
    }
    lines
}

/// Compare one set of lines against the kernel: the refused lines must be
/// the same, and the listing of the accepted lines must be identical.
/// Returns a description of every difference.
pub fn differential(ka: &KernelAudit, name: &str, lines: &[Vec<u8>]) -> Vec<String> {
    let (verdicts, kernel_listing) = ka.load_lines(lines);
    let dir = tempdir();
    let file = dir.join(format!("{}.rules", name.replace('/', "_")));
    std::fs::write(&file, lines.join(&b"\n"[..])).expect("write rules");
    // Every refusal listed: the verdicts are read per line.
    let check = fastaudit(&[
        "rules",
        "check",
        "--max-messages",
        "0",
        file.to_str().expect("utf8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&check.stderr).into_owned();
    let prefix = format!("{}:", file.display());
    let refused: std::collections::BTreeSet<usize> = stderr
        .lines()
        .filter(|l| !l.contains(": warning: "))
        .filter_map(|l| l.strip_prefix(&prefix)?.split(':').next()?.parse().ok())
        .collect();
    let mut diffs = Vec::new();
    for (i, v) in verdicts.iter().enumerate() {
        let fa_ok = !refused.contains(&(i + 1));
        let line = String::from_utf8_lossy(&lines[i]);
        match v {
            Some(k) if *k != fa_ok => diffs.push(format!(
                "{name}:{}: kernel {} but fastaudit {}: {line}",
                i + 1,
                if *k { "accepts" } else { "refuses" },
                if fa_ok { "accepts" } else { "refuses" }
            )),
            None if !fa_ok => diffs.push(format!(
                "{name}:{}: control line refused by fastaudit: {line}",
                i + 1
            )),
            _ => {}
        }
    }
    if !refused.is_empty() && check.status.success() {
        diffs.push(format!("{name}: errors printed but exit status 0"));
    }
    // Keep only what the kernel accepted (blank the rest, keeping line numbers).
    let kept: Vec<Vec<u8>> = lines
        .iter()
        .zip(&verdicts)
        .map(|(l, v)| {
            if *v == Some(false) {
                Vec::new()
            } else {
                l.clone()
            }
        })
        .collect();
    std::fs::write(&file, kept.join(&b"\n"[..])).expect("write rules");
    let list = fastaudit(&["rules", "list", file.to_str().expect("utf8 path")]);
    let ours = String::from_utf8_lossy(&list.stdout).into_owned();
    if ours != kernel_listing {
        let k: Vec<&str> = kernel_listing.lines().collect();
        let o: Vec<&str> = ours.lines().collect();
        for i in 0..k.len().max(o.len()) {
            if k.get(i) != o.get(i) {
                diffs.push(format!(
                    "{name}: listing line {}:\n  auditctl -l: {}\n  fastaudit:   {}",
                    i + 1,
                    k.get(i).unwrap_or(&"<none>"),
                    o.get(i).unwrap_or(&"<none>")
                ));
                break;
            }
        }
        if !list.status.success() {
            diffs.push(format!(
                "{name}: fastaudit list failed: {}",
                String::from_utf8_lossy(&list.stderr)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    diffs
}

/// The PATH fields x86_64 syscall `nr` (as a SYSCALL record's `syscall=`)
/// changes and fastaudit reads after the change where
/// [`attrs_after_change`] says so: chmod's mode, chown's owner. Empty
/// otherwise: compared.
pub fn attrs_masked_for(nr: &str) -> &'static [&'static str] {
    if !attrs_after_change() {
        return &[];
    }
    // chmod, fchmod, fchmodat, fchmodat2; chown, fchown, lchown, fchownat.
    match nr {
        "90" | "91" | "268" | "452" => &["mode"],
        "92" | "93" | "94" | "260" => &["ouid", "ogid"],
        _ => &[],
    }
}

/// Whether fastaudit reads a changed object's attributes after the change
/// on this kernel, by its own account.
pub fn attrs_after_change() -> bool {
    static AFTER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AFTER.get_or_init(|| {
        let dir = tempdir();
        let rules = dir.join("attrs.rules");
        std::fs::write(
            &rules,
            "-a always,exit -F arch=b64 -S fchmodat -F dir=/tmp -k attrs\n",
        )
        .expect("write rules");
        let out = fastaudit(&[
            "run",
            "--no-config",
            "--rules",
            rules.to_str().expect("utf8"),
            "--explain",
        ]);
        let _ = std::fs::remove_dir_all(&dir);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("hooks:"),
            "fastaudit run --explain: {text}"
        );
        text.contains("PATH attributes of changed objects: as the syscall left them")
    })
}

/// A fresh private temporary directory.
pub fn tempdir() -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let d = std::env::temp_dir().join(format!("fastaudit-test-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Fail the test with every difference listed.
pub fn assert_agrees(diffs: &[String]) {
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

/// A `fastaudit run` in the background, started and past "fastaudit: ready";
/// killed on drop if still running (a failed test leaves nothing attached).
pub struct FastauditRun {
    child: std::process::Child,
    stderr: std::sync::mpsc::Receiver<String>,
    /// What it printed before "fastaudit: ready".
    pub before_ready: Vec<String>,
}

impl FastauditRun {
    /// `fastaudit run --rules RULES --log LOG EXTRA...`, waiting for the ready line.
    pub fn start(rules: &Path, log: &Path, extra: &[&str]) -> FastauditRun {
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
        FastauditRun::spawn(&args)
    }

    /// `fastaudit ARGS...`, waiting for the ready line.
    pub fn spawn(args: &[&str]) -> FastauditRun {
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
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fastaudit"));
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
        loop {
            match rx.recv_timeout(std::time::Duration::from_secs(30)) {
                Ok(l) if l == "fastaudit: ready" => break,
                Ok(l) => before_ready.push(l),
                Err(_) => panic!("fastaudit run ended or hung before ready: {before_ready:?}"),
            }
        }
        FastauditRun {
            child,
            stderr: rx,
            before_ready,
        }
    }

    /// Its pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
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
        std::thread::sleep(std::time::Duration::from_millis(50));
        self.stderr.try_iter().collect()
    }
}

/// A run left behind by a failing test is stopped, so that nothing stays
/// attached: SIGTERM first (it detaches and puts the kernel back), then SIGKILL.
impl Drop for FastauditRun {
    fn drop(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        if let Ok(None) = self.child.try_wait() {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::SIGTERM);
            for _ in 0..100 {
                if !matches!(self.child.try_wait(), Ok(None)) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
