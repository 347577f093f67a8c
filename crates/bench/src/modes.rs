//! The three ways a workload runs — no audit, kernel audit + auditd,
//! fastaudit — plus the "off after having been on" residue, each set up
//! before a round and torn down after it.

use crate::kernel::{self, auditctl, Auditd, Status};
use crate::rulesets::Prepared;
use crate::{io, BenchError};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// How the machine audits while a workload runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// No auditing: audit off and `-a never,task`, so no task carries an
    /// audit context (a true baseline even after audit was ever enabled).
    Off,
    /// The kernel's audit with the rule set, and auditd writing the records.
    Kernel,
    /// `fastaudit run` with the rule set, as the audit daemon: it enables
    /// the kernel audit with `-a never,task` only, so workload tasks carry
    /// no audit context, as in `Off`; it puts the kernel back at stop.
    Fastaudit,
    /// Audit disabled with `-e 0` but no `-a never,task`, after it has been
    /// enabled: what a machine pays when audit was merely switched off.
    OffResidue,
    /// As `Fastaudit`, with another fastaudit binary (`--baseline`): an
    /// earlier build measured in the same rounds.
    FastauditBase,
}

impl Mode {
    /// The name used in tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::Kernel => "kernel",
            Mode::Fastaudit => "fastaudit",
            Mode::OffResidue => "off-residue",
            Mode::FastauditBase => "fastaudit-base",
        }
    }
}

/// A mode set up for one round.
pub struct Active {
    /// The mode.
    pub mode: Mode,
    auditd: Option<Auditd>,
    fastaudit: Option<FastauditRun>,
    lost_before: u64,
    /// The kernel is never sent a change (`KernelGuard::untouched`).
    untouched: bool,
}

/// What a round left behind once its mode was torn down.
#[derive(Clone, Debug, Default)]
pub struct Ended {
    /// Records the auditing side lost during the round.
    pub lost: u64,
    /// Its log, when it wrote one.
    pub log: Option<PathBuf>,
    /// Seconds from the end of the workload until the log held everything.
    pub drain_seconds: f64,
    /// fastaudit's closing line (generated, logged, lost).
    pub summary: Option<String>,
}

/// Set `mode` up with `rules`; `dir` is private to this round; `exe` is
/// the fastaudit binary of the mode. With `untouched`, only the off and
/// fastaudit modes exist and the kernel is left as it is (a clean
/// baseline, checked when the guard was taken).
pub fn setup(
    mode: Mode,
    rules: &Prepared,
    exe: &Path,
    dir: &Path,
    untouched: bool,
) -> Result<Active, BenchError> {
    std::fs::create_dir_all(dir).map_err(io("creating a round directory"))?;
    let mut active = Active {
        mode,
        auditd: None,
        fastaudit: None,
        lost_before: 0,
        untouched,
    };
    match mode {
        Mode::Off | Mode::Fastaudit | Mode::FastauditBase if untouched => {
            if mode != Mode::Off {
                active.fastaudit = Some(FastauditRun::start(exe, rules, dir)?);
            }
        }
        Mode::Kernel | Mode::OffResidue if untouched => {
            return Err(BenchError::Refused(format!(
                "the {} mode changes the kernel audit, which is left untouched here",
                mode.name()
            )));
        }
        Mode::Off => kernel::clean()?,
        Mode::OffResidue => {
            kernel::clean()?;
            auditctl(&["-D"])?;
        }
        Mode::Kernel => {
            kernel::clean()?;
            auditctl(&["-D"])?;
            auditctl(&["-b", &kernel::BACKLOG.to_string()])?;
            active.auditd = Some(Auditd::start(dir)?);
            if rules.rules > rules.uring_rules.len() {
                auditctl(&["-R", path_str(&rules.kernel_file)?])?;
            }
            kernel::add_rules_over_netlink(&rules.uring_rules)?;
            active.lost_before = Status::read()?.lost;
            auditctl(&["-e", "1"])?;
        }
        Mode::Fastaudit | Mode::FastauditBase => {
            kernel::clean()?;
            active.fastaudit = Some(FastauditRun::start(exe, rules, dir)?);
        }
    }
    Ok(active)
}

impl Active {
    /// Tear the mode down and leave the kernel clean. With `drain`, wait
    /// until the log holds every record first (for counting events).
    pub fn end(mut self, drain: bool) -> Result<Ended, BenchError> {
        let mut ended = Ended::default();
        let start = Instant::now();
        if let Some(auditd) = self.auditd.take() {
            if drain {
                wait_for_auditd(&auditd.log)?;
                ended.drain_seconds = start.elapsed().as_secs_f64();
            }
            ended.lost = Status::read()?.lost.saturating_sub(self.lost_before);
            auditctl(&["-e", "0"])?;
            ended.log = Some(auditd.log.clone());
            auditd.stop();
        }
        if let Some(mut fa) = self.fastaudit.take() {
            let (summary, lost) = fa.stop()?;
            ended.drain_seconds = start.elapsed().as_secs_f64();
            ended.summary = Some(summary);
            ended.lost = lost;
            ended.log = Some(fa.log);
        }
        if !self.untouched {
            kernel::clean()?;
        }
        Ok(ended)
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        // An error path: stop what runs; the kernel guard restores the rest.
        if !self.untouched && (self.auditd.is_some() || self.fastaudit.is_some()) {
            let _ = auditctl(&["-e", "0"]);
        }
        self.auditd.take();
        if let Some(mut fa) = self.fastaudit.take() {
            kernel::terminate(&mut fa.child);
        }
    }
}

fn path_str(p: &Path) -> Result<&str, BenchError> {
    p.to_str()
        .ok_or_else(|| BenchError::Command(format!("{}: path is not UTF-8", p.display())))
}

/// The kernel has handed auditd everything and auditd has written it: the
/// backlog is empty and the log stopped growing.
fn wait_for_auditd(log: &Path) -> Result<(), BenchError> {
    let start = Instant::now();
    let mut last = (u64::MAX, Instant::now());
    while start.elapsed() < Duration::from_secs(120) {
        let size = std::fs::metadata(log).map(|m| m.len()).unwrap_or(0);
        if size != last.0 {
            last = (size, Instant::now());
        } else if last.1.elapsed() > Duration::from_millis(500) && Status::read()?.backlog == 0 {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(BenchError::Command(
        "auditd's log kept growing for 120 s after the workload".into(),
    ))
}

/// `fastaudit run` in the background.
struct FastauditRun {
    child: Child,
    lines: Receiver<String>,
    log: PathBuf,
}

impl FastauditRun {
    fn start(exe: &Path, rules: &Prepared, dir: &Path) -> Result<FastauditRun, BenchError> {
        let log = dir.join("fastaudit.log");
        // The machine's auditd.conf is not part of the measurement: the
        // kernel mode's auditd.conf is (its flush policy and priority
        // boost), with one log that is never rotated, so every record can
        // be counted.
        let conf = dir.join("fastaudit-conf");
        std::fs::create_dir_all(conf.join("plugins")).map_err(io("creating fastaudit's config"))?;
        std::fs::write(
            conf.join("auditd.conf"),
            kernel::auditd_conf(&log, &conf.join("plugins")),
        )
        .map_err(io("writing fastaudit's auditd.conf"))?;
        let mut child = kernel::own_group(
            Command::new(exe)
                .args([
                    "run",
                    "--config",
                    path_str(&conf.join("auditd.conf"))?,
                    "--rules",
                    path_str(&rules.file)?,
                    "--log",
                    path_str(&log)?,
                    "--max-log-file",
                    "0",
                ])
                .args(&rules.fastaudit_args),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(io(format!("starting {} run", exe.display())))?;
        let stderr = child.stderr.take();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            if let Some(stderr) = stderr {
                for l in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if tx.send(l).is_err() {
                        break;
                    }
                }
            }
        });
        let mut said = Vec::new();
        let start = Instant::now();
        loop {
            match lines.recv_timeout(Duration::from_millis(200)) {
                Ok(l) if l == "fastaudit: ready" => {
                    return Ok(FastauditRun { child, lines, log });
                }
                Ok(l) => said.push(l),
                Err(_) => {
                    if let Ok(Some(status)) = child.try_wait() {
                        said.extend(lines.try_iter());
                        return Err(BenchError::Command(format!(
                            "fastaudit run exited ({status}) before it was ready: {}",
                            said.join(" / ")
                        )));
                    }
                    if start.elapsed() > Duration::from_secs(120) {
                        kernel::terminate(&mut child);
                        return Err(BenchError::Command(
                            "fastaudit run was not ready within 120 s".into(),
                        ));
                    }
                }
            }
        }
    }

    /// SIGTERM: it detaches, drains, flushes and prints its counts.
    fn stop(&mut self) -> Result<(String, u64), BenchError> {
        kernel::terminate(&mut self.child);
        let status = self.child.wait().map_err(io("waiting for fastaudit"))?;
        let said: Vec<String> =
            std::iter::from_fn(|| self.lines.recv_timeout(Duration::from_millis(500)).ok())
                .collect();
        let summary = said
            .iter()
            .find_map(|l| l.strip_prefix("fastaudit: stopped: "))
            .map(str::to_string);
        match summary {
            Some(s) if status.success() => {
                let lost =
                    counted(&s, "lost in the ring buffer") + counted(&s, "dropped by the log");
                Ok((s, lost))
            }
            _ => Err(BenchError::Command(format!(
                "fastaudit run ended badly ({status}): {}",
                said.join(" / ")
            ))),
        }
    }
}

/// The number before `what` in fastaudit's closing line.
fn counted(summary: &str, what: &str) -> u64 {
    summary
        .split(", ")
        .find_map(|part| part.strip_suffix(what)?.trim().parse().ok())
        .unwrap_or(0)
}

/// SYSCALL records with `key` of each process of `pids`, in one pass over
/// an auditd-format log (and whatever it was rotated into).
pub fn count_records(log: &Path, pids: &[u32], key: &str) -> Result<Vec<u64>, BenchError> {
    let pids: Vec<Vec<u8>> = pids
        .iter()
        .map(|p| format!(" pid={p} ").into_bytes())
        .collect();
    let key = format!(" key=\"{key}\"").into_bytes();
    let has = |line: &[u8], what: &[u8]| line.windows(what.len()).any(|w| w == what);
    let mut n = vec![0; pids.len()];
    // The log and whatever it was rotated into (log.1, log.2, ...).
    let mut files = vec![log.to_path_buf()];
    files.extend(
        (1..)
            .map(|i| PathBuf::from(format!("{}.{i}", log.display())))
            .take_while(|p| p.exists()),
    );
    for path in files {
        let f = std::fs::File::open(&path).map_err(io(format!("reading {}", path.display())))?;
        for line in BufReader::with_capacity(1 << 20, f).split(b'\n') {
            let line = line.map_err(io(format!("reading {}", path.display())))?;
            if !line.starts_with(b"type=SYSCALL ") || !has(&line, &key) {
                continue;
            }
            if let Some(i) = pids.iter().position(|p| has(&line, p)) {
                n[i] += 1;
            }
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_line_counts() {
        let s = "10 events generated, 7 logged, 3 lost in the ring buffer, 0 dropped by the log";
        assert_eq!(counted(s, "events generated"), 10);
        assert_eq!(counted(s, "logged"), 7);
        assert_eq!(counted(s, "lost in the ring buffer"), 3);
        assert_eq!(counted(s, "dropped by the log"), 0);
    }

    #[test]
    fn records_are_counted_by_pid_and_key() {
        let dir = std::env::temp_dir().join(format!("fa-bench-count-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("log");
        std::fs::write(
            &log,
            "type=SYSCALL msg=audit(1.000:1): arch=c000003e syscall=268 success=yes exit=0 ppid=1 pid=42 auid=0 key=\"k\"\n\
             type=PROCTITLE msg=audit(1.000:1): proctitle=6C73\n\
             type=SYSCALL msg=audit(1.000:2): arch=c000003e syscall=268 success=yes exit=0 ppid=1 pid=420 auid=0 key=\"k\"\n\
             type=SYSCALL msg=audit(1.000:3): arch=c000003e syscall=268 success=yes exit=0 ppid=1 pid=42 auid=0 key=\"other\"\n\
             type=SYSCALL msg=audit(1.000:4): arch=c000003e syscall=268 success=yes exit=0 ppid=1 pid=42 auid=0 key=\"k\"\n",
        )
        .unwrap();
        assert_eq!(count_records(&log, &[42], "k").unwrap(), [2]);
        assert_eq!(count_records(&log, &[420, 42, 7], "k").unwrap(), [1, 2, 0]);
        std::fs::copy(&log, dir.join("log.1")).unwrap();
        assert_eq!(
            count_records(&log, &[42], "k").unwrap(),
            [4],
            "rotated files count"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
