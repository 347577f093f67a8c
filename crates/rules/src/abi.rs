//! Numbers of the kernel's audit rule ABI (`<linux/audit.h>`), declared once.
//! Each group also lists itself (`ALL`, with the kernel's macro names less
//! their `AUDIT_` prefix), so the BPF build can generate its C header from
//! this one definition.

/// Declares `pub const NAME: u32` items and `ALL`, the (name, value) list.
macro_rules! consts {
    ($($(#[$doc:meta])* $name:ident = $value:expr;)*) => {
        $($(#[$doc])* pub const $name: u32 = $value;)*
        /// Every constant of this group: (kernel macro name less `AUDIT_`, value).
        pub const ALL: &[(&str, u32)] = &[$((stringify!($name), $name)),*];
    };
}

/// Kernel audit's netlink messages that change its configuration, and
/// so make a record inside the send that carries them (the kernel's
/// `audit_receive_msg`): CONFIG_CHANGE, or FEATURE_CHANGE for
/// SET_FEATURE. GET, LIST_RULES and the USER_* messages make none with a
/// syscall's context.
pub mod config_msg {
    consts! {
        SET = 1001;
        ADD_RULE = 1011;
        DEL_RULE = 1012;
        TRIM = 1014;
        MAKE_EQUIV = 1015;
        SET_FEATURE = 1018;
    }
}

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
    consts! {
        BIT_MASK = 0x0800_0000;
        LESS_THAN = 0x1000_0000;
        GREATER_THAN = 0x2000_0000;
        NOT_EQUAL = 0x3000_0000;
        EQUAL = 0x4000_0000;
        BIT_TEST = BIT_MASK | EQUAL;
        LESS_THAN_OR_EQUAL = LESS_THAN | EQUAL;
        GREATER_THAN_OR_EQUAL = GREATER_THAN | EQUAL;
    }

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
    consts! {
        PID = 0;
        UID = 1;
        EUID = 2;
        SUID = 3;
        FSUID = 4;
        GID = 5;
        EGID = 6;
        SGID = 7;
        FSGID = 8;
        LOGINUID = 9;
        PERS = 10;
        ARCH = 11;
        MSGTYPE = 12;
        SUBJ_USER = 13;
        SUBJ_ROLE = 14;
        SUBJ_TYPE = 15;
        SUBJ_SEN = 16;
        SUBJ_CLR = 17;
        PPID = 18;
        OBJ_USER = 19;
        OBJ_ROLE = 20;
        OBJ_TYPE = 21;
        OBJ_LEV_LOW = 22;
        OBJ_LEV_HIGH = 23;
        LOGINUID_SET = 24;
        SESSIONID = 25;
        FSTYPE = 26;
        DEVMAJOR = 100;
        DEVMINOR = 101;
        INODE = 102;
        EXIT = 103;
        SUCCESS = 104;
        WATCH = 105;
        PERM = 106;
        DIR = 107;
        FILETYPE = 108;
        OBJ_UID = 109;
        OBJ_GID = 110;
        FIELD_COMPARE = 111;
        EXE = 112;
        SADDR_FAM = 113;
        ARG0 = 200;
        ARG1 = 201;
        ARG2 = 202;
        ARG3 = 203;
        FILTERKEY = 210;
    }

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
    consts! {
        EXEC = 1;
        WRITE = 2;
        READ = 4;
        ATTR = 8;
    }
}

/// `AUDIT_ARCH_*` values: ELF machine plus the 64-bit and little-endian flags.
pub mod arch {
    consts! {
        BIT64 = 0x8000_0000;
        I386 = 0x4000_0003;
        X86_64 = 0xC000_003E;
        PPC = 0x14;
        PPC64 = 0x8000_0015;
        PPC64LE = 0xC000_0015;
        S390 = 0x16;
        S390X = 0x8000_0016;
        ARM = 0x4000_0028;
        AARCH64 = 0xC000_00B7;
    }
}

/// Words in a rule's syscall bitmap (`AUDIT_BITMASK_SIZE`).
pub const BITMASK_WORDS: usize = 64;
/// Syscall numbers per ABI that a rule's bitmap can name: every one below this.
pub const NR_SYSCALLS: u32 = BITMASK_WORDS as u32 * 32;
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
