//! Compiling a loaded rule set into what the kernel side needs: the hooks to
//! attach and, per syscall, the ordered list of candidate rules (the idea of
//! the 2021 per-syscall audit RFC), so a syscall only evaluates the rules
//! that name it and unaudited syscalls cost nothing.
//!
//! Semantics follow the kernel's exit list (`audit_filter_syscall`): rules
//! are tried in list order, a rule matches when its syscall bit is set and
//! every field test holds, and the first match decides (`never` = do not
//! record). Every field test is `subject OP constant` on 32-bit values, as
//! the kernel's `audit_comparator` truncates both sides to u32.

use crate::kinds::HookKinds;
use fastaudit_rules::abi::{action, arch, field, list, op};
use fastaudit_rules::tables::{self, Machine};
use fastaudit_rules::{Origin, Rule, RuleSet};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use thiserror::Error;

/// Highest syscall number a rule bitmap can name below the class bits.
const MAX_SYSCALL: u32 = 2048 - 16;

/// Field code for a test that can never hold (an LSM label test on a
/// machine without an LSM that supports audit rules, as in the kernel).
pub const FIELD_NEVER: u32 = 0xFFFF;

/// One field test as the BPF side evaluates it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Test {
    /// Kernel field number (`abi::field`), `LOGINUID_SET` for `auid=-1`, or [`FIELD_NEVER`].
    pub field: u32,
    /// Kernel operator bits (`abi::op`).
    pub op: u32,
    /// Constant; for `exe` an index into [`Plan::exes`], for `-C` the comparison id.
    pub value: u32,
}

/// A rule ready for the kernel side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledRule {
    /// Where the rule was written.
    pub origin: Origin,
    /// True for `always`, false for `never`.
    pub always: bool,
    /// Field tests, all of which must hold.
    pub tests: Vec<Test>,
    /// The rule's key(s), joined by `\x01`, if any.
    pub key: Option<Vec<u8>>,
}

/// A kernel hook the plan needs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Hook {
    /// `raw_syscalls:sys_enter`/`sys_exit`: every syscall of every ABI.
    RawSyscalls,
    /// `syscalls:sys_exit_NAME` for one native syscall.
    SyscallExit { nr: u32, name: String },
    /// `raw_syscalls:sys_enter`, to save exec arguments and judge
    /// exit/exit_group (both ABIs).
    RawSyscallsEnter,
    /// `syscalls:sys_enter_NAME`: saves a native exec syscall's arguments,
    /// or judges exit/exit_group, which never reach an exit hook.
    SyscallEnter { nr: u32, name: String },
    /// Task creation and exit, for the task list.
    TaskNew,
    /// Inode change tracepoints (`timestamp:*ctime*`), for path= and dir= watches.
    InodeChanges,
}

/// A watched path: `path=` (one object) or `dir=` (a whole tree).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watch {
    /// The path as the rule gives it.
    pub path: Vec<u8>,
    /// True for `dir=` (the directory and everything below it).
    pub tree: bool,
}

/// The compiled form of a rule set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
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
    /// Hooks to attach, cheapest first choice already made.
    pub hooks: Vec<Hook>,
    /// Rules on lists fastaudit records nothing for (user, exclude, filesystem).
    pub not_applicable: Vec<Origin>,
    /// The hook kinds the plan was made for.
    pub kinds: HookKinds,
}

/// A rule the kernel side cannot enforce.
#[derive(Debug, Error, PartialEq, Eq)]
#[error(
    "{origin}: fastaudit cannot enforce {what} yet; remove the rule or keep it in the kernel audit"
)]
pub struct CompileError {
    /// The rule's line.
    pub origin: Origin,
    /// The field or form that is not supported.
    pub what: String,
}

/// What the host offers that changes rule meaning or the hooks to use.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    /// Whether an LSM that evaluates audit rule labels is active.
    pub lsm_audit_rules: bool,
    /// The hook kinds this kernel allows (default: all assumed to work).
    pub kinds: HookKinds,
}

fn unsupported(origin: &Origin, what: impl Into<String>) -> CompileError {
    CompileError {
        origin: origin.clone(),
        what: what.into(),
    }
}

/// Compile the rule set.
pub fn compile(set: &RuleSet, env: Environment) -> Result<Plan, CompileError> {
    let mut plan = Plan {
        kinds: env.kinds.clone(),
        ..Plan::default()
    };
    for loaded in set.rules() {
        let r = &loaded.rule;
        match r.list {
            list::EXIT | list::URING_EXIT | list::TASK => {}
            // User messages, record exclusion and PATH filtering concern
            // records fastaudit does not produce.
            _ => {
                plan.not_applicable.push(loaded.origin.clone());
                continue;
            }
        }
        if r.list == list::URING_EXIT {
            // Until the io_uring hook exists, refuse rather than ignore.
            return Err(unsupported(&loaded.origin, "the io_uring list"));
        }
        if r.list == list::TASK {
            let mut compiled = compile_rule(r, &loaded.origin, &env, &mut plan)?;
            // At task creation there is no syscall: the kernel's tests of
            // arch, ppid, exit, success and arguments cannot hold there.
            for t in &mut compiled.tests {
                if matches!(
                    t.field,
                    field::ARCH | field::PPID | field::EXIT | field::SUCCESS | field::ARG0
                        ..=field::ARG3
                ) {
                    *t = Test {
                        field: FIELD_NEVER,
                        op: op::EQUAL,
                        value: 0,
                    };
                }
            }
            plan.task_rules.push(compiled);
            continue;
        }
        let compiled = compile_rule(r, &loaded.origin, &env, &mut plan)?;
        let idx = plan.exit_rules.len() as u32;
        // A perm= test holds only for some syscalls (a watch names every
        // syscall): keep those, so the rule costs nothing elsewhere.
        let perms: Vec<u32> = compiled
            .tests
            .iter()
            .filter(|t| t.field == field::PERM)
            .map(|t| t.value)
            .collect();
        let abis = [
            (false, arch_allows(&compiled, arch::X86_64)),
            (true, arch_allows(&compiled, arch::I386)),
        ];
        let perm_possible = |nr: u32| {
            perms.iter().all(|&m| {
                abis.iter()
                    .any(|&(compat, allowed)| allowed && crate::perm::possible(nr, compat, m))
            })
        };
        for nr in (0..MAX_SYSCALL).filter(|&n| r.has_syscall(n) && perm_possible(n)) {
            plan.by_syscall.entry(nr).or_default().push(idx);
        }
        plan.exit_rules.push(compiled);
    }
    // A syscall whose candidates are all `never` rules can record nothing.
    let exit_rules = &plan.exit_rules;
    plan.by_syscall
        .retain(|_, idx| idx.iter().any(|&i| exit_rules[i as usize].always));
    plan.hooks = choose_hooks(&plan);
    Ok(plan)
}

fn compile_rule(
    r: &Rule,
    origin: &Origin,
    env: &Environment,
    plan: &mut Plan,
) -> Result<CompiledRule, CompileError> {
    let mut tests = Vec::new();
    let mut key = None;
    for f in &r.fields {
        let mut t = Test {
            field: f.field,
            op: f.op,
            value: f.value,
        };
        match f.field {
            field::LOGINUID if f.value == fastaudit_rules::abi::UNSET_ID => {
                t = Test {
                    field: field::LOGINUID_SET,
                    op: f.op,
                    value: 0,
                };
            }
            field::PID
            | field::UID..=field::FSGID
            | field::LOGINUID
            | field::PERS
            | field::ARCH
            | field::PPID
            | field::SESSIONID
            | field::EXIT
            | field::SUCCESS
            | field::ARG0..=field::ARG3 => {}
            field::FIELD_COMPARE => {
                let objects = tables::COMPARISONS
                    .iter()
                    .find(|(_, _, c)| *c == f.value)
                    .is_none_or(|(a, b, _)| {
                        [a, b]
                            .iter()
                            .any(|x| matches!(**x, field::OBJ_UID | field::OBJ_GID))
                    });
                if objects {
                    return Err(unsupported(
                        origin,
                        "a -C comparison with a file's owner (obj_uid/obj_gid)",
                    ));
                }
            }
            field::EXE => {
                let exes = &mut plan.exes;
                let at = exes.iter().position(|e| *e == f.text).unwrap_or_else(|| {
                    exes.push(f.text.clone());
                    exes.len() - 1
                });
                t.value = at as u32;
            }
            field::WATCH | field::DIR => {
                let w = Watch {
                    path: f.text.clone(),
                    tree: f.field == field::DIR,
                };
                let watches = &mut plan.watches;
                let at = watches.iter().position(|x| *x == w).unwrap_or_else(|| {
                    watches.push(w);
                    watches.len() - 1
                });
                t.value = at as u32 + 1;
            }
            field::PERM => {}
            field::FILTERKEY => {
                key = Some(f.text.clone());
                continue;
            }
            field::SUBJ_USER..=field::SUBJ_CLR | field::OBJ_USER..=field::OBJ_LEV_HIGH
                if !env.lsm_audit_rules =>
            {
                // Without an LSM the kernel keeps the rule but the test never holds.
                t = Test {
                    field: FIELD_NEVER,
                    op: op::EQUAL,
                    value: 0,
                };
            }
            other => {
                let name = tables::field_name(other)
                    .map_or_else(|| format!("field {other}"), |n| format!("-F {n}"));
                return Err(unsupported(origin, name));
            }
        }
        tests.push(t);
    }
    Ok(CompiledRule {
        origin: origin.clone(),
        always: r.action == action::ALWAYS,
        tests,
        key,
    })
}

/// Whether a rule's arch tests can hold for syscalls of `arch_value`.
fn arch_allows(rule: &CompiledRule, arch_value: u32) -> bool {
    rule.tests
        .iter()
        .filter(|t| t.field == field::ARCH)
        .all(|t| match t.op {
            op::EQUAL => arch_value == t.value,
            op::NOT_EQUAL => arch_value != t.value,
            _ => true,
        })
}

/// Per-syscall tracepoints only see native syscalls, and each one attached
/// costs every syscall a little; raw syscall hooks see both ABIs. Use
/// per-syscall tracepoints when only native syscalls with a tracepoint name
/// can be recorded, else the raw hooks.
fn choose_hooks(plan: &Plan) -> Vec<Hook> {
    let mut hooks = Vec::new();
    if plan.records_tasks() {
        // Every syscall of the selected tasks, of both ABIs, exits and
        // execs included.
        hooks.push(Hook::RawSyscalls);
        hooks.push(Hook::RawSyscallsEnter);
    } else if !plan.by_syscall.is_empty() {
        let compat = plan
            .by_syscall
            .values()
            .flatten()
            .any(|&i| arch_allows(&plan.exit_rules[i as usize], arch::I386));
        let names: Option<Vec<Hook>> = plan
            .by_syscall
            .keys()
            .map(|&nr| {
                Machine::X86_64.syscall_name(nr).map(|n| Hook::SyscallExit {
                    nr,
                    name: n.to_string(),
                })
            })
            .collect();
        // Entry hooks: execve/execveat clear the registers on success, so
        // their arguments are saved at entry; exit/exit_group never return,
        // so they are judged at entry (x86_64 59/322 and 60/231, ia32
        // 11/358 and 1/252).
        let native = |nr: u32| !plan.candidates(nr, false).is_empty();
        let ia32 = |nr: u32| !plan.candidates(nr, true).is_empty();
        match names {
            Some(per_syscall)
                if !compat && per_syscall.len() < 64 && plan.kinds.tracepoint.usable() =>
            {
                // Their exit tracepoints never fire: judged at entry below.
                hooks.extend(
                    per_syscall
                        .into_iter()
                        .filter(|h| !matches!(h, Hook::SyscallExit { nr: 60 | 231, .. })),
                );
                for (nr, name) in [
                    (59, "execve"),
                    (322, "execveat"),
                    (60, "exit"),
                    (231, "exit_group"),
                ] {
                    if native(nr) {
                        hooks.push(Hook::SyscallEnter {
                            nr,
                            name: name.into(),
                        });
                    }
                }
            }
            _ => {
                hooks.push(Hook::RawSyscalls);
                if [59, 322, 60, 231].into_iter().any(native)
                    || [11, 358, 1, 252].into_iter().any(ia32)
                {
                    hooks.push(Hook::RawSyscallsEnter);
                }
            }
        }
    }
    if !hooks.is_empty() && !plan.task_rules.is_empty() {
        hooks.push(Hook::TaskNew);
    }
    if !hooks.is_empty() && !plan.watches.is_empty() {
        hooks.push(Hook::InodeChanges);
    }
    hooks
}

impl Plan {
    /// Whether an always,task rule records every syscall of some tasks.
    pub fn records_tasks(&self) -> bool {
        self.task_rules.iter().any(|r| r.always)
    }

    /// For candidate rules `ids`: `None` when none tests names (path=,
    /// dir=); else the perm= bits under which one of those can still hold
    /// (`u32::MAX` when one has no perm= test). A rule holds only if every
    /// perm= test does, so its first perm= value bounds it.
    pub fn names_perm(&self, ids: &[u32]) -> Option<u32> {
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

    /// Candidate rules for syscall `nr` of one ABI, in order: those whose
    /// arch and perm= tests can hold there (the rest cannot match, so
    /// leaving them out changes no decision, and a syscall of an ABI no
    /// rule can record costs only the index lookup).
    pub fn candidates(&self, nr: u32, compat: bool) -> Vec<u32> {
        let abi = if compat { arch::I386 } else { arch::X86_64 };
        self.by_syscall.get(&nr).map_or_else(Vec::new, |ids| {
            ids.iter()
                .copied()
                .filter(|&i| {
                    let r = &self.exit_rules[i as usize];
                    arch_allows(r, abi)
                        && r.tests
                            .iter()
                            .filter(|t| t.field == field::PERM)
                            .all(|t| crate::perm::possible(nr, compat, t.value))
                })
                .collect()
        })
    }

    /// Why this kernel cannot run the plan, if it cannot: the raw syscall,
    /// task and inode hooks need tp_btf or raw_tp.
    pub fn hook_kind_problem(&self) -> Option<String> {
        let needs = self.hooks.iter().any(|h| {
            matches!(
                h,
                Hook::RawSyscalls | Hook::RawSyscallsEnter | Hook::TaskNew | Hook::InodeChanges
            )
        });
        (needs && self.kinds.raw_kind().is_none()).then(|| {
            format!(
                "this kernel loads neither tp_btf nor raw_tp programs, which the plan needs:\n{}",
                self.kinds.describe().trim_end()
            )
        })
    }

    /// A human-readable account of the plan (`fastaudit run --explain`).
    pub fn explain(&self) -> String {
        let mut s = String::new();
        if self.hooks.is_empty() {
            s.push_str("hooks: none (no rule can record anything; nothing is attached)\n");
        } else {
            let _ = writeln!(s, "hooks:");
            let via = match self.kinds.raw_kind() {
                Some(k) => format!("{}/", k.name()),
                None => "(no usable kind) ".to_string(),
            };
            for h in &self.hooks {
                let _ = match h {
                    Hook::RawSyscalls => {
                        writeln!(s, "  {via}raw_syscalls:sys_exit (all syscalls, both ABIs)")
                    }
                    Hook::SyscallExit { name, nr } => {
                        writeln!(s, "  syscalls:sys_exit_{name} (nr {nr})")
                    }
                    Hook::RawSyscallsEnter => {
                        writeln!(
                            s,
                            "  {via}raw_syscalls:sys_enter (exec arguments; exit/exit_group, which never return)"
                        )
                    }
                    Hook::TaskNew => {
                        writeln!(
                            s,
                            "  {via}task:task_newtask + sched:sched_process_exit (task list)"
                        )
                    }
                    Hook::SyscallEnter { name, nr } if matches!(nr, 60 | 231) => {
                        writeln!(
                            s,
                            "  syscalls:sys_enter_{name} (nr {nr}, never returns: judged at entry)"
                        )
                    }
                    Hook::SyscallEnter { name, nr } => {
                        writeln!(s, "  syscalls:sys_enter_{name} (nr {nr}, arguments)")
                    }
                    Hook::InodeChanges => writeln!(
                        s,
                        "  {via}timestamp:ctime_ns_xchg, ctime_xchg_skip, inode_set_ctime_to_ts (watched inodes changed)"
                    ),
                };
            }
        }
        let _ = write!(s, "hook kinds on this kernel:\n{}", self.kinds.describe());
        let _ = writeln!(
            s,
            "exit rules: {} ({} always, {} never); task rules: {}",
            self.exit_rules.len(),
            self.exit_rules.iter().filter(|r| r.always).count(),
            self.exit_rules.iter().filter(|r| !r.always).count(),
            self.task_rules.len()
        );
        let max = self.by_syscall.values().map(Vec::len).max().unwrap_or(0);
        let _ = writeln!(
            s,
            "audited syscalls: {}; most candidate rules for one syscall: {max}",
            self.by_syscall.len()
        );
        for (nr, idx) in &self.by_syscall {
            let name = Machine::X86_64
                .syscall_name(*nr)
                .map_or_else(|| nr.to_string(), str::to_string);
            let _ = writeln!(s, "  {name}: {} rule(s)", idx.len());
        }
        for (i, w) in self.watches.iter().enumerate() {
            let _ = writeln!(
                s,
                "watch {}: {}={}",
                i + 1,
                if w.tree { "dir" } else { "path" },
                String::from_utf8_lossy(&w.path)
            );
        }
        for o in &self.not_applicable {
            let _ = writeln!(s, "not applicable (user/exclude/filesystem list): {o}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastaudit_rules::{Host, Origin};
    use std::io;

    struct H;
    impl Host for H {
        fn machine(&self) -> Option<Machine> {
            Some(Machine::X86_64)
        }
        fn user_id(&self, n: &[u8]) -> Option<u32> {
            (n == b"root").then_some(0)
        }
        fn group_id(&self, _: &[u8]) -> Option<u32> {
            None
        }
        fn is_dir(&self, _: &[u8]) -> bool {
            false
        }
        fn lookup(&self, _: &[u8]) -> io::Result<()> {
            Ok(())
        }
    }

    fn set(text: &str) -> RuleSet {
        let mut s = RuleSet::default();
        for l in fastaudit_rules::lexer::lines(text.as_bytes()) {
            s.apply_words(
                &l.words,
                &Origin {
                    file: "t.rules".into(),
                    line: l.lineno,
                },
                &H,
            )
            .expect("valid rule");
        }
        s
    }

    fn plan(text: &str) -> Result<Plan, CompileError> {
        compile(&set(text), Environment::default())
    }

    #[test]
    fn no_rules_no_hooks() {
        let p = plan("").unwrap();
        assert!(p.hooks.is_empty());
        let p = plan("-a never,exit -F arch=b64 -S all -F uid=0\n").unwrap();
        assert!(
            p.hooks.is_empty(),
            "only never rules: nothing can be recorded"
        );
    }

    #[test]
    fn native_syscall_rules_use_per_syscall_tracepoints() {
        let p =
            plan("-a always,exit -F arch=b64 -S chmod,fchmodat -F auid>=1000 -k perm\n").unwrap();
        assert_eq!(
            p.hooks,
            vec![
                Hook::SyscallExit {
                    nr: 90,
                    name: "chmod".into()
                },
                Hook::SyscallExit {
                    nr: 268,
                    name: "fchmodat".into()
                }
            ]
        );
        assert_eq!(p.by_syscall[&90], vec![0]);
        assert_eq!(p.exit_rules[0].key.as_deref(), Some(&b"perm"[..]));
    }

    #[test]
    fn syscalls_that_never_return_are_judged_at_entry() {
        assert_eq!(
            plan("-a always,exit -F arch=b64 -S exit_group,chmod\n")
                .unwrap()
                .hooks,
            vec![
                Hook::SyscallExit {
                    nr: 90,
                    name: "chmod".into()
                },
                Hook::SyscallEnter {
                    nr: 231,
                    name: "exit_group".into()
                },
            ]
        );
        assert_eq!(
            plan("-a always,exit -F arch=b32 -S exit\n").unwrap().hooks,
            vec![Hook::RawSyscalls, Hook::RawSyscallsEnter],
            "ia32 exit (1) is seen by the raw entry hook"
        );
        assert_eq!(
            plan("-a always,exit -F arch=b64 -S write,munmap\n")
                .unwrap()
                .hooks
                .len(),
            2,
            "native write (1) and munmap (11) share numbers with ia32 exit and execve, but need no entry hook"
        );
        assert_eq!(
            plan("-a always,exit -S write\n").unwrap().hooks,
            vec![Hook::RawSyscalls, Hook::RawSyscallsEnter],
            "the kernel tests the number's bit whatever the ABI: an arch-less rule on write (1) also selects ia32 exit (1)"
        );
    }

    #[test]
    fn compat_or_all_syscalls_need_raw_hooks() {
        assert_eq!(
            plan("-a always,exit -F arch=b32 -S chmod\n").unwrap().hooks,
            vec![Hook::RawSyscalls]
        );
        assert_eq!(
            plan("-a always,exit -S chmod\n").unwrap().hooks,
            vec![Hook::RawSyscalls]
        );
        assert_eq!(
            plan("-a always,exit -F arch=b64 -S all\n").unwrap().hooks,
            vec![Hook::RawSyscalls, Hook::RawSyscallsEnter],
            "all syscalls include execve, whose arguments are saved at entry"
        );
        assert_eq!(
            plan("-a always,exit -F arch=b64 -S execve,chmod\n")
                .unwrap()
                .hooks,
            vec![
                Hook::SyscallExit {
                    nr: 59,
                    name: "execve".into()
                },
                Hook::SyscallExit {
                    nr: 90,
                    name: "chmod".into()
                },
                Hook::SyscallEnter {
                    nr: 59,
                    name: "execve".into()
                }
            ]
        );
    }

    #[test]
    fn candidates_keep_kernel_order_never_first() {
        let p = plan(
            "-a never,exit -F arch=b64 -S chmod -F uid=0\n-a always,exit -F arch=b64 -S chmod,open\n-A always,exit -F arch=b64 -S chmod -k first\n",
        )
        .unwrap();
        let keys: Vec<_> = p.by_syscall[&90]
            .iter()
            .map(|&i| p.exit_rules[i as usize].key.clone())
            .collect();
        assert_eq!(keys, vec![Some(b"first".to_vec()), None, None]);
        assert!(!p.exit_rules[p.by_syscall[&90][1] as usize].always);
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
    fn unenforceable_fields_are_refused_with_the_line() {
        let e = plan("\n-a always,exit -F arch=b64 -S open -F inode=5\n").unwrap_err();
        assert_eq!(e.origin.line, 2);
        assert!(e.to_string().contains("-F inode"), "{e}");
        let e = plan("-a always,exit -F arch=b64 -S open -F filetype=file\n").unwrap_err();
        assert!(e.to_string().contains("-F filetype"), "{e}");
    }

    #[test]
    fn watches_become_path_tests_on_the_syscalls_their_permissions_allow() {
        let p = plan("-w /etc/passwd -p wa -k x\n-w /etc/passwd -p r\n-a always,exit -F arch=b64 -S all -F dir=/etc -F perm=x\n").unwrap();
        assert_eq!(p.watches.len(), 2, "one path= and one dir= watch");
        assert!(p.hooks.contains(&Hook::InodeChanges));
        // chmod (90) changes attributes; execve (59) is only perm=x.
        assert_eq!(p.by_syscall[&90], vec![0]);
        assert_eq!(p.by_syscall[&59], vec![2]);
        // getpid (39) is nothing natively; only i386 mkdir has that number.
        let only64 =
            plan("-a always,exit -F arch=b64 -S all -F path=/etc/passwd -F perm=a\n").unwrap();
        assert!(!only64.by_syscall.contains_key(&39));
        assert!(only64.by_syscall.contains_key(&90));
        assert!(
            !only64.by_syscall.contains_key(&87),
            "unlink writes, it is not an attribute change"
        );
    }

    #[test]
    fn candidates_are_split_by_abi() {
        // No arch: a watch rule names syscall 39, which is getpid natively
        // (nothing for perm=wa) and mkdir on i386 (a write).
        let p = plan("-w /etc/passwd -p wa\n-a always,exit -F arch=b64 -S getpid\n").unwrap();
        assert_eq!(p.by_syscall[&39], vec![0, 1]);
        assert_eq!(p.candidates(39, false), vec![1]);
        assert_eq!(p.candidates(39, true), vec![0]);
    }

    #[test]
    fn names_are_needed_only_where_a_name_rule_can_hold() {
        let p = plan(
            "-w /etc/passwd -p wa\n-a always,exit -F arch=b64 -S openat -F key=o\n-w /etc/group -p r\n",
        )
        .unwrap();
        // openat (257): both watches and the plain rule are candidates.
        let ids = p.candidates(257, false);
        assert_eq!(ids, vec![0, 1, 2]);
        assert_eq!(p.names_perm(&ids), Some(2 | 8 | 4), "wa (write, attr) | r");
        assert_eq!(p.names_perm(&[1]), None, "no rule tests names");
        let p = plan("-a always,exit -F arch=b64 -S openat -F path=/etc/passwd\n").unwrap();
        assert_eq!(p.names_perm(&[0]), Some(u32::MAX), "no perm=: always");
    }

    #[test]
    fn lsm_tests_never_hold_without_an_lsm() {
        let p = plan("-a never,exit -F arch=b64 -S open -F subj_type=crond_t\n-a always,exit -F arch=b64 -S open\n").unwrap();
        assert_eq!(p.exit_rules[0].tests[1].field, FIELD_NEVER);
        assert_eq!(p.by_syscall[&2], vec![0, 1]);
    }

    #[test]
    fn never_task_rules_get_the_fork_hook_and_lose_syscall_fields() {
        let p = plan("-a never,task -F uid=65534 -F a0=1\n-a always,exit -F arch=b64 -S chmod\n")
            .unwrap();
        assert!(p.hooks.contains(&Hook::TaskNew));
        assert_eq!(p.task_rules[0].tests[1].field, FIELD_NEVER);
    }

    #[test]
    fn always_task_rules_record_every_syscall_through_the_raw_hooks() {
        let p = plan("-a always,task -F uid=65534\n-a never,exit -F arch=b64 -S getpid\n").unwrap();
        assert!(p.records_tasks());
        assert_eq!(
            p.hooks,
            vec![Hook::RawSyscalls, Hook::RawSyscallsEnter, Hook::TaskNew]
        );
        assert!(
            p.by_syscall.is_empty(),
            "exit rules are not consulted for recorded tasks, and a never rule records nothing for others"
        );
    }

    #[test]
    fn io_uring_list_is_refused_not_ignored() {
        assert!(plan("-a always,io_uring -U openat\n")
            .unwrap_err()
            .to_string()
            .contains("io_uring"));
    }

    #[test]
    fn explain_names_hooks_and_counts() {
        let e = plan("-a always,exit -F arch=b64 -S chmod\n")
            .unwrap()
            .explain();
        assert!(e.contains("syscalls:sys_exit_chmod"), "{e}");
        assert!(e.contains("chmod: 1 rule(s)"), "{e}");
        assert!(plan("").unwrap().explain().contains("hooks: none"));
    }
}
