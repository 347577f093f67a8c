//! Command line syntax (clap).

use clap::{Args, Parser, Subcommand};
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
    /// Size of the kernel-to-fastaudit ring buffer, in KiB (a power of two).
    #[arg(long, default_value_t = 16384)]
    pub ring_buffer_kib: u32,
    /// Print the plan (hooks, rules per syscall) and exit without attaching.
    #[arg(long)]
    pub explain: bool,
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
