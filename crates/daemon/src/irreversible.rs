//! The rules' irreversible settings said aloud: `-e 2`,
//! `--loginuid-immutable` and `-f 2`, where each is asked (FILE:LINE) and
//! what `fastaudit rules check` and `fastaudit run` make of it; the status
//! file's lines of what was asked and what was applied. Without
//! `--apply-irreversible` none of them reaches the kernel: an admin
//! whose baseline asks for them must be told, not find out later.

use fastaudit_rules::settings::Setting;
use fastaudit_rules::{Origin, RuleSet};

/// Where a rule set asks for each irreversible setting (the last line of
/// each kind: the one that counts).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Asked {
    /// `-e 2`.
    pub lock: Option<Origin>,
    /// `--loginuid-immutable`.
    pub loginuid_immutable: Option<Origin>,
    /// `-f 2`, when it is the last `-f`.
    pub panic: Option<Origin>,
}

/// Who says it: `fastaudit rules check` (no run yet) or `fastaudit run`
/// with its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Teller {
    /// `fastaudit rules check|list`.
    Check,
    /// `fastaudit run`.
    Run {
        apply_irreversible: bool,
        bpf_only: bool,
    },
}

impl Asked {
    /// What `set` asks for.
    pub fn of(set: &RuleSet) -> Asked {
        let mut a = Asked::default();
        for (origin, s) in &set.settings {
            match s {
                Setting::Enabled(2) => a.lock = Some(origin.clone()),
                Setting::LoginuidImmutable => a.loginuid_immutable = Some(origin.clone()),
                Setting::Failure(n) => a.panic = (*n == 2).then(|| origin.clone()),
                _ => {}
            }
        }
        a
    }

    /// One line for each setting asked: whether and how it is applied.
    pub fn notes(&self, teller: Teller) -> Vec<String> {
        let mut out = Vec::new();
        let reaches_kernel = match teller {
            Teller::Check => None,
            Teller::Run {
                apply_irreversible,
                bpf_only,
            } => Some(apply_irreversible && !bpf_only),
        };
        let bpf_only = matches!(teller, Teller::Run { bpf_only: true, .. });
        let why_not = if bpf_only {
            "--bpf-only leaves the kernel audit as it is"
        } else {
            "needs --apply-irreversible"
        };
        if let Some(o) = &self.lock {
            let text = match reaches_kernel {
                None => "fastaudit's rules are locked until it restarts (reloads and `fastaudit ctl` changes refused); the kernel audit is locked too (until reboot) only by `fastaudit run --apply-irreversible`, else it stays changeable (auditctl -e, -f, -b) and so does fastaudit's rule set at its next start".to_string(),
                Some(true) => "applied: fastaudit's rules are locked until it restarts, and the kernel audit until reboot".to_string(),
                Some(false) => format!("applied to fastaudit's rules only (locked until it restarts); not applied to the kernel ({why_not}): the kernel audit stays changeable until a run with --apply-irreversible"),
            };
            out.push(format!("{o}: note: -e 2: {text}"));
        }
        if let Some(o) = &self.loginuid_immutable {
            let text = match reaches_kernel {
                None => "applied only by `fastaudit run --apply-irreversible` (loginuids then immutable until reboot); else loginuids stay changeable by a process with CAP_AUDIT_CONTROL".to_string(),
                Some(true) => "applied: loginuids are immutable until reboot".to_string(),
                Some(false) => format!("not applied ({why_not}): loginuids stay changeable by a process with CAP_AUDIT_CONTROL"),
            };
            out.push(format!("{o}: note: --loginuid-immutable: {text}"));
        }
        if let Some(o) = &self.panic {
            let text = match (teller, reaches_kernel) {
                (Teller::Check, _) => "applied only by `fastaudit run --apply-irreversible` (the kernel then panics when it loses a record, and fastaudit panics it when it loses an event); without it the kernel gets -f 1 and lost events are logged and written to the kernel log".to_string(),
                (_, Some(true)) => "applied: the kernel panics when it loses a record, and fastaudit panics it when it loses an event".to_string(),
                _ if bpf_only => format!("not applied ({why_not}): a lost event is logged and written to the kernel log, as -f 1"),
                _ => format!("not applied ({why_not}): the kernel gets -f 1, and a lost event is logged and written to the kernel log"),
            };
            out.push(format!("{o}: note: -f 2: {text}"));
        }
        out
    }

    /// The status file's lines: what the rules asked, and what reached
    /// the kernel (`none` for neither).
    pub fn status_lines(&self, apply_irreversible: bool, bpf_only: bool) -> String {
        let mut asked = Vec::new();
        if self.lock.is_some() {
            asked.push("-e 2");
        }
        if self.loginuid_immutable.is_some() {
            asked.push("--loginuid-immutable");
        }
        if self.panic.is_some() {
            asked.push("-f 2");
        }
        let applied = if apply_irreversible && !bpf_only {
            asked.clone()
        } else {
            Vec::new()
        };
        let words = |v: &[&str]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(" ")
            }
        };
        format!(
            "irreversible_asked {}\nirreversible_applied_to_kernel {}\n",
            words(&asked),
            words(&applied)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastaudit_rules::SystemHost;

    fn asked(text: &str) -> Asked {
        Asked::of(&RuleSet::from_text(text.as_bytes(), "r.rules", &SystemHost).unwrap())
    }

    #[test]
    fn each_setting_is_named_at_its_line_with_what_becomes_of_it() {
        let a = asked("-D\n-f 2\n--loginuid-immutable\n-e 2\n");
        assert_eq!(a.lock.as_ref().unwrap().line, 4);
        let check = a.notes(Teller::Check);
        assert_eq!(check.len(), 3);
        assert!(check[0].starts_with("r.rules:4: note: -e 2: "), "{check:?}");
        assert!(check[1].starts_with("r.rules:3: note: --loginuid-immutable: "));
        assert!(check[2].starts_with("r.rules:2: note: -f 2: "));
        let safe = a.notes(Teller::Run {
            apply_irreversible: false,
            bpf_only: false,
        });
        assert!(safe[0].contains("not applied to the kernel (needs --apply-irreversible)"));
        let applied = a.notes(Teller::Run {
            apply_irreversible: true,
            bpf_only: false,
        });
        assert!(
            applied.iter().all(|l| l.contains(": applied")),
            "{applied:?}"
        );
        let bpf = a.notes(Teller::Run {
            apply_irreversible: true,
            bpf_only: true,
        });
        assert!(bpf[1].contains("not applied (--bpf-only"), "{bpf:?}");
        assert!(bpf[2].contains("as -f 1"), "{bpf:?}");
        assert!(safe[2].contains("the kernel gets -f 1"), "{safe:?}");
    }

    #[test]
    fn a_later_f_overrides_f_2_and_nothing_asked_says_nothing() {
        assert_eq!(asked("-f 2\n-f 1\n").panic, None);
        let none = asked("-a always,exit -F arch=b64 -S mkdirat\n");
        assert_eq!(none, Asked::default());
        assert!(none.notes(Teller::Check).is_empty());
        assert_eq!(
            none.status_lines(true, false),
            "irreversible_asked none\nirreversible_applied_to_kernel none\n"
        );
        assert_eq!(
            asked("-e 2\n").status_lines(false, false),
            "irreversible_asked -e 2\nirreversible_applied_to_kernel none\n"
        );
        assert_eq!(
            asked("-e 2\n").status_lines(true, false),
            "irreversible_asked -e 2\nirreversible_applied_to_kernel -e 2\n"
        );
    }
}
