//! The plugins of a run (auditd-dispatch.c's part): started from the
//! plugin settings (auditd.conf's, or auditd's defaults, under the
//! flags), fed by the sink, reported on at stop. The dispatcher itself is
//! fastaudit_plugins.

use crate::error::Error;
use fastaudit_plugins::{Dispatcher, PluginArgs, Report, Settings};
use fastaudit_records::Format;

/// The format plugins get for a log of `format`: auditd's string
/// format, so RAW lines for a JSON log.
pub fn wire(format: Format) -> Format {
    if format == Format::Json {
        Format::Raw
    } else {
        format
    }
}

/// Start the plugins of `base` (the configuration's settings) with the
/// `flags` applied; their warnings and notes on stderr.
pub fn start(flags: &PluginArgs, format: Format, base: Settings) -> Result<Dispatcher, Error> {
    let settings = flags.apply(base);
    for w in settings.check().map_err(Error::Plugins)? {
        eprintln!("fastaudit: warning: {w}");
    }
    let mut notes = Vec::new();
    let d = Dispatcher::start(&settings, wire(format), &mut notes);
    for n in notes {
        eprintln!("fastaudit: {n}");
    }
    Ok(d)
}

/// Each plugin's counters at stop, on stderr.
pub fn print_reports(reports: &[Report]) {
    for r in reports {
        eprintln!(
            "fastaudit: plugin {}: {} records delivered, {} dropped, {} restarts{}",
            r.name,
            r.delivered,
            r.dropped,
            r.restarts,
            if r.gave_up { ", given up" } else { "" }
        );
    }
}
