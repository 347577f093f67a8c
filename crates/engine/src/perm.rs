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
pub fn sysclass(nr: u32, compat: bool) -> u32 {
    let special = if compat {
        match nr {
            5 => Some(Kind::FA_PERM_OPEN),
            295 => Some(Kind::FA_PERM_OPENAT),
            102 => Some(Kind::FA_PERM_SOCKETCALL),
            11 | 358 => Some(Kind::FA_PERM_EXEC),
            437 => Some(Kind::FA_PERM_OPENAT2),
            _ => None,
        }
    } else {
        match nr {
            2 => Some(Kind::FA_PERM_OPEN),
            257 => Some(Kind::FA_PERM_OPENAT),
            59 | 322 => Some(Kind::FA_PERM_EXEC),
            437 => Some(Kind::FA_PERM_OPENAT2),
            _ => None,
        }
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
        // chmod (90) changes attributes, unlink (87) writes, readlink (89) reads.
        assert!(possible(90, false, ATTR) && !possible(90, false, WRITE));
        assert!(possible(87, false, WRITE) && !possible(87, false, READ | ATTR));
        assert!(possible(89, false, READ));
        // open/openat judge by flags; exec only by x.
        assert!(possible(257, false, WRITE) && possible(2, false, READ));
        assert!(!possible(257, false, EXEC | ATTR));
        assert!(possible(59, false, EXEC) && !possible(59, false, READ | WRITE | ATTR));
        // getpid (39) never; i386 chmod is 15, socketcall only for w.
        assert!(!possible(39, false, READ | WRITE | ATTR | EXEC));
        assert!(possible(15, true, ATTR));
        assert!(possible(102, true, WRITE) && !possible(102, true, READ));
    }
}
