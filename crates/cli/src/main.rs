//! `fastaudit`: command line wiring of the fastaudit crates.

mod bench_cmd;
mod cli;
mod rules_cmd;
mod run_cmd;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = cli::Cli::parse();
    let result = match args.command {
        cli::Command::Rules(cmd) => rules_cmd::run(cmd),
        cli::Command::Run(args) => run_cmd::run(args),
        cli::Command::Bench(args) => bench_cmd::run(args),
        cli::Command::BenchWorker { job } => bench_cmd::worker(&job),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fastaudit: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
