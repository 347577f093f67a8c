//! Command line syntax (clap).

use clap::{Args, Parser, Subcommand};
use fastaudit_engine::Kind;
use std::path::PathBuf;

/// fastaudit: Linux syscall auditing with auditctl rules, on eBPF.
#[derive(Debug, Parser)]
#[command(name = "fastaudit", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read, check and list auditctl rules.
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Audit the live system with the rules (root; runs in the foreground).
    Run(RunArgs),
    /// Measure no audit vs kernel audit vs fastaudit, side by side (root).
    Bench(BenchArgs),
    /// One measured workload (started by `bench` in a fresh process).
    #[command(name = "bench-worker", hide = true)]
    BenchWorker {
        /// The job, as JSON.
        job: String,
    },
}

/// `fastaudit bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Scenarios to run (default: all): getpid, audited, lmbench, threads,
    /// io_uring, compile.
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
}

/// `fastaudit run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Rules files or directories; default: /etc/audit/rules.d when present,
    /// else the built-in default rules.
    #[arg(long = "rules", num_args = 1..)]
    pub rules: Vec<PathBuf>,
    /// Audit log to append to.
    #[arg(long, default_value = "/var/log/fastaudit/audit.log")]
    pub log: PathBuf,
    /// Log line format.
    #[arg(long, value_enum, default_value_t = LogFormat::Raw)]
    pub format: LogFormat,
    /// Rotate the log when it reaches this many MiB (auditd's max_log_file);
    /// 0: never rotate.
    #[arg(long, default_value_t = 8)]
    pub max_log_file: u64,
    /// Log files kept when rotating, the live one included (auditd's num_logs).
    #[arg(long, default_value_t = 5)]
    pub num_logs: u32,
    /// Size of the kernel-to-fastaudit ring buffer, in KiB (a power of two).
    #[arg(long, default_value_t = 16384)]
    pub ring_buffer_kib: u32,
    /// Print the plan (hooks, hook kinds, rules per syscall) and exit
    /// without attaching.
    #[arg(long)]
    pub explain: bool,
    /// BPF hook kinds fastaudit may use (each is probed at start; the
    /// cheapest that works is chosen): tracepoint, tp_btf, raw_tp, fexit.
    #[arg(long, value_delimiter = ',', value_parser = parse_kind,
          default_value = "fexit,tracepoint,tp_btf,raw_tp")]
    pub hook_kinds: Vec<Kind>,
}

fn parse_kind(s: &str) -> Result<Kind, String> {
    Kind::parse(s)
        .ok_or_else(|| format!("unknown hook kind {s:?} (fexit, tracepoint, tp_btf, raw_tp)"))
}

/// Log line formats (auditd's log_format).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// As the kernel writes records.
    Raw,
    /// With interpreted ids, arch and syscall appended (auditd ENRICHED).
    Enriched,
}

/// `fastaudit rules ...`.
#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Print the rules as `auditctl -l` prints them once loaded.
    List(RulesArgs),
    /// Only check the rules; print nothing on success.
    Check(RulesArgs),
}

/// Rule sources.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Rules files, or directories of *.rules files (combined as augenrules does).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Also print the control settings (-b, -e, -f, ...) before the rules.
    #[arg(long)]
    pub settings: bool,
}
