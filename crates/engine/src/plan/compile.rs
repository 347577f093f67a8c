//! Compiling a loaded rule set into a [`Plan`]: the per-syscall ordered
//! lists of candidate rules (the idea of the 2021 per-syscall audit RFC),
//! so a syscall only evaluates the rules that name it and unaudited
//! syscalls cost nothing, the io_uring list ([`crate::plan::uring`]) and the
//! hooks to attach ([`crate::plan::hooks`]).
//!
//! Semantics follow the kernel's exit list (`audit_filter_syscall`): rules
//! are tried in list order, a rule matches when its syscall bit is set and
//! every field test holds, and the first match decides (`never` = do not
//! record).

use crate::plan::degrade::{self, Step};
use crate::plan::hooks;
use crate::plan::kinds::InodeSource;
use crate::plan::rule::{
    arch_allows, compile_rule, CompileError, CompiledRule, RulePaths, Test, FIELD_NEVER,
};
use crate::plan::{Environment, Plan};
use fastaudit_rules::abi::{field, list, op};
use fastaudit_rules::{Rule, RuleSet};
use std::collections::HashMap;

/// Syscall numbers a rule bitmap can name (the kernel's AUDIT_BITMASK_SIZE
/// words); its last 16 bits are taken by the syscall-class bits.
/// A rule's permission filters and the ABIs its arch allows: what decides
/// which syscalls a rule of every syscall can hold for.
type FilterKind = (Vec<u32>, [(bool, bool); 2]);

const MAX_SYSCALL: u32 = fastaudit_rules::abi::BITMASK_WORDS as u32 * 32 - 16;

/// Compile the rule set. Programs `env` says were refused are done
/// without ([`crate::plan::refusal`]): the plan's `degraded` says how.
pub fn compile(set: &RuleSet, env: Environment) -> Result<Plan, CompileError> {
    if env.refused.is_empty() {
        return compile_once(set, &env, false);
    }
    let mut env = env;
    let mut degraded = Vec::new();
    let mut without_inode_hooks = false;
    // Each step takes one hook kind or feature away: a few at most.
    for _ in 0..8 {
        let mut plan = compile_once(set, &env, without_inode_hooks)?;
        match degrade::next_step(&plan, &mut env) {
            Some(Step::Again(note)) => {
                without_inode_hooks |= matches!(env.features.inode, InodeSource::Missing(_));
                degraded.push(note);
            }
            step => {
                plan.degraded = degraded;
                if let Some(Step::Drop(dropped)) = step {
                    degrade::drop_refused(&mut plan, &dropped);
                }
                // Hooks served by the other kind of a refused program.
                for r in &plan.refused {
                    if let Some(a) = plan.attachments.iter().find(|a| {
                        a.program != r.program
                            && crate::plan::hooks::other_kind_of(a.program)
                                == Some(r.program.as_str())
                    }) {
                        plan.degraded.push(format!(
                            "{} ({}): {} refused ({}); {} used instead",
                            a.purpose, a.point, r.program, r.why, a.program
                        ));
                    }
                }
                for o in &plan.unavailable {
                    plan.degraded
                        .push(format!("rule {o}: unavailable (needs inode change hooks)"));
                }
                return Ok(plan);
            }
        }
    }
    compile_once(set, &env, without_inode_hooks)
}

/// Compile the rule set once in `env`; `without_inode_hooks`: the rules
/// that need inode change hooks (watches, path=, dir=) are left out.
fn compile_once(
    set: &RuleSet,
    env: &Environment,
    without_inode_hooks: bool,
) -> Result<Plan, CompileError> {
    let env = env.clone();
    let mut plan = Plan {
        target: env.target,
        refused: env.refused.clone(),
        kinds: env.kinds.clone(),
        features: env.features.clone(),
        ..Plan::default()
    };
    let mut paths = RulePaths::default();
    let mut every_syscall: HashMap<FilterKind, Vec<u32>> = HashMap::new();
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
            crate::plan::uring::add_rule(&mut plan.uring, loaded, env.lsm_audit_rules, &mut paths)?;
            continue;
        }
        if r.list == list::TASK {
            let compiled = compile_rule(r, &loaded.origin, env.lsm_audit_rules, &mut paths)?;
            plan.task_rules.push(at_task_creation(compiled));
            continue;
        }
        if without_inode_hooks
            && r.fields
                .iter()
                .any(|f| matches!(f.field, field::WATCH | field::DIR))
        {
            plan.unavailable.push(loaded.origin.clone());
            continue;
        }
        let compiled = compile_rule(r, &loaded.origin, env.lsm_audit_rules, &mut paths)?;
        let idx = plan.exit_rules.len() as u32;
        let selected = syscalls_of(env.target, &compiled, r, &mut every_syscall);
        for nr in selected {
            plan.by_syscall.entry(nr).or_default().push(idx);
        }
        plan.exit_rules.push(compiled);
    }
    keep_recordable(&mut plan);
    // Native io_uring_enter only: the inline ops of a compat one are not
    // followed (its per-syscall entry tracepoint never fires), so an
    // always rule of that ABI alone (Neo23x0's `-F arch=b32 -S all`)
    // attaches nothing for them.
    let enter_rules = plan
        .candidates(
            crate::plan::syscalls::number(env.target.native, "io_uring_enter"),
            false,
        )
        .iter()
        .any(|&i| plan.exit_rules[i as usize].always);
    crate::plan::uring::finish(&mut plan.uring, enter_rules, env.audit_skipped_uring_ops);
    plan.exes = paths.exes;
    plan.watches = paths.watches;
    plan.hooks = hooks::choose(&plan, &env);
    plan.functions_not_hooked = hooks::functions_not_hooked(&plan, &env);
    // Without a kind for the raw hooks nothing can be loaded:
    // `hook_kind_problem` says why.
    plan.attachments = hooks::attachments(
        plan.target,
        &plan.hooks,
        plan.kinds.raw_kind(),
        &plan.features,
        &env.refused,
    )
    .unwrap_or_default();
    Ok(plan)
}

/// A task-list rule as it is evaluated at task creation: there is no
/// syscall there, so the kernel's tests of arch, ppid, exit, success and
/// arguments cannot hold.
fn at_task_creation(mut compiled: CompiledRule) -> CompiledRule {
    for t in &mut compiled.tests {
        if matches!(
            t.field,
            field::ARCH | field::PPID | field::EXIT | field::SUCCESS | field::ARG0..=field::ARG3
        ) {
            *t = Test {
                field: FIELD_NEVER,
                op: op::EQUAL,
                value: 0,
            };
        }
    }
    compiled
}

/// The syscall numbers exit rule `r` (compiled as `compiled`) can record
/// on `target`. A rule whose arch `target` never runs (`-F arch=i386` on
/// arm64) keeps its numbers but no candidate list takes it: as in the
/// kernel, which compares the task's arch, it loads and never matches.
fn syscalls_of(
    target: fastaudit_rules::Target,
    compiled: &CompiledRule,
    r: &Rule,
    every_syscall: &mut HashMap<FilterKind, Vec<u32>>,
) -> Vec<u32> {
    // A perm= test holds only for some syscalls (a watch names every
    // syscall): keep those, so the rule costs nothing elsewhere.
    let perms: Vec<u32> = compiled
        .tests
        .iter()
        .filter(|t| t.field == field::PERM)
        .map(|t| t.value)
        .collect();
    let abis = [
        (false, arch_allows(compiled, target.audit_arch(false))),
        (true, arch_allows(compiled, target.audit_arch(true))),
    ];
    let perm_possible = |nr: u32| {
        perms.iter().all(|&m| {
            abis.iter().any(|&(compat, allowed)| {
                allowed && crate::plan::perm::possible(target, nr, compat, m)
            })
        })
    };
    // A rule of every syscall (a watch) is worked out once per kind of
    // permission filter and arch, not once per rule: many watches
    // would otherwise test every syscall each.
    let everything = r.all_syscalls();
    let selected = match every_syscall.get(&(perms.clone(), abis)) {
        Some(nrs) if everything => nrs.clone(),
        _ => {
            // The set bits of the mask only: most rules name a few syscalls.
            let named = r.mask.iter().enumerate().flat_map(|(word, &bits)| {
                (0..32)
                    .filter(move |b| bits & (1 << b) != 0)
                    .map(move |b| word as u32 * 32 + b)
            });
            let nrs: Vec<u32> = named
                .filter(|&n| n < MAX_SYSCALL && perm_possible(n))
                .collect();
            if everything {
                every_syscall.insert((perms.clone(), abis), nrs.clone());
            }
            nrs
        }
    };
    selected
}

/// Keep the syscalls some rule can record, and the companion writes whose
/// `never` rules still decide.
fn keep_recordable(plan: &mut Plan) {
    // A syscall whose candidates are all `never` rules can record nothing,
    // but for a write: its never rules still decide a loginuid write's
    // companion (a never rule matching the write means no SYSCALL).
    let judged_writes: Vec<u32> = plan
        .by_syscall
        .keys()
        .copied()
        .filter(|&nr| {
            [false, true].into_iter().any(|compat| {
                crate::plan::syscalls::is_companion_syscall(plan.target, nr, compat)
                    && !plan.candidates(nr, compat).is_empty()
            })
        })
        .collect();
    // Kept: syscalls some always rule can record in one ABI or the other
    // (a rule testing names cannot on a syscall that names nothing).
    let recordable: std::collections::BTreeSet<u32> = plan
        .by_syscall
        .keys()
        .copied()
        .filter(|&nr| {
            [false, true].into_iter().any(|compat| {
                plan.candidates(nr, compat)
                    .iter()
                    .any(|&i| plan.exit_rules[i as usize].always)
            })
        })
        .collect();
    plan.by_syscall
        .retain(|nr, _| recordable.contains(nr) || judged_writes.contains(nr));
}
