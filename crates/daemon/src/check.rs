//! `fastaudit config check`: what `fastaudit run` would make of an
//! auditd.conf, its rules and its plugins, without root and without the
//! kernel. Every step is the start's own (settings::resolve,
//! start::read_rules, the plan's compile, the plugin settings' checks and
//! fastaudit_plugins::load_dir), so the check prints on stderr exactly the
//! errors and warnings the start would print; stdout gets a summary of
//! what would be applied and what not. Only the kernel's part is left
//! out: the hook kinds are assumed, not probed (probing loads BPF
//! programs), and nothing is opened for writing.

use crate::options::RunOptions;
use crate::settings::{self, Refused, RunSettings};
use crate::start;
use fastaudit_config::keys::{Use, KEYS};
use fastaudit_config::Conf;
use fastaudit_engine::{compile, Environment};
use fastaudit_log::{Config as LogConfig, Flush, SizeAction, Threshold};
use fastaudit_plugins::Settings as PluginSettings;
use fastaudit_records::Format;
use std::fmt::Write as _;

/// What `fastaudit run` would do with the configuration checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// It would start with all of it.
    Clean,
    /// It would start without some of it: refused rules lines (loaded
    /// around as `auditctl -R` does), or plugins skipped.
    Partial,
    /// It would refuse to start.
    Refused,
}

/// Check what `opts` would start with; errors and warnings on stderr as
/// the start prints them, the summary on stdout.
pub fn check(opts: &RunOptions) -> Verdict {
    let mut verdict = Verdict::Clean;
    let mut out = String::new();
    let settings = check_conf(opts, &mut verdict, &mut out);
    check_rules(opts, &mut verdict, &mut out);
    check_plugins(opts, settings.as_ref(), &mut verdict, &mut out);
    let _ = writeln!(
        out,
        "kernel: not checked (the BPF hook kinds are probed by fastaudit run, as root)"
    );
    let _ = writeln!(
        out,
        "{}",
        match verdict {
            Verdict::Clean => "fastaudit run would start with all of it",
            Verdict::Partial =>
                "fastaudit run would start, without the rules lines or plugins named on stderr",
            Verdict::Refused => "fastaudit run would refuse to start (the errors are on stderr)",
        }
    );
    print!("{out}");
    verdict
}

/// auditd.conf, as the start reads it: its settings, None when refused.
fn check_conf(opts: &RunOptions, verdict: &mut Verdict, out: &mut String) -> Option<RunSettings> {
    let settings = match settings::resolve(opts) {
        Ok(s) => {
            for w in &s.warnings {
                eprintln!("{w}");
            }
            Some(s)
        }
        Err(Refused(lines)) => {
            for l in &lines {
                eprintln!("{l}");
            }
            *verdict = Verdict::Refused;
            None
        }
    };
    match (settings::config_path(opts), &settings) {
        (None, _) => {
            let _ = writeln!(
                out,
                "auditd.conf: none read: fastaudit's own defaults and the flags"
            );
        }
        (Some(p), None) => {
            let _ = writeln!(out, "auditd.conf: {}: refused", p.display());
        }
        (Some(p), Some(_)) => {
            let _ = writeln!(out, "auditd.conf: {}", p.display());
        }
    }
    if let Some(conf) = settings.as_ref().and_then(|s| s.conf.as_ref()) {
        keys_summary(conf, out);
    }
    if let Some(s) = &settings {
        log_summary(s, out);
    }
    settings
}

/// The rules, as the start reads and compiles them (hook kinds assumed).
fn check_rules(opts: &RunOptions, verdict: &mut Verdict, out: &mut String) {
    match start::read_rules(opts) {
        Ok((set, refused)) => {
            for note in start::irreversible_notes(opts, &set) {
                eprintln!("{note}");
            }
            let env = Environment::assumed(&opts.hook_kinds);
            match compile(&set, env) {
                Ok(_) => {}
                Err(e) => {
                    eprintln!("fastaudit: {e}");
                    *verdict = Verdict::Refused;
                }
            }
            let from = if opts.rules.is_empty() {
                crate::rules::default_source()
            } else {
                opts.rules
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let _ = writeln!(
                out,
                "rules: {from}: {} rules, {} control settings",
                set.len(),
                set.settings.len()
            );
            if refused.partial() {
                let _ = writeln!(
                    out,
                    "  {}",
                    refused.summary.as_deref().unwrap_or("some lines refused")
                );
                *verdict = (*verdict).max(Verdict::Partial);
            }
        }
        Err(e) => {
            eprintln!("{e}");
            let _ = writeln!(out, "rules: refused");
            *verdict = Verdict::Refused;
        }
    }
}

/// The plugins the start would run.
fn check_plugins(
    opts: &RunOptions,
    settings: Option<&RunSettings>,
    verdict: &mut Verdict,
    out: &mut String,
) {
    let base = settings.map_or_else(PluginSettings::default, |s| s.plugins.clone());
    let plugins = opts.plugins.apply(base);
    match plugins.check() {
        Ok(warnings) => {
            for w in warnings {
                eprintln!("fastaudit: warning: {w}");
            }
        }
        Err(e) => {
            eprintln!("fastaudit: {e}");
            *verdict = Verdict::Refused;
        }
    }
    let mut notes = Vec::new();
    let started = fastaudit_plugins::load_dir(&plugins.plugin_dir, &mut notes);
    for n in &notes {
        eprintln!("fastaudit: {n}");
    }
    // A plugin skipped, or a directory not read (load_dir's words): the
    // run would go on without them.
    let skipped = |n: &String| {
        n.ends_with("plugin skipped")
            || n.ends_with("no plugins started")
            || n.contains("is not supported by fastaudit")
    };
    if notes.iter().any(skipped) {
        *verdict = (*verdict).max(Verdict::Partial);
    }
    let _ = writeln!(
        out,
        "plugins: {} (q_depth {}, overflow_action {}, max_restarts {}): {}",
        plugins.plugin_dir.display(),
        plugins.q_depth,
        format!("{:?}", plugins.overflow_action).to_ascii_lowercase(),
        plugins.max_restarts,
        if started.is_empty() {
            "none started".to_string()
        } else {
            started
                .iter()
                .map(|c| {
                    let mut s = format!("{} ({}", c.name, c.path);
                    for a in &c.args {
                        s.push(' ');
                        s.push_str(a);
                    }
                    s.push(')');
                    s
                })
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
}

/// Each key the file sets, with what fastaudit does with it (the key
/// table's words): those applied as auditd on one line, each other one
/// on a line of its own with how or why.
fn keys_summary(conf: &Conf, out: &mut String) {
    let mut set: Vec<(usize, &fastaudit_config::keys::Key)> = KEYS
        .iter()
        .filter_map(|k| conf.line(k.name).map(|l| (l, k)))
        .collect();
    set.sort_by_key(|(l, _)| *l);
    let applied: Vec<String> = set
        .iter()
        .filter(|(_, k)| k.usage == Use::Applied)
        .map(|(l, k)| format!("{} ({l})", k.name))
        .collect();
    if !applied.is_empty() {
        let _ = writeln!(out, "  applied as auditd: {}", applied.join(", "));
    }
    for (line, k) in set.iter().filter(|(_, k)| k.usage != Use::Applied) {
        let why = match k.usage {
            Use::NotYet(m) | Use::Refused(m) => m.why().to_string(),
            _ => plain(k.fastaudit),
        };
        let _ = writeln!(out, "  {}: {} ({line}): {why}", k.usage.label(), k.name);
    }
}

/// The log's settings as the run would apply them.
fn log_summary(s: &RunSettings, out: &mut String) {
    let log: &LogConfig = &s.log;
    if !log.write_logs {
        let _ = writeln!(
            out,
            "log: none (write_logs = no): events go to the plugins only"
        );
        return;
    }
    let format = match s.format {
        Format::Raw => "raw",
        Format::Enriched => "enriched",
        Format::Json => "json",
    };
    let flush = match log.flush {
        Flush::None => "none".to_string(),
        Flush::Incremental { freq } => format!("incremental, every {freq} records"),
        Flush::IncrementalAsync { freq } => format!("incremental_async, every {freq} records"),
        Flush::Data => "data, once a batch".to_string(),
        Flush::Sync => "sync, once a batch".to_string(),
    };
    let _ = writeln!(out, "log: {} ({format}), flush {flush}", log.path.display());
    let size = match log.size_action {
        _ if log.max_bytes == 0 => "no size limit".to_string(),
        SizeAction::Ignore => format!("at {} MiB: ignore", log.max_bytes >> 20),
        SizeAction::Syslog => format!("at {} MiB: syslog", log.max_bytes >> 20),
        SizeAction::Suspend => format!("at {} MiB: suspend", log.max_bytes >> 20),
        SizeAction::KeepLogs => {
            format!("at {} MiB: rotate, keeping every log", log.max_bytes >> 20)
        }
        SizeAction::Rotate { num_logs } => {
            format!(
                "at {} MiB: rotate, keeping {num_logs} logs",
                log.max_bytes >> 20
            )
        }
    };
    let threshold = |t: Threshold| match t {
        Threshold::Mib(0) | Threshold::Percent(0) => "off".to_string(),
        Threshold::Mib(n) => format!("{n} MiB"),
        Threshold::Percent(n) => format!("{n}%"),
    };
    let _ = writeln!(
        out,
        "  {size}; space_left {}: {}; admin_space_left {}: {}; disk_full: {}; disk_error: {}",
        threshold(log.space_left),
        log.space_left_action,
        threshold(log.admin_space_left),
        log.admin_space_left_action,
        log.disk_full_action,
        log.disk_error_action
    );
}

/// The key table's text without its backquotes.
fn plain(text: &str) -> String {
    text.replace('`', "")
}
