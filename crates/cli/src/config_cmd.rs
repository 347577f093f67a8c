//! `fastaudit config check`: the daemon's own check (fastaudit_daemon::check)
//! of what `run` would start with; the verdict as the exit code.

use crate::cli::ConfigCheckArgs;
use crate::exit;
use anyhow::Result;
use fastaudit_daemon::check::Verdict;
use fastaudit_daemon::RunOptions;
use std::process::ExitCode;

/// Check; exit 0 (clean), 3 (would start without some of it) or 1 (would
/// refuse to start).
pub fn check(args: ConfigCheckArgs) -> Result<ExitCode> {
    let opts = RunOptions {
        rules: args.rules,
        strict: args.strict,
        config: args.file,
        plugins: args.plugins.into(),
        hook_kinds: fastaudit_engine::Kind::ALL.to_vec(),
        ..RunOptions::default()
    };
    Ok(ExitCode::from(
        match fastaudit_daemon::check::check(&opts) {
            Verdict::Clean => exit::OK,
            Verdict::Partial => exit::PARTIAL,
            Verdict::Refused => exit::REFUSED,
        },
    ))
}
