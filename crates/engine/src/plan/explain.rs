//! `fastaudit run --explain`: the plan told in words, its hooks from the
//! same attachment list `run` loads and attaches.

use crate::plan::rule::arch_allows;
use crate::plan::Plan;
use fastaudit_rules::tables::Machine;
use fastaudit_rules::Origin;
use std::fmt::Write as _;

impl Plan {
    /// A human-readable account of the plan (`fastaudit run --explain`).
    pub fn explain(&self) -> String {
        let mut s = String::new();
        self.explain_hooks(&mut s);
        self.explain_kernel(&mut s);
        self.explain_rules(&mut s);
        s.push_str(&self.uring.explain());
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

    /// What is attached, as `run` attaches it, and what is degraded.
    fn explain_hooks(&self, s: &mut String) {
        if self.hooks.is_empty() {
            s.push_str(
                "hooks: none (no rule can record anything, and loginuid writes need the tracepoint kind; nothing is attached)\n",
            );
        } else if let Some(problem) = self.hook_kind_problem() {
            let first = problem.lines().next().unwrap_or_default();
            let _ = writeln!(s, "hooks: none can be loaded ({first})");
        } else {
            let _ = writeln!(s, "hooks: (attach point by BPF program, as run loads them)");
            for a in &self.attachments {
                let _ = writeln!(s, "  {a} ({})", a.purpose);
            }
        }
        if let Some(why) = &self.functions_not_hooked {
            let _ = writeln!(
                s,
                "syscalls' own functions (fexit/fentry, only the audited ones run a program): not hooked ({why})"
            );
        } else if let (true, Some(mode)) =
            (self.rodata().fn_preempt_guard, &self.features.preemption)
        {
            let _ = writeln!(
                s,
                "syscalls' own functions: their programs run with preemption disabled (this kernel preempts its own code, preemption: {mode})"
            );
        }
        if !self.degraded.is_empty() {
            let _ = writeln!(s, "degraded (programs this kernel refused):");
            for d in &self.degraded {
                let _ = writeln!(s, "  {d}");
            }
        }
    }

    /// The kernel facts the plan was made for, and what they change in
    /// the records.
    fn explain_kernel(&self, s: &mut String) {
        let _ = write!(s, "hook kinds on this kernel:\n{}", self.kinds.describe());
        // Whether containers can be named (docs/containers.md); nothing
        // said where the host was not probed.
        if let Some(view) = &self.features.cgroups {
            let which = match &view.controller {
                None => "the cgroup v2".to_string(),
                Some((name, _)) => format!("the cgroup v1 {name} controller's"),
            };
            let _ = writeln!(
                s,
                "containers: events carry their task's cgroup in {which} hierarchy, resolved under {}",
                view.mount.display()
            );
        }
        match &self.features.inode {
            crate::plan::kinds::InodeSource::Tracepoints => {}
            crate::plan::kinds::InodeSource::Kprobes { ctime_current, .. } => {
                let _ = writeln!(
                    s,
                    "inode changes on this kernel: kprobes on current_time(){} (no timestamp tracepoints, Linux 6.13+)",
                    if *ctime_current { " and inode_set_ctime_current()" } else { "" }
                );
            }
            crate::plan::kinds::InodeSource::Missing(why) => {
                let _ = writeln!(s, "inode changes on this kernel: not seen ({why}); PATH records name changed objects from user space");
            }
        }
        if self.hooks.contains(&crate::plan::hook::Hook::InodeChanges)
            && matches!(
                self.features.inode,
                crate::plan::kinds::InodeSource::Kprobes { .. }
            )
        {
            // notify_change() reads the clock (current_time) before
            // ->setattr: the attributes are noted before the change.
            let _ = writeln!(
                s,
                "PATH attributes of changed objects: before the change, as the kernel's (chmod's mode, chown's ouid/ogid as its lookup found them)"
            );
        } else if self.names_paths() || !self.watches.is_empty() {
            // BPF sees a changed inode only as it changes (its ctime),
            // after chmod/chown set the new values: docs/differences.md.
            let _ = writeln!(
                s,
                "PATH attributes of changed objects: as the syscall left them (chmod's mode, chown's ouid/ogid after the change; the kernel's are from its lookup, before)"
            );
        }
        match &self.features.labels {
            crate::plan::kinds::LsmLabels::None => {}
            crate::plan::kinds::LsmLabels::AppArmor(blob) => {
                let whence = match blob {
                    crate::plan::kinds::AppArmorBlob::SizesAt(_) => {
                        "its place there read from the kernel's apparmor_blob_sizes".to_string()
                    }
                    crate::plan::kinds::AppArmorBlob::Offset(off) => {
                        format!("at offset {off} of their LSM blob, from the LSM order and BTF")
                    }
                };
                let _ = writeln!(
                    s,
                    "LSM labels (subj=, obj=): AppArmor's, read from the tasks' credentials, {whence}"
                );
            }
            crate::plan::kinds::LsmLabels::Unread(why) => {
                let _ = writeln!(s, "LSM labels (subj=, obj=): not written ({why}); the kernel's records carry them");
            }
        }
        if let Some(why) = crate::plan::hooks::noted::ntp_unwritten(self) {
            let _ = writeln!(
                s,
                "clock adjustment records (TIME_ADJNTPVAL, TIME_INJOFFSET): not written ({why})"
            );
        }
        if let Some(why) = crate::plan::hooks::noted::module_unwritten(self) {
            let _ = writeln!(
                s,
                "module load records (KERN_MODULE of init_module, finit_module): not written ({why})"
            );
        }
    }

    /// The rules and the per-syscall spans as loaded.
    fn explain_rules(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "exit rules: {} ({} always, {} never); task rules: {}",
            self.exit_rules.len(),
            self.exit_rules.iter().filter(|r| r.always).count(),
            self.exit_rules.iter().filter(|r| !r.always).count(),
            self.task_rules.len()
        );
        // As the kernel compares the task's arch, a rule for a machine this
        // one does not run (x86 rules on arm64) is loaded and never matches.
        let foreign: Vec<&Origin> = self
            .exit_rules
            .iter()
            .filter(|r| {
                [false, true]
                    .iter()
                    .all(|&compat| !arch_allows(r, self.target.audit_arch(compat)))
            })
            .map(|r| &r.origin)
            .collect();
        if !foreign.is_empty() {
            let _ = writeln!(
                s,
                "rules of an arch {} does not run (they never match, as in its kernel): {}",
                self.target.name(),
                foreign.len()
            );
            for o in foreign {
                let _ = writeln!(s, "  {o}");
            }
        }
        // The per-syscall spans as loaded: one per number and ABI that some
        // always rule can record, with the candidates of that ABI.
        let mut spans = Vec::new();
        let compat_name = abi_name(self.target.compat);
        let compat_abi = format!(" ({compat_name})");
        for &nr in self.by_syscall.keys() {
            for (compat, abi) in [(false, ""), (true, compat_abi.as_str())] {
                let machine = self.target.machine(compat);
                let ids = self.candidates(nr, compat);
                if ids.iter().any(|&i| self.exit_rules[i as usize].always) {
                    let name = machine
                        .syscall_name(nr)
                        .map_or_else(|| nr.to_string(), str::to_string);
                    spans.push((format!("{name}{abi}"), ids.len()));
                }
            }
        }
        let max = spans.iter().map(|s| s.1).max().unwrap_or(0);
        let in_compat = spans.iter().filter(|s| s.0.ends_with(&compat_abi)).count();
        let _ = writeln!(
            s,
            "audited syscalls: {} ({} native, {in_compat} {}); most candidate rules for one syscall: {max}",
            spans.len(),
            spans.len() - in_compat,
            compat_name,
        );
        for (name, n) in &spans {
            let _ = writeln!(s, "  {name}: {n} rule(s)");
        }
    }
}

/// How `--explain` names an ABI's machine: its `uname -m` spelling, but
/// arm's plain name (the tables list it as `armeb` first).
fn abi_name(m: Machine) -> &'static str {
    match m {
        Machine::Arm => "arm",
        m => m.name(),
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::test_rules::{plan, plan_in};
    use crate::{Environment, Kind};

    #[test]
    fn explain_names_what_is_attached_and_counts() {
        let e = plan("-a always,exit -F arch=b64 -S chmod\n")
            .unwrap()
            .explain();
        assert!(
            e.contains("  tracepoint/syscalls:sys_exit_chmod by fa_syscall_exit (nr "),
            "{e}"
        );
        assert!(e.contains("\n  chmod: 1 rule(s)\n"), "{e}");
        // Each ABI's span by its own name: the b32 rule names i386 chmod
        // (another syscall's number natively); the arch-less rule's number
        // is native chmod's, and the kernel tests that bit for i386 too,
        // where it is mmap.
        let e = plan("-a always,exit -S chmod\n-a always,exit -F arch=b32 -S chmod -k b32\n")
            .unwrap()
            .explain();
        assert!(e.contains("audited syscalls: 3 (1 native, 2 i386)"), "{e}");
        for span in ["chmod", "chmod (i386)", "mmap (i386)"] {
            assert!(e.contains(&format!("\n  {span}: 1 rule(s)\n")), "{e}");
        }
        let e = plan("").unwrap().explain();
        assert!(
            e.contains("sys_exit_write by fa_syscall_exit (nr 1, loginuid writes (LOGIN's SYSCALL record))"),
            "{e}"
        );
        let e = plan_in("", Environment::assumed(&[Kind::TpBtf]))
            .unwrap()
            .explain();
        assert!(e.contains("hooks: none"), "{e}");
        let e = plan_in(
            "-a always,exit -S chmod\n",
            Environment::assumed(&[Kind::Fexit]),
        )
        .unwrap()
        .explain();
        assert!(
            e.contains("hooks: none can be loaded (this kernel loads neither tp_btf nor raw_tp"),
            "{e}"
        );
    }
}
