//! The BPF side's view of a rule's tests: in the order they are cheapest
//! to evaluate, and per syscall span the gates (`fa_gate`) that decide
//! most syscalls before any name or object is gathered.
//!
//! A rule holds when all its tests hold, and the tests read nothing they
//! change, so their order is free: the ones read from the syscall's result,
//! arguments and task come first, the ones that need the syscall's names or
//! objects last. A gate is the quick tests a span's rules begin with,
//! once per distinct set: a rule whose gate fails cannot match, so only
//! the rules of passing gates are judged, names and objects are gathered
//! only when such a rule tests them, and a passing gate whose first rule
//! has no other test is that rule's match (no rule before it passed).

use crate::plan::rule::{CompiledRule, Test, FIELD_NEVER, FIELD_OBJ, FIELD_OBJ_COMPARE};
use fastaudit_bpf::types::{fa_gate, fa_gate_flag, fa_limit, fa_test};
use fastaudit_rules::abi::{field, op};
use std::collections::HashMap;

/// Quick tests one gate holds (`FA_GATE_TESTS`).
const GATE_TESTS: usize = fa_limit::FA_GATE_TESTS.0 as usize;
/// Gates all spans hold together (`FA_MAX_GATES`).
pub(crate) const MAX_GATES: usize = fa_limit::FA_MAX_GATES.0 as usize;

/// Where a test ranks by what evaluating it reads; quick tests (below
/// `SLOW`) read the syscall and its task only, as a gate's must.
fn cost(t: &Test) -> u8 {
    match t.field {
        FIELD_NEVER | field::PERM | field::EXIT | field::SUCCESS | field::ARCH => 0,
        field::ARG0..=field::ARG3 | field::PID => 1,
        field::LOGINUID_SET | field::LOGINUID | field::SESSIONID | field::PERS => 2,
        field::UID..=field::FSGID | field::PPID => 3,
        field::WATCH | field::DIR => SLOW + 1,
        f if f & (FIELD_OBJ | FIELD_OBJ_COMPARE) != 0 => SLOW + 2,
        // exe=, -C, saddr_fam= and anything else: subject-only but slower.
        _ => SLOW,
    }
}

/// The first cost of a test a gate cannot hold.
const SLOW: u8 = 4;

/// Whether an `arch=`/`arch!=` test, which the span of every syscall
/// the rule is a candidate for already decided (`Plan::candidates`).
fn span_decides(t: &Test) -> bool {
    t.field == field::ARCH && matches!(t.op, op::EQUAL | op::NOT_EQUAL)
}

/// An exit rule's tests as its rules-map entry holds them: cheapest
/// first, without the arch tests its candidate spans already decided.
pub(crate) fn exit_rule_tests(r: &CompiledRule) -> Vec<Test> {
    let mut tests: Vec<Test> = r
        .tests
        .iter()
        .filter(|t| !span_decides(t))
        .cloned()
        .collect();
    tests.sort_by_key(cost);
    tests
}

/// Any rule's tests cheapest first (task and io_uring rules keep their
/// arch tests: an io thread's context reads arch 0).
pub(crate) fn ordered_tests(r: &CompiledRule) -> Vec<Test> {
    let mut tests = r.tests.clone();
    tests.sort_by_key(cost);
    tests
}

/// The gates of one span, whose candidates are `ids` (rules by id) in
/// order; each gate's `first` is a position in `ids`, `plain_first` one
/// among the candidates without a path=/dir= test.
pub(crate) fn span_gates(rules: &[CompiledRule], ids: &[u32]) -> Vec<fa_gate> {
    let mut gates: Vec<fa_gate> = Vec::new();
    let mut by_tests: HashMap<Vec<(u32, u32, u32)>, usize> = HashMap::new();
    let mut plain_pos = 0u32;
    for (pos, &id) in ids.iter().enumerate() {
        let r = &rules[id as usize];
        let tests = exit_rule_tests(r);
        let quick: Vec<Test> = tests.iter().filter(|t| cost(t) < SLOW).cloned().collect();
        let decides = quick.len() == tests.len() && quick.len() <= GATE_TESTS;
        let names = tests
            .iter()
            .any(|t| matches!(t.field, field::WATCH | field::DIR));
        let objs = tests
            .iter()
            .any(|t| t.field & (FIELD_OBJ | FIELD_OBJ_COMPARE) != 0);
        let plain = if names {
            None
        } else {
            plain_pos += 1;
            Some(plain_pos - 1)
        };
        let key: Vec<Test> = quick.into_iter().take(GATE_TESTS).collect();
        let id_of: Vec<(u32, u32, u32)> = key.iter().map(|t| (t.field, t.op, t.value)).collect();
        let at = *by_tests.entry(id_of).or_insert_with(|| {
            let mut g = fa_gate {
                first: pos as u32,
                plain_first: u32::MAX,
                flags: if decides {
                    fa_gate_flag::FA_GATE_DECIDES.0
                } else {
                    0
                },
                ntests: key.len() as u32,
                ..fa_gate::default()
            };
            for (slot, t) in g.tests.iter_mut().zip(&key) {
                *slot = fa_test {
                    field: t.field,
                    op: t.op,
                    value: t.value,
                };
            }
            gates.push(g);
            gates.len() - 1
        });
        let g = &mut gates[at];
        if names {
            g.flags |= fa_gate_flag::FA_GATE_NAMES.0;
        }
        if objs {
            g.flags |= fa_gate_flag::FA_GATE_OBJS.0;
        }
        if let Some(p) = plain {
            g.plain_first = g.plain_first.min(p);
        }
    }
    gates
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastaudit_rules::Origin;

    fn rule(tests: &[(u32, u32, u32)]) -> CompiledRule {
        CompiledRule {
            origin: Origin {
                file: "t.rules".into(),
                line: 1,
            },
            always: true,
            tests: tests
                .iter()
                .map(|&(field, op, value)| Test { field, op, value })
                .collect(),
            key: None,
        }
    }

    const EACCES: u32 = -13i32 as u32;

    #[test]
    fn tests_go_cheapest_first_and_the_span_decides_arch() {
        let r = rule(&[
            (field::ARCH, op::EQUAL, 0xc000_003e),
            (field::WATCH, op::EQUAL, 1),
            (field::LOGINUID, op::GREATER_THAN_OR_EQUAL, 1000),
            (field::EXIT, op::EQUAL, EACCES),
        ]);
        let fields: Vec<u32> = exit_rule_tests(&r).iter().map(|t| t.field).collect();
        assert_eq!(fields, [field::EXIT, field::LOGINUID, field::WATCH]);
        assert_eq!(
            ordered_tests(&r)[0].field,
            field::ARCH,
            "kept where arch reads 0"
        );
    }

    #[test]
    fn rules_with_the_same_quick_tests_share_a_gate() {
        let auid = (field::LOGINUID, op::GREATER_THAN_OR_EQUAL, 1000);
        let rules = vec![
            rule(&[(field::PERM, op::EQUAL, 2), (field::WATCH, op::EQUAL, 1)]),
            rule(&[(field::EXIT, op::EQUAL, EACCES), auid]),
            rule(&[(field::PERM, op::EQUAL, 2), (field::WATCH, op::EQUAL, 2)]),
            rule(&[auid, (field::INODE | FIELD_OBJ, op::EQUAL, 7)]),
        ];
        let gates = span_gates(&rules, &[0, 1, 2, 3]);
        assert_eq!(gates.len(), 3);
        let flags = |g: &fa_gate| g.flags;
        assert_eq!((gates[0].first, gates[0].plain_first), (0, u32::MAX));
        assert_eq!(flags(&gates[0]), fa_gate_flag::FA_GATE_NAMES.0);
        assert_eq!((gates[1].first, gates[1].plain_first), (1, 0));
        assert_eq!(flags(&gates[1]), fa_gate_flag::FA_GATE_DECIDES.0);
        assert_eq!((gates[2].first, gates[2].plain_first), (3, 1));
        assert_eq!(flags(&gates[2]), fa_gate_flag::FA_GATE_OBJS.0);
        assert_eq!(gates[1].ntests, 2);
        assert_eq!(gates[1].tests[0].field, field::EXIT, "cheapest first");
    }

    #[test]
    fn a_rule_with_more_quick_tests_than_a_gate_holds_is_judged() {
        let many: Vec<(u32, u32, u32)> = (0..5).map(|i| (field::ARG0, op::NOT_EQUAL, i)).collect();
        let gates = span_gates(&[rule(&many)], &[0]);
        assert_eq!(gates[0].ntests as usize, GATE_TESTS);
        assert_eq!(gates[0].flags, 0, "not decided by its gate alone");
    }
}
