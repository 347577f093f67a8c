//! Wiring of the benchmark harness to the terminal and files, and the worker.

use crate::args::{BenchArgs, BenchMode};
use anyhow::{bail, Context, Result};
use fastaudit_bench::modes::Mode;
use fastaudit_bench::{report, rules_scale, rulesets, startup, worker, Config, Scenario};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The daemon the fastaudit mode runs, installed beside this binary.
const FASTAUDIT: &str = "fastaudit";
/// The experiment that runs outside the modes (see `rules_scale`).
const RULES_SCALE: &str = "rules-scale";
/// The start-up experiment (see `startup`): named only, outside the modes.
const STARTUP: &str = "startup";

/// The first argument that makes this binary write its man page.
pub const GENERATE_MAN: &str = "generate-man";

/// Write fastaudit-bench(8) from the command line's definition (section 8,
/// as fastaudit's own pages, which refer to it); print its name.
pub fn generate_man(args: &crate::args::GenerateMan) -> Result<ExitCode> {
    use clap::CommandFactory;
    use clap_mangen::roff::{roman, Roff};
    let man = clap_mangen::Man::new(BenchArgs::command())
        .section("8")
        .date(&args.date)
        .source(format!("fastaudit {}", env!("CARGO_PKG_VERSION")));
    let mut page = Vec::new();
    man.render(&mut page).context("rendering the man page")?;
    let mut roff = Roff::new();
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(
        "fastaudit(8), fastaudit-run(8), auditd(8), auditctl(8)",
    )]);
    roff.to_writer(&mut page)
        .context("rendering the man page")?;
    let path = args.dir.join(man.get_filename());
    std::fs::write(&path, page).with_context(|| format!("writing {}", path.display()))?;
    println!("{}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// Run the benchmark; print the table; write the JSON and the report.
pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let exe = std::env::current_exe().context("finding the fastaudit-bench binary")?;
    // rules-scale measures fastaudit alone, outside the modes.
    let scale = args.scenarios.is_empty() || args.scenarios.iter().any(|s| s == RULES_SCALE);
    if args.scenarios.iter().any(|s| s == STARTUP) {
        return startup(&args, &exe);
    }
    let named: Vec<&String> = args
        .scenarios
        .iter()
        .filter(|s| *s != RULES_SCALE)
        .collect();
    let scenarios: Vec<Scenario> = if args.scenarios.is_empty() {
        Scenario::ALL.to_vec()
    } else {
        named
            .iter()
            .map(|s| s.parse::<Scenario>().map_err(anyhow::Error::msg))
            .collect::<Result<_>>()?
    };
    let modes: Vec<Mode> = args
        .modes
        .iter()
        .map(|m| match m {
            BenchMode::Off => Mode::Off,
            BenchMode::Kernel => Mode::Kernel,
            BenchMode::Fastaudit => Mode::Fastaudit,
            BenchMode::FastauditBase => Mode::FastauditBase,
        })
        .collect();
    let corpus = args.corpus.clone().or_else(|| rulesets::find_corpus(&exe));
    let config = Config {
        fastaudit: exe.with_file_name(FASTAUDIT),
        baseline: args.baseline.clone(),
        worker: exe,
        scenarios,
        modes,
        rule_sets: args.rule_sets.clone(),
        quick: args.quick,
        rounds: args.rounds,
        corpus,
        scratch: std::env::temp_dir().join(format!("fastaudit-bench-{}", std::process::id())),
    };
    if let Some(path) = &args.from_json {
        let text = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let results: fastaudit_bench::Results = serde_json::from_slice(&text)
            .with_context(|| format!("{}: not a fastaudit bench --json file", path.display()))?;
        return output(&args, &results);
    }
    let rounds = args.rounds.unwrap_or(if args.quick { 1 } else { 3 });
    let run_scale = || -> Result<rules_scale::Scale> {
        eprintln!(
            "fastaudit bench: rules-scale ({} rules)",
            rules_scale::RULES
        );
        rules_scale::run(
            &config.fastaudit,
            &config.scratch.join("rules-scale"),
            rules_scale::RULES,
            rounds,
        )
        .context("rules-scale")
    };
    if config.scenarios.is_empty() {
        let s = run_scale()?;
        let _ = std::fs::remove_dir_all(&config.scratch);
        print!("{}", rules_scale::table(&s));
        if let Some(path) = &args.json {
            let text = serde_json::to_string_pretty(&s).context("encoding the results")?;
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if config.modes.contains(&Mode::Fastaudit) && !config.fastaudit.is_file() {
        bail!(
            "the fastaudit mode runs {}, which is missing (fastaudit-bench expects \
             the fastaudit binary beside it)",
            config.fastaudit.display()
        );
    }
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))
            .context("installing signal handlers")?;
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("[{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .context("progress bar template")?,
    );
    let tty = std::io::stderr().is_terminal();
    let mut progress = |done: usize, total: usize, what: &str| {
        if tty {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(what.to_string());
        } else {
            // No terminal (CI logs): one plain line per step.
            eprintln!("fastaudit bench: [{}/{total}] {what}", done + 1);
        }
    };
    let results = fastaudit_bench::run(&config, &stop, &mut progress);
    bar.finish_and_clear();
    let mut results = results.context("benchmark")?;
    if scale {
        results.rules_scale = Some(run_scale()?);
        let _ = std::fs::remove_dir_all(&config.scratch);
    }
    output(&args, &results)
}

/// The start-up experiment alone: the fastaudit beside this binary, and
/// the --baseline one alternating with it in every round.
fn startup(args: &BenchArgs, exe: &std::path::Path) -> Result<ExitCode> {
    if args.scenarios.len() > 1 {
        bail!("{STARTUP} runs alone: name no other scenario with it");
    }
    if !args.modes.contains(&BenchMode::Fastaudit) {
        bail!("{STARTUP} measures the fastaudit mode's daemon: --modes must include fastaudit");
    }
    let mut binaries = vec![("fastaudit".to_string(), exe.with_file_name(FASTAUDIT))];
    if let Some(b) = &args.baseline {
        binaries.push(("baseline".to_string(), b.clone()));
    }
    for (_, b) in &binaries {
        if !b.is_file() {
            bail!("{}: no such fastaudit binary", b.display());
        }
    }
    let scratch = std::env::temp_dir().join(format!("fastaudit-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).context("creating the scratch directory")?;
    let corpus = args.corpus.clone().or_else(|| rulesets::find_corpus(exe));
    let names: Vec<String> = args.rule_sets.clone().unwrap_or_else(|| {
        startup::DEFAULT_SETS
            .iter()
            .map(|s| s.to_string())
            .collect()
    });
    let mut sets = Vec::new();
    for n in &names {
        let p = startup::prepare(n, corpus.as_deref(), &scratch)
            .with_context(|| format!("rule set {n}"))?;
        for l in &p.left_out {
            eprintln!("fastaudit bench: {n}: left out: {l}");
        }
        sets.push(p);
    }
    let rounds = args.rounds.unwrap_or(if args.quick { 1 } else { 5 });
    let result = startup::run(&binaries, &sets, &scratch, rounds, startup::IDLE, |what| {
        eprintln!("fastaudit bench: {what}")
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let result = result.context(STARTUP)?;
    print!("{}", startup::table(&result));
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&result).context("encoding the results")?;
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Print the table; write the JSON and the report when asked.
fn output(args: &BenchArgs, results: &fastaudit_bench::Results) -> Result<ExitCode> {
    print!("{}", report::table(results));
    if let Some(s) = &results.rules_scale {
        print!("{}", rules_scale::table(s));
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(results).context("encoding the results")?;
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(dir) = &args.report {
        report::write_report(results, dir)
            .with_context(|| format!("writing the report into {}", dir.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The worker: run one job (JSON), print its report as JSON.
pub fn worker(job: Option<&OsString>) -> Result<ExitCode> {
    let job = job
        .and_then(|j| j.to_str())
        .context("reading the job: expected one JSON argument")?;
    let job: worker::Job = serde_json::from_str(job).context("reading the job")?;
    let report = worker::run(&job).map_err(anyhow::Error::msg)?;
    println!(
        "{}",
        serde_json::to_string(&report).context("encoding the report")?
    );
    Ok(ExitCode::SUCCESS)
}
