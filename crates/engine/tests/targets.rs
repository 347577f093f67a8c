//! Real rule sets (the shared corpus's STIG and Neo23x0 files) planned for
//! each machine fastaudit runs on, on whichever machine the test runs: the
//! planner is pure, so an x86_64 build checks what it would make of them
//! on arm64 (aarch64 and its arm compat ABI) against those tables.

use fastaudit_engine::{compile, Environment, Kind, Plan};
use fastaudit_rules::tables::Machine;
use fastaudit_rules::{lexer, FixedHostOn, Origin, RuleSet, Target};
use std::path::PathBuf;

fn corpus(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/rules")
        .join(file)
}

/// The lines of `file` that auditctl on `target`'s machine accepts (as
/// `auditctl -c` goes past the others), and the refused lines' numbers.
fn load(target: Target, file: &str) -> (RuleSet, Vec<usize>) {
    let text = std::fs::read(corpus(file)).expect("shared corpus beside the checkout");
    let host = FixedHostOn(target.native);
    let mut set = RuleSet::default();
    let mut refused = Vec::new();
    for l in lexer::lines(&text) {
        let origin = Origin {
            file: file.into(),
            line: l.lineno,
        };
        if set.apply_words(&l.words, &origin, &host).is_err() {
            refused.push(l.lineno);
        }
    }
    (set, refused)
}

fn plan(target: Target, set: &RuleSet) -> Plan {
    let env = Environment {
        target,
        ..Environment::assumed(&Kind::ALL)
    };
    compile(set, env).expect("plan")
}

/// The audited spans `--explain` lists: (name, compat).
fn spans(p: &Plan) -> Vec<(String, bool)> {
    let compat = format!(
        " ({})",
        match p.target.compat {
            Machine::Arm => "arm",
            m => m.name(),
        }
    );
    p.explain()
        .lines()
        .skip_while(|l| !l.starts_with("audited syscalls: "))
        .skip(1)
        .map_while(|l| l.strip_prefix("  ")?.split(": ").next())
        .map(|s| match s.strip_suffix(&compat) {
            Some(name) => (name.to_string(), true),
            None => (s.to_string(), false),
        })
        .collect()
}

/// Every span is a syscall of its ABI's table, by the number the plan
/// keeps it under, and the two targets' plans of one file differ only as
/// their tables do.
fn check_numbers(target: Target, p: &Plan) {
    let names: Vec<(String, bool)> = spans(p);
    assert!(!names.is_empty(), "{target:?}: nothing audited");
    for (name, compat) in &names {
        let m = target.machine(*compat);
        // A number no table names (`-S all` selects it) is listed as such.
        let nr = m
            .syscall_number(name.as_bytes())
            .or_else(|| name.parse().ok().filter(|&nr| m.syscall_name(nr).is_none()))
            .unwrap_or_else(|| panic!("{target:?}: span {name} is no {} syscall", m.name()));
        assert!(
            !p.candidates(nr, *compat).is_empty(),
            "{target:?}: {name} ({nr}) has no candidates"
        );
    }
}

fn has(p: &Plan, name: &str, compat: bool) -> bool {
    spans(p).contains(&(name.to_string(), compat))
}

#[test]
fn stig_plans_each_targets_numbers() {
    let file = "audit-userspace/30-stig.rules";
    let (x86_set, x86_refused) = load(Target::X86_64, file);
    let (arm_set, arm_refused) = load(Target::AARCH64, file);
    // Names newer than libaudit's tables (fchmodat2, file_setattr) are
    // refused on both, as auditctl refuses them.
    assert!(x86_refused.iter().all(|l| arm_refused.contains(l)));
    let (x86, arm) = (
        plan(Target::X86_64, &x86_set),
        plan(Target::AARCH64, &arm_set),
    );
    check_numbers(Target::X86_64, &x86);
    check_numbers(Target::AARCH64, &arm);
    // time-change: adjtimex and settimeofday (x86_64 159, 164; aarch64 171, 170).
    assert_eq!(x86.candidates(159, false), x86.candidates(164, false));
    assert!(!arm.candidates(171, false).is_empty() && !arm.candidates(170, false).is_empty());
    // The perm=wa watches select each machine's writers: x86_64's chmod and
    // open, aarch64's fchmodat and openat; arm keeps chmod.
    assert!(has(&x86, "chmod", false) && has(&x86, "open", false));
    assert!(has(&arm, "fchmodat", false) && has(&arm, "openat", false));
    assert!(!has(&arm, "chmod", false) && !has(&arm, "open", false));
    assert!(has(&arm, "chmod", true) && has(&arm, "open", true));
    let e = arm.explain();
    assert!(e.contains(" arm); most candidate rules"), "{e}");
    assert!(!e.contains("i386"), "{e}");
    // aarch64 lacks some of the names the file's b64 lines give (open,
    // creat, ...): auditctl there refuses those lines, as it is told here.
    let text = std::fs::read_to_string(corpus(file)).expect("corpus");
    for line in arm_refused.iter().filter(|l| !x86_refused.contains(l)) {
        let l = text.lines().nth(line - 1).unwrap_or_default();
        assert!(
            ["open", "creat", "chmod", "chown", "lchown", "rename", "unlink", "rmdir", "stime"]
                .iter()
                .any(|n| l.contains(&format!("-S {n}")) || l.contains(&format!(",{n}"))),
            "line {line} refused on aarch64: {l}"
        );
    }
}

#[test]
fn neo23x0_plans_each_targets_numbers() {
    let file = "community/neo23x0-audit.rules";
    let (x86_set, _) = load(Target::X86_64, file);
    let (arm_set, arm_refused) = load(Target::AARCH64, file);
    let (x86, arm) = (
        plan(Target::X86_64, &x86_set),
        plan(Target::AARCH64, &arm_set),
    );
    check_numbers(Target::X86_64, &x86);
    check_numbers(Target::AARCH64, &arm);
    // `-S open` lines (x86_64's 2) are refused on aarch64, which has none.
    assert!(!x86.candidates(2, false).is_empty());
    assert!(!arm_refused.is_empty());
    // Module loads: finit_module, init_module (x86_64 313, 175; aarch64 273, 105).
    for nr in [273, 105] {
        assert!(!arm.candidates(nr, false).is_empty(), "aarch64 {nr}");
    }
    // Neo23x0's `-F arch=b32 -S all` rules the arm ABI, not i386.
    assert!(spans(&arm).iter().any(|s| s.1));
    // io_uring_enter (426 everywhere) is audited natively on both.
    assert_eq!(x86.uring.enter_rules, arm.uring.enter_rules);
}
