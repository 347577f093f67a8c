//! Command line syntax of `fastaudit bench` (clap).

use clap::Parser;
use std::path::PathBuf;

/// Measure no audit vs kernel audit vs fastaudit, side by side (root).
#[derive(Debug, Parser)]
// Usage and errors name the command users type, not this binary.
#[command(name = "fastaudit-bench", bin_name = "fastaudit bench")]
pub struct BenchArgs {
    /// Scenarios to run (default: all): getpid, audited, lmbench, threads,
    /// io_uring, compile, rules-scale (100,000 rules checked, listed and
    /// compiled; no mode, no root needed), startup (exec until ready and
    /// idle memory of `fastaudit run`, with --baseline beside it; not in
    /// the default list; rule sets default, stig, scale-1000 unless named).
    pub scenarios: Vec<String>,
    /// Modes, run interleaved in this order in every round.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "off,kernel,fastaudit"
    )]
    pub modes: Vec<BenchMode>,
    /// Rule sets for every scenario instead of each one's defaults: none, a
    /// count of non-matching rules (100), cis, stig, ospp, pci-dss, neo23x0,
    /// or a rules file.
    #[arg(long = "rules-sets", value_delimiter = ',')]
    pub rule_sets: Option<Vec<String>>,
    /// Run every scenario briefly (under 3 minutes in all).
    #[arg(long)]
    pub quick: bool,
    /// Rounds per scenario and rule set (default 5, 3 for compile, 2 with --quick).
    #[arg(long)]
    pub rounds: Option<usize>,
    /// Write every sample and the machine facts here, as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write a Markdown report with SVG charts into this directory.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// The corpus of real rule sets (default: ../shared/corpus/rules).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Another fastaudit binary (an earlier build), run by the
    /// fastaudit-base mode in the same rounds, and alternately with
    /// fastaudit in every round of the startup scenario.
    #[arg(long, value_name = "FASTAUDIT")]
    pub baseline: Option<std::path::PathBuf>,
    /// Do not run: print the table and write the report of an earlier
    /// run's --json file.
    #[arg(long, value_name = "JSON")]
    pub from_json: Option<PathBuf>,
}

/// Modes of `fastaudit bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchMode {
    /// No auditing.
    Off,
    /// Kernel audit + auditd.
    Kernel,
    /// fastaudit run.
    Fastaudit,
    /// fastaudit run with the --baseline binary (an earlier build).
    FastauditBase,
}
