//! Programs the kernel refuses (at load: the verifier; at attach: a
//! missing attach point), as data: the loader reports them, the caller
//! compiles the rules again with them in [`crate::Environment::refused`],
//! and [`degrade`] works out what the plan does without each: the
//! program's other hook kind, user-space lookups, or the features that
//! need it marked unavailable ([`crate::Plan::degraded`]).

use crate::plan::hook::{AttachPoint, Attachment};
use crate::plan::kinds::{InodeSource, Probe};
use crate::plan::{Environment, Plan};
use std::sync::Mutex;

/// One program this kernel refused, and why (libbpf's and the verifier's words).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The program's name in the BPF object.
    pub program: String,
    /// Why: the load error and the verifier's last word, or the attach error.
    pub why: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} refused by the kernel: {}", self.program, self.why)
    }
}

/// Test switch, read only by the loader (never from the configuration):
/// programs named here (comma-separated) are made to fail the kernel's
/// verifier at load, as a kernel that refuses them would; `attach:NAME`
/// makes a per-syscall program's attach point one the kernel lacks.
pub const TEST_ENV: &str = "FASTAUDIT_TEST_REFUSE_PROG";

/// The programs [`TEST_ENV`] names to fail at load.
pub(crate) fn test_refused() -> Vec<String> {
    test_switch()
        .into_iter()
        .filter(|p| !p.starts_with("attach:"))
        .collect()
}

/// The programs [`TEST_ENV`] names `attach:PROGRAM`: their per-syscall
/// tracepoints are attached to one this kernel does not have (a missing
/// attach point).
pub(crate) fn test_missing_points() -> Vec<String> {
    test_switch()
        .iter()
        .filter_map(|p| p.strip_prefix("attach:").map(String::from))
        .collect()
}

fn test_switch() -> Vec<String> {
    std::env::var(TEST_ENV)
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// What one refusal changes in the environment the rules are compiled
/// in, and what the plan then says about it.
pub(crate) enum Step {
    /// Compile again in the changed environment (the note says what changed).
    Again(String),
    /// Drop these attachments: the features they serve are unavailable.
    Drop(Vec<(Attachment, String)>),
}

/// The next step for `plan`'s attachments that `env` says were refused
/// (`None`: none left, or one without which nothing can be audited: then
/// [`Plan::hook_kind_problem`] says which and why).
pub(crate) fn next_step(plan: &Plan, env: &mut Environment) -> Option<Step> {
    let why = |program: &str| {
        env.refused
            .iter()
            .find(|r| r.program == program)
            .map(|r| r.why.clone())
    };
    let refused: Vec<(Attachment, String)> = plan
        .attachments
        .iter()
        .filter_map(|a| why(a.program).map(|w| (a.clone(), w)))
        .collect();
    let (first, first_why) = refused.first()?.clone();
    // The per-syscall tracepoints: the raw syscall hooks do their work.
    if let AttachPoint::Syscall { .. } = first.point {
        env.kinds.tracepoint = Probe::Refused(format!("{}: {first_why}", first.program));
        return Some(Step::Again(format!(
            "per-syscall tracepoints: {} refused ({first_why}); the raw syscall hooks are used instead",
            first.program
        )));
    }
    // Inode changes: object names are looked up from user space; the
    // rules that need the hooks themselves (watches, dir=, path=) are
    // unavailable.
    if crate::plan::hooks::serves_inode_changes(first.program) {
        env.features.inode =
            InodeSource::Missing(format!("{} refused: {first_why}", first.program));
        return Some(Step::Again(format!(
            "inode changes ({}): {} refused ({first_why}); PATH records name changed objects from user space; watches and path=/dir= rules are unavailable",
            first.purpose, first.program
        )));
    }
    // Every syscall's exit judges the rules: nothing is audited without it.
    if crate::plan::hooks::essential(first.program) {
        return None;
    }
    Some(Step::Drop(
        refused
            .into_iter()
            .filter(|(a, _)| {
                !matches!(a.point, AttachPoint::Syscall { .. })
                    && !crate::plan::hooks::serves_inode_changes(a.program)
                    && !crate::plan::hooks::essential(a.program)
            })
            .collect(),
    ))
}

/// Make `plan`'s attachments do without the refused ones the plan can do
/// without (a [`Step::Drop`]), saying so in `plan.degraded`.
pub(crate) fn drop_refused(plan: &mut Plan, dropped: &[(Attachment, String)]) {
    for (a, why) in dropped {
        plan.attachments.retain(|x| x != a);
        plan.degraded.push(format!(
            "{} ({}): unavailable: {} refused ({why})",
            a.purpose, a.point, a.program
        ));
    }
}

/// libbpf's messages while a generation loads: kept, so that a refusal
/// is known by program, with its reason.
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn keep(level: libbpf_rs::PrintLevel, msg: String) {
    let about_a_failed_load = msg.contains("failed to load")
        || msg.contains("load failed")
        || msg.contains("PROG LOAD LOG");
    if crate::load::start_trace::enabled() {
        crate::load::start_trace::print_stats(level, msg.clone());
    } else if level != libbpf_rs::PrintLevel::Debug && !about_a_failed_load {
        // libbpf's other warnings are printed as its default printer would.
        eprint!("{msg}");
    }
    if let Ok(mut m) = MESSAGES.lock() {
        m.push(msg);
    }
}

/// Capture libbpf's messages until the guard is dropped (then the
/// previous printer is back).
pub(crate) struct Capture(Option<(libbpf_rs::PrintLevel, libbpf_rs::PrintCallback)>);

impl Capture {
    pub(crate) fn start() -> Capture {
        if let Ok(mut m) = MESSAGES.lock() {
            m.clear();
        }
        // The verifier's log of a failed load comes at warning level; a
        // loaded program's statistics (the start trace) at debug level.
        let level = if crate::load::start_trace::enabled() {
            libbpf_rs::PrintLevel::Debug
        } else {
            libbpf_rs::PrintLevel::Warn
        };
        Capture(libbpf_rs::set_print(Some((level, keep))))
    }

    /// The programs whose load failed, by libbpf's messages so far.
    pub(crate) fn refusals(&self) -> Vec<Refusal> {
        let messages = MESSAGES.lock().map(|m| m.clone()).unwrap_or_default();
        parse(&messages)
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        libbpf_rs::set_print(self.0.take());
    }
}

/// The refused programs in libbpf's messages: `prog 'NAME': BPF program
/// load failed: ERR`, with the last line of the verifier log libbpf
/// prints after it (the verifier's reason), statistics left out.
fn parse(messages: &[String]) -> Vec<Refusal> {
    let mut out: Vec<Refusal> = Vec::new();
    for msg in messages {
        let Some(rest) = msg.trim_end().strip_prefix("libbpf: prog '") else {
            continue;
        };
        let Some((name, tail)) = rest.split_once("': ") else {
            continue;
        };
        if let Some(err) = tail.strip_prefix("BPF program load failed: ") {
            out.retain(|r| r.program != name);
            out.push(Refusal {
                program: name.to_string(),
                why: err.trim().to_string(),
            });
        } else if let Some(log) = tail.strip_prefix("-- BEGIN PROG LOAD LOG --") {
            let reason = log.lines().map(str::trim).rfind(|l| {
                !l.is_empty()
                    && !l.starts_with("-- END PROG LOAD LOG")
                    && !l.starts_with("processed ")
                    && !l.starts_with("verification time")
                    && !l.starts_with("stack depth")
            });
            if let (Some(r), Some(reason)) =
                (out.iter_mut().rev().find(|r| r.program == name), reason)
            {
                r.why = format!("{}; verifier: {reason}", r.why);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_rules::plan_in;

    fn refusing(programs: &[&str]) -> Environment {
        Environment {
            refused: programs
                .iter()
                .map(|p| Refusal {
                    program: p.to_string(),
                    why: "Invalid argument".into(),
                })
                .collect(),
            ..Environment::default()
        }
    }

    fn programs(p: &Plan) -> Vec<&str> {
        p.attachments.iter().map(|a| a.program).collect()
    }

    const RULES: &str = "-w /etc/passwd -p wa -k pw\n-a always,exit -F arch=b64 -S chmod -k ch\n";

    #[test]
    fn a_refused_tp_btf_program_is_replaced_by_its_raw_tp_twin() {
        let p = plan_in(RULES, refusing(&["fa_ctime_xchg"])).unwrap();
        let progs = programs(&p);
        assert!(progs.contains(&"fa_rtp_ctime_xchg") && !progs.contains(&"fa_ctime_xchg"));
        assert!(progs.contains(&"fa_ctime_skip"), "the others stay tp_btf");
        assert!(p.hook_kind_problem().is_none());
        assert!(
            p.degraded
                .iter()
                .any(|d| d.contains("fa_ctime_xchg refused")
                    && d.contains("fa_rtp_ctime_xchg used instead")),
            "{:?}",
            p.degraded
        );
        assert!(p
            .explain()
            .contains("degraded (programs this kernel refused):"));
    }

    #[test]
    fn without_inode_hooks_watches_are_unavailable_and_the_rest_audits() {
        let p = plan_in(RULES, refusing(&["fa_ctime_xchg", "fa_rtp_ctime_xchg"])).unwrap();
        assert!(
            p.hook_kind_problem().is_none(),
            "{:?}",
            p.hook_kind_problem()
        );
        assert!(!p.hooks.contains(&crate::Hook::InodeChanges));
        assert!(
            programs(&p).contains(&"fa_syscall_exit"),
            "chmod is still audited"
        );
        assert_eq!(p.unavailable.len(), 1);
        assert_eq!(p.unavailable[0].line, 1);
        assert_eq!(p.exit_rules.len(), 1, "the watch is left out");
        assert!(
            p.degraded
                .iter()
                .any(|d| d.starts_with("inode changes") && d.contains("fa_ctime_xchg refused")),
            "{:?}",
            p.degraded
        );
        assert!(p
            .degraded
            .iter()
            .any(|d| d.contains("t.rules:1") && d.contains("unavailable")));
        let unrefused = plan_in(RULES, Environment::default()).unwrap();
        assert!(unrefused.degraded.is_empty() && unrefused.unavailable.is_empty());
    }

    #[test]
    fn a_refused_per_syscall_program_gives_way_to_the_raw_syscall_hooks() {
        let chmod = "-a always,exit -F arch=b64 -S chmod -k ch\n";
        assert!(
            programs(&plan_in(chmod, Environment::default()).unwrap()).contains(&"fa_syscall_exit")
        );
        let p = plan_in(chmod, refusing(&["fa_syscall_exit"])).unwrap();
        let progs = programs(&p);
        assert!(!progs.contains(&"fa_syscall_exit"));
        assert!(progs.contains(&"fa_raw_exit"));
        assert!(p.hook_kind_problem().is_none());
        assert!(
            p.degraded[0].starts_with("per-syscall tracepoints"),
            "{:?}",
            p.degraded
        );
    }

    #[test]
    fn nothing_to_audit_without_the_exit_judge_is_said_with_the_reasons() {
        let p = plan_in(
            "-a always,exit -F arch=b64 -S chmod -k ch\n",
            refusing(&["fa_syscall_exit", "fa_raw_exit", "fa_rtp_raw_exit"]),
        )
        .unwrap();
        let why = p.hook_kind_problem().expect("refused");
        assert!(why.starts_with("nothing can be audited"), "{why}");
        assert!(
            why.contains("fa_raw_exit refused by the kernel: Invalid argument"),
            "{why}"
        );
    }

    #[test]
    fn other_refused_programs_cost_only_their_feature() {
        let p = plan_in(
            "-a always,exit -F arch=b64 -S kill -k k\n",
            refusing(&["fa_signal_sent", "fa_rtp_signal_sent"]),
        )
        .unwrap();
        assert!(p.hook_kind_problem().is_none());
        assert!(programs(&p).contains(&"fa_syscall_exit"));
        assert!(
            p.degraded
                .iter()
                .any(|d| d.starts_with("OBJ_PID") && d.contains("unavailable")),
            "{:?}",
            p.degraded
        );
    }

    #[test]
    fn libbpf_messages_name_the_refused_program_and_the_verifier_reason() {
        let m: Vec<String> = [
            "libbpf: prog 'fa_ctime_xchg': BPF program load failed: Invalid argument\n",
            "libbpf: prog 'fa_ctime_xchg': -- BEGIN PROG LOAD LOG --\n0: R1=ctx() R10=fp0\n; int BPF_PROG(x)\n0: (79) r2 = *(u64 *)(r1 +8)\ninvalid bpf_context access off=8 size=8\nprocessed 1 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n-- END PROG LOAD LOG --\n",
            "libbpf: prog 'fa_ctime_xchg': failed to load: -22\n",
            "libbpf: failed to load object 'fastaudit_bpf'\n",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            parse(&m),
            vec![Refusal {
                program: "fa_ctime_xchg".into(),
                why: "Invalid argument; verifier: invalid bpf_context access off=8 size=8".into()
            }]
        );
        assert!(parse(&["libbpf: map 'x': created\n".to_string()]).is_empty());
    }
}
