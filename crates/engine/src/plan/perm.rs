//! The kernel's `audit_match_perm`: how a `perm=` test judges a syscall
//! (by its class, or by the access mode of an open, or as an exec), both
//! for the BPF side's `sysclass` table and for narrowing a rule's syscalls.

use fastaudit_bpf::types::{fa_perm_class as Class, fa_perm_kind as Kind};
use fastaudit_rules::tables::{syscall_classes, Machine};
use fastaudit_rules::Target;
use std::sync::OnceLock;

/// `perm=x`.
pub const EXEC: u32 = 1;
/// `perm=w`.
pub const WRITE: u32 = 2;
/// `perm=r`.
pub const READ: u32 = 4;
/// `perm=a`.
pub const ATTR: u32 = 8;

// AUDIT_CLASS_* indexes of the syscall-class table (native, 32-bit).
const CLASS_CHATTR: (usize, usize) = (2, 3);
const CLASS_READ: (usize, usize) = (4, 5);
const CLASS_WRITE: (usize, usize) = (6, 7);

/// The first syscall number every machine shares (Linux 5.1's 424,
/// pidfd_send_signal, on): newer syscalls than libaudit's tables have one
/// number everywhere.
const FIRST_SHARED_NR: u32 = 424;

/// The syscall classes of one target: index as `syscall_classes()` (the
/// kernel's AUDIT_CLASS_*: native at even, compat at odd indexes). The
/// generated table is x86_64's, asked of its kernel; the kernel builds
/// every machine's from the same lists of syscall names
/// (asm-generic/audit_*.h, each name where the machine has it), so
/// another machine's are x86's names with that machine's numbers.
fn classes(target: Target) -> &'static [Vec<u32>] {
    static OTHER: OnceLock<Vec<Vec<Vec<u32>>>> = OnceLock::new();
    let x86 = syscall_classes();
    if target == Target::X86_64 {
        return x86;
    }
    let all = OTHER.get_or_init(|| {
        Target::ALL
            .iter()
            .map(|&t| {
                x86.iter()
                    .enumerate()
                    .map(|(class, nrs)| {
                        let compat = class % 2 == 1;
                        let (from, to) = (Target::X86_64.machine(compat), t.machine(compat));
                        nrs.iter()
                            .filter_map(|&nr| renumber(from, to, nr))
                            .collect()
                    })
                    .collect()
            })
            .collect()
    });
    let at = Target::ALL.iter().position(|&t| t == target).unwrap_or(0);
    &all[at]
}

/// Syscall `nr` of machine `from` by its number on machine `to`, if `to`
/// has it.
fn renumber(from: Machine, to: Machine, nr: u32) -> Option<u32> {
    match from.syscall_name(nr) {
        Some(name) => crate::plan::syscalls::lookup(to, name),
        None => (nr >= FIRST_SHARED_NR).then_some(nr),
    }
}

/// The `sysclass` map value for syscall `nr` of the native (x86_64,
/// aarch64) or compat (i386, arm) ABI of `target`, as
/// audit_classify_syscall and the classes sort it.
/// Worked out once per ABI: a watch asks it of every syscall, so a set of
/// many watches asked it millions of times.
pub fn sysclass(target: Target, nr: u32, compat: bool) -> u32 {
    static TABLES: OnceLock<Vec<Vec<u32>>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        let all = (fastaudit_rules::abi::BITMASK_WORDS * 32) as u32;
        Target::ALL
            .iter()
            .flat_map(|&t| [false, true].map(|c| (0..all).map(|n| classify(t, n, c)).collect()))
            .collect()
    });
    let at = Target::ALL.iter().position(|&t| t == target).unwrap_or(0) * 2 + usize::from(compat);
    match tables[at].get(nr as usize) {
        Some(&v) => v,
        None => classify(target, nr, compat),
    }
}

/// [`sysclass`], worked out from the tables.
fn classify(target: Target, nr: u32, compat: bool) -> u32 {
    let s = crate::plan::syscalls::special(target, compat);
    let special = match nr {
        n if s.open == Some(n) => Some(Kind::FA_PERM_OPEN),
        n if n == s.openat => Some(Kind::FA_PERM_OPENAT),
        n if n == s.openat2 => Some(Kind::FA_PERM_OPENAT2),
        n if s.perm_exec(n) => Some(Kind::FA_PERM_EXEC),
        n if s.socketcall == Some(n) => Some(Kind::FA_PERM_SOCKETCALL),
        _ => None,
    };
    if let Some(kind) = special {
        return kind.0 << Class::FA_PERM_KIND_SHIFT.0;
    }
    let classes = classes(target);
    let member = |(native, c32): (usize, usize)| {
        classes
            .get(if compat { c32 } else { native })
            .is_some_and(|v| v.contains(&nr))
    };
    let mut bits = 0;
    for (class, bit) in [
        (CLASS_WRITE, Class::FA_CLASS_WRITE),
        (CLASS_READ, Class::FA_CLASS_READ),
        (CLASS_CHATTR, Class::FA_CLASS_CHATTR),
    ] {
        if member(class) {
            bits |= bit.0;
        }
    }
    bits
}

/// Whether a `perm=mask` test can hold for syscall `nr` of one ABI (for
/// opens it depends on the flags, so any read or write permission can).
pub fn possible(target: Target, nr: u32, compat: bool, mask: u32) -> bool {
    let v = sysclass(target, nr, compat);
    let kind = Kind(v >> Class::FA_PERM_KIND_SHIFT.0);
    let has = |c: Class| v & c.0 != 0;
    match kind {
        Kind::FA_PERM_CLASS => {
            (mask & WRITE != 0 && has(Class::FA_CLASS_WRITE))
                || (mask & READ != 0 && has(Class::FA_CLASS_READ))
                || (mask & ATTR != 0 && has(Class::FA_CLASS_CHATTR))
        }
        Kind::FA_PERM_OPEN | Kind::FA_PERM_OPENAT | Kind::FA_PERM_OPENAT2 => {
            mask & (READ | WRITE) != 0
        }
        Kind::FA_PERM_EXEC => mask & EXEC != 0,
        Kind::FA_PERM_SOCKETCALL => mask & WRITE != 0,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_special_syscalls() {
        use crate::plan::syscalls::{i386, x86_64};
        let possible = |nr, compat, mask| possible(Target::X86_64, nr, compat, mask);
        let (chmod, unlink, readlink) = (x86_64("chmod"), x86_64("unlink"), x86_64("readlink"));
        assert!(possible(chmod, false, ATTR) && !possible(chmod, false, WRITE));
        assert!(possible(unlink, false, WRITE) && !possible(unlink, false, READ | ATTR));
        assert!(possible(readlink, false, READ));
        // open/openat judge by flags; exec only by x.
        let (open, openat, execve) = (x86_64("open"), x86_64("openat"), x86_64("execve"));
        assert!(possible(openat, false, WRITE) && possible(open, false, READ));
        assert!(!possible(openat, false, EXEC | ATTR));
        assert!(possible(execve, false, EXEC) && !possible(execve, false, READ | WRITE | ATTR));
        // getpid never; i386 chmod has its own number, socketcall only for w.
        assert!(!possible(
            x86_64("getpid"),
            false,
            READ | WRITE | ATTR | EXEC
        ));
        assert!(possible(i386("chmod"), true, ATTR));
        let socketcall = i386("socketcall");
        assert!(possible(socketcall, true, WRITE) && !possible(socketcall, true, READ));
    }
}
