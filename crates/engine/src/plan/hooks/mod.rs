//! Which kernel hooks a plan needs ([`crate::plan::hook`]), and the BPF programs
//! and attach points that implement them: the list `run` loads and attaches and `--explain`
//! prints, so both always say the same.

use crate::plan::hook::{AttachPoint, Attachment, Hook};
use crate::plan::kinds::{Features, InodeSource, Kind, UringSubmit};
use crate::plan::refusal::Refusal;
use crate::plan::syscalls;
use crate::plan::{Environment, Plan};
use companion::companion_hooks;
use entry::raw_entry_hooks;
use fastaudit_bpf::programs as prog;
#[cfg(test)]
use fastaudit_rules::Target;
use noted::{noted_attachments, noted_hooks};
use per_function::{function_attachments, per_function};
use per_syscall::per_syscall;
use programs::{
    Twice, EXEC_PREPARE, INODE, INODE_KPROBES, RAW_ENTER, RAW_EXIT, SIGNAL_SENT, TASK,
    URING_SUBMIT_SQE,
};
use uring::{uring_enter_attachments, URING_OPS};

mod companion;
mod entry;
pub mod noted;
mod per_function;
mod per_syscall;
mod programs;
mod uring;

/// Whether `program` is one of the inode change hooks (tracepoints or
/// kprobes): without it, watches cannot be followed.
pub(crate) fn serves_inode_changes(program: &str) -> bool {
    INODE
        .iter()
        .any(|t| t.tp_btf == program || t.raw_tp == program)
        || INODE_KPROBES.iter().any(|&(p, _)| p == program)
}

/// The other kind's program of a raw hook (tp_btf for raw_tp and back).
pub(crate) fn other_kind_of(program: &str) -> Option<&'static str> {
    [
        RAW_EXIT,
        RAW_ENTER,
        EXEC_PREPARE,
        SIGNAL_SENT,
        URING_SUBMIT_SQE,
    ]
    .iter()
    .chain(&TASK)
    .chain(&INODE)
    .chain(&URING_OPS)
    .find_map(|t| {
        if t.tp_btf == program {
            Some(t.raw_tp)
        } else if t.raw_tp == program {
            Some(t.tp_btf)
        } else {
            None
        }
    })
}

/// Whether `program` is the raw syscall exit hook, which judges the
/// rules of every syscall the per-syscall tracepoints cannot: without
/// either kind of it nothing can be audited.
pub(crate) fn essential(program: &str) -> bool {
    RAW_EXIT.tp_btf == program || RAW_EXIT.raw_tp == program
}

/// The programs and attach points for `hooks`, the raw ones as `raw_kind`
/// programs (tp_btf or raw_tp); `None` when a hook needs a raw kind and
/// there is none. The raw hooks come first, the per-syscall ones after.
/// A raw program this kernel `refused` is replaced by its other kind.
/// `target` names the per-syscall hooks' syscalls.
pub fn attachments(
    target: fastaudit_rules::Target,
    hooks: &[Hook],
    raw_kind: Option<Kind>,
    features: &Features,
    refused: &[Refusal],
) -> Option<Vec<Attachment>> {
    let mut raw = Vec::new();
    let (mut exits, mut enters) = (Vec::new(), Vec::new());
    let uring_ops: Vec<Twice> = match features.uring_submit {
        UringSubmit::SubmitSqe => std::iter::once(URING_SUBMIT_SQE)
            .chain(URING_OPS.into_iter().skip(1))
            .collect(),
        _ => URING_OPS.into_iter().collect(),
    };
    for h in hooks {
        let twice: &[Twice] = match h {
            Hook::RawSyscallExit => std::slice::from_ref(&RAW_EXIT),
            Hook::RawSyscallEnter => std::slice::from_ref(&RAW_ENTER),
            Hook::ExecPrepare => std::slice::from_ref(&EXEC_PREPARE),
            Hook::SignalSent => std::slice::from_ref(&SIGNAL_SENT),
            Hook::TaskLifecycle => &TASK,
            Hook::InodeChanges => {
                match features.inode {
                    InodeSource::Kprobes { ctime_current, .. } => {
                        let wanted =
                            |f: &&(&str, &str)| ctime_current || f.1 != "inode_set_ctime_current";
                        raw.extend(INODE_KPROBES.iter().filter(wanted).map(
                            |&(program, function)| Attachment {
                                program,
                                point: AttachPoint::Kprobe { function },
                                purpose: "changed inodes (watches, PATH records)".to_string(),
                            },
                        ));
                        continue;
                    }
                    _ => &INODE,
                }
            }
            Hook::UringOps => &uring_ops,
            Hook::UringEnter => {
                exits.extend(uring_enter_attachments(target, hooks, &mut enters));
                continue;
            }
            Hook::SyscallExit { nr, syscall } => {
                exits.push(Attachment {
                    program: prog::FA_SYSCALL_EXIT,
                    point: AttachPoint::Syscall {
                        tracepoint: format!("sys_exit_{syscall}"),
                    },
                    purpose: format!("nr {nr}"),
                });
                continue;
            }
            Hook::CompanionExit { nr, syscall } => {
                exits.push(Attachment {
                    program: prog::FA_SYSCALL_EXIT,
                    point: AttachPoint::Syscall {
                        tracepoint: format!("sys_exit_{syscall}"),
                    },
                    purpose: match syscall.starts_with("send") {
                        true => format!("nr {nr}, audit config sends (CONFIG_CHANGE's SYSCALL)"),
                        false => format!("nr {nr}, loginuid writes (LOGIN's SYSCALL record)"),
                    },
                });
                continue;
            }
            Hook::Noted(n) => {
                raw.extend(noted_attachments(*n, &features.functions));
                continue;
            }
            Hook::SyscallFunction { .. } => continue,
            Hook::SyscallEnter { nr, syscall } => {
                let (program, why) = if syscalls::special(target, false).no_return().contains(nr) {
                    (prog::FA_SYSCALL_ENTER_END, "never returns: judged at entry")
                } else {
                    (prog::FA_SYSCALL_ENTER, "arguments")
                };
                enters.push(Attachment {
                    program,
                    point: AttachPoint::Syscall {
                        tracepoint: format!("sys_enter_{syscall}"),
                    },
                    purpose: format!("nr {nr}, {why}"),
                });
                continue;
            }
        };
        let kind = raw_kind?;
        raw.extend(twice.iter().map(|t| t.attach(kind, refused)));
    }
    raw.extend(exits);
    raw.extend(enters);
    raw.extend(function_attachments(target, hooks));
    Some(raw)
}

/// The hooks a plan needs. Per-syscall tracepoints only see native
/// syscalls, and each one attached costs every syscall a little; raw
/// syscall hooks see both ABIs. Use per-syscall tracepoints when only
/// native syscalls with a tracepoint on this kernel can be recorded, else
/// the raw hooks. Loginuid writes and audit config sends are always seen
/// (the raw exit hook sees them; else [`Hook::CompanionExit`]), for the
/// SYSCALL (SOCKADDR) and PROCTITLE stock audit adds to LOGIN
/// (CONFIG_CHANGE) whatever the rules (on 6.18 also with
/// no rule at all): with no rule that can record anything, those
/// tracepoints are all that is attached (none when the tracepoint kind is
/// unusable).
pub(crate) fn choose(plan: &Plan, env: &Environment) -> Vec<Hook> {
    let tracepoints = env.syscall_tracepoints.as_ref();
    let mut hooks = Vec::new();
    if plan.has_always_task_rules() {
        // Every syscall of the selected tasks, of both ABIs, exits and
        // execs included.
        hooks.push(Hook::RawSyscallExit);
        hooks.push(Hook::RawSyscallEnter);
    } else if let Ok(functions) = per_function(plan, env) {
        // Best where the kernel allows it: only the audited syscalls
        // (and the companions) run a program.
        hooks.extend(functions);
    } else if !plan.by_syscall.is_empty() {
        match per_syscall(plan, env) {
            Some(per_syscall) => hooks.extend(per_syscall),
            None => {
                hooks.push(Hook::RawSyscallExit);
                hooks.extend(raw_entry_hooks(plan, env));
            }
        }
    }
    if hooks.is_empty() && plan.kinds.tracepoint.usable() {
        hooks = companion_hooks(plan.target, &hooks, tracepoints);
    }
    if !hooks.is_empty() && !plan.task_rules.is_empty() {
        hooks.push(Hook::TaskLifecycle);
    }
    // Inode changes: watches match them, and they are the objects (PATH
    // records, object fields) of the syscalls that change no fd; without
    // a raw hook kind, names are looked up from user space instead.
    // Where this kernel has no inode hook, names are looked up from user
    // space too, and watches are refused (Plan::hook_kind_problem).
    let raw_kind = plan.kinds.tp_btf.usable() || plan.kinds.raw_tp.usable();
    let inode_hooks = !matches!(env.features.inode, InodeSource::Missing(_));
    if !hooks.is_empty()
        && (!plan.watches.is_empty()
            || ((plan.names_paths() || plan.uring.active()) && raw_kind && inode_hooks))
    {
        hooks.push(Hook::InodeChanges);
    }
    // The signalled task as it is when the kernel notes it (its comm
    // changes if it execs before the syscall's exit); every signal sent
    // pays the hook, so only when a native sender can be recorded.
    if !hooks.is_empty()
        && raw_kind
        && plan.has_obj_pid_rules()
        && plan.native_signal_sender_recordable()
    {
        hooks.push(Hook::SignalSent);
    }
    hooks.extend(uring::uring_hooks(plan));
    if !hooks.is_empty() {
        hooks.extend(noted_hooks(plan));
    }
    hooks
}

/// Why `plan`'s hooks are not on the syscalls' own functions (`None`:
/// they are, or nothing is hooked).
pub(crate) fn functions_not_hooked(plan: &Plan, env: &Environment) -> Option<String> {
    if plan.hooks.is_empty()
        || plan
            .hooks
            .iter()
            .any(|h| matches!(h, Hook::SyscallFunction { .. }))
    {
        return None;
    }
    if plan.has_always_task_rules() {
        return Some("an always,task rule records every syscall of its tasks".into());
    }
    per_function(plan, env).err()
}

/// Every program and attach point a plan can name: [`attachments`] for
/// every hook, with each raw kind and each variant of the kernel facts that
/// changes a program (inode kprobes, the older submit tracepoint, the
/// older clock function). The loader's programs are checked against the
/// BPF object by it (`crate::load::programs`).
#[cfg(test)]
pub(crate) fn every_attachment() -> Vec<Attachment> {
    use crate::plan::hook::Noted;
    use crate::plan::kinds::KernelFunctions;
    let exit_group = syscalls::x86_64("exit_group");
    let chmod = syscalls::x86_64("chmod");
    let hooks = [
        Hook::RawSyscallExit,
        Hook::RawSyscallEnter,
        Hook::ExecPrepare,
        Hook::TaskLifecycle,
        Hook::InodeChanges,
        Hook::UringOps,
        Hook::UringEnter,
        Hook::SignalSent,
        Hook::Noted(Noted::Ntp),
        Hook::Noted(Noted::Module),
        Hook::SyscallExit {
            nr: chmod,
            syscall: "chmod".into(),
        },
        Hook::CompanionExit {
            nr: syscalls::x86_64("write"),
            syscall: "write".into(),
        },
        Hook::SyscallEnter {
            nr: chmod,
            syscall: "chmod".into(),
        },
        Hook::SyscallEnter {
            nr: exit_group,
            syscall: "exit_group".into(),
        },
    ];
    let newest = Features::default();
    let oldest = Features {
        inode: InodeSource::Kprobes {
            ctime_current: true,
            atime_caller: None,
        },
        uring_submit: UringSubmit::SubmitSqe,
        functions: KernelFunctions::Missing(vec![noted::noted_functions()
            .next()
            .unwrap_or_default()
            .to_string()]),
        ..Features::default()
    };
    // Every kind of hook is in the list: this match has no wildcard, so a
    // new variant does not build until it is listed above.
    for hook in &hooks {
        match hook {
            Hook::RawSyscallExit
            | Hook::SyscallExit { .. }
            | Hook::CompanionExit { .. }
            | Hook::RawSyscallEnter
            | Hook::SyscallEnter { .. }
            | Hook::ExecPrepare
            | Hook::TaskLifecycle
            | Hook::InodeChanges
            | Hook::UringOps
            | Hook::UringEnter
            | Hook::SignalSent
            | Hook::Noted(Noted::Ntp | Noted::Module) => {}
            // Every stub and body: per_function::every_function_attachment.
            Hook::SyscallFunction { .. } => {}
        }
    }
    let mut all: Vec<Attachment> = Vec::new();
    for kind in [Kind::TpBtf, Kind::RawTp] {
        for features in [&newest, &oldest] {
            for a in
                attachments(Target::X86_64, &hooks, Some(kind), features, &[]).unwrap_or_default()
            {
                if !all.contains(&a) {
                    all.push(a);
                }
            }
        }
    }
    all.extend(per_function::every_function_attachment());
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::syscalls::x86_64;
    use crate::plan::test_rules::{plan, plan_in};
    use crate::plan::Environment;

    fn exit(name: &str) -> Hook {
        Hook::SyscallExit {
            nr: x86_64(name),
            syscall: name.into(),
        }
    }

    /// The companion hooks a per-syscall plan adds (all seven: no test
    /// rule here names a write or send).
    fn companion_hooks() -> Vec<Hook> {
        syscalls::companion_exits(Target::X86_64)
            .into_iter()
            .map(|(nr, tp)| Hook::CompanionExit {
                nr,
                syscall: tp.into(),
            })
            .collect()
    }

    /// `hooks` followed by the companion hooks.
    fn with_login(hooks: Vec<Hook>) -> Vec<Hook> {
        [hooks, companion_hooks()].concat()
    }

    fn enter(name: &str) -> Hook {
        Hook::SyscallEnter {
            nr: x86_64(name),
            syscall: name.into(),
        }
    }

    #[test]
    fn no_rules_only_the_loginuid_writes() {
        // Stock audit writes a LOGIN's SYSCALL whatever the rules.
        let p = plan("").unwrap();
        assert_eq!(p.hooks, companion_hooks());
        assert_eq!(p.attachments.len(), 7);
        let p = plan("-a never,task -F uid=65534\n").unwrap();
        assert_eq!(
            p.hooks,
            [companion_hooks(), vec![Hook::TaskLifecycle]].concat(),
            "never,task tasks get no companion"
        );
        let p = plan("-a never,exit -F arch=b64 -S all -F uid=0\n").unwrap();
        assert_eq!(
            p.hooks.len(),
            7,
            "only never rules: the write family, judged by them (nothing else can be recorded)"
        );
        assert!(p
            .by_syscall
            .keys()
            .all(|&nr| syscalls::is_companion_syscall(Target::X86_64, nr, false)));
        let p = plan_in("", Environment::assumed(&[Kind::TpBtf])).unwrap();
        assert!(
            p.hooks.is_empty(),
            "without the tracepoint kind nothing is attached for them alone"
        );
    }

    #[test]
    fn signal_targets_are_noted_as_signals_are_sent() {
        let signals = |rules: &str| plan(rules).unwrap().hooks.contains(&Hook::SignalSent);
        assert!(signals("-a always,exit -F arch=b64 -S kill -F a1=15\n"));
        assert!(signals("-a always,exit -F arch=b64 -S ptrace\n"));
        assert!(
            signals("-a always,exit -F arch=b32 -S tkill\n-a always,exit -F arch=b64 -S tgkill -F uid=7\n"),
            "an ia32 signal rule makes the kernel note native signals too"
        );
        assert!(
            !signals("-a always,exit -F arch=b32 -S tkill\n-a never,exit -F arch=b64 -S kill\n"),
            "but only a recordable native sender's are written (ia32 senders are not followed)"
        );
        assert!(signals(
            "-a always,exit -F arch=b32 -S tkill\n-a always,task -F uid=7\n"
        ));
        assert!(!signals("-a always,exit -F arch=b64 -S chmod\n"));
        assert!(!signals(""));
    }

    #[test]
    fn native_syscall_rules_use_per_syscall_tracepoints() {
        let p =
            plan("-a always,exit -F arch=b64 -S chmod,fchmodat -F auid>=1000 -k perm\n").unwrap();
        assert_eq!(
            p.hooks,
            [
                with_login(vec![exit("chmod"), exit("fchmodat")]),
                vec![Hook::InodeChanges]
            ]
            .concat(),
            "chmod names a path: its object comes from the inode changes"
        );
        let exits: Vec<&Attachment> = p
            .attachments
            .iter()
            .filter(|a| a.program == "fa_syscall_exit")
            .collect();
        let shown: Vec<String> = exits.iter().map(|a| a.to_string()).collect();
        assert_eq!(
            shown[..3],
            [
                "tracepoint/syscalls:sys_exit_chmod by fa_syscall_exit",
                "tracepoint/syscalls:sys_exit_fchmodat by fa_syscall_exit",
                "tracepoint/syscalls:sys_exit_write by fa_syscall_exit",
            ]
        );
        assert_eq!(
            exits[3].to_string(),
            "tracepoint/syscalls:sys_exit_pwrite64 by fa_syscall_exit",
            "the tracepoint's name, not the table's (pwrite)"
        );
        assert_eq!(
            exits[2].purpose,
            "nr 1, loginuid writes (LOGIN's SYSCALL record)"
        );
    }

    #[test]
    fn loginuid_writes_are_hooked_once() {
        let p = plan("-a always,exit -F arch=b64 -S write,chmod -k w\n").unwrap();
        let writes = p
            .hooks
            .iter()
            .filter(|h| {
                matches!(
                    h,
                    Hook::SyscallExit { nr: 1, .. } | Hook::CompanionExit { nr: 1, .. }
                )
            })
            .count();
        assert_eq!(
            writes, 1,
            "a rule's own write hook sees loginuid writes too"
        );
        assert_eq!(p.hooks.len(), 2 + 6 + 1);
        // A kernel before 6.10 (no sched_prepare_exec), where execve's
        // arguments need its entry tracepoint too.
        let with = |names: &[&str]| Environment {
            syscall_tracepoints: Some(names.iter().map(|n| n.to_string()).collect()),
            no_prepare_exec: true,
            ..Environment::default()
        };
        let p = plan_in(
            "-a always,exit -F arch=b64 -S chmod\n",
            with(&["chmod", "write"]),
        )
        .unwrap();
        assert_eq!(
            p.hooks,
            vec![
                exit("chmod"),
                Hook::CompanionExit {
                    nr: 1,
                    syscall: "write".into()
                },
                Hook::InodeChanges
            ],
            "a missing write-family tracepoint is left out, not a reason for the raw hooks"
        );
    }

    #[test]
    fn syscalls_that_never_return_are_judged_at_entry() {
        let p = plan("-a always,exit -F arch=b64 -S exit_group,chmod,execve\n").unwrap();
        assert_eq!(
            p.hooks,
            [
                with_login(vec![
                    exit("execve"),
                    exit("chmod"),
                    enter("exit_group"),
                    Hook::ExecPrepare
                ]),
                vec![Hook::InodeChanges]
            ]
            .concat()
        );
        // exit_group's judging program is its own: a plan without it
        // loads only the argument saver.
        let enter_program = |tp: &str| {
            p.attachments
                .iter()
                .find(|a| a.point.to_string() == format!("tracepoint/syscalls:{tp}"))
                .map(|a| a.program)
        };
        assert_eq!(
            enter_program("sys_enter_exit_group"),
            Some("fa_syscall_enter_end")
        );
        assert_eq!(
            enter_program("sys_enter_execve"),
            None,
            "execve's arguments are saved by sched_prepare_exec (every syscall pays an entry tracepoint)"
        );
        assert!(p.attachments.iter().any(|a| a.program == "fa_exec_prepare"));
        assert_eq!(
            plan("-a always,exit -F arch=b32 -S exit\n").unwrap().hooks,
            vec![Hook::RawSyscallExit, Hook::RawSyscallEnter],
            "ia32 exit is seen by the raw entry hook"
        );
        assert_eq!(
            plan("-a always,exit -F arch=b64 -S write,munmap\n")
                .unwrap()
                .hooks
                .len(),
            2 + 6,
            "native write and munmap share numbers with ia32 exit and execve, but need no entry hook"
        );
        assert_eq!(
            plan("-a always,exit -S write\n").unwrap().hooks,
            vec![Hook::RawSyscallExit, Hook::RawSyscallEnter],
            "the kernel tests the number's bit whatever the ABI: an arch-less rule on write also selects ia32 exit"
        );
    }

    #[test]
    fn compat_or_all_syscalls_need_raw_hooks() {
        assert_eq!(
            plan("-a always,exit -F arch=b32 -S chmod\n").unwrap().hooks,
            vec![Hook::RawSyscallExit, Hook::InodeChanges]
        );
        assert_eq!(
            plan("-a always,exit -S chmod\n").unwrap().hooks,
            vec![Hook::RawSyscallExit, Hook::InodeChanges]
        );
        assert_eq!(
            plan("-a always,exit -F arch=b64 -S all\n").unwrap().hooks[..3],
            [Hook::RawSyscallExit, enter("exit"), enter("exit_group")],
            "all syscalls include exit/exit_group, judged at entry: native ones by their own \
             entry tracepoints, not the raw entry hook"
        );
        assert!(
            plan("-a always,exit -F arch=b64 -S all\n")
                .unwrap()
                .hooks
                .contains(&Hook::ExecPrepare),
            "and execve, whose arguments sched_prepare_exec saves"
        );
        assert_eq!(
            plan("-a always,exit -F arch=b64 -S execve,chmod\n")
                .unwrap()
                .hooks,
            [
                with_login(vec![exit("execve"), exit("chmod"), Hook::ExecPrepare]),
                vec![Hook::InodeChanges]
            ]
            .concat()
        );
        let before_6_10 = Environment {
            no_prepare_exec: true,
            ..Environment::default()
        };
        assert_eq!(
            plan_in("-a always,exit -F arch=b64 -S execve,chmod\n", before_6_10)
                .unwrap()
                .hooks,
            [
                with_login(vec![exit("execve"), exit("chmod"), enter("execve")]),
                vec![Hook::InodeChanges]
            ]
            .concat(),
            "no sched_prepare_exec (before Linux 6.10): execve's entry tracepoint"
        );
    }

    #[test]
    fn without_ia32_compat_rules_need_no_raw_hooks() {
        let text = "-a always,exit -F arch=b64 -S execve,chmod -k e\n\
                    -a always,exit -F arch=b32 -S execve,chmod -k e\n";
        let off = Environment {
            ia32_disabled: true,
            ..Environment::default()
        };
        assert_eq!(
            plan_in(text, off).unwrap().hooks,
            [
                with_login(vec![exit("execve"), exit("chmod"), Hook::ExecPrepare]),
                vec![Hook::InodeChanges]
            ]
            .concat(),
            "the kernel runs no ia32 syscall: per-syscall tracepoints"
        );
        assert_eq!(plan(text).unwrap().hooks[0], Hook::RawSyscallExit);
    }

    #[test]
    fn a_missing_tracepoint_sends_everything_to_the_raw_hooks() {
        let text = "-a always,exit -F arch=b64 -S chmod,execve\n";
        // A kernel before 6.10 (no sched_prepare_exec), where execve's
        // arguments need its entry tracepoint too.
        let with = |names: &[&str]| Environment {
            syscall_tracepoints: Some(names.iter().map(|n| n.to_string()).collect()),
            no_prepare_exec: true,
            ..Environment::default()
        };
        let p = plan_in(text, with(&["chmod", "execve"])).unwrap();
        assert_eq!(
            p.hooks,
            vec![
                exit("execve"),
                exit("chmod"),
                enter("execve"),
                Hook::InodeChanges
            ]
        );
        let p = plan_in(text, with(&["chmod"])).unwrap();
        assert_eq!(
            p.hooks,
            vec![
                Hook::RawSyscallExit,
                Hook::RawSyscallEnter,
                Hook::InodeChanges
            ]
        );
        let programs: Vec<&str> = p.attachments.iter().map(|a| a.program).collect();
        assert_eq!(
            programs,
            vec![
                "fa_raw_exit",
                "fa_raw_enter",
                "fa_ctime_xchg",
                "fa_ctime_skip",
                "fa_ctime_set"
            ]
        );
    }

    #[test]
    fn the_raw_kind_picks_the_programs() {
        let text = "-a never,task -F uid=65534\n-w /etc/passwd -p wa\n";
        let p = plan_in(text, Environment::assumed(&[Kind::RawTp, Kind::Tracepoint])).unwrap();
        let shown: Vec<String> = p.attachments.iter().map(|a| a.to_string()).collect();
        assert_eq!(
            shown,
            vec![
                "raw_tp/raw_syscalls:sys_exit by fa_rtp_raw_exit",
                "raw_tp/task:task_newtask by fa_rtp_task_new",
                "raw_tp/sched:sched_process_exit by fa_rtp_task_exit",
                "raw_tp/timestamp:ctime_ns_xchg by fa_rtp_ctime_xchg",
                "raw_tp/timestamp:ctime_xchg_skip by fa_rtp_ctime_skip",
                "raw_tp/timestamp:inode_set_ctime_to_ts by fa_rtp_ctime_set",
            ],
            "a watch without arch names every syscall of both ABIs: raw hooks"
        );
        let p = plan_in(text, Environment::assumed(&[Kind::Fexit])).unwrap();
        assert!(p.attachments.is_empty() && p.hook_kind_problem().is_some());
        let p = plan_in(
            "-a always,exit -F arch=b64 -S chmod\n",
            Environment::assumed(&[Kind::Tracepoint]),
        )
        .unwrap();
        assert_eq!(p.attachments.len(), 1 + 7, "no raw kind needed");
        assert!(p.hook_kind_problem().is_none());
    }

    #[test]
    fn inode_hooks_follow_the_kernel() {
        use crate::plan::kinds::{Features, InodeSource, UringSubmit};
        let text = "-w /etc/passwd -p wa\n-a always,exit -F arch=b64 -S chmod\n";
        let with = |inode: InodeSource| Environment {
            features: Features {
                inode,
                ..Features::default()
            },
            ..Environment::default()
        };
        let p = plan_in(
            text,
            with(InodeSource::Kprobes {
                ctime_current: true,
                atime_caller: None,
            }),
        )
        .unwrap();
        let shown: Vec<String> = p
            .attachments
            .iter()
            .filter(|a| a.purpose.starts_with("changed inodes"))
            .map(|a| a.to_string())
            .collect();
        assert_eq!(
            shown[..3],
            [
                "kprobe/current_time by fa_kprobe_current_time",
                "kprobe/inode_set_ctime_current by fa_kprobe_ctime_current",
                "kprobe/vfs_create by fa_kprobe_vfs_create"
            ]
        );
        assert_eq!(shown.len(), 10);
        assert!(p.hook_kind_problem().is_none());
        assert!(p
            .explain()
            .contains("PATH attributes of changed objects: before the change, as the kernel's"));
        let p = plan_in(
            text,
            with(InodeSource::Kprobes {
                ctime_current: false,
                atime_caller: None,
            }),
        )
        .unwrap();
        assert_eq!(
            p.attachments
                .iter()
                .filter(|a| a.purpose.starts_with("changed inodes"))
                .count(),
            9
        );
        // Nowhere to see them: watches are refused by name; names alone
        // are looked up from user space.
        let p = plan_in(text, with(InodeSource::Missing("none here".into()))).unwrap();
        let why = p.hook_kind_problem().expect("refused");
        assert!(
            why.contains("none here") && why.contains("t.rules:1"),
            "{why}"
        );
        let p = plan_in(
            "-a always,exit -F arch=b64 -S chmod\n",
            with(InodeSource::Missing("none here".into())),
        )
        .unwrap();
        assert!(!p.hooks.contains(&Hook::InodeChanges) && p.hook_kind_problem().is_none());
        // io_uring: the older submit tracepoint, or a refusal by name.
        let uring = |submit: UringSubmit| Environment {
            features: Features {
                uring_submit: submit,
                ..Features::default()
            },
            ..Environment::default()
        };
        let p = plan_in(
            "-a always,io_uring -U openat\n",
            uring(UringSubmit::SubmitSqe),
        )
        .unwrap();
        assert!(
            p.attachments
                .iter()
                .any(|a| a.to_string()
                    == "tp_btf/io_uring:io_uring_submit_sqe by fa_uring_submit_sqe")
        );
        let p = plan_in(
            "-a always,io_uring -U openat\n",
            uring(UringSubmit::Missing("gone".into())),
        )
        .unwrap();
        assert!(p
            .hook_kind_problem()
            .is_some_and(|w| w.contains("io_uring rules")));
        // A kernel without the BPF features every plan needs.
        let old = Environment {
            features: Features {
                missing_bpf: vec!["bpf_loop (Linux 5.17)".into()],
                ..Features::default()
            },
            ..Environment::default()
        };
        let p = plan_in("-a always,exit -F arch=b64 -S chmod\n", old).unwrap();
        assert!(p.hook_kind_problem().is_some_and(
            |w| w.contains("bpf_loop (Linux 5.17)") && w.contains("Linux 6.1 or later")
        ));
    }

    #[test]
    fn never_task_rules_get_the_task_hooks() {
        let p = plan("-a never,task -F uid=65534 -F a0=1\n-a always,exit -F arch=b64 -S chmod\n")
            .unwrap();
        assert!(p.hooks.contains(&Hook::TaskLifecycle));
    }

    #[test]
    fn always_task_rules_record_every_syscall_through_the_raw_hooks() {
        let p = plan("-a always,task -F uid=65534\n-a never,exit -F arch=b64 -S getpid\n").unwrap();
        assert!(p.has_always_task_rules());
        assert_eq!(
            p.hooks,
            vec![
                Hook::RawSyscallExit,
                Hook::RawSyscallEnter,
                Hook::TaskLifecycle
            ]
        );
    }
}
