//! The run: which scenarios with which rule sets, in interleaved rounds of
//! every mode, each workload in a fresh worker process.

use crate::facts::Facts;
use crate::kernel::{self, KernelGuard};
use crate::modes::{self, Mode};
use crate::rulesets::{self, Prepared, Spec, AUDITED_KEY};
use crate::worker::{Job, Report, Work};
use crate::{io, BenchError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

/// The experiments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scenario {
    /// getpid() latency against the number and kind of rules.
    Getpid,
    /// fchmodat() selected by a rule: added latency, events/s, losses.
    Audited,
    /// lmbench's operations.
    Lmbench,
    /// sysbench threads.
    Threads,
    /// io_uring NOP, random 4 KiB reads, openat+close inline and in io-wq.
    #[serde(rename = "io_uring")]
    IoUring,
    /// make -jN of a generated C project (kernbench in small).
    Compile,
    /// redis-benchmark SET and GET over loopback against redis-server.
    Redis,
}

impl Scenario {
    /// Every scenario, in run order.
    pub const ALL: [Scenario; 7] = [
        Scenario::Getpid,
        Scenario::Audited,
        Scenario::Lmbench,
        Scenario::Threads,
        Scenario::IoUring,
        Scenario::Compile,
        Scenario::Redis,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Getpid => "getpid",
            Scenario::Audited => "audited",
            Scenario::Lmbench => "lmbench",
            Scenario::Threads => "threads",
            Scenario::IoUring => "io_uring",
            Scenario::Compile => "compile",
            Scenario::Redis => "redis",
        }
    }

    /// The rule sets it runs with unless told otherwise.
    fn default_sets(self, quick: bool) -> &'static [&'static str] {
        match (self, quick) {
            (Scenario::Getpid, true) => &["none", "100", "stig"],
            (Scenario::Getpid, false) => &[
                "none", "1", "10", "100", "1000", "stig", "ospp", "pci-dss", "cis", "neo23x0",
            ],
            (Scenario::Audited, true) => &["none"],
            // The judged path's goals name every real rule set.
            (Scenario::Lmbench | Scenario::Threads, false) => {
                &["none", "100", "stig", "ospp", "pci-dss", "cis", "neo23x0"]
            }
            (Scenario::Lmbench, true) => &["stig"],
            (Scenario::Threads, true) => &["100"],
            (Scenario::IoUring, true) => &["none", "uring"],
            (Scenario::IoUring, false) => &["none", "uring", "100"],
            (Scenario::Compile, true) => &["stig"],
            (Scenario::Compile, false) => &["none", "stig"],
            (Scenario::Redis, true) => &["stig"],
            (Scenario::Redis, false) => &["none", "stig", "neo23x0"],
            (_, false) => &["none", "100", "stig"],
        }
    }

    /// Single-threaded workloads are pinned; threads, make and redis (a
    /// server and its client) are not.
    fn pinned(self) -> bool {
        !matches!(
            self,
            Scenario::Threads | Scenario::Compile | Scenario::Redis
        )
    }

    /// The workloads of one round, run one after the other under the same
    /// mode. The audited scenario's writer is pinned to the last CPU, as
    /// the kernel mode's was measured, for 10 s: the added latency of a
    /// call (its batches) and the sustained rate the log receives, with
    /// the auditing side on the other CPUs.
    fn works(self, quick: bool, dir: &Path, cpus: usize) -> Vec<Work> {
        let t = |quick_s: f64, full_s: f64| if quick { quick_s } else { full_s };
        vec![match self {
            Scenario::Getpid => Work::Getpid {
                seconds: t(0.2, 1.0),
            },
            Scenario::Audited => Work::Audited {
                file: dir.join("audited-file"),
                seconds: t(2.0, 10.0),
                writers: 1,
            },
            Scenario::Lmbench => Work::Lmbench {
                dir: dir.to_path_buf(),
                seconds: t(0.05, 0.3),
            },
            Scenario::Threads => Work::Threads {
                counts: if quick { vec![1, 4] } else { vec![1, 2, 4, 8] },
                seconds: t(0.2, 1.0),
            },
            Scenario::IoUring => Work::IoUring {
                dir: dir.to_path_buf(),
                seconds: t(0.2, 1.0),
            },
            Scenario::Compile => Work::Compile {
                dir: dir.join("project"),
                files: if quick { 12 } else { 160 },
                jobs: cpus,
            },
            // redis-benchmark's defaults (50 connections, no pipelining),
            // about half a second per test and batch here.
            Scenario::Redis => Work::Redis {
                dir: dir.join("redis"),
                requests: if quick { 10_000 } else { 50_000 },
                clients: 50,
                batches: if quick { 1 } else { 3 },
            },
        }]
    }
}

/// Whether a workload runs on the pinned CPU: single-threaded ones do.
fn pinned(scenario: Scenario, work: &Work) -> bool {
    match work {
        Work::Audited { writers, .. } => *writers <= 1,
        _ => scenario.pinned(),
    }
}

impl std::str::FromStr for Scenario {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Scenario::ALL
            .into_iter()
            .find(|c| c.name() == s || (s == "io-uring" && *c == Scenario::IoUring))
            .ok_or_else(|| {
                format!(
                    "unknown scenario {s:?} (one of {})",
                    Scenario::ALL.map(Scenario::name).join(", ")
                )
            })
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The fastaudit binary (for `run`: the fastaudit mode and `--explain`).
    pub fastaudit: PathBuf,
    /// Another fastaudit binary, for the fastaudit-base mode.
    pub baseline: Option<PathBuf>,
    /// The binary that runs a workload as `BINARY bench-worker JOB`.
    pub worker: PathBuf,
    /// Scenarios, in order.
    pub scenarios: Vec<Scenario>,
    /// Modes among off, kernel and fastaudit, in round order.
    pub modes: Vec<Mode>,
    /// Rule sets for every scenario instead of each one's defaults.
    pub rule_sets: Option<Vec<String>>,
    /// Short runs: every scenario briefly.
    pub quick: bool,
    /// Rounds per scenario and rule set instead of the default.
    pub rounds: Option<usize>,
    /// The shared corpus of real rule sets.
    pub corpus: Option<PathBuf>,
    /// A private scratch directory (created, and removed at the end).
    pub scratch: PathBuf,
}

/// One measurement: one metric of one worker in one round.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sample {
    /// The scenario.
    pub scenario: Scenario,
    /// What was measured.
    pub metric: String,
    /// Its unit (lower is better).
    pub unit: String,
    /// The rule set's name.
    pub rule_set: String,
    /// The mode.
    pub mode: Mode,
    /// The round (0-based).
    pub round: usize,
    /// The value (median of the worker's batches).
    pub value: f64,
    /// Every batch of the worker.
    pub batches: Vec<f64>,
    /// Operations done.
    pub ops: u64,
    /// Seconds spent.
    pub seconds: f64,
    /// Event accounting, for the audited scenario: generated, logged, lost,
    /// unaccounted, events_per_s, drain_s.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub events: BTreeMap<String, f64>,
}

/// One scenario with one rule set.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Group {
    /// The scenario.
    pub scenario: Scenario,
    /// The rule set as loaded.
    pub rule_set: Prepared,
    /// The hooks fastaudit attaches for it (`fastaudit run --explain`).
    pub fastaudit_hooks: Vec<String>,
    /// Modes that could not run it, and why.
    pub not_run: BTreeMap<String, String>,
    /// Modes run, in round order.
    pub modes: Vec<Mode>,
}

/// Everything a run produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Results {
    /// The machine.
    pub facts: Facts,
    /// Whether it was a --quick run.
    pub quick: bool,
    /// The CPU single-threaded workers were pinned to.
    pub pinned_cpu: Option<usize>,
    /// Each scenario with each rule set.
    pub groups: Vec<Group>,
    /// Every sample.
    pub samples: Vec<Sample>,
    /// Rule sets left out and other remarks.
    pub notes: Vec<String>,
    /// The rules-scale experiment, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_scale: Option<crate::rules_scale::Scale>,
}

/// Run the benchmark. `progress(done, total, what)` is called before each
/// step; `stop` (set by a signal handler) ends the run early, restoring the
/// machine. The kernel audit state found at the start is restored at the end.
pub fn run(
    config: &Config,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Results, BenchError> {
    if !nix::unistd::geteuid().is_root() {
        return Err(BenchError::Refused(
            "bench must run as root (it drives the kernel audit and loads BPF)".into(),
        ));
    }
    let started = Facts::read().started;
    std::fs::create_dir_all(&config.scratch).map_err(io("creating the scratch directory"))?;
    // Everything that can be refused is checked before the kernel is touched.
    let result = plan(config).and_then(|(groups, notes)| {
        let guard = take_guard(config)?;
        let mut notes = notes;
        if guard.is_untouched() {
            notes.push(format!(
                "the kernel audit was left untouched (enabled {}, its only rule -a never,task): \
                 off is the kernel as found",
                guard.saved().enabled
            ));
        }
        let r = run_locked(config, groups, notes, guard.is_untouched(), stop, progress);
        drop(guard);
        r
    });
    let _ = std::fs::remove_dir_all(&config.scratch);
    let mut results = result?;
    // Read now: fastaudit mounts tracefs when it first runs.
    results.facts = Facts::read();
    results.facts.started = started;
    results.facts.hooks.probed = probed_kinds(&config.fastaudit);
    Ok(results)
}

/// The kernel guard: it cleans and restores the kernel audit, unless the
/// kernel is locked (enabled 2) and no mode needs to change it; then it
/// checks the kernel is a clean baseline as it is and sends it nothing.
fn take_guard(config: &Config) -> Result<KernelGuard, BenchError> {
    let changes = |m: &Mode| matches!(m, Mode::Kernel | Mode::OffResidue);
    if kernel::Status::read()?.enabled == 2 && !config.modes.iter().any(changes) {
        return KernelGuard::untouched();
    }
    KernelGuard::take(&config.scratch)
}

/// The hook kinds `fastaudit run` probes, with their answers (empty if it
/// cannot say).
fn probed_kinds(exe: &Path) -> Vec<String> {
    let empty = std::env::temp_dir().join(format!("fastaudit-bench-{}.rules", std::process::id()));
    if std::fs::write(&empty, "").is_err() {
        return Vec::new();
    }
    let out = Command::new(exe)
        .args(["run", "--explain", "--rules"])
        .arg(&empty)
        .output();
    let _ = std::fs::remove_file(&empty);
    let Ok(out) = out else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip_while(|l| !l.starts_with("hook kinds"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect()
}

/// Each scenario with each of its rule sets, prepared; and remarks.
fn plan(config: &Config) -> Result<(Vec<Group>, Vec<String>), BenchError> {
    let mut notes = Vec::new();
    let sets_dir = config.scratch.join("rule-sets");
    std::fs::create_dir_all(&sets_dir).map_err(io("creating the rule-set directory"))?;
    let mut groups = Vec::new();
    for &scenario in &config.scenarios {
        let (names, explicit): (Vec<String>, bool) = match &config.rule_sets {
            Some(v) => (v.clone(), true),
            None => (
                scenario
                    .default_sets(config.quick)
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                false,
            ),
        };
        for name in names {
            let spec = match Spec::parse(&name, config.corpus.as_deref()) {
                Ok(s) => s,
                Err(e) if !explicit => {
                    notes.push(format!("{}: rule set left out: {e}", scenario.name()));
                    continue;
                }
                Err(e) => return Err(e),
            };
            let extra = if scenario == Scenario::Audited {
                format!("-a always,exit -F arch=b64 -S fchmodat -F key={AUDITED_KEY}\n")
            } else {
                String::new()
            };
            let label = format!("{}-{name}", scenario.name());
            let prepared = rulesets::prepare(&label, &spec, &extra, &sets_dir)?;
            let prepared = Prepared { name, ..prepared };
            let mut not_run = BTreeMap::new();
            let fastaudit_hooks = match explain(&config.fastaudit, &prepared.file) {
                Ok(h) => h,
                Err(why) => {
                    not_run.insert(Mode::Fastaudit.name().to_string(), why);
                    Vec::new()
                }
            };
            let mut modes = config.modes.clone();
            // The residue of audit switched off (no never,task) once it has
            // been on: measured beside getpid with no rules, after the kernel mode.
            if scenario == Scenario::Getpid
                && prepared.rules == 0
                && config.modes.contains(&Mode::Kernel)
            {
                modes.push(Mode::OffResidue);
            }
            groups.push(Group {
                scenario,
                rule_set: prepared,
                fastaudit_hooks,
                not_run,
                modes,
            });
        }
    }
    Ok((groups, notes))
}

fn run_locked(
    config: &Config,
    mut groups: Vec<Group>,
    notes: Vec<String>,
    untouched: bool,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Results, BenchError> {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let pin = cpus.checked_sub(1);
    let rounds = |s: Scenario| {
        config.rounds.unwrap_or(match (config.quick, s) {
            (true, _) => 2,
            (false, Scenario::Compile) => 3,
            (false, _) => 5,
        })
    };
    let total: usize = groups
        .iter()
        .map(|g| rounds(g.scenario) * g.modes.len())
        .sum();
    let mut done = 0;
    let mut samples = Vec::new();
    for g in &mut groups {
        for round in 0..rounds(g.scenario) {
            for &mode in &g.modes.clone() {
                if stop.load(Ordering::Relaxed) {
                    return Err(BenchError::Interrupted);
                }
                progress(
                    done,
                    total,
                    &format!(
                        "{} rules={} {} round {}",
                        g.scenario.name(),
                        g.rule_set.name,
                        mode.name(),
                        round + 1
                    ),
                );
                done += 1;
                if g.not_run.contains_key(mode.name()) {
                    continue;
                }
                let dir = config
                    .scratch
                    .join(format!("round-{}-{}", done, mode.name()));
                match one(config, g, mode, round, &dir, (pin, cpus), untouched) {
                    Ok(mut s) => samples.append(&mut s),
                    Err(e) => {
                        g.not_run.insert(mode.name().to_string(), e.to_string());
                    }
                }
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
    Ok(Results {
        facts: Facts::read(),
        quick: config.quick,
        pinned_cpu: pin,
        groups,
        samples,
        notes,
        rules_scale: None,
    })
}

/// One round of one mode: set up, run the worker, tear down, account.
fn one(
    config: &Config,
    g: &Group,
    mode: Mode,
    round: usize,
    dir: &Path,
    (pin, cpus): (Option<usize>, usize),
    untouched: bool,
) -> Result<Vec<Sample>, BenchError> {
    std::fs::create_dir_all(dir).map_err(io("creating a round directory"))?;
    let mut jobs = Vec::new();
    for work in g.scenario.works(config.quick, dir, cpus) {
        if let Work::Audited { file, writers, .. } = &work {
            for i in 0..(*writers).max(1) {
                std::fs::write(crate::worker::writer_file(file, i), b"audited")
                    .map_err(io("creating the audited file"))?;
            }
        }
        jobs.push(Job {
            pin: if pinned(g.scenario, &work) { pin } else { None },
            work,
        });
    }
    let exe = match (mode, &config.baseline) {
        (Mode::FastauditBase, Some(base)) => base,
        (Mode::FastauditBase, None) => {
            return Err(BenchError::Refused(
                "the fastaudit-base mode needs --baseline".into(),
            ))
        }
        _ => &config.fastaudit,
    };
    let active = modes::setup(mode, &g.rule_set, exe, dir, untouched)?;
    // Every workload of the round, stopping at the first that fails.
    let mut reports = Vec::new();
    let mut failed = None;
    for job in &jobs {
        match worker(&config.worker, job) {
            Ok(r) => reports.push(r),
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    let ended = active.end(g.scenario == Scenario::Audited && mode != Mode::Off)?;
    if let Some(e) = failed {
        return Err(e);
    }
    let events = if g.scenario == Scenario::Audited {
        accounting(&reports, &ended, mode)?
    } else {
        BTreeMap::new()
    };
    let last = reports.len().saturating_sub(1);
    Ok(reports
        .into_iter()
        .enumerate()
        .flat_map(|(i, r)| r.measured.into_iter().map(move |m| (i, m)))
        .map(|(i, m)| Sample {
            scenario: g.scenario,
            metric: m.metric,
            unit: m.unit,
            rule_set: g.rule_set.name.clone(),
            mode,
            round,
            value: m.value,
            batches: m.batches,
            ops: m.ops,
            seconds: m.seconds,
            // The round's accounting once, on its last workload's sample.
            events: if i == last {
                events.clone()
            } else {
                BTreeMap::new()
            },
        })
        .collect())
}

/// The audited scenario's event accounting for one round: generated,
/// logged and lost over all of its workloads (generated = logged + lost
/// must hold for the round as a whole: drops are counted for the whole
/// run); the rate is the last workload's (the sustained one), up to the
/// moment the log held all of its events.
fn accounting(
    reports: &[Report],
    ended: &modes::Ended,
    mode: Mode,
) -> Result<BTreeMap<String, f64>, BenchError> {
    let generated: u64 = reports
        .iter()
        .flat_map(|r| &r.measured)
        .map(|m| m.ops)
        .sum();
    let mut events = BTreeMap::new();
    events.insert("generated".into(), generated as f64);
    if mode == Mode::Off {
        return Ok(events);
    }
    let pids: Vec<u32> = reports.iter().map(|r| r.pid).collect();
    let logged = match &ended.log {
        Some(log) => modes::count_records(log, &pids, AUDITED_KEY)?,
        None => vec![0; pids.len()],
    };
    let total: u64 = logged.iter().sum();
    let (last_logged, last_seconds) = match reports.last() {
        Some(r) => (
            logged.last().copied().unwrap_or(0),
            r.measured.iter().map(|m| m.seconds).sum::<f64>(),
        ),
        None => (0, 0.0),
    };
    events.insert("logged".into(), total as f64);
    events.insert("lost".into(), ended.lost as f64);
    events.insert(
        "unaccounted".into(),
        generated as f64 - total as f64 - ended.lost as f64,
    );
    events.insert(
        "events_per_s".into(),
        last_logged as f64 / (last_seconds + ended.drain_seconds),
    );
    events.insert("drain_s".into(), ended.drain_seconds);
    Ok(events)
}

/// Run a job in a fresh `fastaudit-bench bench-worker` process.
fn worker(exe: &Path, job: &Job) -> Result<Report, BenchError> {
    let text = serde_json::to_string(job)
        .map_err(|e| BenchError::Command(format!("encoding a job: {e}")))?;
    let out = kernel::own_group(Command::new(exe).args([crate::worker::COMMAND, &text]))
        .stdin(Stdio::null())
        .output()
        .map_err(io("running the benchmark worker"))?;
    if !out.status.success() {
        return Err(BenchError::Command(format!(
            "the workload failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|e| BenchError::Command(format!("reading the worker's report: {e}")))
}

/// The hooks fastaudit attaches for a rule set, or why it refuses it.
fn explain(exe: &Path, rules: &Path) -> Result<Vec<String>, String> {
    let out = Command::new(exe)
        .arg("run")
        .arg("--explain")
        .arg("--rules")
        .arg(rules)
        .output()
        .map_err(|e| format!("running {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!(
            "not supported: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("fastaudit run --explain failed")
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip_while(|l| !l.starts_with("hooks:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_names_are_the_same_everywhere() {
        for s in Scenario::ALL {
            assert_eq!(
                serde_json::to_value(s).unwrap(),
                serde_json::Value::from(s.name())
            );
            assert_eq!(s.name().parse::<Scenario>().unwrap(), s);
        }
        assert!("nope".parse::<Scenario>().is_err());
    }

    #[test]
    fn quick_runs_use_fewer_rule_sets() {
        for s in Scenario::ALL {
            assert!(s.default_sets(true).len() <= s.default_sets(false).len());
        }
    }
}
