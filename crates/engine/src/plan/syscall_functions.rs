//! The kernel function each syscall number of each ABI enters
//! (`__x64_sys_openat`, `__ia32_compat_sys_execve`): where a fentry or
//! fexit program for that one syscall attaches, so that syscalls no rule
//! names pay nothing.
//!
//! The table is the kernels' own (their syscall tables, as Debian's
//! header packages ship them: `tools/gen-syscall-functions.py`); which
//! of a number's names this kernel has, and with which prototype, its
//! BTF says ([`SyscallFunctions`], read by the host probe).

use fastaudit_rules::tables::Machine;
use fastaudit_rules::Target;
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../data/syscall-functions.tsv");

/// How many prototypes the syscall functions hooked at once may have:
/// a tail call only joins programs attached to functions of one
/// prototype (the kernel compares them), so the BPF object has a body
/// for each (`fa_fexit_body0`, ...). Kernels have two: `regs` and
/// `__unused` (SYSCALL_DEFINE0) spell the one parameter differently.
pub const PROTO_GROUPS: u8 = 2;

/// Where every number a kernel does not implement ends: its ABI's
/// `sys_ni_syscall` wrapper calls it (x86's wrappers, aliases of
/// `__do_sys_ni_syscall`, cannot be traced; arm64 sends numbers past its
/// table to it directly). Hooked by a program of its own
/// (`fa_ni_syscall_exit`: its prototype is `long (void)`).
pub const NI_FUNCTION: &str = "sys_ni_syscall";

/// The group of [`NI_FUNCTION`]: none of the stubs'.
pub const NI_GROUP: u8 = u8::MAX;

/// The table's name of one ABI of `target`.
fn abi_name(target: Target, compat: bool) -> &'static str {
    match target.machine(compat) {
        Machine::X86_64 => "x86_64",
        Machine::X86 => "i386",
        Machine::Aarch64 => "aarch64",
        Machine::Arm => "arm",
        _ => "",
    }
}

/// (ABI, number) → the functions a kernel may have for it, newest first.
fn table() -> &'static HashMap<(&'static str, u32), Vec<&'static str>> {
    static T: OnceLock<HashMap<(&'static str, u32), Vec<&'static str>>> = OnceLock::new();
    T.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(|l| {
                let mut f = l.split('\t');
                let abi = f.next()?;
                let nr = f.next()?.parse().ok()?;
                Some(((abi, nr), f.next()?.split(',').collect()))
            })
            .collect()
    })
}

/// The functions syscall `nr` of one ABI enters in some kernel, newest
/// kernel's name first. A number past every table reaches x86's
/// `sys_ni_syscall` wrapper of its ABI (arm64 sends it to do_ni_syscall,
/// which no wrapper sees: none).
pub fn candidates(target: Target, compat: bool, nr: u32) -> &'static [&'static str] {
    match table().get(&(abi_name(target, compat), nr)) {
        Some(names) => names,
        None => match target.machine(compat) {
            Machine::X86_64 => &["__x64_sys_ni_syscall"],
            Machine::X86 => &["__ia32_sys_ni_syscall"],
            _ => &[],
        },
    }
}

/// The function x86's wrapper `name` is an alias of, if it is one: a
/// syscall without arguments (SYSCALL_DEFINE0; `sys_ni_syscall`'s too)
/// has no wrapper function of its own, `__x64_sys_getpid` and
/// `__ia32_sys_getpid` are both `__do_sys_getpid`, which is what the BTF
/// has (seen in Debian's 6.1, 6.12 and 7.3).
fn do_alias(name: &str) -> Option<String> {
    ["__x64_", "__ia32_"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
        .map(|rest| format!("__do_{rest}"))
}

/// One syscall's function in this kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyscallFunction {
    /// Its name (`__x64_sys_openat`).
    pub name: String,
    /// Its prototype's group (below [`PROTO_GROUPS`]: hookable), the
    /// most common prototype first.
    pub group: u8,
}

/// This kernel's syscall functions, as its BTF has them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SyscallFunctions {
    /// Not read (no root, no fexit here, or tests): none is hooked.
    #[default]
    Unread,
    /// Read: (compat, number) → its function, for those the BTF has.
    Found(BTreeMap<(bool, u32), SyscallFunction>),
}

impl SyscallFunctions {
    /// The functions of a kernel of `target` whose BTF gives the
    /// prototype id of each function it has (`proto_of`).
    pub fn resolve(target: Target, proto_of: impl Fn(&str) -> Option<u32>) -> SyscallFunctions {
        let mut found: Vec<((bool, u32), String, u32)> = Vec::new();
        for compat in [false, true] {
            // Every number a rule can name.
            for nr in 0..crate::limits::NR_SYSCALLS {
                let found_here = candidates(target, compat, nr).iter().find_map(|n| {
                    if n.ends_with(NI_FUNCTION) {
                        return proto_of(NI_FUNCTION).map(|p| (NI_FUNCTION.to_string(), p));
                    }
                    let alias = do_alias(n);
                    std::iter::once(n.to_string())
                        .chain(alias)
                        .find_map(|c| proto_of(&c).map(|p| (c, p)))
                });
                if let Some((name, proto)) = found_here {
                    found.push(((compat, nr), name, proto));
                }
            }
        }
        // Groups by prototype, the one of the most functions first (ties
        // by id, so the same kernel always gives the same groups).
        let mut names: BTreeMap<u32, std::collections::BTreeSet<&str>> = BTreeMap::new();
        for (_, name, p) in found.iter().filter(|f| f.1 != NI_FUNCTION) {
            names.entry(*p).or_default().insert(name);
        }
        let counts: BTreeMap<u32, usize> = names.into_iter().map(|(p, n)| (p, n.len())).collect();
        let mut protos: Vec<(u32, usize)> = counts.into_iter().collect();
        protos.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let group_of = |p: u32| {
            let i = protos
                .iter()
                .position(|(q, _)| *q == p)
                .unwrap_or(usize::MAX);
            u8::try_from(i).unwrap_or(u8::MAX)
        };
        SyscallFunctions::Found(
            found
                .into_iter()
                .map(|(key, name, p)| {
                    let group = if name == NI_FUNCTION {
                        NI_GROUP
                    } else {
                        group_of(p)
                    };
                    (key, SyscallFunction { name, group })
                })
                .collect(),
        )
    }

    /// Every function of the table present, all of one prototype: what
    /// `--explain` without root and the tests plan with.
    pub fn assumed(target: Target) -> SyscallFunctions {
        SyscallFunctions::resolve(target, |_| Some(1))
    }

    /// Syscall `nr`'s function in one ABI (`None`: unread, or none).
    pub fn get(&self, compat: bool, nr: u32) -> Option<&SyscallFunction> {
        match self {
            SyscallFunctions::Unread => None,
            SyscallFunctions::Found(m) => m.get(&(compat, nr)),
        }
    }

    /// Whether they were read.
    pub fn read(&self) -> bool {
        matches!(self, SyscallFunctions::Found(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::syscalls::{self, x86_64};

    #[test]
    fn each_abi_names_its_own_wrappers() {
        let x = Target::X86_64;
        assert_eq!(candidates(x, false, x86_64("openat")), ["__x64_sys_openat"]);
        // stat is SYSCALL_DEFINE(newstat); ia32 execve has a compat entry.
        assert_eq!(candidates(x, false, x86_64("stat")), ["__x64_sys_newstat"]);
        let ia32_execve = syscalls::number(Machine::X86, "execve");
        assert_eq!(
            candidates(x, true, ia32_execve),
            ["__ia32_compat_sys_execve"]
        );
        let a = Target::AARCH64;
        let openat = syscalls::number(Machine::Aarch64, "openat");
        assert_eq!(candidates(a, false, openat), ["__arm64_sys_openat"]);
        let arm_execve = syscalls::number(Machine::Arm, "execve");
        assert_eq!(
            candidates(a, true, arm_execve),
            ["__arm64_compat_sys_execve"]
        );
        assert_eq!(candidates(x, false, 100_000), ["__x64_sys_ni_syscall"]);
        assert!(candidates(a, false, 100_000).is_empty());
    }

    #[test]
    fn every_syscall_of_the_rule_tables_has_a_function_or_is_unimplemented() {
        // The rule language's numbers and the kernels' tables agree: the
        // few without a function are syscalls Linux no longer implements.
        for target in [Target::X86_64, Target::AARCH64] {
            for compat in [false, true] {
                let m = target.machine(compat);
                let mut without: Vec<&str> = m
                    .syscall_names()
                    .filter(|n| {
                        m.syscall_number(n.as_bytes())
                            .is_some_and(|nr| candidates(target, compat, nr).is_empty())
                    })
                    .collect();
                without.sort();
                assert!(
                    without.len() < 40,
                    "{}: {} without a function: {without:?}",
                    m.name(),
                    without.len()
                );
                for common in ["execve", "openat", "write", "exit_group"] {
                    assert!(!without.contains(&common), "{}: {common}", m.name());
                }
            }
        }
    }

    #[test]
    fn prototypes_are_grouped_most_common_first_and_a_missing_name_is_left_out() {
        let x = Target::X86_64;
        let execveat = x86_64("execveat");
        let getpid = x86_64("getpid");
        let f = SyscallFunctions::resolve(x, |n| match n {
            "__x64_sys_execveat" | "__ia32_compat_sys_execveat" => Some(7),
            "__x64_sys_getpid" | "__do_sys_getpid" => None,
            // SYSCALL_DEFINE0: the wrappers of both ABIs are aliases.
            "__x64_sys_getuid" | "__ia32_sys_getuid32" => None,
            _ => Some(3),
        });
        let getuid = f.get(false, x86_64("getuid")).map(|f| f.name.as_str());
        assert_eq!(getuid, Some("__do_sys_getuid"));
        // A number the kernels do not implement: their sys_ni_syscall.
        let ni = f.get(false, x86_64("uselib"));
        assert_eq!(
            ni,
            Some(&SyscallFunction {
                name: NI_FUNCTION.into(),
                group: NI_GROUP
            })
        );
        assert_eq!(f.get(false, x86_64("openat")).map(|f| f.group), Some(0));
        assert_eq!(
            f.get(false, execveat),
            Some(&SyscallFunction {
                name: "__x64_sys_execveat".into(),
                group: 1
            })
        );
        assert_eq!(f.get(false, getpid), None);
        assert_eq!(SyscallFunctions::Unread.get(false, execveat), None);
    }
}
