//! The compiled form of a rule set ([`crate::plan::compile`] makes it): the
//! per-syscall ordered lists of candidate rules, the hooks to attach, and
//! the host facts it was made for. The map images ([`crate::plan::image`]) and
//! `--explain` ([`crate::plan::explain`]) are made from the plan alone.

use crate::plan::hook::{Attachment, Hook};
use crate::plan::kinds::{Features, HookKinds, InodeSource, UringSubmit};
use crate::plan::refusal::Refusal;
use crate::plan::rule::{arch_allows, CompiledRule, Watch};
use fastaudit_rules::abi::field;
use fastaudit_rules::syscall_sets::{obj_pid_senders, AUDIT_SIGNALS};
use fastaudit_rules::{Origin, Target};
use std::collections::{BTreeMap, BTreeSet};

/// The compiled form of a rule set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The machine the plan is for (its native and compat ABIs): every
    /// syscall number in it is of one of these.
    pub target: Target,
    /// Exit-list rules in kernel order.
    pub exit_rules: Vec<CompiledRule>,
    /// Per syscall number: indexes into `exit_rules`, in order. Only numbers
    /// that some `always` rule can record are present.
    pub by_syscall: BTreeMap<u32, Vec<u32>>,
    /// Task-list rules, evaluated when a task is created; their ids follow
    /// the exit rules'.
    pub task_rules: Vec<CompiledRule>,
    /// Executable paths named by `exe=` tests.
    pub exes: Vec<Vec<u8>>,
    /// Watched paths; a watch test's value is its index + 1.
    pub watches: Vec<Watch>,
    /// Hooks the rules need, cheapest first choice already made.
    pub hooks: Vec<Hook>,
    /// The BPF programs and where each is attached: exactly what `run`
    /// loads and attaches (empty when `hook_kind_problem` says why).
    pub attachments: Vec<Attachment>,
    /// Rules on lists fastaudit records nothing for (user, exclude, filesystem).
    pub not_applicable: Vec<Origin>,
    /// The hook kinds the plan was made for.
    pub kinds: HookKinds,
    /// The io_uring list's rules and the ops audited.
    pub uring: crate::plan::uring::UringPlan,
    /// The kernel facts the plan was made for, beyond the hook kinds.
    pub features: Features,
    /// The programs this kernel refused, that the plan was made without.
    pub refused: Vec<Refusal>,
    /// What the plan does without them, one line each: the other hook
    /// used, or the feature unavailable, and why (`--explain`, the
    /// journal and a DAEMON_ERR record at start).
    pub degraded: Vec<String>,
    /// Rules left out because the hooks they need were refused.
    pub unavailable: Vec<Origin>,
    /// Why the syscalls' own functions are not what is hooked (`None`:
    /// they are, or there is nothing to hook), for `--explain`.
    pub functions_not_hooked: Option<String>,
}

/// What the host offers that changes rule meaning or the hooks to use.
#[derive(Clone, Debug)]
pub struct Environment {
    /// The machine the plan is for: its native and compat syscall tables,
    /// arches and hooks (default: the one this binary was built for).
    pub target: Target,
    /// Whether an LSM that evaluates audit rule labels is active.
    pub lsm_audit_rules: bool,
    /// The hook kinds this kernel allows (default: all assumed to work).
    pub kinds: HookKinds,
    /// Syscalls NAME that have a `syscalls:sys_exit_NAME` tracepoint here
    /// (the syscall table's names and the kernel's SYSCALL_DEFINE names
    /// can differ); `None`: not read (no root), every one assumed present.
    pub syscall_tracepoints: Option<BTreeSet<String>>,
    /// Not a host fact but the user's choice (`--audit-skipped-uring-ops`):
    /// audit the io_uring ops the kernel never audits too.
    pub audit_skipped_uring_ops: bool,
    /// Not a host fact but the user's choice (`--syscall-function-hooks`):
    /// hook the audited syscalls' own functions where fexit loads.
    pub syscall_function_hooks: bool,
    /// The kernel runs no compat syscall (x86_64: no
    /// CONFIG_IA32_EMULATION, or `ia32_emulation=false`; arm64: no
    /// CONFIG_COMPAT or a CPU without 32-bit EL0): rules on that ABI can
    /// never hold, so they need no hook. Default: compat assumed on.
    pub ia32_disabled: bool,
    /// `sched:sched_prepare_exec` (Linux 6.10+) is missing: exec arguments
    /// need entry hooks (native execs their `sys_enter_NAME` tracepoints,
    /// ia32 ones the raw entry hook). Default: assumed present.
    pub no_prepare_exec: bool,
    /// The BPF features, tracepoints and functions the kernel has
    /// (default: all assumed present).
    pub features: Features,
    /// Programs this kernel refused at load or attach (found by loading
    /// the plan: [`crate::EngineError::Refused`]); the plan is made
    /// without them.
    pub refused: Vec<Refusal>,
}

impl Default for Environment {
    fn default() -> Environment {
        Environment {
            target: crate::plan::syscalls::BUILT_FOR,
            lsm_audit_rules: false,
            kinds: HookKinds::default(),
            syscall_tracepoints: None,
            audit_skipped_uring_ops: false,
            syscall_function_hooks: false,
            ia32_disabled: false,
            no_prepare_exec: false,
            features: Features::default(),
            refused: Vec::new(),
        }
    }
}

impl Default for Plan {
    fn default() -> Plan {
        Plan {
            target: crate::plan::syscalls::BUILT_FOR,
            exit_rules: Vec::new(),
            by_syscall: BTreeMap::new(),
            task_rules: Vec::new(),
            exes: Vec::new(),
            watches: Vec::new(),
            hooks: Vec::new(),
            attachments: Vec::new(),
            not_applicable: Vec::new(),
            kinds: HookKinds::default(),
            uring: crate::plan::uring::UringPlan::default(),
            features: Features::default(),
            refused: Vec::new(),
            degraded: Vec::new(),
            unavailable: Vec::new(),
            functions_not_hooked: None,
        }
    }
}

impl Environment {
    /// Facts assumed, not probed (no root, for `--explain`): `allowed`
    /// kinds work, every syscall tracepoint exists.
    pub fn assumed(allowed: &[crate::plan::kinds::Kind]) -> Environment {
        Environment {
            kinds: HookKinds::assumed(allowed),
            ..Environment::default()
        }
    }
}

/// Whether rule r tests the objects a syscall names (path=, dir=, a
/// watch, obj_uid, obj_gid, inode, devmajor, devminor, filetype, -C with
/// obj_*): with no name, the kernel finds such a test false.
fn tests_names(r: &crate::plan::rule::CompiledRule) -> bool {
    use crate::plan::rule::{FIELD_OBJ, FIELD_OBJ_COMPARE};
    r.tests.iter().any(|t| {
        matches!(t.field, field::WATCH | field::DIR)
            || t.field & (FIELD_OBJ | FIELD_OBJ_COMPARE) != 0
    })
}

impl Plan {
    /// Whether some exit rule names kill, tkill or tgkill, in either ABI
    /// (the kernel's `audit_signals`: only then does it note the tasks a
    /// syscall signals).
    pub fn has_signal_rules(&self) -> bool {
        [false, true].into_iter().any(|compat| {
            AUDIT_SIGNALS.iter().any(|name| {
                let nr = crate::plan::syscalls::number(self.target.machine(compat), name);
                !self.candidates(nr, compat).is_empty()
            })
        })
    }

    /// Whether OBJ_PID can be written: signal rules (the kernel then notes
    /// every signal syscall's target), or a rule that can record ptrace.
    pub fn has_obj_pid_rules(&self) -> bool {
        let ptrace = crate::plan::syscalls::number(self.target.native, "ptrace");
        self.has_signal_rules() || !self.candidates(ptrace, false).is_empty()
    }

    /// Whether a native syscall that signals or attaches to a task (those
    /// whose target the BPF side notes, special.bpf.h `is_signal_sender`)
    /// can be recorded: by an always rule among its candidates, or every
    /// syscall of an always,task rule's tasks. Without one, no OBJ_PID is
    /// written and no signal needs noting (ia32 senders are not followed).
    pub fn native_signal_sender_recordable(&self) -> bool {
        self.has_always_task_rules()
            || obj_pid_senders().any(|name| {
                let nr = crate::plan::syscalls::number(self.target.native, name);
                self.candidates(nr, false)
                    .iter()
                    .any(|&i| self.exit_rules[i as usize].always)
            })
    }

    /// Whether an always,task rule selects tasks whose every syscall is
    /// recorded (the BPF side's `recorded` map holds those tasks).
    pub fn has_always_task_rules(&self) -> bool {
        self.task_rules.iter().any(|r| r.always)
    }

    /// For candidate rules `ids`: `None` when none tests a path (path=,
    /// dir=); else the perm= bits under which one of those can still hold
    /// (`u32::MAX` when one has no perm= test). A rule holds only if every
    /// perm= test does, so its first perm= value bounds it. The BPF side
    /// collects a syscall's path names (its `fa_span.path_rules_perm`) only then.
    pub fn path_rules_perm(&self, ids: &[u32]) -> Option<u32> {
        let mut mask = None;
        for &i in ids {
            let tests = &self.exit_rules[i as usize].tests;
            if !tests
                .iter()
                .any(|t| matches!(t.field, field::WATCH | field::DIR))
            {
                continue;
            }
            let perm = tests
                .iter()
                .find(|t| t.field == field::PERM)
                .map_or(u32::MAX, |t| t.value);
            mask = Some(mask.unwrap_or(0) | perm);
        }
        mask
    }

    /// Whether one of rules `ids` tests the syscall's objects (obj_uid,
    /// obj_gid, inode, devmajor, devminor, filetype, -C with obj_*): only
    /// then are they gathered before the rules are judged; otherwise only
    /// for a syscall that will be recorded.
    pub fn obj_rules(&self, ids: &[u32]) -> bool {
        use crate::plan::rule::{FIELD_OBJ, FIELD_OBJ_COMPARE};
        ids.iter().any(|&i| {
            self.exit_rules[i as usize]
                .tests
                .iter()
                .any(|t| t.field & (FIELD_OBJ | FIELD_OBJ_COMPARE) != 0)
        })
    }

    /// Candidate rules for syscall `nr` of one ABI, in order: those whose
    /// arch and perm= tests can hold there (the rest cannot match, so
    /// leaving them out changes no decision, and a syscall of an ABI no
    /// rule can record costs only the index lookup).
    pub fn candidates(&self, nr: u32, compat: bool) -> Vec<u32> {
        let abi = self.target.audit_arch(compat);
        self.by_syscall.get(&nr).map_or_else(Vec::new, |ids| {
            ids.iter()
                .copied()
                .filter(|&i| {
                    let r = &self.exit_rules[i as usize];
                    arch_allows(r, abi)
                        && r.tests
                            .iter()
                            .filter(|t| t.field == field::PERM)
                            .all(|t| crate::plan::perm::possible(self.target, nr, compat, t.value))
                        && !(crate::plan::syscalls::names_nothing(self.target, nr, compat)
                            && tests_names(r))
                })
                .collect()
        })
    }

    /// Why this kernel cannot run the plan, if it cannot: the raw syscall,
    /// task and inode hooks need tp_btf or raw_tp.
    pub fn hook_kind_problem(&self) -> Option<String> {
        if self.hooks.is_empty() {
            return None;
        }
        // A refused program still planned: one nothing can be audited without.
        let still: Vec<String> = self
            .refused
            .iter()
            .filter(|r| self.attachments.iter().any(|a| a.program == r.program))
            .map(|r| format!("  {r}"))
            .collect();
        if !still.is_empty() {
            let all: Vec<String> = self.refused.iter().map(|r| format!("  {r}")).collect();
            return Some(format!(
                "nothing can be audited: this kernel refused the programs every syscall's audit needs:\n{}\nrefused in all:\n{}",
                still.join("\n"),
                all.join("\n")
            ));
        }
        if let Some(why) = self.features.missing_bpf_problem() {
            return Some(why);
        }
        if let Some(why) = self.feature_problem() {
            return Some(why);
        }
        let needs = self.hooks.iter().any(Hook::needs_raw_kind);
        (needs && self.kinds.raw_kind().is_none()).then(|| {
            format!(
                "this kernel loads neither tp_btf nor raw_tp programs, which the plan needs:\n{}",
                self.kinds.describe().trim_end()
            )
        })
    }
}

impl Plan {
    /// Rules this kernel cannot follow for want of an optional tracepoint
    /// or function, by name, with the missing feature.
    fn feature_problem(&self) -> Option<String> {
        let mut problems = Vec::new();
        if let InodeSource::Missing(why) = &self.features.inode {
            let rules: Vec<String> = self
                .exit_rules
                .iter()
                .filter(|r| {
                    r.tests
                        .iter()
                        .any(|t| matches!(t.field, field::WATCH | field::DIR))
                })
                .map(|r| format!("  {}", r.origin))
                .collect();
            if !rules.is_empty() {
                problems.push(format!(
                    "watches and path=/dir= rules need inode change hooks, which this kernel lacks ({why}):\n{}",
                    rules.join("\n")
                ));
            }
        }
        if let UringSubmit::Missing(why) = &self.features.uring_submit {
            if self.uring.active() {
                let rules: Vec<String> = self
                    .uring
                    .rules
                    .iter()
                    .map(|r| format!("  {}", r.origin))
                    .collect();
                problems.push(format!(
                    "io_uring rules need the io_uring submit tracepoint, which this kernel lacks ({why}):\n{}",
                    rules.join("\n")
                ));
            }
        }
        (!problems.is_empty()).then(|| problems.join("\n"))
    }
}

impl Plan {
    /// `rule_prio`: each exit and io_uring rule's rank in the kernel's
    /// priority (rules added earlier rank higher; added = written, in file
    /// and line order), for the io_uring ops judged inside io_uring_enter.
    pub fn rule_prio(&self) -> Vec<(u32, u32)> {
        if !self.uring.active() {
            return Vec::new();
        }
        let first_uring = (self.exit_rules.len() + self.task_rules.len()) as u32;
        let mut all: Vec<(u32, &Origin)> = self
            .exit_rules
            .iter()
            .enumerate()
            .map(|(i, r)| (i as u32, &r.origin))
            .chain(
                self.uring
                    .rules
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (first_uring + i as u32, &r.origin)),
            )
            .collect();
        all.sort_by(|a, b| (&a.1.file, a.1.line).cmp(&(&b.1.file, b.1.line)));
        let n = all.len() as u32;
        all.iter()
            .enumerate()
            .map(|(pos, &(id, _))| (id, n - pos as u32))
            .collect()
    }

    /// The key of rule `id` (exit rules, task rules, io_uring rules, in
    /// that order; `FA_NO_RULE` and beyond: none).
    pub fn rule_key(&self, id: u32) -> Option<Vec<u8>> {
        self.exit_rules
            .iter()
            .chain(&self.task_rules)
            .chain(&self.uring.rules)
            .nth(id as usize)
            .and_then(|r| r.key.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::rule::{Test, FIELD_NEVER};
    use crate::plan::syscalls::{i386, x86_64};
    use crate::plan::test_rules::plan;
    use fastaudit_rules::abi::op;

    #[test]
    fn candidates_keep_kernel_order_never_first() {
        let p = plan(
            "-a never,exit -F arch=b64 -S chmod -F uid=0\n-a always,exit -F arch=b64 -S chmod,open\n-A always,exit -F arch=b64 -S chmod -k first\n",
        )
        .unwrap();
        let chmod = &p.by_syscall[&x86_64("chmod")];
        let keys: Vec<_> = chmod
            .iter()
            .map(|&i| p.exit_rules[i as usize].key.clone())
            .collect();
        assert_eq!(keys, vec![Some(b"first".to_vec()), None, None]);
        assert!(!p.exit_rules[chmod[1] as usize].always);
    }

    #[test]
    fn loginuid_unset_becomes_loginuid_set_test() {
        let p = plan("-a always,exit -F arch=b64 -S open -F auid!=unset\n").unwrap();
        assert_eq!(
            p.exit_rules[0].tests[1],
            Test {
                field: field::LOGINUID_SET,
                op: op::NOT_EQUAL,
                value: 0
            }
        );
    }

    #[test]
    fn object_fields_become_object_tests() {
        let p = plan("-a always,exit -F arch=b64 -S open -F inode=5 -F filetype=file -C auid!=obj_uid -F obj_gid>=100\n").unwrap();
        let t = &p.exit_rules[0].tests;
        assert_eq!(t[1].field, crate::plan::rule::FIELD_OBJ | field::INODE);
        assert_eq!(t[1].value, 5);
        assert_eq!(t[2].field, crate::plan::rule::FIELD_OBJ | field::FILETYPE);
        assert_eq!(t[2].value, 0o100000);
        assert_eq!(
            t[3].field,
            crate::plan::rule::FIELD_OBJ_COMPARE | (field::LOGINUID << 8) | field::OBJ_UID
        );
        assert_eq!(t[3].op, op::NOT_EQUAL);
        assert_eq!(t[4].field, crate::plan::rule::FIELD_OBJ | field::OBJ_GID);
        assert!(p.rodata().have_objs);
    }

    #[test]
    fn watches_become_path_tests_on_the_syscalls_their_permissions_allow() {
        let p = plan("-w /etc/passwd -p wa -k x\n-w /etc/passwd -p r\n-a always,exit -F arch=b64 -S all -F dir=/etc -F perm=x\n").unwrap();
        assert_eq!(p.watches.len(), 2, "one path= and one dir= watch");
        assert!(p.hooks.contains(&Hook::InodeChanges));
        // chmod changes attributes; execve is only perm=x.
        assert_eq!(p.by_syscall[&x86_64("chmod")], vec![0]);
        assert_eq!(p.by_syscall[&x86_64("execve")], vec![2]);
        // Native getpid is nothing for perm=; only i386 mkdir has its number.
        assert_eq!(x86_64("getpid"), i386("mkdir"));
        let only64 =
            plan("-a always,exit -F arch=b64 -S all -F path=/etc/passwd -F perm=a\n").unwrap();
        assert!(!only64.by_syscall.contains_key(&x86_64("getpid")));
        assert!(only64.by_syscall.contains_key(&x86_64("chmod")));
        assert!(
            !only64.by_syscall.contains_key(&x86_64("unlink")),
            "unlink writes, it is not an attribute change"
        );
    }

    #[test]
    fn candidates_are_split_by_abi() {
        // No arch: a watch rule names getpid's number, which is getpid
        // natively (nothing for perm=wa) and mkdir on i386 (a write).
        let getpid = x86_64("getpid");
        let p = plan("-w /etc/passwd -p wa\n-a always,exit -F arch=b64 -S getpid\n").unwrap();
        assert_eq!(p.by_syscall[&getpid], vec![0, 1]);
        assert_eq!(p.candidates(getpid, false), vec![1]);
        assert_eq!(p.candidates(getpid, true), vec![0]);
    }

    #[test]
    fn paths_are_collected_only_where_a_path_rule_can_hold() {
        let p = plan(
            "-w /etc/passwd -p wa\n-a always,exit -F arch=b64 -S openat -F key=o\n-w /etc/group -p r\n",
        )
        .unwrap();
        // openat: both watches and the plain rule are candidates.
        let ids = p.candidates(x86_64("openat"), false);
        assert_eq!(ids, vec![0, 1, 2]);
        use crate::plan::perm::{ATTR, READ, WRITE};
        assert_eq!(p.path_rules_perm(&ids), Some(WRITE | ATTR | READ), "wa | r");
        assert_eq!(p.path_rules_perm(&[1]), None, "no rule tests a path");
        let p = plan("-a always,exit -F arch=b64 -S openat -F path=/etc/passwd\n").unwrap();
        assert_eq!(p.path_rules_perm(&[0]), Some(u32::MAX), "no perm=: always");
    }

    #[test]
    fn lsm_tests_never_hold_without_an_lsm() {
        let p = plan("-a never,exit -F arch=b64 -S open -F subj_type=crond_t\n-a always,exit -F arch=b64 -S open\n").unwrap();
        assert_eq!(p.exit_rules[0].tests[1].field, FIELD_NEVER);
        assert_eq!(p.by_syscall[&x86_64("open")], vec![0, 1]);
    }

    #[test]
    fn task_rules_lose_syscall_fields() {
        let p = plan("-a never,task -F uid=65534 -F a0=1\n-a always,exit -F arch=b64 -S chmod\n")
            .unwrap();
        assert_eq!(p.task_rules[0].tests[1].field, FIELD_NEVER);
    }

    #[test]
    fn always_task_rules_leave_the_exit_rules_unconsulted() {
        let p = plan("-a always,task -F uid=65534\n-a never,exit -F arch=b64 -S getpid\n").unwrap();
        assert!(
            p.by_syscall.is_empty(),
            "exit rules are not consulted for always,task tasks, and a never rule records nothing for others"
        );
    }

    #[test]
    fn io_uring_rules_are_compiled_per_op() {
        let p =
            plan("-a never,io_uring -U openat -F uid=0\n-a always,io_uring -U openat,statx -k o\n")
                .unwrap();
        assert_eq!(p.uring.rules.len(), 2);
        assert_eq!(p.uring.by_op[&18], vec![0, 1]);
        assert!(p.uring.tracked.contains(&18) && p.uring.tracked.contains(&19));
        assert!(
            !p.uring.tracked.contains(&21),
            "statx is one of the ops the kernel skips"
        );
        let with = Environment {
            audit_skipped_uring_ops: true,
            ..Environment::default()
        };
        let p = crate::plan::test_rules::plan_in("-a always,io_uring -U statx\n", with).unwrap();
        assert!(p.uring.tracked.contains(&21) && p.uring.tracked.contains(&0));
        assert!(plan("-a never,io_uring -U openat\n")
            .unwrap()
            .uring
            .tracked
            .is_empty());
        let e = plan("-a always,io_uring -U openat -F dir=/tmp\n").unwrap_err();
        assert!(e.to_string().contains("io_uring"), "{e}");
    }
}
