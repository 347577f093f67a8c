//! `fastaudit`: the command line. Each command is one function of a
//! library crate (the daemon is fastaudit_daemon) or of a small module
//! here.

mod bench_cmd;
mod cli;
mod config_cmd;
mod ctl_cmd;
mod exit;
mod generate;
mod rules_cmd;
mod run_cmd;
mod status_cmd;

use clap::Parser;
use std::ffi::OsString;

fn main() -> std::process::ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    let result = match bench_cmd::forwarded(&argv) {
        Some(args) => bench_cmd::exec(&args),
        None if generate::requested(&argv) => generate::run(argv),
        None => match cli::Cli::parse_from(argv).command {
            cli::Command::Rules(cmd) => rules_cmd::run(cmd),
            cli::Command::Run(args) => run_cmd::run(args),
            cli::Command::Config(cli::ConfigCommand::Check(args)) => config_cmd::check(args),
            cli::Command::Status => status_cmd::run(),
            cli::Command::Ctl { args } if cli::asks_for_help(&args) => Ok(cli::help_of(&["ctl"])),
            cli::Command::Ctl { args } => ctl_cmd::run(&args),
            cli::Command::Bench { args } => bench_cmd::exec(&args),
        },
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fastaudit: {e:#}");
            std::process::ExitCode::from(exit::FAILED)
        }
    }
}
