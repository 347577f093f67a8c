//! SIGHUP: read the rules again and switch to them while running, without
//! a gap (the engine's handover: `fastaudit_engine::run_live`). A rules
//! file with an error is refused with `FILE:LINE: what` on stderr (and
//! syslog) and the running rules stay. Each rule the switch removes or
//! adds is then logged as CONFIG_CHANGE, as the kernel logs auditctl's.
//! auditd.conf is read again on the same signal by crate::reconfig.

use crate::cli::RunArgs;
use fastaudit_engine::{compile, Environment, Plan};
use fastaudit_rules::listing::Lister;
use fastaudit_rules::{RuleSet, SystemHost};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One rule a switch removed or added, as the kernel's CONFIG_CHANGE says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleChange {
    /// `remove_rule` or `add_rule`.
    pub op: &'static str,
    /// The rule's key (`-k`, several joined by 0x01 as the kernel keeps them).
    pub key: Option<Vec<u8>>,
    /// The kernel's list number (1 task, 4 exit, ...).
    pub list: u32,
}

/// The rules of a run and their reloading.
pub struct Reloader {
    hup: Arc<AtomicBool>,
    rules: Vec<PathBuf>,
    /// Warnings refuse the new rules, as they did at start (--strict).
    strict: bool,
    /// The host's facts probed at start (hook kinds, tracepoints, ia32;
    /// `--audit-skipped-uring-ops`): they do not change while running, and
    /// probing loads BPF programs and forks, so a reload reuses them.
    env: Environment,
    current: RuleSet,
    offered: Option<RuleSet>,
    /// `fastaudit ctl` state (daemon/ctl_request.rs): `-e 0` runs the empty plan while
    /// the rules stay; `-e 2` locks the rules until fastaudit restarts.
    paused: bool,
    locked: bool,
    /// The `paused` of the plan offered, applied once it runs.
    offered_paused: Option<bool>,
}

impl Reloader {
    /// Watch for SIGHUP; `set` is the rule set running, compiled in `env`.
    pub fn new(args: &RunArgs, set: RuleSet, env: Environment) -> anyhow::Result<Reloader> {
        let hup = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGHUP, Arc::clone(&hup))?;
        Ok(Reloader {
            hup,
            rules: args.rules.clone(),
            strict: args.strict,
            env,
            current: set,
            offered: None,
            paused: false,
            locked: false,
            offered_paused: None,
        })
    }

    /// After a SIGHUP: the new rules' plan, or None (no signal, or the
    /// rules were refused: said on stderr and syslog).
    pub fn poll(&mut self) -> Option<Plan> {
        if !self.hup.swap(false, Ordering::Relaxed) || self.offered.is_some() {
            return None;
        }
        let refuse = |lines: Vec<String>| {
            for l in &lines {
                eprintln!("{l}");
                crate::plugins::syslog_err(l);
            }
            let m = "fastaudit: SIGHUP: the rules were refused; the running rules stay";
            eprintln!("{m}");
            crate::plugins::syslog_err(m);
        };
        if self.locked() {
            refuse(vec![
                "fastaudit: the running rules set -e 2: they cannot change until fastaudit restarts"
                    .into(),
            ]);
            return None;
        }
        let set = match crate::run_cmd::load_rules(&self.rules, &SystemHost, self.strict) {
            Ok(s) => s,
            Err(errors) => {
                refuse(errors);
                return None;
            }
        };
        match self.plan_of(&set, self.paused) {
            Ok(plan) => {
                self.offered = Some(set);
                Some(plan)
            }
            Err(e) => {
                refuse(vec![e]);
                None
            }
        }
    }

    /// The plan `set` runs as: its own, or (`paused`: `-e 0`) the empty
    /// rule set's, once `set` is known to compile.
    fn plan_of(&self, set: &RuleSet, paused: bool) -> Result<Plan, String> {
        let plan = compile(set, self.env.clone()).map_err(|e| e.to_string())?;
        if !paused {
            return Ok(plan);
        }
        compile(&RuleSet::default(), self.env.clone()).map_err(|e| e.to_string())
    }

    /// `fastaudit ctl`: switch to `set` (running the empty plan when
    /// `paused`); [`Reloader::finished`] then says how it went, as after SIGHUP.
    pub fn offer(&mut self, set: RuleSet, paused: bool) -> Result<Plan, String> {
        let plan = self.plan_of(&set, paused)?;
        self.offered = Some(set);
        self.offered_paused = Some(paused);
        Ok(plan)
    }

    /// The rules loaded now.
    pub fn current(&self) -> &RuleSet {
        &self.current
    }

    /// Whether a switch is under way.
    pub fn busy(&self) -> bool {
        self.offered.is_some()
    }

    /// fastaudit's enabled flag, as `auditctl -s` shows the kernel's.
    pub fn enabled(&self) -> u32 {
        if self.locked() {
            2
        } else {
            u32::from(!self.paused)
        }
    }

    /// `-e 2` (the rules' or `fastaudit ctl`'s): no rule change until restart.
    pub fn locked(&self) -> bool {
        self.locked || crate::daemon::KernelSettings::of(&self.current).lock
    }

    /// `fastaudit ctl -e 2`.
    pub fn lock(&mut self) {
        self.locked = true;
    }

    /// The outcome of the switch to the last plan `poll` gave: on success,
    /// the rules it removed and added (for CONFIG_CHANGE).
    pub fn finished(&mut self, ok: bool) -> Vec<RuleChange> {
        let paused = self.offered_paused.take();
        let Some(new) = self.offered.take() else {
            return Vec::new();
        };
        if !ok {
            return Vec::new();
        }
        self.paused = paused.unwrap_or(self.paused);
        let old = std::mem::replace(&mut self.current, new);
        changes(&old, &self.current)
    }
}

/// The rules of `old` not in `new` (removed, in order) and of `new` not in
/// `old` (added, in order), compared as `auditctl -l` lists them.
pub fn changes(old: &RuleSet, new: &RuleSet) -> Vec<RuleChange> {
    let host = SystemHost;
    let mut lister = Lister::new(&host);
    let mut lines = |s: &RuleSet| -> Vec<(Vec<u8>, RuleChange)> {
        s.rules()
            .map(|l| {
                (
                    lister.line(&l.rule),
                    RuleChange {
                        op: "",
                        key: l.rule.key().map(<[u8]>::to_vec),
                        list: l.rule.list,
                    },
                )
            })
            .collect()
    };
    let (a, b) = (lines(old), lines(new));
    let count = |v: &[(Vec<u8>, RuleChange)]| {
        let mut m: HashMap<Vec<u8>, usize> = HashMap::new();
        for (l, _) in v {
            *m.entry(l.clone()).or_default() += 1;
        }
        m
    };
    let (mut in_b, mut in_a) = (count(&b), count(&a));
    let mut out = Vec::new();
    for (l, c) in &a {
        match in_b.get_mut(l) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(RuleChange {
                op: "remove_rule",
                ..c.clone()
            }),
        }
    }
    for (l, c) in &b {
        match in_a.get_mut(l) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(RuleChange {
                op: "add_rule",
                ..c.clone()
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str) -> RuleSet {
        RuleSet::from_text(text.as_bytes(), "t", &SystemHost).unwrap()
    }

    #[test]
    fn kept_rules_make_no_record_and_the_rest_are_removed_then_added() {
        let a = set("-a always,exit -F arch=b64 -S chmod -k a\n-a always,exit -F arch=b64 -S fchown -k kept\n-a never,task\n");
        let b = set(
            "-a always,exit -F arch=b64 -S fchown -k kept\n-a always,exit -F arch=b64 -S mkdir\n",
        );
        let c = changes(&a, &b);
        assert_eq!(
            c,
            // In listing order, as the kernel lists them: the task list first.
            vec![
                RuleChange {
                    op: "remove_rule",
                    key: None,
                    list: 1
                },
                RuleChange {
                    op: "remove_rule",
                    key: Some(b"a".to_vec()),
                    list: 4
                },
                RuleChange {
                    op: "add_rule",
                    key: None,
                    list: 4
                },
            ]
        );
        assert!(changes(&b, &b).is_empty());
    }
}
