//! The hooks for records whose data the kernel notes deep inside a
//! syscall, where neither the syscall's arguments, its entry nor its exit
//! can read it: fentry/fexit programs on the kernel functions that note it
//! (ntp.bpf.h and kmodule.bpf.h say what each reads). They need the fexit
//! kind (BPF trampolines) and the functions in the kernel's BTF; without
//! them the records are not written.

use crate::plan::hook::{AttachPoint, Attachment, Hook, Noted, Trampoline};
use crate::plan::kinds::KernelFunctions;
use crate::plan::syscalls;
use crate::plan::Plan;
use fastaudit_bpf::programs as prog;

/// One program on one kernel function.
struct OnFunction {
    program: &'static str,
    kind: Trampoline,
    function: &'static str,
    purpose: &'static str,
}

/// The clock adjusting function since Linux 6.17 (with the timekeeper's
/// id first).
const NTP_ADJTIMEX: &str = "ntp_adjtimex";
/// Its earlier name and arguments.
const DO_ADJTIMEX: &str = "__do_adjtimex";

/// An fentry and an fexit program on [`NTP_ADJTIMEX`], else on
/// [`DO_ADJTIMEX`].
const NTP: [[OnFunction; 2]; 2] = [
    [
        OnFunction {
            program: prog::FA_NTP_ADJTIMEX_ENTRY,
            kind: Trampoline::Fentry,
            function: NTP_ADJTIMEX,
            purpose: "clock adjustments: the offset injected (TIME_INJOFFSET records)",
        },
        OnFunction {
            program: prog::FA_NTP_ADJTIMEX_EXIT,
            kind: Trampoline::Fexit,
            function: NTP_ADJTIMEX,
            purpose: "clock adjustments: NTP values before and after (TIME_ADJNTPVAL records)",
        },
    ],
    [
        OnFunction {
            program: prog::FA_DO_ADJTIMEX_ENTRY,
            kind: Trampoline::Fentry,
            function: DO_ADJTIMEX,
            purpose: "clock adjustments: the offset injected (TIME_INJOFFSET records)",
        },
        OnFunction {
            program: prog::FA_DO_ADJTIMEX_EXIT,
            kind: Trampoline::Fexit,
            function: DO_ADJTIMEX,
            purpose: "clock adjustments: NTP values before and after (TIME_ADJNTPVAL records)",
        },
    ],
];

/// do_init_module, which a module load reaches once laid out and checked.
const MODULE: OnFunction = OnFunction {
    program: prog::FA_MODULE_INIT,
    kind: Trampoline::Fentry,
    function: "do_init_module",
    purpose: "module loads: the module's name (KERN_MODULE records)",
};

/// The native syscalls whose records each kind of note feeds.
fn syscalls_of(target: fastaudit_rules::Target, noted: Noted) -> Vec<u32> {
    let native = syscalls::special(target, false);
    match noted {
        Noted::Ntp => native.clock_adjust.to_vec(),
        Noted::Module => native.module_load.to_vec(),
    }
}

/// The kernel functions the noted hooks may attach to, from the tables
/// above (the host probe looks each up in the kernel's BTF).
pub(crate) fn noted_functions() -> impl Iterator<Item = &'static str> {
    [NTP[0][0].function, NTP[1][0].function, MODULE.function].into_iter()
}

/// Whether this kernel has a function a kind of note attaches to.
fn has_function(noted: Noted, functions: &KernelFunctions) -> bool {
    match noted {
        Noted::Ntp => NTP.iter().any(|pair| functions.has(pair[0].function)),
        Noted::Module => functions.has(MODULE.function),
    }
}

/// Whether some rule can record one of the syscalls a note feeds.
fn audited(plan: &Plan, noted: Noted) -> bool {
    syscalls_of(plan.target, noted)
        .iter()
        .any(|&nr| !plan.candidates(nr, false).is_empty())
}

/// Whether the native syscall `nr`, one an entry hook is kept for, needs
/// it in this plan: a syscall whose entry only clears a note (clock
/// adjustments, module loads) needs none where nothing is noted (no
/// fentry/fexit, or not the function). A module syscall's entry
/// tracepoint is missing where the kernel has no module support, which
/// would otherwise send the plan to the raw entry hook, on every syscall.
pub(super) fn entry_needed(plan: &Plan, nr: u32) -> bool {
    [Noted::Ntp, Noted::Module].into_iter().all(|n| {
        !syscalls_of(plan.target, n).contains(&nr)
            || (plan.kinds.fexit.usable() && has_function(n, &plan.features.functions))
    })
}

/// The noted hooks of a plan: for each kind whose syscalls some rule can
/// record natively, when fexit programs load here and the functions exist.
pub(super) fn noted_hooks(plan: &Plan) -> Vec<Hook> {
    if !plan.kinds.fexit.usable() {
        return Vec::new();
    }
    [Noted::Ntp, Noted::Module]
        .into_iter()
        .filter(|&n| audited(plan, n) && has_function(n, &plan.features.functions))
        .map(Hook::Noted)
        .collect()
}

/// Why the records a kind of note feeds cannot be written here, when some
/// rule can record one of its syscalls and they cannot.
pub fn unwritten(plan: &Plan, noted: Noted) -> Option<&'static str> {
    if !audited(plan, noted) || plan.hooks.contains(&Hook::Noted(noted)) {
        return None;
    }
    let no_kind = !plan.kinds.fexit.usable();
    Some(match (noted, no_kind) {
        (Noted::Ntp, true) => {
            "this kernel refuses fexit programs, and nothing else reads the NTP values it notes"
        }
        (Noted::Ntp, false) => "neither ntp_adjtimex nor __do_adjtimex is in the kernel's BTF",
        (Noted::Module, true) => {
            "this kernel refuses fentry programs, and no other hook sees the name it reads from the module"
        }
        (Noted::Module, false) => "do_init_module is not in the kernel's BTF",
    })
}

/// [`unwritten`] for the clock adjustment records.
pub fn ntp_unwritten(plan: &Plan) -> Option<&'static str> {
    unwritten(plan, Noted::Ntp)
}

/// [`unwritten`] for the KERN_MODULE records of module loads.
pub fn module_unwritten(plan: &Plan) -> Option<&'static str> {
    unwritten(plan, Noted::Module)
}

/// The programs of a noted hook and where each is attached.
pub(super) fn noted_attachments(noted: Noted, functions: &KernelFunctions) -> Vec<Attachment> {
    let programs: Vec<&OnFunction> = match noted {
        Noted::Ntp => {
            let pair = if functions.has(NTP[0][0].function) {
                &NTP[0]
            } else {
                &NTP[1]
            };
            pair.iter().collect()
        }
        Noted::Module => vec![&MODULE],
    };
    programs
        .into_iter()
        .map(|f| Attachment {
            program: f.program,
            point: AttachPoint::Function {
                kind: f.kind,
                function: f.function,
            },
            purpose: f.purpose.to_string(),
        })
        .collect()
}

// Asked of a plan, answered here: the noted hooks are this file's.
impl Plan {
    /// Whether some rule records a syscall whose records only fentry/fexit
    /// programs read (clock adjustments, module loads) and the plan has
    /// no such hook: with the fexit kind not probed, probe it (a run
    /// probes it only then: the probe is a BPF load of its own).
    pub fn wants_function_hooks(&self) -> bool {
        [Noted::Ntp, Noted::Module]
            .into_iter()
            .any(|n| unwritten(self, n).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::kinds::{HookKinds, Kind};
    use crate::plan::test_rules::{plan, plan_in};
    use crate::plan::Environment;

    #[test]
    fn clock_syscalls_get_their_function_hooks() {
        let p = plan("-a always,exit -F arch=b64 -S msgctl,adjtimex -k k\n").unwrap();
        assert!(p.hooks.contains(&Hook::Noted(Noted::Ntp)));
        let shown: Vec<String> = p.attachments.iter().map(|a| a.to_string()).collect();
        assert!(shown.contains(&"fentry/ntp_adjtimex by fa_ntp_adjtimex_entry".to_string()));
        assert!(shown.contains(&"fexit/ntp_adjtimex by fa_ntp_adjtimex_exit".to_string()));
        let p = plan("-a always,exit -F arch=b64 -S chmod\n").unwrap();
        assert!(!p.hooks.iter().any(|h| matches!(h, Hook::Noted(_))));
    }

    #[test]
    fn without_fexit_or_the_functions_nothing_is_noted() {
        let no_fexit = Environment {
            kinds: HookKinds::assumed(&[Kind::Tracepoint, Kind::TpBtf, Kind::RawTp]),
            ..Environment::default()
        };
        let p = plan_in("-a always,exit -F arch=b64 -S adjtimex\n", no_fexit).unwrap();
        assert!(!p.hooks.contains(&Hook::Noted(Noted::Ntp)));
        assert!(ntp_unwritten(&p).is_some_and(|why| why.contains("fexit")));
        assert!(p
            .explain()
            .contains("TIME_ADJNTPVAL, TIME_INJOFFSET): not written"));
        let mut old = Environment::default();
        old.features.functions = KernelFunctions::Missing(vec!["ntp_adjtimex".into()]);
        let p = plan_in("-a always,exit -F arch=b64 -S clock_adjtime\n", old).unwrap();
        let shown: Vec<String> = p.attachments.iter().map(|a| a.to_string()).collect();
        assert!(
            shown.contains(&"fentry/__do_adjtimex by fa_do_adjtimex_entry".to_string()),
            "before Linux 6.17 the NTP values are noted in __do_adjtimex: {shown:?}"
        );
    }

    #[test]
    fn module_loads_get_do_init_module_and_their_entry_hooks() {
        let text = "-a always,exit -F arch=b64 -S finit_module -k m\n";
        let p = plan(text).unwrap();
        assert!(p.hooks.contains(&Hook::Noted(Noted::Module)));
        let shown: Vec<String> = p.attachments.iter().map(|a| a.to_string()).collect();
        assert!(shown.contains(&"fentry/do_init_module by fa_module_init".to_string()));
        assert!(
            shown.iter().any(|a| a.contains("sys_enter_finit_module")),
            "the entry clears an earlier note: {shown:?}"
        );
        let no_fexit = Environment {
            kinds: HookKinds::assumed(&[Kind::Tracepoint, Kind::TpBtf, Kind::RawTp]),
            ..Environment::default()
        };
        let p = plan_in(text, no_fexit).unwrap();
        assert!(!p.hooks.contains(&Hook::Noted(Noted::Module)));
        assert!(p.explain().contains(
            "KERN_MODULE of init_module, finit_module): not written (this kernel refuses fentry"
        ));
        let p = plan("-a always,exit -F arch=b64 -S delete_module\n").unwrap();
        assert!(
            module_unwritten(&p).is_none(),
            "delete_module's name is its argument"
        );
    }
}
