//! Which BPF hook kinds this kernel loads and attaches, found by loading
//! and attaching programs that do nothing (root needed): a refusal is an
//! answer, kept with libbpf's words for it.

use crate::host::tracefs::{syscall_tracepoints, TRACEFS};
use crate::plan::kinds::{HookKinds, Kind, Probe};
use fastaudit_bpf::probe::programs as prog;
use fastaudit_bpf::probe::ProbeSkelBuilder;
use libbpf_rs::skel::{OpenSkel, Skel, SkelBuilder};
use std::mem::MaybeUninit;

/// The programs that probe each hook kind (they do nothing).
pub(crate) const PROBE_PROGRAMS: [(Kind, &str); 3] = [
    (Kind::Fexit, prog::FA_PROBE_FEXIT),
    (Kind::TpBtf, prog::FA_PROBE_TP_BTF),
    (Kind::RawTp, prog::FA_PROBE_RAW_TP),
];

impl HookKinds {
    /// Probe each allowed kind by loading and attaching a program that does
    /// nothing (detached at once); kinds not in `allowed` are excluded.
    /// Needs root: without it every kind is refused.
    pub fn probe(allowed: &[Kind]) -> HookKinds {
        // A refusal is an answer, not a problem: libbpf's warnings are not
        // printed but kept, and a refusal carries them.
        let print = libbpf_rs::set_print(Some((libbpf_rs::PrintLevel::Warn, keep_warning)));
        let kinds = HookKinds::probe_quietly(allowed);
        libbpf_rs::set_print(print);
        take_warnings();
        kinds
    }

    fn probe_quietly(allowed: &[Kind]) -> HookKinds {
        let programs: Vec<(Kind, &str)> = PROBE_PROGRAMS
            .into_iter()
            .filter(|(k, _)| allowed.contains(k))
            .collect();
        // tp_btf and raw_tp in one load (each BPF object open and kernel
        // BTF parse costs tens of ms); fexit, which kernels refuse more
        // often, alone. Only when the kernel refuses a load of several is
        // each loaded alone, to tell which it refuses.
        let (together, alone): (Vec<&str>, Vec<&str>) = programs
            .iter()
            .map(|(_, n)| *n)
            .partition(|n| *n != prog::FA_PROBE_FEXIT);
        let mut results: Vec<(&str, Probe)> = Vec::new();
        for group in [together, alone] {
            match load_and_attach(&group) {
                Ok(found) => results.extend(group.iter().copied().zip(found)),
                Err(why) => {
                    let single = group.len() == 1;
                    for n in group {
                        let p = if single {
                            Probe::Refused(why.clone())
                        } else {
                            match load_and_attach(&[n]) {
                                Ok(mut one) => one
                                    .pop()
                                    .unwrap_or(Probe::Refused(format!("{n}: no answer"))),
                                Err(why) => Probe::Refused(why),
                            }
                        };
                        results.push((n, p));
                    }
                }
            }
        }
        let probe = |kind: Kind| {
            programs
                .iter()
                .find(|(k, _)| *k == kind)
                .and_then(|(_, n)| results.iter().find(|(r, _)| r == n))
                .map_or(Probe::Excluded, |(_, p)| p.clone())
        };
        HookKinds {
            fexit: probe(Kind::Fexit),
            tp_btf: probe(Kind::TpBtf),
            raw_tp: probe(Kind::RawTp),
            tracepoint: if !allowed.contains(&Kind::Tracepoint) {
                Probe::Excluded
            } else if syscall_tracepoints() {
                Probe::Works
            } else {
                Probe::Refused(format!(
                    "no syscall tracepoints under {TRACEFS}/events/syscalls"
                ))
            },
        }
    }
}

/// Whether the syscall function bodies can run with preemption disabled
/// here (preempt.bpf.h): the probe that disables it around a global
/// function call loads and attaches, or why not.
pub(crate) fn probe_preempt_guard() -> Probe {
    let print = libbpf_rs::set_print(Some((libbpf_rs::PrintLevel::Warn, keep_warning)));
    let found = load_and_attach(&[prog::FA_PROBE_PREEMPT_GUARD]);
    libbpf_rs::set_print(print);
    take_warnings();
    match found {
        Ok(mut p) => p
            .pop()
            .unwrap_or_else(|| Probe::Refused("the preemption probe gave no answer".into())),
        Err(why) => Probe::Refused(why),
    }
}

/// libbpf's warnings during a probe, kept for the refusal they explain.
pub(crate) static WARNINGS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

pub(crate) fn keep_warning(_level: libbpf_rs::PrintLevel, msg: String) {
    if let Ok(mut w) = WARNINGS.lock() {
        w.push(msg);
    }
}

/// libbpf's own lines among the warnings kept since the last call (the
/// verifier's log, which can be long, left out), at most a few.
pub(crate) fn take_warnings() -> Vec<String> {
    let all = WARNINGS
        .lock()
        .map(|mut w| std::mem::take(&mut *w))
        .unwrap_or_default();
    all.iter()
        .flat_map(|m| m.lines())
        .filter(|l| {
            l.starts_with("libbpf:")
                && ![
                    "BPF token",
                    "failed to load object",
                    "failed to load BPF skeleton",
                ]
                .iter()
                .any(|n| l.contains(n))
        })
        .map(|l| l.trim_end().chars().take(300).collect::<String>())
        .take(6)
        .collect()
}

/// Load only programs `names` of the BPF object in one load, attach each
/// and detach it: what attaching each found. Err: the load itself was
/// refused (or the object could not be opened), with why (and libbpf's
/// warnings about it).
pub(crate) fn load_and_attach(names: &[&str]) -> Result<Vec<Probe>, String> {
    take_warnings();
    load_and_attach_once(names).map_err(|why| {
        let warnings = take_warnings();
        if warnings.is_empty() {
            why
        } else {
            format!("{why} ({})", warnings.join("; "))
        }
    })
}

pub(crate) fn load_and_attach_once(names: &[&str]) -> Result<Vec<Probe>, String> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut storage = MaybeUninit::uninit();
    let mut open = ProbeSkelBuilder::default()
        .open(&mut storage)
        .map_err(|e| e.to_string())?;
    for mut p in open.open_object_mut().progs_mut() {
        let wanted = names.iter().any(|n| p.name() == *n);
        p.set_autoload(wanted);
    }
    let skel = open.load().map_err(|e| e.to_string())?;
    Ok(names
        .iter()
        .map(|name| {
            let prog = skel
                .object()
                .progs_mut()
                .find(|p| p.name() == *name)
                .map(|p| p.attach());
            match prog {
                Some(Ok(_link)) => Probe::Works,
                Some(Err(e)) => Probe::Refused(e.to_string()),
                None => Probe::Refused(format!("{name} is not in the BPF object")),
            }
        })
        .collect())
}
