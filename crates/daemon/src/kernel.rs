//! The kernel audit side (auditd.c's netlink half): unless --bpf-only,
//! fastaudit registers as the kernel's audit daemon, leaves the kernel
//! only `-a never,task` (tasks get no audit context: the BPF side records
//! their syscalls), applies the rules' kernel settings, reads the records
//! the kernel sends its daemon, and puts the kernel back as it found it
//! at stop (crates/netlink does each step).

mod settings;

pub use settings::KernelSettings;

use crate::error::Error;
use crate::options::RunOptions;
use crate::run_dir;
use crate::sink::Sink;
use fastaudit_netlink::proto::{mask, Status};
use fastaudit_netlink::{AuditSocket, DaemonOptions, KernelDaemon, ReaderStats, Record};
use fastaudit_records::daemon::{self as own, Sender};
use fastaudit_records::types;
use settings::setting_name;
use std::time::Duration;

/// The kernel audit state saved at start under the run directory.
pub const STATE_FILE: &str = "kernel-state";

/// The kernel audit as this run holds it.
pub struct Kernel {
    /// The registration (None with --bpf-only).
    daemon: Option<KernelDaemon>,
    /// What the rules ask of the kernel.
    settings: KernelSettings,
    apply_irreversible: bool,
}

impl Kernel {
    /// Register with the kernel (not with --bpf-only) and apply the rules'
    /// settings; audit is turned on by [`Kernel::ready`], once the BPF
    /// side is loaded. A failed registration is logged as DAEMON_ABORT,
    /// as auditd logs it. What the operator should know goes to `notes`.
    pub fn start(
        opts: &RunOptions,
        settings: KernelSettings,
        sink: &mut Sink,
        notes: &mut Vec<String>,
    ) -> Result<Kernel, Error> {
        let mut kernel = Kernel {
            daemon: None,
            settings,
            apply_irreversible: opts.apply_irreversible,
        };
        if opts.bpf_only {
            if !kernel.settings.set.is_empty() || kernel.settings.lock {
                notes.push(
                    "--bpf-only: the rules' kernel settings (-b, -f, -r, --backlog_wait_time, -e) are not applied"
                        .into(),
                );
            }
            return Ok(kernel);
        }
        let daemon_opts = DaemonOptions {
            take_over: opts.take_over,
            state_file: run_dir::file(STATE_FILE),
            ..DaemonOptions::default()
        };
        let daemon = match KernelDaemon::start(&daemon_opts) {
            Ok(d) => d,
            Err(e) => {
                sink.own(
                    types::DAEMON_ABORT,
                    &own::abort_body("set-pid", crate::procinfo::me()),
                );
                sink.log.commit();
                return Err(Error::kernel("becoming the kernel's audit daemon")(e));
            }
        };
        notes.extend(daemon.notes.iter().cloned());
        let k = kernel.daemon.insert(daemon);
        if !k.locked() {
            for &(m, v) in &kernel.settings.set {
                k.set(m, v).map_err(Error::kernel(format!(
                    "applying `{} {v}` from the rules to the kernel",
                    setting_name(m)
                )))?;
            }
        }
        Ok(kernel)
    }

    /// Whether fastaudit is the kernel's audit daemon (not --bpf-only).
    pub fn is_daemon(&self) -> bool {
        self.daemon.is_some()
    }

    /// The BPF side is loaded and attached: turn the kernel audit on.
    pub fn ready(&mut self) -> Result<(), Error> {
        let Some(k) = self.daemon.as_mut().filter(|k| !k.locked()) else {
            return Ok(());
        };
        k.enable()
            .map_err(Error::kernel("enabling the kernel audit"))?;
        if self.apply_irreversible {
            if self.settings.loginuid_immutable {
                k.set_loginuid_immutable()
                    .map_err(Error::kernel("applying --loginuid-immutable"))?;
            }
            if self.settings.lock {
                k.set(mask::ENABLED, 2)
                    .map_err(Error::kernel("applying -e 2"))?;
            }
        }
        Ok(())
    }

    /// The records the kernel sent since the last call.
    pub fn drain(&mut self) -> Vec<Record> {
        let mut records = Vec::new();
        if let Some(k) = self.daemon.as_mut() {
            k.drain(|r| records.push(r));
        }
        records
    }

    /// Someone changed the task rules behind fastaudit's back: `-a never,task`
    /// goes back first so new tasks still get no audit context.
    pub fn keep_never_task(&mut self, sink: &mut Sink) {
        let Some(k) = self.daemon.as_mut() else {
            return;
        };
        match k.keep_never_task() {
            Ok(false) => {}
            Ok(true) => sink.own(
                types::DAEMON_ERR,
                "op=restore-never-task reason=task-rules-changed res=success",
            ),
            Err(e) => {
                sink.own(
                    types::DAEMON_ERR,
                    "op=restore-never-task reason=task-rules-changed res=failed",
                );
                eprintln!("fastaudit: could not put -a never,task back: {e}");
            }
        }
    }

    /// Who sent the last TERM/HUP/USR1/USR2, as auditd reports it: the
    /// kernel's signal info (with the sender's LSM context, if it gave
    /// one), the owner and session of /proc/PID.
    pub fn sender(&mut self) -> Option<Sender> {
        let s = self.daemon.as_mut()?.signal_info().ok()?;
        let uid = std::fs::metadata(format!("/proc/{}", s.pid))
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
            .unwrap_or(u32::MAX);
        let ses = std::fs::read_to_string(format!("/proc/{}/sessionid", s.pid))
            .map(|t| t.trim().to_string())
            .unwrap_or_else(|_| "4294967295".into());
        let sender = Sender {
            auid: s.auid,
            uid,
            ses,
            pid: s.pid,
            context: s.context,
        };
        Some(sender)
    }

    /// The kernel record reader's counters so far (zero with --bpf-only).
    pub fn stats(&self) -> ReaderStats {
        self.daemon
            .as_ref()
            .map(KernelDaemon::stats)
            .unwrap_or_default()
    }

    /// The kernel audit's status, through the registration or (with
    /// --bpf-only) a socket of its own.
    pub fn status(&mut self) -> Option<Status> {
        match self.daemon.as_mut() {
            Some(k) => k.status().ok(),
            None => AuditSocket::open(Duration::from_secs(1))
                .ok()
                .and_then(|mut s| s.status().ok()),
        }
    }

    /// `-e 2` from `fastaudit ctl`: the rules stay until fastaudit
    /// restarts (the status file says so); the kernel is not told.
    pub fn lock(&mut self) {
        self.settings.lock = true;
    }

    /// Whether the rules are locked (`-e 2`) as far as the status file says.
    pub fn locked(&self) -> bool {
        self.settings.lock
    }

    /// Put the kernel back as it was found and unregister (nothing to do
    /// with --bpf-only).
    pub fn stop(&mut self) -> Result<(), Error> {
        match self.daemon.as_mut() {
            Some(k) => k.stop().map_err(Error::kernel(
                "putting the kernel audit back as it was found",
            )),
            None => Ok(()),
        }
    }
}
