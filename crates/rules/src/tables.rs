//! Name tables of the rule language: fields, machines, syscalls, errnos,
//! message types, file types, file systems, io_uring operations.
//!
//! The large tables (syscalls per machine, errnos, message types) are data
//! files generated from the oracle's libaudit by `tools/gen-tables.py`; the
//! small ones are declared here. Every lookup folds ASCII case the way
//! libaudit's generated tables do.

use crate::abi::{arch, field};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Field names in libaudit's order; the first name of a number is the one listed.
pub const FIELDS: &[(&str, u32)] = &[
    ("pid", field::PID),
    ("uid", field::UID),
    ("euid", field::EUID),
    ("suid", field::SUID),
    ("fsuid", field::FSUID),
    ("gid", field::GID),
    ("egid", field::EGID),
    ("sgid", field::SGID),
    ("fsgid", field::FSGID),
    ("auid", field::LOGINUID),
    ("loginuid", field::LOGINUID),
    ("pers", field::PERS),
    ("arch", field::ARCH),
    ("msgtype", field::MSGTYPE),
    ("subj_user", field::SUBJ_USER),
    ("subj_role", field::SUBJ_ROLE),
    ("subj_type", field::SUBJ_TYPE),
    ("subj_sen", field::SUBJ_SEN),
    ("subj_clr", field::SUBJ_CLR),
    ("ppid", field::PPID),
    ("obj_user", field::OBJ_USER),
    ("obj_role", field::OBJ_ROLE),
    ("obj_type", field::OBJ_TYPE),
    ("obj_lev_low", field::OBJ_LEV_LOW),
    ("obj_lev_high", field::OBJ_LEV_HIGH),
    ("sessionid", field::SESSIONID),
    ("devmajor", field::DEVMAJOR),
    ("devminor", field::DEVMINOR),
    ("inode", field::INODE),
    ("exit", field::EXIT),
    ("success", field::SUCCESS),
    ("path", field::WATCH),
    ("perm", field::PERM),
    ("dir", field::DIR),
    ("filetype", field::FILETYPE),
    ("fstype", field::FSTYPE),
    ("obj_uid", field::OBJ_UID),
    ("obj_gid", field::OBJ_GID),
    ("field_compare", field::FIELD_COMPARE),
    ("a0", field::ARG0),
    ("a1", field::ARG1),
    ("a2", field::ARG2),
    ("a3", field::ARG3),
    ("key", field::FILTERKEY),
    ("exe", field::EXE),
    ("saddr_fam", field::SADDR_FAM),
];

/// A machine type auditctl knows, each with its syscall table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Machine {
    X86,
    X86_64,
    Ppc64,
    Ppc,
    S390x,
    S390,
    Arm,
    Aarch64,
    Ppc64le,
}

/// Machine names (`uname -m` spellings) accepted by `-F arch=`.
const MACHINE_NAMES: &[(&str, Machine)] = &[
    ("i386", Machine::X86),
    ("i486", Machine::X86),
    ("i586", Machine::X86),
    ("i686", Machine::X86),
    ("x86_64", Machine::X86_64),
    ("ppc64", Machine::Ppc64),
    ("ppc64le", Machine::Ppc64le),
    ("ppc", Machine::Ppc),
    ("s390x", Machine::S390x),
    ("s390", Machine::S390),
    ("armeb", Machine::Arm),
    ("arm", Machine::Arm),
    ("armv5tejl", Machine::Arm),
    ("armv5tel", Machine::Arm),
    ("armv6l", Machine::Arm),
    ("armv7l", Machine::Arm),
    ("aarch64", Machine::Aarch64),
    ("armv8l", Machine::Aarch64),
];

/// Machine to `AUDIT_ARCH_*`, in libaudit's order (the first match of an ELF value wins).
const MACHINE_ELF: &[(Machine, u32)] = &[
    (Machine::X86, arch::I386),
    (Machine::X86_64, arch::X86_64),
    (Machine::Ppc64, arch::PPC64),
    (Machine::Ppc64le, arch::PPC64LE),
    (Machine::Ppc, arch::PPC),
    (Machine::S390x, arch::S390X),
    (Machine::S390, arch::S390),
    (Machine::Arm, arch::ARM),
    (Machine::Aarch64, arch::AARCH64),
];

/// 64-bit machines and the 32-bit machine whose programs they also run,
/// as auditctl pairs them to check `-S` names (`check_rule_mismatch`).
const BIARCH: &[(Machine, Machine)] = &[
    (Machine::X86_64, Machine::X86),
    (Machine::Ppc64, Machine::Ppc),
    (Machine::S390x, Machine::S390),
];

impl Machine {
    /// Every machine with a syscall table of its own.
    pub const ALL: [Machine; 7] = [
        Machine::X86,
        Machine::X86_64,
        Machine::Ppc,
        Machine::S390x,
        Machine::S390,
        Machine::Arm,
        Machine::Aarch64,
    ];

    /// The 32-bit machine a 64-bit one also runs programs of.
    pub fn side_32bit(self) -> Option<Machine> {
        BIARCH.iter().find(|(m, _)| *m == self).map(|(_, m)| *m)
    }

    /// The other machine of a 64/32-bit pair (either way).
    pub fn other_side(self) -> Option<Machine> {
        BIARCH.iter().find_map(|&(wide, narrow)| match self {
            m if m == wide => Some(narrow),
            m if m == narrow => Some(wide),
            _ => None,
        })
    }

    /// Machine named by a `uname -m` style string (case-insensitive).
    pub fn from_name(name: &[u8]) -> Option<Machine> {
        let lower = name.to_ascii_lowercase();
        MACHINE_NAMES
            .iter()
            .find(|(n, _)| n.as_bytes() == lower.as_slice())
            .map(|(_, m)| *m)
    }

    /// Canonical name (the first of its spellings).
    pub fn name(self) -> &'static str {
        MACHINE_NAMES
            .iter()
            .find(|(_, m)| *m == self)
            .map(|(n, _)| *n)
            .unwrap_or("unknown")
    }

    /// The `AUDIT_ARCH_*` value of this machine.
    pub fn elf(self) -> u32 {
        MACHINE_ELF
            .iter()
            .find(|(m, _)| *m == self)
            .map(|(_, e)| *e)
            .unwrap_or(0)
    }

    /// The machine an `AUDIT_ARCH_*` value stands for.
    pub fn from_elf(elf: u32) -> Option<Machine> {
        MACHINE_ELF.iter().find(|(_, e)| *e == elf).map(|(m, _)| *m)
    }

    /// Whether this machine is 64-bit (`b64` in listings).
    pub fn is_64bit(self) -> bool {
        self.elf() & arch::BIT64 != 0
    }

    fn syscall_data(self) -> &'static str {
        match self {
            Machine::X86 => include_str!("../data/syscalls-i386.tsv"),
            Machine::X86_64 => include_str!("../data/syscalls-x86_64.tsv"),
            Machine::Ppc | Machine::Ppc64 | Machine::Ppc64le => {
                include_str!("../data/syscalls-ppc.tsv")
            }
            Machine::S390x => include_str!("../data/syscalls-s390x.tsv"),
            Machine::S390 => include_str!("../data/syscalls-s390.tsv"),
            Machine::Arm => include_str!("../data/syscalls-arm.tsv"),
            Machine::Aarch64 => include_str!("../data/syscalls-aarch64.tsv"),
        }
    }

    /// Syscall number of a name on this machine (case-insensitive).
    pub fn syscall_number(self, name: &[u8]) -> Option<u32> {
        syscalls(self).lookup(&name.to_ascii_lowercase())
    }

    /// The number of a syscall newer than this machine's table (which is
    /// libaudit's, as auditctl refuses such names), from the kernel's
    /// tables (data/syscalls-newer.tsv): only for a refusal to give it.
    pub fn newer_syscall_number(self, name: &[u8]) -> Option<u32> {
        include_str!("../data/syscalls-newer.tsv")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .find_map(|l| {
                let mut cols = l.split('\t');
                let (nr, n, machines) = (cols.next()?, cols.next()?, cols.next()?);
                let here = machines == "all" || machines.split(',').any(|m| m == self.name());
                (here && n.as_bytes().eq_ignore_ascii_case(name)).then(|| nr.parse().ok())?
            })
    }

    /// Syscall name of a number on this machine.
    pub fn syscall_name(self, nr: u32) -> Option<&'static str> {
        syscalls(self).name(nr)
    }

    /// Every syscall name of this machine (aliases too), in no order.
    pub fn syscall_names(self) -> impl Iterator<Item = &'static str> {
        syscalls(self).names()
    }
}

/// A bidirectional name/number table read from a generated data file.
#[derive(Debug, Default)]
pub struct NameTable {
    by_name: HashMap<&'static str, u32>,
    by_number: HashMap<u32, &'static str>,
}

impl NameTable {
    /// Parse `number<TAB>name` lines; `#` lines are comments. The first name
    /// given for a number is the one `name()` returns.
    fn parse(data: &'static str) -> NameTable {
        let mut t = NameTable::default();
        for line in data
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let mut parts = line.splitn(2, '\t');
            let (Some(nr), Some(name)) = (parts.next(), parts.next()) else {
                continue;
            };
            let Ok(nr) = nr.parse::<u32>() else { continue };
            t.by_name.entry(name).or_insert(nr);
            t.by_number.entry(nr).or_insert(name);
        }
        t
    }

    /// Number of an exact name.
    pub fn lookup(&self, name: &[u8]) -> Option<u32> {
        std::str::from_utf8(name)
            .ok()
            .and_then(|n| self.by_name.get(n).copied())
    }

    /// Canonical name of a number.
    pub fn name(&self, nr: u32) -> Option<&'static str> {
        self.by_number.get(&nr).copied()
    }

    /// Every name (aliases too), in no order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.by_name.keys().copied()
    }

    /// Every (number, canonical name) pair, by number.
    pub fn entries(&self) -> Vec<(u32, &'static str)> {
        let mut v: Vec<_> = self.by_number.iter().map(|(n, s)| (*n, *s)).collect();
        v.sort();
        v
    }
}

fn syscalls(m: Machine) -> &'static NameTable {
    // Found by the data's address (a string key would hash the whole
    // table text on every lookup: a third of listing 100,000 rules).
    static TABLES: OnceLock<Vec<(&'static str, NameTable)>> = OnceLock::new();
    let all = TABLES.get_or_init(|| {
        Machine::ALL
            .into_iter()
            .map(|m| (m.syscall_data(), NameTable::parse(m.syscall_data())))
            .collect()
    });
    let data = m.syscall_data();
    all.iter()
        .find(|(d, _)| std::ptr::eq(*d, data))
        .or_else(|| all.iter().find(|(d, _)| *d == data))
        .map(|(_, t)| t)
        .unwrap_or_else(|| empty_table())
}

/// A table that names nothing (a machine without syscall data).
fn empty_table() -> &'static NameTable {
    static EMPTY: OnceLock<NameTable> = OnceLock::new();
    EMPTY.get_or_init(NameTable::default)
}

/// Errno names (`EPERM` ...), upper case in the table.
pub fn errnos() -> &'static NameTable {
    static T: OnceLock<NameTable> = OnceLock::new();
    T.get_or_init(|| NameTable::parse(include_str!("../data/errno.tsv")))
}

/// The message-type table: `number<TAB>NAME` lines, `#` comments.
const MSGTYPE_TSV: &str = include_str!("../data/msgtype.tsv");

/// Audit record type names (`SYSCALL`, `USER_LOGIN` ...), upper case in the table.
pub fn msgtypes() -> &'static NameTable {
    static T: OnceLock<NameTable> = OnceLock::new();
    T.get_or_init(|| NameTable::parse(MSGTYPE_TSV))
}

/// The number of record type `name` (as [`msgtypes`] has it), for
/// constants: `const EOE: u32 = msgtype("EOE");` does not build when the
/// table has no such name, so each number is written once, in the table.
pub const fn msgtype(name: &str) -> u32 {
    let (t, name) = (MSGTYPE_TSV.as_bytes(), name.as_bytes());
    let mut i = 0;
    while i < t.len() {
        let mut nr: u32 = 0;
        let start = i;
        while i < t.len() && t[i].is_ascii_digit() {
            nr = nr * 10 + (t[i] - b'0') as u32;
            i += 1;
        }
        let numbered = i > start && i < t.len() && t[i] == b'\t';
        let from = i + 1;
        while i < t.len() && t[i] != b'\n' {
            i += 1;
        }
        if numbered && same(t, from, i, name) {
            return nr;
        }
        i += 1;
    }
    panic!("a record type name not in crates/rules/data/msgtype.tsv")
}

/// Whether `t[from..to]` is `name` (a const fn cannot slice).
const fn same(t: &[u8], from: usize, to: usize, name: &[u8]) -> bool {
    if to - from != name.len() {
        return false;
    }
    let mut k = 0;
    while k < name.len() {
        if t[from + k] != name[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// Syscalls of each of the kernel's 16 syscall classes (generated from the
/// running kernel by `tools/gen-classes.py`; an empty class is unregistered).
pub fn syscall_classes() -> &'static [Vec<u32>] {
    static T: OnceLock<Vec<Vec<u32>>> = OnceLock::new();
    T.get_or_init(|| {
        let mut classes = vec![Vec::new(); 16];
        let data = include_str!("../data/syscall-classes.tsv");
        for line in data.lines().filter(|l| !l.starts_with('#')) {
            let mut parts = line.splitn(2, '\t');
            let (Some(c), Some(nrs)) = (parts.next(), parts.next()) else {
                continue;
            };
            let Ok(c) = c.parse::<usize>() else { continue };
            if let Some(slot) = classes.get_mut(c) {
                *slot = nrs.split(',').filter_map(|n| n.parse().ok()).collect();
            }
        }
        classes
    })
}

/// io_uring operations of kernel 6.18, named as io_uring names them (lower case).
pub const URING_OPS: &[&str] = &[
    "nop",
    "readv",
    "writev",
    "fsync",
    "read_fixed",
    "write_fixed",
    "poll_add",
    "poll_remove",
    "sync_file_range",
    "sendmsg",
    "recvmsg",
    "timeout",
    "timeout_remove",
    "accept",
    "async_cancel",
    "link_timeout",
    "connect",
    "fallocate",
    "openat",
    "close",
    "files_update",
    "statx",
    "read",
    "write",
    "fadvise",
    "madvise",
    "send",
    "recv",
    "openat2",
    "epoll_ctl",
    "splice",
    "provide_buffers",
    "remove_buffers",
    "tee",
    "shutdown",
    "renameat",
    "unlinkat",
    "mkdirat",
    "symlinkat",
    "linkat",
    "msg_ring",
    "fsetxattr",
    "setxattr",
    "fgetxattr",
    "getxattr",
    "socket",
    "uring_cmd",
    "send_zc",
    "sendmsg_zc",
    "read_multishot",
    "waitid",
    "futex_wait",
    "futex_wake",
    "futex_waitv",
    "fixed_fd_install",
    "ftruncate",
    "bind",
    "listen",
    "recv_zc",
    "epoll_wait",
    "readv_fixed",
    "writev_fixed",
    "pipe",
];

/// io_uring operations the kernel never audits (`audit_skip` in
/// io_uring/opdef.c of 6.18): no URINGOP record, whatever the rules.
pub const URING_AUDIT_SKIP: &[&str] = &[
    "nop",
    "readv",
    "writev",
    "fsync",
    "read_fixed",
    "write_fixed",
    "poll_add",
    "poll_remove",
    "sync_file_range",
    "timeout",
    "timeout_remove",
    "async_cancel",
    "link_timeout",
    "files_update",
    "statx",
    "read",
    "write",
    "fadvise",
    "madvise",
    "send",
    "recv",
    "epoll_ctl",
    "splice",
    "provide_buffers",
    "remove_buffers",
    "tee",
    "socket",
    "send_zc",
    "read_multishot",
    "epoll_wait",
    "readv_fixed",
    "writev_fixed",
];

/// Whether the kernel audits io_uring operation `op` at all (see
/// [`URING_AUDIT_SKIP`]).
pub fn uring_op_audited(op: u32) -> bool {
    URING_OPS
        .get(op as usize)
        .is_some_and(|name| !URING_AUDIT_SKIP.contains(name))
}

/// io_uring operation number of a name (case-insensitive).
pub fn uring_op_number(name: &[u8]) -> Option<u32> {
    let lower = name.to_ascii_lowercase();
    URING_OPS
        .iter()
        .position(|n| n.as_bytes() == lower.as_slice())
        .map(|i| i as u32)
}

/// File type names of `-F filetype=` and their `S_IF*` values.
pub const FILETYPES: &[(&str, u32)] = &[
    ("socket", 0o140000),
    ("link", 0o120000),
    ("file", 0o100000),
    ("block", 0o060000),
    ("dir", 0o040000),
    ("character", 0o020000),
    ("fifo", 0o010000),
];

/// File system names of `-F fstype=` and their magic numbers.
pub const FSTYPES: &[(&str, u32)] = &[("tracefs", 0x7472_6163), ("debugfs", 0x6462_6720)];

/// Look a lower-case name up in a small declared table, folding case.
pub fn lookup_lower(table: &[(&'static str, u32)], name: &[u8]) -> Option<u32> {
    let lower = name.to_ascii_lowercase();
    table
        .iter()
        .find(|(n, _)| n.as_bytes() == lower.as_slice())
        .map(|(_, v)| *v)
}

/// Name of a value in a small declared table.
pub fn name_of(table: &[(&'static str, u32)], value: u32) -> Option<&'static str> {
    table.iter().find(|(_, v)| *v == value).map(|(n, _)| *n)
}

/// Field number of a field name (case-insensitive).
pub fn field_number(name: &[u8]) -> Option<u32> {
    lookup_lower(FIELDS, name)
}

/// ` (did you mean NAME?)` for an unknown field name, or nothing.
pub fn field_hint(name: &[u8]) -> String {
    crate::suggest::did_you_mean(name, FIELDS.iter().map(|(n, _)| *n))
}

/// Listed name of a field number.
pub fn field_name(nr: u32) -> Option<&'static str> {
    name_of(FIELDS, nr)
}

/// `-C` comparisons: the two fields and the `AUDIT_COMPARE_*` value, in the
/// order auditctl lists them.
pub const COMPARISONS: &[(u32, u32, u32)] = &[
    (field::UID, field::OBJ_UID, 1),
    (field::GID, field::OBJ_GID, 2),
    (field::EUID, field::OBJ_UID, 3),
    (field::EGID, field::OBJ_GID, 4),
    (field::LOGINUID, field::OBJ_UID, 5),
    (field::SUID, field::OBJ_UID, 6),
    (field::SGID, field::OBJ_GID, 7),
    (field::FSUID, field::OBJ_UID, 8),
    (field::FSGID, field::OBJ_GID, 9),
    (field::UID, field::LOGINUID, 10),
    (field::UID, field::EUID, 11),
    (field::UID, field::FSUID, 12),
    (field::UID, field::SUID, 13),
    (field::LOGINUID, field::FSUID, 14),
    (field::LOGINUID, field::SUID, 15),
    (field::LOGINUID, field::EUID, 16),
    (field::EUID, field::SUID, 17),
    (field::EUID, field::FSUID, 18),
    (field::SUID, field::FSUID, 19),
    (field::GID, field::EGID, 20),
    (field::GID, field::FSGID, 21),
    (field::GID, field::SGID, 22),
    (field::EGID, field::FSGID, 23),
    (field::EGID, field::SGID, 24),
    (field::SGID, field::FSGID, 25),
];

/// The `AUDIT_COMPARE_*` value for two fields, in either order.
pub fn comparison(a: u32, b: u32) -> Option<u32> {
    COMPARISONS
        .iter()
        .find(|(x, y, _)| (*x == a && *y == b) || (*x == b && *y == a))
        .map(|(_, _, v)| *v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_syscalls_are_new_to_every_table() {
        for m in Machine::ALL {
            assert_eq!(m.newer_syscall_number(b"FCHMODAT2"), Some(452));
            assert_eq!(m.newer_syscall_number(b"fchmodat"), None);
            for nr in 451..=470 {
                assert_eq!(m.syscall_name(nr), None, "{} {nr}", m.name());
            }
        }
        assert_eq!(
            Machine::X86_64.newer_syscall_number(b"map_shadow_stack"),
            Some(453)
        );
        assert_eq!(
            Machine::Aarch64.newer_syscall_number(b"map_shadow_stack"),
            None
        );
    }

    #[test]
    fn the_const_msgtype_reads_the_table_as_msgtypes_does() {
        let t = msgtypes();
        let all = t.entries();
        assert!(all.len() > 150, "{}", all.len());
        for (nr, name) in all {
            assert_eq!(msgtype(name), nr, "{name}");
            assert_eq!(t.lookup(name.as_bytes()), Some(nr), "{name}");
        }
        const SYSCALL: u32 = msgtype("SYSCALL");
        assert_eq!(SYSCALL, 1300);
    }

    #[test]
    fn syscall_tables_resolve_both_ways() {
        assert_eq!(Machine::X86_64.syscall_number(b"OPENAT"), Some(257));
        assert_eq!(Machine::X86.syscall_number(b"open"), Some(5));
        assert_eq!(Machine::X86_64.syscall_name(90), Some("chmod"));
        assert_eq!(Machine::X86_64.syscall_number(b"fchmodat2"), None);
        assert_eq!(Machine::Aarch64.syscall_number(b"openat"), Some(56));
    }

    #[test]
    fn errno_aliases_list_as_their_first_name() {
        assert_eq!(errnos().lookup(b"EWOULDBLOCK"), Some(11));
        assert_eq!(errnos().name(11), Some("EAGAIN"));
    }

    #[test]
    fn machines_map_to_elf() {
        assert_eq!(
            Machine::from_name(b"X86_64").map(Machine::elf),
            Some(arch::X86_64)
        );
        assert_eq!(Machine::from_elf(arch::I386), Some(Machine::X86));
        assert_eq!(field_name(field::LOGINUID), Some("auid"));
        assert_eq!(comparison(field::EUID, field::LOGINUID), Some(16));
    }

    #[test]
    fn skipped_uring_ops_are_named_ops() {
        for name in URING_AUDIT_SKIP {
            assert!(URING_OPS.contains(name), "{name}");
        }
        assert!(!uring_op_audited(0), "nop");
        assert!(uring_op_audited(18), "openat");
        assert!(!uring_op_audited(21), "statx");
        assert!(!uring_op_audited(999));
    }
}
