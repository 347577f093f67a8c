//! The rules of a run: the set loaded, and switches to another (SIGHUP:
//! the rules files read again; `fastaudit ctl`: a changed copy) while
//! running, without a gap (the engine's handover:
//! `fastaudit_engine::run_live`). Rules files with an error are refused
//! with `FILE:LINE: what` on stderr (and syslog) and the running rules
//! stay. Each rule a switch removes or adds is then logged as
//! CONFIG_CHANGE, as the kernel logs auditctl's (change.rs).

pub mod change;
mod load;
mod refused;

pub use change::{changes, RuleChange};
pub use load::{default_source, load, load_for_run, load_limited, print_warnings, RULES_D};
pub use refused::Refused;

use crate::kernel::KernelSettings;
use fastaudit_engine::{compile, Environment, Plan};
use fastaudit_log::syslog::{syslog, Priority};
use fastaudit_rules::{RuleSet, SystemHost};
use std::path::PathBuf;

/// The rules of a run and their switches.
pub struct Rules {
    /// Where they are read from (SIGHUP reads them again).
    paths: Vec<PathBuf>,
    /// Warnings refuse the new rules, as they did at start (--strict).
    strict: bool,
    /// The host's facts probed at start (hook kinds, tracepoints, ia32;
    /// `--audit-skipped-uring-ops`): they do not change while running, and
    /// probing loads BPF programs and forks, so a reload reuses them.
    env: Environment,
    current: RuleSet,
    offered: Option<RuleSet>,
    /// `fastaudit ctl` state (crate::control): `-e 0` runs the empty plan while
    /// the rules stay; `-e 2` locks the rules until fastaudit restarts.
    paused: bool,
    locked: bool,
    /// The `paused` of the plan offered, applied once it runs.
    offered_paused: Option<bool>,
    /// The lines refused at start (`FILE:LINE: why`) and the summary, when
    /// the set runs without them; a reload of a complete set clears them.
    refused: Refused,
    /// The set offered was read from the files (SIGHUP), not `ctl`'s.
    offered_reload: bool,
}

impl Rules {
    /// `set`, read from `paths` (`strict`: refused on any warning) and
    /// compiled in `env`, runs.
    pub fn new(paths: &[PathBuf], strict: bool, set: RuleSet, env: Environment) -> Rules {
        Rules {
            paths: paths.to_vec(),
            strict,
            env,
            current: set,
            offered: None,
            paused: false,
            locked: false,
            offered_paused: None,
            refused: Refused::default(),
            offered_reload: false,
        }
    }

    /// The lines refused at start: the set runs without them (see
    /// [`load_for_run`]).
    pub fn with_refused(mut self, refused: Refused) -> Rules {
        self.refused = refused;
        self
    }

    /// The lines the running set lacks (none once a reload loaded the
    /// files whole).
    pub fn refused(&self) -> &Refused {
        &self.refused
    }

    /// SIGHUP: the rules files read again and their plan, or the lines
    /// that refused them (said on stderr and syslog too; none when a
    /// switch is under way, and the request waits for none).
    pub fn reload(&mut self) -> Result<Plan, Vec<String>> {
        if self.offered.is_some() {
            return Err(Vec::new());
        }
        let refuse = |mut lines: Vec<String>| {
            lines.push("fastaudit: SIGHUP: the rules were refused; the running rules stay".into());
            for l in &lines {
                eprintln!("{l}");
                syslog(Priority::Err, l);
            }
            lines
        };
        if self.locked() {
            return Err(refuse(vec![
                "fastaudit: the running rules set -e 2: they cannot change until fastaudit restarts"
                    .into(),
            ]));
        }
        let set = load(&self.paths, &SystemHost, self.strict).map_err(refuse)?;
        let plan = self
            .plan_of(&set, self.paused)
            .map_err(|e| refuse(vec![e]))?;
        self.offered = Some(set);
        self.offered_reload = true;
        Ok(plan)
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

    /// The running rules' plan made again without the programs this
    /// kernel `refused` (kept for every later plan: a reload would meet
    /// the same refusals).
    /// Each refusal not known before is said on stderr (the journal).
    pub fn replan(&mut self, refused: &[fastaudit_engine::Refusal]) -> Result<Plan, String> {
        for r in refused.iter().filter(|r| !self.env.refused.contains(r)) {
            eprintln!("fastaudit: {r}");
        }
        self.env.refused = refused.to_vec();
        self.plan_of(&self.current, self.paused)
    }

    /// `fastaudit ctl`: switch to `set` (running the empty plan when
    /// `paused`); [`Rules::finished`] then says how it went, as after SIGHUP.
    pub fn offer(&mut self, set: RuleSet, paused: bool) -> Result<Plan, String> {
        let plan = self.plan_of(&set, paused)?;
        self.offered = Some(set);
        self.offered_paused = Some(paused);
        self.offered_reload = false;
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
        self.locked || KernelSettings::of(&self.current).lock
    }

    /// `fastaudit ctl -e 2`.
    pub fn lock(&mut self) {
        self.locked = true;
    }

    /// The outcome of the switch to the last plan offered: on success,
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
        // A reload runs the files loaded whole (it refuses a set with a
        // refused line): the start's partial set is gone. A `ctl` change
        // leaves the refused lines as missing as they were.
        if std::mem::take(&mut self.offered_reload) {
            self.refused = Refused::default();
        }
        let old = std::mem::replace(&mut self.current, new);
        changes(&old, &self.current)
    }
}
