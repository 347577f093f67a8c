//! One rule compiled into the field tests the BPF side evaluates: every
//! test is `subject OP constant` on 32-bit values, as the kernel's
//! `audit_comparator` truncates both sides to u32.

use fastaudit_rules::abi::{action, field, op};
use fastaudit_rules::tables;
use fastaudit_rules::{Origin, Rule};
use std::collections::HashMap;
use thiserror::Error;

/// Field code for a test that can never hold (an LSM label test on a
/// machine without an LSM that supports audit rules, as in the kernel).
pub const FIELD_NEVER: u32 = fastaudit_bpf::types::fa_field::FA_FIELD_NEVER.0;

/// Field code of a test of the syscall's objects: `FIELD_OBJ | field`
/// (inode, devmajor, devminor, obj_uid, obj_gid, filetype).
pub const FIELD_OBJ: u32 = fastaudit_bpf::types::fa_field::FA_FIELD_OBJ.0;

/// Field code of a `-C` comparison of a task field with a file owner's
/// (`uid!=obj_uid`): `FIELD_OBJ_COMPARE | task_field << 8 | owner_field`.
pub const FIELD_OBJ_COMPARE: u32 = fastaudit_bpf::types::fa_field::FA_FIELD_OBJ_COMPARE.0;

/// One field test as the BPF side evaluates it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Test {
    /// Kernel field number (`abi::field`), `LOGINUID_SET` for `auid=-1`, or
    /// `FIELD_NEVER` (a test that never holds).
    pub field: u32,
    /// Kernel operator bits (`abi::op`).
    pub op: u32,
    /// Constant; for `exe` an index into [`crate::Plan::exes`], for `path=`/`dir=` an index into [`crate::Plan::watches`] + 1, for `-C` the comparison id.
    pub value: u32,
}

/// A rule ready for the kernel side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledRule {
    /// Where the rule was written.
    pub origin: Origin,
    /// True for `always`, false for `never`.
    pub always: bool,
    /// Field tests, all of which must hold.
    pub tests: Vec<Test>,
    /// The rule's key(s), joined by `\x01`, if any.
    pub key: Option<Vec<u8>>,
}

/// A watched path: `path=` (one object) or `dir=` (a whole tree).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Watch {
    /// The path as the rule gives it.
    pub path: Vec<u8>,
    /// True for `dir=` (the directory and everything below it).
    pub tree: bool,
}

/// A rule the kernel side cannot enforce.
#[derive(Debug, Error, PartialEq, Eq)]
#[error(
    "{origin}: fastaudit cannot enforce {what} yet; remove the rule or keep it in the kernel audit"
)]
pub struct CompileError {
    /// The rule's line.
    pub origin: Origin,
    /// The field or form that is not supported.
    pub what: String,
}

pub(crate) fn unsupported(origin: &Origin, what: impl Into<String>) -> CompileError {
    CompileError {
        origin: origin.clone(),
        what: what.into(),
    }
}

/// Compile one rule's fields into tests; `exe=` paths and watched paths
/// are added to `paths` (a test's value is the index there).
pub(crate) fn compile_rule(
    r: &Rule,
    origin: &Origin,
    lsm_audit_rules: bool,
    paths: &mut RulePaths,
) -> Result<CompiledRule, CompileError> {
    let mut tests = Vec::new();
    let mut key = None;
    for f in &r.fields {
        let mut t = Test {
            field: f.field,
            op: f.op,
            value: f.value,
        };
        match f.field {
            field::LOGINUID if f.value == fastaudit_rules::abi::UNSET_ID => {
                t = Test {
                    field: field::LOGINUID_SET,
                    op: f.op,
                    value: 0,
                };
            }
            field::PID
            | field::UID..=field::FSGID
            | field::LOGINUID
            | field::PERS
            | field::ARCH
            | field::PPID
            | field::SESSIONID
            | field::EXIT
            | field::SUCCESS
            | field::ARG0..=field::ARG3
            | field::SADDR_FAM => {}
            // The syscall's objects (names), as the kernel's names list.
            field::INODE
            | field::DEVMAJOR
            | field::DEVMINOR
            | field::FILETYPE
            | field::OBJ_UID
            | field::OBJ_GID => t.field = FIELD_OBJ | f.field,
            field::FIELD_COMPARE => {
                let Some(&(task, other, _)) =
                    tables::COMPARISONS.iter().find(|(_, _, c)| *c == f.value)
                else {
                    return Err(unsupported(origin, format!("-C comparison {}", f.value)));
                };
                if matches!(other, field::OBJ_UID | field::OBJ_GID) {
                    t = Test {
                        field: FIELD_OBJ_COMPARE | (task << 8) | other,
                        op: f.op,
                        value: 0,
                    };
                }
            }
            field::EXE => {
                t.value = paths.exe_index(&f.text);
            }
            field::WATCH | field::DIR => {
                let w = Watch {
                    path: f.text.clone(),
                    tree: f.field == field::DIR,
                };
                t.value = paths.watch_index(w) + 1;
            }
            field::PERM => {}
            field::FILTERKEY => {
                key = Some(f.text.clone());
                continue;
            }
            field::SUBJ_USER..=field::SUBJ_CLR | field::OBJ_USER..=field::OBJ_LEV_HIGH
                if !lsm_audit_rules =>
            {
                // Without an LSM the kernel keeps the rule but the test never holds.
                t = Test {
                    field: FIELD_NEVER,
                    op: op::EQUAL,
                    value: 0,
                };
            }
            other => {
                let name = tables::field_name(other)
                    .map_or_else(|| format!("field {other}"), |n| format!("-F {n}"));
                return Err(unsupported(origin, name));
            }
        }
        tests.push(t);
    }
    Ok(CompiledRule {
        origin: origin.clone(),
        always: r.action == action::ALWAYS,
        tests,
        key,
    })
}

/// Whether a rule's arch tests can hold for syscalls of `arch_value`.
pub(crate) fn arch_allows(rule: &CompiledRule, arch_value: u32) -> bool {
    rule.tests
        .iter()
        .filter(|t| t.field == field::ARCH)
        .all(|t| match t.op {
            op::EQUAL => arch_value == t.value,
            op::NOT_EQUAL => arch_value != t.value,
            _ => true,
        })
}

/// The paths rules name, each once: a test's value indexes these.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RulePaths {
    /// Executable paths named by `exe=` tests.
    pub exes: Vec<Vec<u8>>,
    /// Watched paths (`path=`, `dir=`, `-w`).
    pub watches: Vec<Watch>,
    /// Where each is in `exes` and `watches`: one lookup per test, so
    /// compiling n watches stays linear (a scan made 25,000 take seconds).
    exe_at: HashMap<Vec<u8>, u32>,
    watch_at: HashMap<Watch, u32>,
}

impl RulePaths {
    /// The index of an `exe=` path, added if new.
    fn exe_index(&mut self, path: &[u8]) -> u32 {
        if let Some(&at) = self.exe_at.get(path) {
            return at;
        }
        let at = self.exes.len() as u32;
        self.exes.push(path.to_vec());
        self.exe_at.insert(path.to_vec(), at);
        at
    }

    /// The index of a watched path, added if new.
    fn watch_index(&mut self, w: Watch) -> u32 {
        if let Some(&at) = self.watch_at.get(&w) {
            return at;
        }
        let at = self.watches.len() as u32;
        self.watches.push(w.clone());
        self.watch_at.insert(w, at);
        at
    }
}
