//! Numbers of the kernel's audit rule ABI (`<linux/audit.h>`), declared once.

/// Filter lists (`audit_rule_data.flags & AUDIT_FILTER_MASK`).
pub mod list {
    pub const USER: u32 = 0;
    pub const TASK: u32 = 1;
    pub const ENTRY: u32 = 2;
    pub const WATCH: u32 = 3;
    pub const EXIT: u32 = 4;
    pub const EXCLUDE: u32 = 5;
    pub const FS: u32 = 6;
    pub const URING_EXIT: u32 = 7;
    /// Number of filter lists the kernel keeps.
    pub const COUNT: usize = 8;
    /// Mask that extracts the list number from the flags word.
    pub const MASK: u32 = 0x07;
    /// Flag asking the kernel to put the rule at the head of its list.
    pub const PREPEND: u32 = 0x10;
    /// auditctl's marker for "no list chosen yet".
    pub const UNSET: u32 = 0x80;
}

/// Rule actions.
pub mod action {
    pub const NEVER: u32 = 0;
    pub const POSSIBLE: u32 = 1;
    pub const ALWAYS: u32 = 2;
}

/// Field comparison operators as they travel in `fieldflags`.
pub mod op {
    pub const BIT_MASK: u32 = 0x0800_0000;
    pub const LESS_THAN: u32 = 0x1000_0000;
    pub const GREATER_THAN: u32 = 0x2000_0000;
    pub const NOT_EQUAL: u32 = 0x3000_0000;
    pub const EQUAL: u32 = 0x4000_0000;
    pub const BIT_TEST: u32 = BIT_MASK | EQUAL;
    pub const LESS_THAN_OR_EQUAL: u32 = LESS_THAN | EQUAL;
    pub const GREATER_THAN_OR_EQUAL: u32 = GREATER_THAN | EQUAL;

    /// The symbol auditctl prints for an operator.
    pub fn symbol(op: u32) -> &'static str {
        match op {
            EQUAL => "=",
            NOT_EQUAL => "!=",
            GREATER_THAN => ">",
            GREATER_THAN_OR_EQUAL => ">=",
            LESS_THAN => "<",
            LESS_THAN_OR_EQUAL => "<=",
            BIT_MASK => "&",
            BIT_TEST => "&=",
            _ => "(null)",
        }
    }
}

/// Rule field types (`audit_rule_data.fields[]`).
pub mod field {
    pub const PID: u32 = 0;
    pub const UID: u32 = 1;
    pub const EUID: u32 = 2;
    pub const SUID: u32 = 3;
    pub const FSUID: u32 = 4;
    pub const GID: u32 = 5;
    pub const EGID: u32 = 6;
    pub const SGID: u32 = 7;
    pub const FSGID: u32 = 8;
    pub const LOGINUID: u32 = 9;
    pub const PERS: u32 = 10;
    pub const ARCH: u32 = 11;
    pub const MSGTYPE: u32 = 12;
    pub const SUBJ_USER: u32 = 13;
    pub const SUBJ_ROLE: u32 = 14;
    pub const SUBJ_TYPE: u32 = 15;
    pub const SUBJ_SEN: u32 = 16;
    pub const SUBJ_CLR: u32 = 17;
    pub const PPID: u32 = 18;
    pub const OBJ_USER: u32 = 19;
    pub const OBJ_ROLE: u32 = 20;
    pub const OBJ_TYPE: u32 = 21;
    pub const OBJ_LEV_LOW: u32 = 22;
    pub const OBJ_LEV_HIGH: u32 = 23;
    pub const LOGINUID_SET: u32 = 24;
    pub const SESSIONID: u32 = 25;
    pub const FSTYPE: u32 = 26;
    pub const DEVMAJOR: u32 = 100;
    pub const DEVMINOR: u32 = 101;
    pub const INODE: u32 = 102;
    pub const EXIT: u32 = 103;
    pub const SUCCESS: u32 = 104;
    pub const WATCH: u32 = 105;
    pub const PERM: u32 = 106;
    pub const DIR: u32 = 107;
    pub const FILETYPE: u32 = 108;
    pub const OBJ_UID: u32 = 109;
    pub const OBJ_GID: u32 = 110;
    pub const FIELD_COMPARE: u32 = 111;
    pub const EXE: u32 = 112;
    pub const SADDR_FAM: u32 = 113;
    pub const ARG0: u32 = 200;
    pub const ARG1: u32 = 201;
    pub const ARG2: u32 = 202;
    pub const ARG3: u32 = 203;
    pub const FILTERKEY: u32 = 210;

    /// Fields whose value is a string carried in the rule's buffer.
    pub fn is_string(f: u32) -> bool {
        matches!(f, SUBJ_USER..=SUBJ_CLR | OBJ_USER..=OBJ_LEV_HIGH)
            || matches!(f, WATCH | DIR | FILTERKEY | EXE)
    }

    /// LSM label fields (SELinux and friends).
    pub fn is_lsm(f: u32) -> bool {
        matches!(f, SUBJ_USER..=SUBJ_CLR | OBJ_USER..=OBJ_LEV_HIGH)
    }
}

/// Watch permission bits (`-p rwxa`).
pub mod perm {
    pub const EXEC: u32 = 1;
    pub const WRITE: u32 = 2;
    pub const READ: u32 = 4;
    pub const ATTR: u32 = 8;
}

/// `AUDIT_ARCH_*` values: ELF machine plus the 64-bit and little-endian flags.
pub mod arch {
    pub const BIT64: u32 = 0x8000_0000;
    pub const I386: u32 = 0x4000_0003;
    pub const X86_64: u32 = 0xC000_003E;
    pub const PPC: u32 = 0x14;
    pub const PPC64: u32 = 0x8000_0015;
    pub const PPC64LE: u32 = 0xC000_0015;
    pub const S390: u32 = 0x16;
    pub const S390X: u32 = 0x8000_0016;
    pub const ARM: u32 = 0x4000_0028;
    pub const AARCH64: u32 = 0xC000_00B7;
}

/// Words in a rule's syscall bitmap (`AUDIT_BITMASK_SIZE`).
pub const BITMASK_WORDS: usize = 64;
/// Most fields one rule may carry (`AUDIT_MAX_FIELDS`).
pub const MAX_FIELDS: usize = 64;
/// Longest filter key, all keys of a rule joined (`AUDIT_MAX_KEY_LEN`).
pub const MAX_KEY_LEN: usize = 256;
/// Byte that joins several keys of one rule (`AUDIT_KEY_SEPARATOR`).
pub const KEY_SEPARATOR: u8 = 0x01;
/// Longest path the kernel takes (`PATH_MAX`).
pub const PATH_MAX: usize = 4096;
/// Longest file name component (`NAME_MAX`).
pub const NAME_MAX: usize = 255;
/// Address families the kernel knows (`AF_MAX`).
pub const AF_MAX: u32 = 46;
/// The uid/gid value that means "unset" (`(uid_t)-1`).
pub const UNSET_ID: u32 = 0xFFFF_FFFF;
/// Mask of the file type bits of a mode (`S_IFMT`).
pub const S_IFMT: u32 = 0o170000;
