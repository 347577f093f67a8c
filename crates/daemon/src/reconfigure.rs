//! SIGHUP: auditd.conf read again and applied while running, as auditd
//! 3.0.9's `reconfigure` does (the rules are reload.rs's, on the same
//! signal). The file is read and checked whole first: one it refuses is
//! reported with `FILE:LINE` (stderr and syslog) and nothing changes.
//! Otherwise the flags still win over it (run_config), and what auditd
//! takes live is taken: the log writer's settings (log_file, log_group,
//! write_logs, flush, freq, max_log_file and its action, num_logs, the
//! space and disk actions: crates/log, pending events written under the
//! old ones first), log_format, name_format and name, priority_boost and
//! the plugins (plugin_dir read again, q_depth, overflow_action,
//! max_restarts). The keys auditd reads at start only are reported and
//! keep their running value. Either way a DAEMON_CONFIG record says so,
//! as auditd writes it. With `--no-config` there is no file to read:
//! SIGHUP then reloads the rules only.

use crate::cli::RunArgs;
use crate::daemon::Side;
use crate::output::Output;
use crate::run_config::{self, Refused, RunSettings};
use fastaudit_config::Conf;
use fastaudit_records::Format;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The configuration of a run and its rereading.
pub struct Reconfig {
    hup: Arc<AtomicBool>,
    args: RunArgs,
    /// The file as read at start: what the keys read at start only are
    /// compared with.
    started: Option<Conf>,
    /// The settings in force.
    running: RunSettings,
}

impl Reconfig {
    /// Watch for SIGHUP; `running` are the settings the run started with.
    pub fn new(args: &RunArgs, running: RunSettings) -> anyhow::Result<Reconfig> {
        let hup = Arc::new(AtomicBool::new(false));
        // A flag of its own: the rules' reload (reload.rs) has another.
        signal_hook::flag::register(signal_hook::consts::SIGHUP, Arc::clone(&hup))?;
        Ok(Reconfig {
            hup,
            args: args.clone(),
            started: running.conf.clone(),
            running,
        })
    }

    /// After a SIGHUP: read the configuration again and apply it (or say
    /// why not), then write DAEMON_CONFIG.
    pub fn poll(&mut self, log: &mut Output, side: &mut Side) {
        // --no-config: there is no file to read again (the rules still are).
        if !self.hup.swap(false, Ordering::Relaxed) || self.args.no_config {
            return;
        }
        let who = side.reconfigure_requested();
        match self.apply(log, side) {
            Ok(()) => side.log_reconfigured(log, &who, true),
            Err(lines) => {
                for l in &lines {
                    say(l);
                }
                say("fastaudit: SIGHUP: the configuration was refused; the running configuration stays");
                side.log_reconfigured(log, &who, false);
            }
        }
    }

    /// Read, check and apply; the lines that refuse it.
    fn apply(&mut self, log: &mut Output, side: &mut Side) -> Result<(), Vec<String>> {
        let mut new = run_config::resolve(&self.args).map_err(|Refused(l)| l)?;
        let plugins = self.args.plugins.apply(new.plugins.clone());
        let plugin_warnings = plugins
            .check()
            .map_err(|e| vec![format!("fastaudit: {e}")])?;
        // The log first: the one step that can still fail (a log that
        // cannot be opened), and then nothing has changed.
        fastaudit_log::Writer::reconfigure(log, new.log.clone())
            .map_err(|e| vec![format!("fastaudit: {e}")])?;
        // Read at start only (auditd too): the running value stays.
        new.end_of_event = self.running.end_of_event;
        let json = (new.format == Format::Json).then_some(new.end_of_event);
        log.reshape(new.node.clone(), json);
        side.reconfigure(new.format, &plugins);
        if new.priority_boost != self.running.priority_boost {
            if let Err(e) =
                run_config::change_priority(self.running.priority_boost, new.priority_boost)
            {
                say(&format!("fastaudit: warning: {e:#}"));
            }
        }
        for w in &new.warnings {
            eprintln!("{w}");
        }
        for w in plugin_warnings {
            eprintln!("fastaudit: warning: {w}");
        }
        if let (Some(started), Some(now)) = (&self.started, &new.conf) {
            for w in run_config::restart_only(started, now) {
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
    crate::plugins::syslog_err(line);
}
