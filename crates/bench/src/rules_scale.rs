//! The rules-scale experiment: a file of 100,000 distinct rules, checked
//! (`fastaudit rules check`), listed (`rules list`) and compiled into the
//! BPF plan (`run --explain`), each timed as a whole command, as an
//! administrator runs it. Target: each under a second.
//!
//! No mode is involved: nothing is audited and the kernel audit is left
//! alone. `run --explain` as root probes the BPF hook kinds (do-nothing
//! programs attached and detached at once), so it runs under the kernel
//! audit lock, as every tool of the project that touches the kernel does.

use crate::{io, BenchError};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Rules in the generated file.
pub const RULES: usize = 100_000;

/// What the experiment measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scale {
    /// Rules in the file.
    pub rules: usize,
    /// Its size in bytes.
    pub bytes: u64,
    /// Each command, with its wall time in every round.
    pub steps: Vec<Step>,
}

/// One timed command.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Step {
    /// The command, as typed.
    pub command: String,
    /// Wall seconds, one per round.
    pub seconds: Vec<f64>,
    /// CPU seconds (user + system) of the command, one per round: on a
    /// busy machine the wall time also counts waiting for a CPU.
    #[serde(default)]
    pub cpu_seconds: Vec<f64>,
}

/// `n` distinct rules of the shapes real sets use: syscall rules on
/// auid, uid and arguments with keys, `never` rules, and watches (on
/// files that need not exist: only their directory, /etc, must).
pub fn generate(n: usize) -> String {
    let mut s = String::with_capacity(n * 64);
    for i in 0..n {
        let id = 1_000_000 + i;
        let _ = match i % 10 {
            0..=3 => writeln!(
                s,
                "-a always,exit -F arch=b64 -S chmod,fchmod -F auid={id} -F key=scale{i}"
            ),
            4..=6 => writeln!(
                s,
                "-a always,exit -F arch=b64 -S openat -F uid={id} -F success=0"
            ),
            7 | 8 => writeln!(s, "-a never,exit -F arch=b32 -S open -F a1={i}"),
            _ => writeln!(s, "-w /etc/fastaudit-scale-{i} -p wa -k w{i}"),
        };
    }
    s
}

/// Generate the file in `dir`, then time each command `rounds` times;
/// the listing must hold every rule.
pub fn run(fastaudit: &Path, dir: &Path, n: usize, rounds: usize) -> Result<Scale, BenchError> {
    std::fs::create_dir_all(dir).map_err(io("creating the rules-scale directory"))?;
    let file = dir.join("scale.rules");
    let text = generate(n);
    std::fs::write(&file, &text).map_err(io("writing the rules-scale file"))?;
    let path = file.to_string_lossy().into_owned();
    let commands: [&[&str]; 3] = [
        &["rules", "check", &path],
        &["rules", "list", &path],
        &["run", "--explain", "--rules", &path],
    ];
    let mut steps: Vec<Step> = commands
        .iter()
        .map(|args| Step {
            command: format!("fastaudit {}", args.join(" ")),
            seconds: Vec::new(),
            cpu_seconds: Vec::new(),
        })
        .collect();
    for _ in 0..rounds {
        for (args, step) in commands.iter().zip(&mut steps) {
            let (seconds, cpu, stdout) = timed(fastaudit, args)?;
            if args[1] == "list" {
                let listed = stdout
                    .split(|&b| b == b'\n')
                    .filter(|l| !l.is_empty())
                    .count();
                if listed != n {
                    return Err(BenchError::Command(format!(
                        "{}: listed {listed} rules of {n}",
                        step.command
                    )));
                }
            }
            step.seconds.push(seconds);
            step.cpu_seconds.push(cpu);
        }
    }
    let _ = std::fs::remove_file(&file);
    Ok(Scale {
        rules: n,
        bytes: text.len() as u64,
        steps,
    })
}

/// Run `fastaudit ARGS`, under the kernel audit lock when root; its wall
/// time, CPU time and stdout. A failure is an error (every rule must be
/// accepted).
fn timed(fastaudit: &Path, args: &[&str]) -> Result<(f64, f64, Vec<u8>), BenchError> {
    let _lock = if nix::unistd::geteuid().is_root() {
        Some(crate::kernel::take_lock()?)
    } else {
        None
    };
    let cpu_before = children_cpu();
    let start = Instant::now();
    let out = Command::new(fastaudit)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(io(format!("running {}", fastaudit.display())))?;
    let seconds = start.elapsed().as_secs_f64();
    let cpu = children_cpu() - cpu_before;
    if !out.status.success() {
        return Err(BenchError::Command(format!(
            "fastaudit {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or_default()
        )));
    }
    Ok((seconds, cpu, out.stdout))
}

/// User + system seconds of every waited-for child so far.
fn children_cpu() -> f64 {
    use nix::libc;
    // SAFETY: rusage is plain integers, for which all zeroes is a value.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes the struct it is given.
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) } != 0 {
        return 0.0;
    }
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// The experiment as a small table: the median of each command.
pub fn table(s: &Scale) -> String {
    let mut out = format!(
        "rules-scale: {} distinct rules ({:.1} MB), median of {} round(s), target < 1 s\n  wall s    CPU s     command\n",
        s.rules,
        s.bytes as f64 / 1e6,
        s.steps.first().map_or(0, |st| st.seconds.len())
    );
    for st in &s.steps {
        let _ = writeln!(
            out,
            "  {:<8.3}  {:<8.3}  {}",
            crate::stats::median(&st.seconds),
            crate::stats::median(&st.cpu_seconds),
            st.command
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_rules_are_distinct() {
        let text = generate(1000);
        let lines: std::collections::BTreeSet<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1000);
    }
}
