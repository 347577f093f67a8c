//! SIGHUP: auditd.conf read again and applied while running, as auditd
//! 3.0.9's `reconfigure` does (auditd-reconfig.c; the rules are read
//! again on the same signal, next: crate::rules). The file is read and checked whole first: one it refuses is
//! reported with `FILE:LINE` (stderr and syslog) and nothing changes.
//! Otherwise the flags still win over it (crate::settings), and what auditd
//! takes live is taken: the log writer's settings (log_file, log_group,
//! write_logs, flush, freq, max_log_file and its action, num_logs, the
//! space and disk actions: crates/log, pending events written under the
//! old ones first), log_format, name_format and name, priority_boost and
//! the plugins (plugin_dir read again, q_depth, overflow_action,
//! max_restarts). The keys auditd reads at start only are reported and
//! keep their running value. Either way a DAEMON_CONFIG record says so,
//! as auditd writes it. With `--no-config` there is no file to read:
//! SIGHUP then reloads the rules only.

use crate::error::chain;
use crate::kernel::Kernel;
use crate::options::RunOptions;
use crate::settings::{self, Refused, RunSettings};
use crate::sink::Sink;
use fastaudit_config::Conf;
use fastaudit_log::syslog::{syslog, Priority};
use fastaudit_records::daemon::{self as own, Sender};
use fastaudit_records::{types, Format};

/// The configuration of a run and its rereading.
pub struct Reconfig {
    args: RunOptions,
    /// The file as read at start: what the keys read at start only are
    /// compared with.
    started: Option<Conf>,
    /// The settings in force.
    running: RunSettings,
}

impl Reconfig {
    /// `running` are the settings the run started with.
    pub fn new(args: &RunOptions, running: RunSettings) -> Reconfig {
        Reconfig {
            args: args.clone(),
            started: running.conf.clone(),
            running,
        }
    }

    /// SIGHUP: read the configuration again and apply it (or say why
    /// not), then write DAEMON_CONFIG naming who asked (the kernel knows
    /// the signal's sender).
    pub fn on_sighup(&mut self, sink: &mut Sink, kernel: &mut Kernel) {
        // --no-config: there is no file to read again (the rules still are).
        if self.args.no_config {
            return;
        }
        let who = requested(kernel.sender());
        self.reread(sink, &who);
    }

    /// `fastaudit ctl --signal reload` from `who`: as SIGHUP; the lines
    /// that refused the configuration (none: taken, or no file).
    pub fn on_request(&mut self, sink: &mut Sink, who: Sender) -> Vec<String> {
        if self.args.no_config {
            return Vec::new();
        }
        self.reread(sink, &requested(Some(who)))
    }

    /// Read, apply and log the configuration; the lines that refused it.
    fn reread(&mut self, sink: &mut Sink, who: &Requester) -> Vec<String> {
        match self.apply(sink) {
            Ok(()) => {
                log_reconfigured(sink, who, true);
                Vec::new()
            }
            Err(mut lines) => {
                lines.push(
                    "fastaudit: SIGHUP: the configuration was refused; the running configuration stays"
                        .into(),
                );
                for l in &lines {
                    say(l);
                }
                log_reconfigured(sink, who, false);
                lines
            }
        }
    }

    /// Read, check and apply; the lines that refuse it.
    fn apply(&mut self, sink: &mut Sink) -> Result<(), Vec<String>> {
        let mut new = settings::resolve(&self.args).map_err(|Refused(l)| l)?;
        let plugins = self.args.plugins.apply(new.plugins.clone());
        let plugin_warnings = plugins
            .check()
            .map_err(|e| vec![format!("fastaudit: {e}")])?;
        // The log first: the one step that can still fail (a log that
        // cannot be opened), and then nothing has changed.
        fastaudit_log::Writer::reconfigure(&mut sink.log, new.log.clone())
            .map_err(|e| vec![format!("fastaudit: {e}")])?;
        // Read at start only (auditd too): the running value stays.
        new.end_of_event = self.running.end_of_event;
        let json = (new.format == Format::Json).then_some(new.end_of_event);
        sink.log.reshape(new.node.clone(), json);
        sink.reconfigure(new.format, &plugins);
        if new.priority_boost != self.running.priority_boost {
            if let Err(e) =
                settings::change_priority(self.running.priority_boost, new.priority_boost)
            {
                say(&format!("fastaudit: warning: {}", chain(&e)));
            }
        }
        for w in &new.warnings {
            eprintln!("{w}");
        }
        for w in plugin_warnings {
            eprintln!("fastaudit: warning: {w}");
        }
        if let (Some(started), Some(now)) = (&self.started, &new.conf) {
            for w in settings::restart_only(started, now) {
                say(&w);
            }
        }
        if !new.log.write_logs && self.running.log.write_logs {
            eprintln!("fastaudit: write_logs = no: no log is written from now on; events go to the plugins only");
        }
        match &new.conf {
            Some(c) => eprintln!(
                "fastaudit: SIGHUP: {} read again and applied",
                c.file.display()
            ),
            None => eprintln!(
                "fastaudit: SIGHUP: no auditd.conf to read: the defaults and flags applied"
            ),
        }
        self.running = new;
        Ok(())
    }
}

/// On stderr and in syslog, as auditd reports a reconfiguration's problems.
fn say(line: &str) {
    eprintln!("{line}");
    syslog(Priority::Err, line);
}

/// The sender of a SIGHUP (None: unknown, as with --bpf-only, where
/// fastaudit is not the kernel's audit daemon).
struct Requester(Option<Sender>);

/// Who asked (the kernel's signal info, or a control request's caller),
/// said as auditd says it before reconfiguring.
fn requested(who: Option<Sender>) -> Requester {
    let text = match &who {
        Some(s) => format!(
            "config change requested by pid={} auid={} subj={}",
            s.pid,
            s.auid,
            s.context.as_deref().unwrap_or("?")
        ),
        None => "config change requested by an unknown sender".into(),
    };
    syslog(Priority::Notice, &text);
    Requester(who)
}

/// DAEMON_CONFIG: the new configuration taken (`changed`) or refused.
fn log_reconfigured(sink: &mut Sink, who: &Requester, changed: bool) {
    let body = own::config_body(changed, who.0.as_ref());
    syslog(Priority::Notice, &body);
    sink.own(types::DAEMON_CONFIG, &body);
}
