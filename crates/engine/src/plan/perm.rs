//! The kernel's `audit_match_perm`: how a `perm=` test judges a syscall
//! (by its class, or by the access mode of an open, or as an exec), both
//! for the BPF side's `sysclass` table and for narrowing a rule's syscalls.

use fastaudit_bpf::types::{fa_perm_class as Class, fa_perm_kind as Kind};
use fastaudit_rules::tables::syscall_classes;

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

/// The `sysclass` map value for syscall `nr` of the native (x86_64) or
/// compat (i386) ABI, as audit_classify_syscall and the classes sort it.
/// Worked out once per ABI: a watch asks it of every syscall, so a set of
/// many watches asked it millions of times.
pub fn sysclass(nr: u32, compat: bool) -> u32 {
    static TABLES: std::sync::OnceLock<[Vec<u32>; 2]> = std::sync::OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        let all = (fastaudit_rules::abi::BITMASK_WORDS * 32) as u32;
        [false, true].map(|c| (0..all).map(|n| classify(n, c)).collect())
    });
    match tables[usize::from(compat)].get(nr as usize) {
        Some(&v) => v,
        None => classify(nr, compat),
    }
}

/// [`sysclass`], worked out from the tables.
fn classify(nr: u32, compat: bool) -> u32 {
    let s = crate::plan::syscalls::special(compat);
    let special = match nr {
        n if n == s.open => Some(Kind::FA_PERM_OPEN),
        n if n == s.openat => Some(Kind::FA_PERM_OPENAT),
        n if n == s.openat2 => Some(Kind::FA_PERM_OPENAT2),
        n if s.execs().contains(&n) => Some(Kind::FA_PERM_EXEC),
        n if s.socketcall == Some(n) => Some(Kind::FA_PERM_SOCKETCALL),
        _ => None,
    };
    if let Some(kind) = special {
        return kind.0 << Class::FA_PERM_KIND_SHIFT.0;
    }
    let classes = syscall_classes();
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
pub fn possible(nr: u32, compat: bool, mask: u32) -> bool {
    let v = sysclass(nr, compat);
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
