//! The real kernel audit (through auditctl) as the oracle, and the rules
//! that keep this machine's kernel safe: one test at a time holds it (by
//! flock) and restores it, and nothing that would lock it until reboot
//! (`-e 2`, `--loginuid-immutable`) is ever sent.

use std::fs::File;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

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
        let file = fastaudit_netlink::lock::lock_kernel_audit().expect("the kernel audit lock");
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

/// Wait until `log`, the log of the daemon the kernel audit delivers to
/// (auditd, or fastaudit as the daemon), holds every record the kernel has
/// queued so far: a user message sent now is delivered after them (kauditd
/// keeps their order), so once it is in the log, so are they. Audit must
/// be on (`enabled 1`): the kernel drops user messages otherwise.
pub fn wait_caught_up(log: &Path) {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let mark = format!("fastaudit-test-caught-up-{}-{n}", std::process::id());
    let sent = auditctl(&["-m", &mark]);
    assert!(
        sent.status.success(),
        "auditctl -m {mark}: {}",
        String::from_utf8_lossy(&sent.stderr)
    );
    crate::wait::wait_until(
        20,
        &format!("{} to hold the user message {mark}", log.display()),
        || String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default()).contains(&mark),
    );
}
