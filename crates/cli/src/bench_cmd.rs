//! `fastaudit bench`: the benchmark harness is the `fastaudit-bench` binary,
//! so that the daemon links none of it (plotters, io-uring, indicatif); this
//! hands it the command line, as git hands `git foo` to `git-foo`.

use anyhow::{Context, Result};
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

/// The benchmark binary, installed beside `fastaudit`.
const BENCH: &str = "fastaudit-bench";

/// The arguments for `fastaudit-bench` when the command line (`argv`, the
/// program name first) is the benchmark's: `bench ARGS...` gives ARGS as
/// typed, taken before clap parses them (it would drop a `--`), and `help
/// bench` gives `--help`, as clap would have printed the long help.
pub fn forwarded(argv: &[OsString]) -> Option<Vec<OsString>> {
    match argv.get(1..)? {
        [cmd, rest @ ..] if cmd == "bench" => Some(rest.to_vec()),
        [help, cmd] if help == "help" && cmd == "bench" => Some(vec!["--help".into()]),
        _ => None,
    }
}

/// Replace this process with `fastaudit-bench ARGS...`; returns only if it
/// could not be started.
pub fn exec(args: &[OsString]) -> Result<ExitCode> {
    let exe = std::env::current_exe().context("finding the fastaudit binary")?;
    let bench = exe.with_file_name(BENCH);
    let err = Command::new(&bench).args(args).exec();
    Err(err).with_context(|| {
        format!(
            "fastaudit bench runs {}, which could not be started \
             (cargo build --release builds it beside fastaudit)",
            bench.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<OsString> {
        s.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn bench_words_are_passed_on_as_typed() {
        assert_eq!(
            forwarded(&words("fastaudit bench -- --quick getpid")),
            Some(words("-- --quick getpid"))
        );
        assert_eq!(forwarded(&words("fastaudit bench")), Some(vec![]));
        assert_eq!(
            forwarded(&words("fastaudit help bench")),
            Some(words("--help"))
        );
    }

    #[test]
    fn other_commands_are_left_to_clap() {
        for line in [
            "fastaudit",
            "fastaudit run --explain",
            "fastaudit help",
            "fastaudit rules list bench",
        ] {
            assert_eq!(forwarded(&words(line)), None, "{line}");
        }
    }
}
