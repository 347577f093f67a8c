//! The daemon side's part of a reconfiguration (SIGHUP, crate::reconfig):
//! the format of its own records and of what plugins get, the plugins'
//! settings, and the DAEMON_CONFIG record that documents it, as auditd's
//! `reconfigure` writes it.

use super::Side;
use crate::output::Output;
use crate::plugins::Settings as PluginSettings;
use fastaudit_log::syslog::{syslog, Priority};
use fastaudit_records::daemon as own;
use fastaudit_records::{types, Format};

impl Side {
    /// The format records are written in now.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Who asked (the kernel's signal info), said as auditd says it before
    /// reconfiguring.
    pub fn reconfigure_requested(&mut self) -> ReconfigSender {
        let who = self.sender_and_context();
        let text = match &who {
            Some((s, ctx)) => format!(
                "config change requested by pid={} auid={} subj={}",
                s.pid,
                s.auid,
                ctx.as_deref().unwrap_or("?")
            ),
            None => "config change requested by an unknown sender".into(),
        };
        syslog(Priority::Notice, &text);
        ReconfigSender(who)
    }

    /// Take the new format and plugin settings (crate::plugins).
    pub fn reconfigure(&mut self, format: Format, plugins: &PluginSettings) {
        self.format = format;
        // Plugins get auditd's string format: RAW lines for a JSON log.
        let wire = if format == Format::Json {
            Format::Raw
        } else {
            format
        };
        let mut notes = Vec::new();
        self.plugins.reconfigure(plugins, wire, &mut notes);
        for n in notes {
            eprintln!("fastaudit: {n}");
        }
    }

    /// DAEMON_CONFIG: the new configuration taken (`changed`) or refused.
    pub fn log_reconfigured(&mut self, log: &mut Output, who: &ReconfigSender, changed: bool) {
        let (sender, ctx) = match &who.0 {
            Some((s, c)) => (Some(s), c.as_deref()),
            None => (None, None),
        };
        let body = own::config_body(changed, sender, ctx);
        syslog(Priority::Notice, &body);
        self.write_own(log, types::DAEMON_CONFIG, &body);
    }
}

/// The sender of a SIGHUP and its LSM context (None: unknown, as with
/// --bpf-only, where fastaudit is not the kernel's audit daemon).
pub struct ReconfigSender(Option<(own::Sender, Option<String>)>);
