//! The syscall function plan: fexit on the kernel function of each
//! syscall (of either ABI) some rule can record, fentry on those whose
//! entry has work, and fexit on the companions' functions, where this
//! kernel loads trampoline programs. A syscall no rule names runs no
//! program at all, and no syscall pays a tracepoint's dispatch.
//!
//! Each function's program is a stub that tail-calls its prototype
//! group's body (syscall_functions.bpf.h): the stubs are the object's
//! `fa_fexit<group>_<n>` and `fa_fentry<group>_<n>`, as many as it has.

use crate::plan::hook::{AttachPoint, Attachment, Hook, Trampoline};
use crate::plan::kinds::Probe;
use crate::plan::syscall_functions::{candidates, NI_FUNCTION, NI_GROUP, PROTO_GROUPS};
use crate::plan::syscalls;
use crate::plan::{Environment, Plan};
use fastaudit_bpf::programs as prog;
use std::collections::BTreeMap;

/// Why the plan cannot hook the syscalls' functions (`Ok`: the hooks).
pub(crate) fn per_function(plan: &Plan, env: &Environment) -> Result<Vec<Hook>, String> {
    if !env.syscall_function_hooks {
        return Err("not asked for: --syscall-function-hooks".into());
    }
    if !plan.kinds.fexit.usable() {
        return Err("fexit programs do not load here".into());
    }
    // The bodies build records in per-CPU scratch maps, safe where the
    // program cannot be preempted (a tracepoint's; a trampoline's under
    // voluntary preemption). On Linux 7.3's lazy preemption a preempted
    // body's half-built record was finished by another task's syscall:
    // there the bodies disable preemption (preempt.bpf.h), where the
    // kernel lets them.
    if let (Some(mode), Probe::Refused(why)) =
        (&env.features.preemption, &env.features.preempt_guard)
    {
        return Err(format!(
            "this kernel preempts its own code (preemption: {mode}), and its verifier refuses the fexit and fentry programs, whose records are built in per-CPU scratch space, with preemption disabled: {why}"
        ));
    }
    let functions = &env.features.syscall_functions;
    if !functions.read() {
        return Err("the syscalls' functions were not looked up".into());
    }
    let ours = |p: &str| {
        [Trampoline::Fexit, Trampoline::Fentry]
            .iter()
            .any(|s| p.starts_with(&format!("fa_{}", s.name())))
    };
    if let Some(r) = env.refused.iter().find(|r| ours(&r.program)) {
        return Err(format!("this kernel refused {}: {}", r.program, r.why));
    }
    let abis: &[bool] = if env.ia32_disabled {
        &[false]
    } else {
        &[false, true]
    };
    let mut hooks = Vec::new();
    let mut add = |side: Trampoline, compat: bool, nr: u32, companion: bool| {
        let f = functions.get(compat, nr).ok_or_else(|| {
            let known = candidates(plan.target, compat, nr);
            format!(
                "syscall {} ({}): {} this kernel's BTF",
                name(plan, compat, nr),
                plan.target.machine(compat).name(),
                match known {
                    [] => "no kernel function is known for it, none in".to_string(),
                    k => format!("{} not in", k.join(", ")),
                }
            )
        })?;
        if f.group >= PROTO_GROUPS && f.group != NI_GROUP {
            return Err(format!(
                "{}'s prototype is none of the {PROTO_GROUPS} the BPF object has bodies for",
                f.name
            ));
        }
        let hook = Hook::SyscallFunction {
            side,
            nr,
            compat,
            function: f.name.clone(),
            group: f.group,
            companion,
        };
        let same = |h: &Hook| matches!(h, Hook::SyscallFunction { side: s, function, .. } if *s == side && *function == f.name);
        // One hook per function, but sys_ni_syscall's per number (its
        // program judges only the numbers hooked there).
        if f.group == NI_GROUP || !hooks.iter().any(same) {
            hooks.push(hook);
        }
        Ok::<(), String>(())
    };
    // An exec's exit is its new program's ABI (x86's personality change
    // sets the exec number of that ABI): either ABI's exec rule can
    // record an exec that entered through the other one.
    let execs_audited = abis.iter().any(|&compat| {
        syscalls::special(plan.target, compat)
            .execs()
            .iter()
            .any(|&nr| !plan.candidates(nr, compat).is_empty())
    });
    for &compat in abis {
        let special = syscalls::special(plan.target, compat);
        let recordable = |nr: u32| {
            !plan.candidates(nr, compat).is_empty()
                || (execs_audited && special.execs().contains(&nr))
        };
        for &nr in plan.by_syscall.keys().chain(&special.execs()) {
            if recordable(nr) && !special.no_return().contains(&nr) {
                add(Trampoline::Fexit, compat, nr, false)?;
            }
        }
        for nr in special.entry_hooked() {
            let needed = !plan.candidates(nr, compat).is_empty()
                && (compat || super::noted::entry_needed(plan, nr));
            if needed || (execs_audited && special.execs().contains(&nr)) {
                add(Trampoline::Fentry, compat, nr, false)?;
            }
        }
    }
    // The write family's and sendto/sendmsg's exits, for the SYSCALL stock
    // audit adds to a LOGIN or CONFIG_CHANGE whatever the rules (a
    // function this kernel lacks leaves only its LOGINs alone).
    for &compat in abis {
        for nr in companions(plan.target, compat) {
            if functions.get(compat, nr).is_some() {
                add(Trampoline::Fexit, compat, nr, true)?;
            }
        }
    }
    fits_the_stubs(plan, &hooks)?;
    Ok(hooks)
}

/// Whether the object has a stub for each hook, by family and group.
fn fits_the_stubs(plan: &Plan, hooks: &[Hook]) -> Result<(), String> {
    let mut counts: BTreeMap<(&str, Trampoline, u8), usize> = BTreeMap::new();
    for h in hooks {
        if let Hook::SyscallFunction {
            side,
            group,
            nr,
            compat,
            ..
        } = h
        {
            if *group != NI_GROUP {
                let f = family(plan.target, *side, *nr, *compat);
                *counts.entry((f, *side, *group)).or_default() += 1;
            }
        }
    }
    for ((family, side, group), n) in counts {
        let have = stubs(family, side, group).count();
        if n > have {
            return Err(format!(
                "{n} {family} hooks on functions of prototype group {group}, more than the BPF object's {have} stubs"
            ));
        }
    }
    Ok(())
}

/// The family of stubs a hook takes: its side's, but the entries of
/// exit and exit_group, whose body does the exit's work (`fentry_end`;
/// the other entries' body stays small).
fn family(
    target: fastaudit_rules::Target,
    side: Trampoline,
    nr: u32,
    compat: bool,
) -> &'static str {
    match side {
        Trampoline::Fentry if syscalls::special(target, compat).no_return().contains(&nr) => {
            "fentry_end"
        }
        _ => side.name(),
    }
}

// Asked of a plan by its map images, answered here.
impl Plan {
    /// Whether syscall `nr` of one ABI is judged at `sys_ni_syscall`'s
    /// exit (this kernel does not implement it): its span says so
    /// (FA_SPAN_AT_NI), so that only such numbers are judged there.
    pub(crate) fn judged_at_ni(&self, nr: u32, compat: bool) -> bool {
        self.hooks.iter().any(|h| {
            matches!(h, Hook::SyscallFunction { nr: n, compat: c, group, .. }
                if *n == nr && *c == compat && *group == NI_GROUP)
        })
    }
}

/// The companion syscalls of one ABI (their never rules judge them).
fn companions(target: fastaudit_rules::Target, compat: bool) -> Vec<u32> {
    if compat {
        fastaudit_rules::syscall_sets::LOGINUID_WRITES
            .iter()
            .filter_map(|w| syscalls::lookup(target.compat, w.compat))
            .collect()
    } else {
        syscalls::companion_exits(target)
            .into_iter()
            .map(|(nr, _)| nr)
            .collect()
    }
}

/// The name of syscall `nr` of one ABI, for messages.
fn name(plan: &Plan, compat: bool, nr: u32) -> String {
    plan.target
        .machine(compat)
        .syscall_name(nr)
        .map_or_else(|| nr.to_string(), str::to_string)
}

/// The object's stubs of one family and group, in order.
fn stubs(family: &str, side: Trampoline, group: u8) -> impl Iterator<Item = &'static str> {
    let prefix = format!("fa_{family}{group}_");
    prog::ALL
        .iter()
        .filter(move |(name, section)| name.starts_with(&prefix) && *section == side.name())
        .map(|(name, _)| *name)
}

/// The body a family and group's stubs tail-call.
fn body(family: &str, group: u8) -> Option<&'static str> {
    let name = format!("fa_{family}_body{group}");
    prog::ALL.iter().find(|(n, _)| *n == name).map(|(n, _)| *n)
}

/// The attachments of `hooks`' syscall function hooks: each group's body
/// (loaded for the group's first function), then one stub per function.
pub(super) fn function_attachments(
    target: fastaudit_rules::Target,
    hooks: &[Hook],
) -> Vec<Attachment> {
    let mut bodies = Vec::new();
    let mut attached = Vec::new();
    let mut next: BTreeMap<(&str, u8), Box<dyn Iterator<Item = &'static str>>> = BTreeMap::new();
    for h in hooks {
        let Hook::SyscallFunction {
            side,
            nr,
            compat,
            function,
            group,
            companion,
        } = h
        else {
            continue;
        };
        let abi = target.machine(*compat).name();
        if *group == NI_GROUP {
            // One program for every number this kernel lacks.
            if !attached
                .iter()
                .any(|a: &Attachment| a.program == prog::FA_NI_SYSCALL_EXIT)
            {
                attached.push(Attachment {
                    program: prog::FA_NI_SYSCALL_EXIT,
                    point: AttachPoint::Function {
                        kind: Trampoline::Fexit,
                        function: NI_FUNCTION,
                    },
                    purpose: format!("the syscalls this kernel does not implement (nr {nr} ({abi}), ...): ENOSYS"),
                });
            }
            continue;
        }
        let family = family(target, *side, *nr, *compat);
        let stubs = next
            .entry((family, *group))
            .or_insert_with(|| Box::new(stubs(family, *side, *group)));
        if let Some(body) = body(family, *group) {
            if !bodies.iter().any(|a: &Attachment| a.program == body) {
                bodies.push(Attachment {
                    program: body,
                    point: AttachPoint::StubBody {
                        kind: *side,
                        family,
                        group: *group,
                        function: function.clone(),
                    },
                    purpose: format!("what the {family} stubs of prototype group {group} run"),
                });
            }
        }
        // per_function counted the stubs: none is missing here.
        let Some(program) = stubs.next() else {
            continue;
        };
        let what = match (side, companion) {
            (_, true) => "companions (LOGIN's, CONFIG_CHANGE's SYSCALL)",
            (Trampoline::Fexit, false) => "exit",
            (Trampoline::Fentry, false) => {
                if syscalls::special(target, *compat).no_return().contains(nr) {
                    "never returns: judged at entry"
                } else {
                    "entry: what its exit cannot read"
                }
            }
        };
        attached.push(Attachment {
            program,
            point: AttachPoint::Stub {
                kind: *side,
                function: function.clone(),
            },
            purpose: format!("nr {nr} ({abi}), {what}"),
        });
    }
    bodies.extend(attached);
    bodies
}

/// Every stub and body, with a function each, for the test that checks
/// the plan's programs against the object.
#[cfg(test)]
pub(super) fn every_function_attachment() -> Vec<Attachment> {
    let mut all = Vec::new();
    let x86 = fastaudit_rules::Target::X86_64;
    let exit_group = syscalls::x86_64("exit_group");
    for side in [Trampoline::Fexit, Trampoline::Fentry] {
        for group in 0..PROTO_GROUPS {
            // Numbers past the tables: no syscall of their own family.
            let plain = |i: usize| 1000 + i as u32;
            let hooks: Vec<Hook> = stubs(side.name(), side, group)
                .enumerate()
                .map(|(i, _)| Hook::SyscallFunction {
                    side,
                    nr: plain(i),
                    compat: false,
                    function: format!("f{i}"),
                    group,
                    companion: false,
                })
                .collect();
            all.extend(function_attachments(x86, &hooks));
        }
    }
    let ends: Vec<Hook> = stubs("fentry_end", Trampoline::Fentry, 0)
        .enumerate()
        .map(|(i, _)| Hook::SyscallFunction {
            side: Trampoline::Fentry,
            nr: exit_group,
            compat: false,
            function: format!("e{i}"),
            group: 0,
            companion: false,
        })
        .collect();
    all.extend(function_attachments(x86, &ends));
    let ni = Hook::SyscallFunction {
        side: Trampoline::Fexit,
        nr: 0,
        compat: false,
        function: NI_FUNCTION.into(),
        group: NI_GROUP,
        companion: false,
    };
    all.extend(function_attachments(fastaudit_rules::Target::X86_64, &[ni]));
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::hook::AttachPoint;
    use crate::plan::syscall_functions::SyscallFunctions;
    use crate::plan::syscalls::{i386, x86_64};
    use crate::plan::test_rules::plan_in;
    use fastaudit_rules::Target;

    /// A kernel where fexit loads and every syscall function is present
    /// (`functions` when given).
    fn env_with(functions: SyscallFunctions) -> Environment {
        let mut env = Environment {
            syscall_function_hooks: true,
            ..Environment::default()
        };
        env.features.syscall_functions = functions;
        env
    }

    fn env() -> Environment {
        env_with(SyscallFunctions::assumed(Target::X86_64))
    }

    /// The functions a plan hooks on one side.
    fn hooked(p: &Plan, side: Trampoline) -> Vec<&str> {
        p.hooks
            .iter()
            .filter_map(|h| match h {
                Hook::SyscallFunction {
                    side: s, function, ..
                } if *s == side => Some(function.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn only_the_audited_syscalls_of_each_abi_and_the_companions_are_hooked() {
        let p = plan_in(
            "-a always,exit -F arch=b64 -S openat,unlink -F auid>=1000 -k f\n\
             -a always,exit -F arch=b32 -S chmod -k c\n",
            env(),
        )
        .unwrap();
        let exits = hooked(&p, Trampoline::Fexit);
        for f in ["__x64_sys_openat", "__x64_sys_unlink", "__ia32_sys_chmod"] {
            assert!(exits.contains(&f), "{f} in {exits:?}");
        }
        assert!(!exits.contains(&"__x64_sys_chmod"), "no b64 chmod rule");
        // The write family of both ABIs, sendto/sendmsg natively.
        for f in ["__x64_sys_write", "__x64_sys_sendmsg", "__ia32_sys_write"] {
            assert!(exits.contains(&f), "companion {f} in {exits:?}");
        }
        assert!(hooked(&p, Trampoline::Fentry).is_empty());
        assert!(
            !p.hooks.iter().any(|h| matches!(
                h,
                Hook::RawSyscallExit | Hook::SyscallExit { .. } | Hook::CompanionExit { .. }
            )),
            "no tracepoint: {:?}",
            p.hooks
        );
        assert_eq!(p.functions_not_hooked, None);
        // One body per side and group used, then a stub per function, each
        // loaded for its function.
        let bodies: Vec<&Attachment> = p
            .attachments
            .iter()
            .filter(|a| matches!(a.point, AttachPoint::StubBody { .. }))
            .collect();
        assert_eq!(bodies.len(), 1, "{bodies:?}");
        assert_eq!(bodies[0].program, "fa_fexit_body0");
        let openat = p
            .attachments
            .iter()
            .find(|a| a.point.load_target() == Some("__x64_sys_openat"))
            .expect("openat's stub");
        assert!(openat.program.starts_with("fa_fexit0_"), "{openat:?}");
        assert_eq!(
            openat.to_string(),
            format!("fexit/__x64_sys_openat by {}", openat.program)
        );
        let stubs: Vec<&str> = p.attachments.iter().map(|a| a.program).collect();
        let mut unique = stubs.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), stubs.len(), "each program once");
    }

    #[test]
    fn entry_work_gets_fentry_and_never_returning_syscalls_only_that() {
        let p = plan_in(
            "-a always,exit -F arch=b64 -S exit_group,chdir -k e\n",
            env(),
        )
        .unwrap();
        let entries = hooked(&p, Trampoline::Fentry);
        assert!(entries.contains(&"__x64_sys_exit_group"), "{entries:?}");
        assert!(entries.contains(&"__x64_sys_chdir"), "{entries:?}");
        let exits = hooked(&p, Trampoline::Fexit);
        assert!(!exits.contains(&"__x64_sys_exit_group"), "{exits:?}");
        assert!(exits.contains(&"__x64_sys_chdir"), "{exits:?}");
        // exit_group's entry does the exit's work: a family of its own,
        // so the other entries' body stays small.
        let program = |f: &str| {
            p.attachments
                .iter()
                .find(|a| {
                    a.point.load_target() == Some(f)
                        && !matches!(a.point, AttachPoint::StubBody { .. })
                })
                .map(|a| a.program)
        };
        assert!(program("__x64_sys_exit_group").is_some_and(|p| p.starts_with("fa_fentry_end0_")));
        assert!(program("__x64_sys_chdir").is_some_and(|p| p.starts_with("fa_fexit0_")));
        let bodies: Vec<&str> = p
            .attachments
            .iter()
            .filter(|a| matches!(a.point, AttachPoint::StubBody { .. }))
            .map(|a| a.program)
            .collect();
        assert!(
            bodies.contains(&"fa_fentry_end_body0") && bodies.contains(&"fa_fentry_body0"),
            "{bodies:?}"
        );
    }

    #[test]
    fn an_exec_rule_of_either_abi_hooks_both_abis_execs() {
        // An exec's exit is its new program's ABI.
        let p = plan_in("-a always,exit -F arch=b32 -S execve -k e\n", env()).unwrap();
        for side in [Trampoline::Fexit, Trampoline::Fentry] {
            let f = hooked(&p, side);
            for exec in [
                "__x64_sys_execve",
                "__x64_sys_execveat",
                "__ia32_compat_sys_execve",
                "__ia32_compat_sys_execveat",
            ] {
                assert!(f.contains(&exec), "{} {exec}: {f:?}", side.name());
            }
        }
    }

    #[test]
    fn without_a_function_or_fexit_the_tracepoints_say_why() {
        let rules = "-a always,exit -F arch=b64 -S openat,getpid -k f\n";
        let missing = SyscallFunctions::resolve(Target::X86_64, |n| {
            (n != "__x64_sys_getpid" && n != "__do_sys_getpid").then_some(1)
        });
        let p = plan_in(rules, env_with(missing)).unwrap();
        assert!(hooked(&p, Trampoline::Fexit).is_empty(), "{:?}", p.hooks);
        assert!(p.hooks.contains(&Hook::SyscallExit {
            nr: x86_64("openat"),
            syscall: "openat".into()
        }));
        let why = p.functions_not_hooked.clone().unwrap_or_default();
        assert!(
            why.contains("getpid") && why.contains("__x64_sys_getpid"),
            "{why}"
        );
        assert!(
            p.explain().contains("not hooked (syscall getpid"),
            "{}",
            p.explain()
        );

        let unread = plan_in(rules, Environment::default()).unwrap();
        assert!(unread.functions_not_hooked.is_some());
        // Off unless asked for, wherever it would work.
        let not_asked = Environment {
            syscall_function_hooks: false,
            ..env()
        };
        let p = plan_in(rules, not_asked).unwrap();
        assert!(hooked(&p, Trampoline::Fexit).is_empty());
        assert_eq!(
            p.functions_not_hooked.as_deref(),
            Some("not asked for: --syscall-function-hooks")
        );
        let refused = Environment {
            kinds: crate::plan::kinds::HookKinds::assumed(&[
                crate::plan::kinds::Kind::TpBtf,
                crate::plan::kinds::Kind::Tracepoint,
            ]),
            ..env()
        };
        let p = plan_in(rules, refused).unwrap();
        assert!(hooked(&p, Trampoline::Fexit).is_empty());
        assert_eq!(
            p.functions_not_hooked.as_deref(),
            Some("fexit programs do not load here")
        );
        // A kernel that preempts its own code (Linux 7.3's lazy model) and
        // refuses the bodies with preemption disabled.
        let mut preempting = env();
        preempting.features.preemption = Some("lazy".into());
        preempting.features.preempt_guard = Probe::Refused("no bpf_preempt_disable".into());
        let p = plan_in(rules, preempting.clone()).unwrap();
        assert!(hooked(&p, Trampoline::Fexit).is_empty());
        assert!(p.hooks.contains(&Hook::SyscallExit {
            nr: x86_64("openat"),
            syscall: "openat".into()
        }));
        let why = p.functions_not_hooked.clone().unwrap_or_default();
        assert!(why.contains("preemption: lazy"), "{why}");
        assert!(why.contains("no bpf_preempt_disable"), "{why}");
        assert!(!p.rodata().fn_preempt_guard);
        // One that lets them: hooked, the bodies told to disable it.
        preempting.features.preempt_guard = Probe::Works;
        let p = plan_in(rules, preempting).unwrap();
        assert!(!hooked(&p, Trampoline::Fexit).is_empty());
        assert!(p.rodata().fn_preempt_guard);
        // Where the kernel does not preempt, they never do.
        assert!(!plan_in(rules, env()).unwrap().rodata().fn_preempt_guard);
    }

    #[test]
    fn past_the_objects_stubs_the_tracepoints_do_it() {
        // Every syscall of both ABIs: more functions than stubs.
        let p = plan_in(
            "-a always,exit -F arch=b64 -S all -F auid=1000\n-a always,exit -F arch=b32 -S all -F auid=1000\n",
            env(),
        )
        .unwrap();
        assert!(p.hooks.contains(&Hook::RawSyscallExit), "{:?}", p.hooks);
        let why = p.functions_not_hooked.unwrap_or_default();
        assert!(why.contains("stubs"), "{why}");
    }

    #[test]
    fn numbers_this_kernel_lacks_are_judged_at_sys_ni_syscall_alone() {
        let p = plan_in(
            "-a always,exit -F arch=b64 -S uselib,openat -k n\n-a always,exit -F arch=b64 -S 463 -k n\n",
            env_with(SyscallFunctions::resolve(Target::X86_64, |n| {
                (n != "__x64_sys_setxattrat" && n != "__do_sys_setxattrat").then_some(1)
            })),
        )
        .unwrap();
        let ni: Vec<&Attachment> = p
            .attachments
            .iter()
            .filter(|a| a.program == prog::FA_NI_SYSCALL_EXIT)
            .collect();
        assert_eq!(ni.len(), 1, "one program: {:?}", p.attachments);
        assert_eq!(
            ni[0].to_string(),
            "fexit/sys_ni_syscall by fa_ni_syscall_exit"
        );
        assert!(p.judged_at_ni(x86_64("uselib"), false));
        assert!(p.judged_at_ni(463, false));
        assert!(!p.judged_at_ni(x86_64("openat"), false));
        assert!(hooked(&p, Trampoline::Fexit).contains(&"__x64_sys_openat"));
    }

    #[test]
    fn with_no_rule_only_the_companions_functions() {
        let p = plan_in("", env()).unwrap();
        let exits = hooked(&p, Trampoline::Fexit);
        assert_eq!(p.hooks.len(), exits.len(), "{:?}", p.hooks);
        assert!(exits.contains(&"__x64_sys_write"));
        assert!(
            exits.contains(&"__ia32_sys_pwrite64")
                || exits.iter().any(|f| f.starts_with("__ia32_"))
        );
        let _ = i386("write");
    }
}
