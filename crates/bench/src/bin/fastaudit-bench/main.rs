//! `fastaudit-bench`: the benchmark harness as its own binary, so the
//! daemon (`fastaudit`) links none of it (plotters, io-uring, indicatif).
//! Users run it as `fastaudit bench ARGS...`, which execs this binary from
//! beside `fastaudit` with ARGS untouched (as git runs `git-foo` for `git
//! foo`); it drives the `fastaudit` found beside it for the fastaudit mode,
//! and itself (`fastaudit-bench bench-worker JOB`) for every workload.

mod args;
mod run;

use clap::Parser;
use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    // The worker is started by the harness only, never typed: it is kept out
    // of the user's syntax (and of `fastaudit bench --help`) by being
    // recognised before clap sees the arguments; so is the man page writer.
    let result = match argv.get(1) {
        Some(first) if first == fastaudit_bench::worker::COMMAND => run::worker(argv.get(2)),
        Some(first) if first == run::GENERATE_MAN => {
            run::generate_man(&args::GenerateMan::parse_from(&argv[1..]))
        }
        _ => run::run(args::BenchArgs::parse_from(argv)),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // Reached as `fastaudit bench`: errors read as fastaudit's own.
            eprintln!("fastaudit: {e:#}");
            ExitCode::from(2)
        }
    }
}
