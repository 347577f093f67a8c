//! The BPF object's programs as the plan names them: a program is loaded
//! by its name and attached by its section. The names are the constants
//! the bpf crate generates from the object (`fastaudit_bpf::programs`: a
//! name it lacks does not compile); the attach points come from the plan's
//! tables, so they are checked against the object's sections (here,
//! without root, for every program a plan can name; and by the loader
//! before it attaches).

use crate::plan::hook::Attachment;

/// Why program `name`, whose section in the object is `section`, is not
/// what attachment `a` says (`None`: it is).
pub(crate) fn mismatch(a: &Attachment, section: &str) -> Option<String> {
    match a.point.section() {
        Some(expected) if expected != section => Some(format!(
            "the BPF object's {} is in section {section}, the plan attaches it as {expected}",
            a.program
        )),
        // A per-syscall tracepoint: attached by the name the plan gives.
        None if section != "tracepoint" => Some(format!(
            "the BPF object's {} is in section {section}, not a per-syscall tracepoint's",
            a.program
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::kinds::PROBE_PROGRAMS;
    use crate::plan::hooks::every_attachment;
    use fastaudit_bpf::FastauditSkelBuilder;
    use libbpf_rs::skel::{OpenSkel, SkelBuilder};
    use std::mem::MaybeUninit;

    /// The object's programs and their sections, read by opening it (no
    /// load, so no root).
    fn object_programs() -> Vec<(String, String)> {
        let mut storage = MaybeUninit::uninit();
        let open = FastauditSkelBuilder::default()
            .open(&mut storage)
            .expect("open the BPF object");
        open.open_object()
            .progs()
            .map(|p| {
                (
                    p.name().to_string_lossy().into_owned(),
                    p.section().to_string_lossy().into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn every_program_a_plan_names_is_in_the_object_in_its_section() {
        let object = object_programs();
        let planned = every_attachment();
        assert!(planned.len() > 40, "{} attachments", planned.len());
        let mut wrong = Vec::new();
        for a in &planned {
            match object.iter().find(|(name, _)| name == a.program) {
                None => wrong.push(format!("{} is not in the BPF object", a.program)),
                Some((_, section)) => wrong.extend(mismatch(a, section)),
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn every_program_of_the_object_is_one_a_plan_or_the_probe_names() {
        let planned = every_attachment();
        let unnamed: Vec<String> = object_programs()
            .into_iter()
            .map(|(name, _)| name)
            .filter(|name| {
                !planned.iter().any(|a| a.program == name.as_str())
                    && !PROBE_PROGRAMS.iter().any(|(_, p)| p == name)
            })
            .collect();
        assert!(unnamed.is_empty(), "programs nothing attaches: {unnamed:?}");
    }

    #[test]
    fn a_section_other_than_the_plans_is_named() {
        let a = every_attachment()
            .into_iter()
            .find(|a| a.program == "fa_raw_exit")
            .expect("the raw exit hook");
        assert_eq!(mismatch(&a, "tp_btf/sys_exit"), None);
        let why = mismatch(&a, "tp_btf/sys_enter").expect("a mismatch");
        assert!(
            why.contains("fa_raw_exit") && why.contains("tp_btf/sys_exit"),
            "{why}"
        );
    }
}
