//! `fastaudit rules list|check`.

use crate::cli::RulesCommand;
use anyhow::{Context, Result};
use fastaudit_daemon::irreversible::{Asked, Teller};
use fastaudit_rules::{RuleSet, SystemHost};
use std::io::Write;
use std::process::ExitCode;

/// Load the rules (those `run` loads when no path is given); print the
/// listing (`list`) or nothing (`check`).
pub fn run(cmd: RulesCommand) -> Result<ExitCode> {
    // Only a listing prints the settings (`check --settings` is refused).
    let (args, settings) = match cmd {
        RulesCommand::List(a) => (a.rules, Some(a.settings)),
        RulesCommand::Check(a) => (a, None),
    };
    let host = SystemHost;
    // No path: the rules `fastaudit run` would load (the unit's
    // ExecStartPre checks them so).
    let set = match fastaudit_daemon::load_rules(&args.paths, &host, args.strict, args.max_messages)
    {
        Ok(set) => set,
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            return Ok(ExitCode::from(1));
        }
    };
    fastaudit_daemon::print_warnings(&set, args.max_messages);
    // -e 2, --loginuid-immutable, -f 2: whether `run` applies them.
    for note in Asked::of(&set).notes(Teller::Check) {
        eprintln!("{note}");
    }
    if let Some(settings) = settings {
        print(&set, settings, &host).context("writing the listing")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print(set: &RuleSet, settings: bool, host: &SystemHost) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if settings {
        for (_, s) in &set.settings {
            writeln!(out, "{s}")?;
        }
    }
    set.write_listing(&mut out, host)?;
    out.flush()
}
