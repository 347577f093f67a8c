//! The start-up experiment: how long `fastaudit run` takes from exec until
//! it says "fastaudit: ready" (every hook attached), and how much memory
//! it holds once idle, per rule set, for one or more fastaudit binaries
//! (an earlier build as the baseline) run alternately in every round.
//!
//! No mode is involved: each run is fastaudit as the audit daemon, as the
//! fastaudit mode starts it, and nothing else is sent to the kernel, so
//! it runs on a locked kernel (enabled 2) too. The experiment holds the
//! kernel audit lock throughout, as every tool of the project that
//! touches the kernel does (and so no other test's load skews a round).

use crate::kernel::{take_lock, terminate};
use crate::rulesets::{self, Prepared, Spec};
use crate::{io, BenchError};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

/// The rule sets measured when none are named: the built-in defaults,
/// STIG, and 1000 rules of the rules-scale generator.
pub const DEFAULT_SETS: &[&str] = &["default", "stig", "scale-1000"];

/// fastaudit's built-in default rules.
const DEFAULT_RULES: &str = include_str!("../../../rules/default.rules");

/// How long a run stays idle before its memory is read.
pub const IDLE: Duration = Duration::from_secs(2);

/// Longest wait for "ready".
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// What the experiment measured.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Startup {
    /// Seconds each run stayed idle before its memory was read.
    pub idle_seconds: f64,
    /// One entry per rule set and binary.
    pub runs: Vec<Runs>,
}

/// The rounds of one binary with one rule set.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Runs {
    /// The rule set's name.
    pub rule_set: String,
    /// Rules in it.
    pub rules: usize,
    /// Which binary ("fastaudit", or "baseline").
    pub binary: String,
    /// Seconds from exec until "fastaudit: ready", one per round.
    pub ready_seconds: Vec<f64>,
    /// Resident memory once idle (VmRSS), KiB, one per round.
    pub rss_kib: Vec<u64>,
    /// Of it, the BPF maps mapped into the process (the ring buffer), KiB.
    pub bpf_map_kib: Vec<u64>,
    /// Of it, anonymous memory (heap, stacks), KiB.
    pub anon_kib: Vec<u64>,
}

/// A rule set by name: `default` (the built-in rules), `scale-N` (N rules
/// of the rules-scale generator), or any name `--rules-sets` takes.
pub fn prepare(name: &str, corpus: Option<&Path>, dir: &Path) -> Result<Prepared, BenchError> {
    let generated = if name == "default" {
        Some(DEFAULT_RULES.to_string())
    } else {
        name.strip_prefix("scale-")
            .and_then(|n| n.parse::<usize>().ok())
            .map(crate::rules_scale::generate)
    };
    let spec = match generated {
        Some(text) => {
            let path = dir.join(format!("{name}.source.rules"));
            std::fs::write(&path, text).map_err(io("writing a rule set"))?;
            Spec::File { path }
        }
        None => Spec::parse(name, corpus)?,
    };
    rulesets::prepare(name, &spec, "", dir)
}

/// Measure every binary with every rule set, `rounds` times, alternating
/// the binaries within each round.
pub fn run(
    binaries: &[(String, PathBuf)],
    sets: &[Prepared],
    dir: &Path,
    rounds: usize,
    idle: Duration,
    mut progress: impl FnMut(&str),
) -> Result<Startup, BenchError> {
    let plugins = dir.join("no-plugins");
    std::fs::create_dir_all(&plugins).map_err(io("creating the plugin directory"))?;
    let _lock = take_lock()?;
    let mut out = Startup {
        idle_seconds: idle.as_secs_f64(),
        runs: Vec::new(),
    };
    for set in sets {
        for (label, _) in binaries {
            out.runs.push(Runs {
                rule_set: set.name.clone(),
                rules: set.rules,
                binary: label.clone(),
                ..Runs::default()
            });
        }
    }
    for round in 0..rounds {
        for (s, set) in sets.iter().enumerate() {
            for (b, (label, exe)) in binaries.iter().enumerate() {
                progress(&format!(
                    "start-up: round {}/{rounds}, {}, {label}",
                    round + 1,
                    set.name
                ));
                let one = measure(exe, set, dir, &plugins, idle)?;
                let r = &mut out.runs[s * binaries.len() + b];
                r.ready_seconds.push(one.ready);
                r.rss_kib.push(one.rss);
                r.bpf_map_kib.push(one.bpf_maps);
                r.anon_kib.push(one.anon);
            }
        }
    }
    Ok(out)
}

struct One {
    ready: f64,
    rss: u64,
    bpf_maps: u64,
    anon: u64,
}

/// One start: exec, wait for "ready", stay idle, read the memory, stop.
fn measure(
    exe: &Path,
    set: &Prepared,
    dir: &Path,
    plugins: &Path,
    idle: Duration,
) -> Result<One, BenchError> {
    let log = dir.join("startup.log");
    let _ = std::fs::remove_file(&log);
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let start = Instant::now();
    let mut child = crate::kernel::own_group(
        Command::new(exe)
            .args(["run", "--no-config", "--rules", &path(&set.file)])
            .args(["--log", &path(&log), "--max-log-file", "0"])
            .args(["--plugin-dir", &path(plugins)])
            .args(&set.fastaudit_args),
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .map_err(io(format!("starting {} run", exe.display())))?;
    let stderr = child.stderr.take();
    let (tx, lines) = channel();
    let reader = std::thread::spawn(move || {
        if let Some(stderr) = stderr {
            for l in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send((Instant::now(), l));
            }
        }
    });
    let mut said = Vec::new();
    let ready = loop {
        match lines.recv_timeout(READY_TIMEOUT) {
            Ok((at, l)) if l == "fastaudit: ready" => break Some(at - start),
            Ok((_, l)) => said.push(l),
            Err(_) => break None,
        }
    };
    let Some(ready) = ready else {
        terminate(&mut child);
        let _ = child.wait();
        let _ = reader.join();
        said.extend(lines.try_iter().map(|(_, l)| l));
        return Err(BenchError::Command(format!(
            "{} run ({}) was not ready: {}",
            exe.display(),
            set.name,
            said.join(" / ")
        )));
    };
    std::thread::sleep(idle);
    let memory = read_memory(child.id());
    terminate(&mut child);
    let status = child.wait().map_err(io("waiting for fastaudit"))?;
    let _ = reader.join();
    let (rss, anon, bpf_maps) = memory?;
    if !status.success() {
        said.extend(lines.try_iter().map(|(_, l)| l));
        return Err(BenchError::Command(format!(
            "{} run ({}) ended badly ({status}): {}",
            exe.display(),
            set.name,
            said.join(" / ")
        )));
    }
    Ok(One {
        ready: ready.as_secs_f64(),
        rss,
        bpf_maps,
        anon,
    })
}

/// VmRSS and RssAnon of /proc/PID/status, and the resident size of the
/// BPF map mappings in /proc/PID/smaps, in KiB.
fn read_memory(pid: u32) -> Result<(u64, u64, u64), BenchError> {
    let read = |f: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/{f}"))
            .map_err(io(format!("reading /proc/{pid}/{f}")))
    };
    let status = read("status")?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    let smaps = read("smaps")?;
    Ok((field("VmRSS:"), field("RssAnon:"), bpf_map_rss(&smaps)))
}

/// Rss of the mappings of BPF maps (`anon_inode:bpf-map`) in smaps text.
pub fn bpf_map_rss(smaps: &str) -> u64 {
    let mut in_map = false;
    let mut kib = 0;
    for l in smaps.lines() {
        let header = l.split_whitespace().next().is_some_and(|a| {
            a.contains('-') && a.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
        });
        if header {
            in_map = l.ends_with("anon_inode:bpf-map");
        } else if in_map {
            if let Some(v) = l.strip_prefix("Rss:") {
                kib += v
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or(0);
            }
        }
    }
    kib
}

/// The experiment as a table: medians of each binary with each rule set.
pub fn table(s: &Startup) -> String {
    let mut out = format!(
        "start-up: exec until \"fastaudit: ready\", and resident memory after {:.0} s idle (medians of {} round(s))\n  {:<14} {:>6}  {:<10} {:>9} {:>9} {:>9} {:>9}\n",
        s.idle_seconds,
        s.runs.first().map_or(0, |r| r.ready_seconds.len()),
        "rule set",
        "rules",
        "binary",
        "ready s",
        "RSS MiB",
        "BPF maps",
        "anon MiB",
    );
    let mib =
        |v: &[u64]| crate::stats::median(&v.iter().map(|&k| k as f64).collect::<Vec<_>>()) / 1024.0;
    for r in &s.runs {
        let _ = writeln!(
            out,
            "  {:<14} {:>6}  {:<10} {:>9.3} {:>9.1} {:>9.1} {:>9.1}",
            r.rule_set,
            r.rules,
            r.binary,
            crate::stats::median(&r.ready_seconds),
            mib(&r.rss_kib),
            mib(&r.bpf_map_kib),
            mib(&r.anon_kib),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bpf_map_mappings_are_summed() {
        let smaps = "\
55b3-55b4 rw-p 00000000 00:00 0                          [heap]
Size:               7600 kB
Rss:                7548 kB
7fd9-7fda r--s 00001000 00:0f 1042                       anon_inode:bpf-map
Size:              32772 kB
Rss:               32772 kB
7fdb-7fdc rw-s 00000000 00:0f 1042                       anon_inode:bpf-map
Size:                  4 kB
Rss:                   4 kB
";
        assert_eq!(bpf_map_rss(smaps), 32776);
    }

    #[test]
    fn named_sets_are_prepared() {
        let dir = std::env::temp_dir().join(format!("fa-bench-startup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = prepare("scale-100", None, &dir).unwrap();
        assert_eq!(p.rules, 100);
        let d = prepare("default", None, &dir).unwrap();
        assert!(std::fs::read(&d.file).is_ok());
        assert!(prepare("scale-x", None, &dir).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
