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
