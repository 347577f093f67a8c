//! `fastaudit run --explain`: the plan told in words, its hooks from the
//! same attachment list `run` loads and attaches.

use crate::plan::Plan;
use fastaudit_rules::tables::Machine;
use std::fmt::Write as _;

impl Plan {
    /// A human-readable account of the plan (`fastaudit run --explain`).
    pub fn explain(&self) -> String {
        let mut s = String::new();
        if self.hooks.is_empty() {
            s.push_str("hooks: none (no rule can record anything; nothing is attached)\n");
        } else if let Some(problem) = self.hook_kind_problem() {
            let first = problem.lines().next().unwrap_or_default();
            let _ = writeln!(s, "hooks: none can be loaded ({first})");
        } else {
            let _ = writeln!(s, "hooks: (attach point by BPF program, as run loads them)");
            for a in &self.attachments {
                let _ = writeln!(s, "  {a} ({})", a.purpose);
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
    use crate::test_rules::{plan, plan_in};
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
        assert!(e.contains("chmod: 1 rule(s)"), "{e}");
        assert!(plan("").unwrap().explain().contains("hooks: none"));
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
