//! Command line syntax of `fastaudit bench` (clap).

use clap::Parser;
use std::path::PathBuf;

/// Measure no audit vs kernel audit vs fastaudit, side by side (root).
#[derive(Debug, Parser)]
// Usage and errors name the command users type, not this binary.
#[command(name = "fastaudit-bench", bin_name = "fastaudit bench")]
pub struct BenchArgs {
    /// Scenarios to run: getpid, audited, lmbench, threads, io_uring,
    /// compile, redis (redis-benchmark SET and GET against a private
    /// redis-server over loopback), rules-scale (100,000 rules checked, listed and compiled; no
    /// mode, no root needed), startup (exec until ready and idle memory of
    /// `fastaudit run`, with --baseline beside it; rule sets default, stig,
    /// scale-1000 unless named) [default: all but startup]
    #[arg(value_name = "SCENARIO")]
    pub scenarios: Vec<String>,
    /// Modes, run interleaved in this order in every round.
    #[arg(
        long,
        value_enum,
        value_name = "MODES",
        value_delimiter = ',',
        default_value = "off,kernel,fastaudit"
    )]
    pub modes: Vec<BenchMode>,
    /// Rule sets for every scenario instead of each one's defaults: none, a
    /// count of non-matching rules (100), cis, stig, ospp, pci-dss, neo23x0,
    /// or a rules file [default: each scenario's own]
    #[arg(long = "rules-sets", value_name = "SETS", value_delimiter = ',')]
    pub rule_sets: Option<Vec<String>>,
    /// Run every scenario briefly (under 3 minutes in all).
    #[arg(long)]
    pub quick: bool,
    /// Rounds per scenario and rule set [default: 5, compile and
    /// rules-scale 3; with --quick 2, rules-scale and startup 1]
    #[arg(long, value_name = "N")]
    pub rounds: Option<usize>,
    /// Write every sample and the machine facts here, as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a Markdown report with SVG charts into this directory.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// The corpus of real rule sets: a directory holding
    /// audit-userspace/30-stig.rules, 30-ospp-v42.rules, 30-pci-dss-v31.rules
    /// and community/neo23x0-audit.rules [default: $FASTAUDIT_CORPUS, else
    /// ../shared/corpus/rules from the working directory or the source
    /// checkout; without one, stig, ospp and pci-dss come from auditd's
    /// examples (/usr/share/doc/auditd/examples/rules) and neo23x0 is left
    /// out]
    #[arg(long, value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// Another fastaudit binary (an earlier build), run by the
    /// fastaudit-base mode in the same rounds, and alternately with
    /// fastaudit in every round of the startup scenario.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<std::path::PathBuf>,
    /// Do not run: print the table and write the report of an earlier
    /// run's --json file.
    #[arg(long, value_name = "FILE")]
    pub from_json: Option<PathBuf>,
}

/// `fastaudit-bench generate-man --date DATE DIR`: writes
/// fastaudit-bench(8) (scripts/package.sh), apart from [`BenchArgs`] so
/// that the benchmark's help does not offer it.
#[derive(Debug, Parser)]
#[command(name = "fastaudit-bench generate-man")]
pub struct GenerateMan {
    /// Where to write it (it must exist).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The date the page carries (YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    pub date: String,
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
