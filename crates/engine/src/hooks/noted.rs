//! The hooks for records whose data the kernel notes deep inside a
//! syscall, where neither the syscall's arguments, its entry nor its exit
//! can read it: fentry/fexit programs on the kernel functions that note it
//! (ntp.bpf.h says what each reads). They need the fexit kind (BPF
//! trampolines) and the functions in the kernel's BTF; without them the
//! records are not written.

use crate::hook::{AttachPoint, Attachment, Hook, Noted};
use crate::kinds::KernelFunctions;
use crate::plan::Plan;
use crate::syscalls;

/// One program on one kernel function.
struct OnFunction {
    program: &'static str,
    kind: &'static str,
    function: &'static str,
    purpose: &'static str,
}

/// ntp_adjtimex (Linux 6.17+, with the timekeeper's id first) or its
/// earlier name and arguments, __do_adjtimex.
const NTP: [[OnFunction; 2]; 2] = [
    [
        OnFunction {
            program: "fa_ntp_adjtimex_entry",
            kind: "fentry",
            function: "ntp_adjtimex",
            purpose: "clock adjustments: the offset injected (TIME_INJOFFSET records)",
        },
        OnFunction {
            program: "fa_ntp_adjtimex_exit",
            kind: "fexit",
            function: "ntp_adjtimex",
            purpose: "clock adjustments: NTP values before and after (TIME_ADJNTPVAL records)",
        },
    ],
    [
        OnFunction {
            program: "fa_do_adjtimex_entry",
            kind: "fentry",
            function: "__do_adjtimex",
            purpose: "clock adjustments: the offset injected (TIME_INJOFFSET records)",
        },
        OnFunction {
            program: "fa_do_adjtimex_exit",
            kind: "fexit",
            function: "__do_adjtimex",
            purpose: "clock adjustments: NTP values before and after (TIME_ADJNTPVAL records)",
        },
    ],
];

/// The native syscalls whose records each kind of note feeds.
fn syscalls_of(noted: Noted) -> Vec<u32> {
    match noted {
        Noted::Ntp => syscalls::native().clock_adjust.to_vec(),
    }
}

/// The noted hooks of a plan: for each kind whose syscalls some rule can
/// record natively, when fexit programs load here and the functions exist.
pub(super) fn noted_hooks(plan: &Plan) -> Vec<Hook> {
    if !plan.kinds.fexit.usable() {
        return Vec::new();
    }
    let functions = &plan.features.functions;
    [Noted::Ntp]
        .into_iter()
        .filter(|&n| {
            syscalls_of(n)
                .iter()
                .any(|&nr| !plan.candidates(nr, false).is_empty())
        })
        .filter(|&n| match n {
            Noted::Ntp => functions.has("ntp_adjtimex") || functions.has("__do_adjtimex"),
        })
        .map(Hook::Noted)
        .collect()
}

/// Why the plan's clock adjustment records cannot be written here, when
/// some rule can record adjtimex or clock_adjtime and they cannot.
pub fn ntp_unwritten(plan: &Plan) -> Option<&'static str> {
    let audited = syscalls_of(Noted::Ntp)
        .iter()
        .any(|&nr| !plan.candidates(nr, false).is_empty());
    if !audited || plan.hooks.contains(&Hook::Noted(Noted::Ntp)) {
        return None;
    }
    Some(if !plan.kinds.fexit.usable() {
        "this kernel refuses fexit programs, and nothing else reads the NTP values it notes"
    } else {
        "neither ntp_adjtimex nor __do_adjtimex is in the kernel's BTF"
    })
}

/// The programs of a noted hook and where each is attached.
pub(super) fn noted_attachments(noted: Noted, functions: &KernelFunctions) -> Vec<Attachment> {
    let programs: Vec<&OnFunction> = match noted {
        Noted::Ntp => {
            let pair = if functions.has("ntp_adjtimex") {
                &NTP[0]
            } else {
                &NTP[1]
            };
            pair.iter().collect()
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{HookKinds, Kind};
    use crate::test_rules::{plan, plan_in};
    use crate::Environment;

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
}
