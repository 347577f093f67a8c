//! Man pages and shell completions, written from the clap definition of
//! the command line by `fastaudit generate-man --date DATE DIR` and
//! `fastaudit generate-completions DIR` (scripts/package.sh runs them).
//! fastaudit(8) and fastaudit-run(8) get FILES, SIGNALS, EXIT STATUS and
//! EXAMPLES (sections.rs); fastaudit-auditd.conf(5) is written from the
//! config crate's key table (conf_page.rs). fastaudit-bench(8) comes from
//! the benchmark binary's own definition (`fastaudit-bench generate-man
//! --date DATE DIR`).

mod conf_page;
#[cfg(test)]
mod docs;
mod prose;
mod sections;

use crate::cli::Cli;
use anyhow::{Context, Result};
use clap::{CommandFactory, Parser};
use clap_complete::Shell;
use clap_mangen::roff::{roman, Roff};
use clap_mangen::Man;
use std::ffi::OsString;
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;

/// The generators' command line, apart from [`Cli`] so that neither help,
/// man pages nor completions offer them.
#[derive(Debug, Parser)]
#[command(name = "fastaudit")]
enum Generate {
    /// Write the man pages into DIR: fastaudit(8), one per command (section
    /// 8) and fastaudit-auditd.conf(5).
    GenerateMan {
        /// Where to write them (it must exist).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// The date the pages carry (YYYY-MM-DD): the release's, so that
        /// the same sources give the same pages.
        #[arg(long, value_name = "DATE")]
        date: String,
    },
    /// Write the bash, zsh and fish completions into DIR.
    GenerateCompletions {
        /// Where to write them (it must exist).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

/// Whether the command line (`argv`, the program name first) is a
/// generator's.
pub fn requested(argv: &[OsString]) -> bool {
    argv.get(1)
        .and_then(|a| a.to_str())
        .is_some_and(|a| Generate::command().find_subcommand(a).is_some())
}

/// Run the generator the command line names.
pub fn run(argv: Vec<OsString>) -> Result<ExitCode> {
    match Generate::parse_from(argv) {
        Generate::GenerateMan { dir, date } => man_pages(&dir, &date),
        Generate::GenerateCompletions { dir } => completions(&dir),
    }
}

/// Section 8: system administration commands (fastaudit is installed in
/// /usr/sbin and needs root).
const SECTION: &str = "8";

/// The shells completions are written for.
const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// A page's section for the text after the options (the command's
/// `after_help`), by command; others get NOTES.
const AFTER_HELP_HEADINGS: &[(&str, &str)] = &[
    ("fastaudit-ctl", "AUDITCTL OPTIONS"),
    ("fastaudit-config-check", "EXIT STATUS"),
];

/// The audit system's own pages every page refers to.
const AUDIT_PAGES: &[&str] = &[
    "auditctl(8)",
    "auditd(8)",
    "auditd.conf(5)",
    "audit.rules(7)",
    "augenrules(8)",
    "ausearch(8)",
    "aureport(8)",
];

/// The command line with every subcommand's bin and display name set
/// (`fastaudit run`, `fastaudit-run`), the help pseudo-command left out.
fn command() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// The commands that get a page: fastaudit and every visible subcommand,
/// depth first, but `bench`, whose page the benchmark binary writes.
fn paged(cmd: &clap::Command, out: &mut Vec<clap::Command>) {
    out.push(cmd.clone());
    for sub in cmd.get_subcommands() {
        if !sub.is_hide_set() && sub.get_name() != "bench" {
            paged(sub, out);
        }
    }
}

fn page_name(cmd: &clap::Command) -> &str {
    cmd.get_display_name().unwrap_or_else(|| cmd.get_name())
}

/// Write fastaudit(8) and a page per command into `dir`, dated `date`;
/// print their names.
fn man_pages(dir: &Path, date: &str) -> Result<ExitCode> {
    let mut cmds = Vec::new();
    paged(&command(), &mut cmds);
    let names: Vec<String> = cmds.iter().map(|c| page_name(c).to_string()).collect();
    for cmd in &cmds {
        let name = page_name(cmd);
        let path = dir.join(format!("{name}.{SECTION}"));
        let mut see_also: Vec<String> = names
            .iter()
            .filter(|n| *n != name)
            .map(|n| format!("{n}({SECTION})"))
            .collect();
        see_also.push(format!("fastaudit-bench({SECTION})"));
        see_also.push(format!("{}({})", conf_page::NAME, conf_page::SECTION));
        see_also.extend(AUDIT_PAGES.iter().map(|p| p.to_string()));
        let text = render(cmd, date, &see_also).with_context(|| format!("rendering {name}"))?;
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        println!("{}", path.display());
    }
    let path = dir.join(format!("{}.{}", conf_page::NAME, conf_page::SECTION));
    let mut see_also: Vec<String> = ["fastaudit-run", "fastaudit-config-check"]
        .iter()
        .map(|n| format!("{n}({SECTION})"))
        .collect();
    see_also.push("auditd.conf(5)".into());
    let mut text = Vec::new();
    conf_page::page(date, &source(), &see_also)
        .to_writer(&mut text)
        .with_context(|| format!("rendering {}", conf_page::NAME))?;
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    println!("{}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// One page: clap_mangen's sections, the text after the options in no-fill
/// mode (it holds tables), and SEE ALSO.
fn render(cmd: &clap::Command, date: &str, see_also: &[String]) -> std::io::Result<Vec<u8>> {
    // The manual's name is left to man (section 8: System Manager's Manual).
    let man = Man::new(cmd.clone())
        .section(SECTION)
        .date(date)
        .source(source());
    let extra = sections::extra(page_name(cmd));
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if let Some(extra) = &extra {
        let mut more = Roff::new();
        sections::description(extra, &mut more);
        more.to_writer(&mut out)?;
    }
    man.render_options_section(&mut out)?;
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut out)?;
    }
    let mut roff = Roff::new();
    if let Some(after) = cmd.get_after_long_help().or_else(|| cmd.get_after_help()) {
        let heading = AFTER_HELP_HEADINGS
            .iter()
            .find(|(c, _)| *c == page_name(cmd))
            .map_or("NOTES", |(_, h)| h);
        roff.control("SH", [heading]);
        roff.control("nf", []);
        for line in after.to_string().lines() {
            roff.text([roman(line)]);
        }
        roff.control("fi", []);
    }
    if let Some(extra) = &extra {
        sections::sections(extra, &mut roff);
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(see_also.join(", "))]);
    roff.to_writer(&mut out)?;
    Ok(out)
}

/// The pages' source line: the package and its version.
fn source() -> String {
    format!("fastaudit {}", env!("CARGO_PKG_VERSION"))
}

/// Write the completions of every shell in [`SHELLS`] into `dir` (under
/// clap_complete's names: fastaudit.bash, _fastaudit, fastaudit.fish);
/// print their names.
fn completions(dir: &Path) -> Result<ExitCode> {
    let mut cmd = command();
    for shell in SHELLS {
        let path = clap_complete::generate_to(shell, &mut cmd, "fastaudit", dir)
            .with_context(|| format!("writing the {shell} completion into {}", dir.display()))?;
        println!("{}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
