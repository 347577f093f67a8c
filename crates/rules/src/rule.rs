//! A rule in the kernel's own form (`struct audit_rule_data`) and the
//! checks the kernel applies before it accepts one.

use crate::abi::{self, field, list, op};
use crate::host::{self, Host};
use crate::origin::Origin;
use thiserror::Error;

/// One field of a rule: type, operator, numeric value, and text for string fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    /// `AUDIT_*` field type.
    pub field: u32,
    /// `AUDIT_*` operator bits.
    pub op: u32,
    /// Numeric value (the string length for string fields, as in the ABI).
    pub value: u32,
    /// The string of a string field, empty otherwise.
    pub text: Vec<u8>,
}

/// A rule exactly as auditctl sends it and the kernel lists it back.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    /// Filter list (`list::*`).
    pub list: u32,
    /// `action::NEVER` or `action::ALWAYS`.
    pub action: u32,
    /// Syscall (or io_uring operation) bitmap.
    pub mask: [u32; abi::BITMASK_WORDS],
    /// Fields in the order given.
    pub fields: Vec<Field>,
}

impl Rule {
    /// An empty rule on no list, with no syscalls selected.
    pub fn empty() -> Rule {
        Rule {
            list: list::UNSET,
            action: 0,
            mask: [0; abi::BITMASK_WORDS],
            fields: Vec::new(),
        }
    }

    /// Select one syscall number; false when it is past the bitmap.
    pub fn add_syscall(&mut self, nr: u64) -> bool {
        let word = (nr / 32) as usize;
        if word >= abi::BITMASK_WORDS {
            return false;
        }
        self.mask[word] |= 1 << (nr % 32);
        true
    }

    /// Select every syscall.
    pub fn add_all_syscalls(&mut self) {
        self.mask = [u32::MAX; abi::BITMASK_WORDS];
    }

    /// Whether syscall `nr` is selected.
    pub fn has_syscall(&self, nr: u32) -> bool {
        let word = (nr / 32) as usize;
        word < abi::BITMASK_WORDS && self.mask[word] & (1 << (nr % 32)) != 0
    }

    /// Whether every syscall is selected (the last word holds the kernel's
    /// syscall-class bits and is not looked at, as auditctl does).
    pub fn all_syscalls(&self) -> bool {
        self.mask[..abi::BITMASK_WORDS - 1]
            .iter()
            .all(|&w| w == u32::MAX)
    }

    /// The kernel's syscall-class expansion: the top 16 bitmap bits name
    /// classes (dir-write, chattr, read, write, signal, native and 32-bit);
    /// a set class bit is replaced by the class's syscalls.
    pub fn expand_syscall_classes(&mut self) {
        let classes = crate::tables::syscall_classes();
        for (class, nrs) in classes.iter().enumerate() {
            let bit = (abi::BITMASK_WORDS * 32 - 1 - class) as u32;
            if !self.has_syscall(bit) {
                continue;
            }
            self.mask[(bit / 32) as usize] &= !(1 << (bit % 32));
            for &nr in nrs {
                self.add_syscall(nr as u64);
            }
        }
    }

    /// The filter key(s) of the rule, joined by `\x01` as the kernel keeps them.
    pub fn key(&self) -> Option<&[u8]> {
        self.fields
            .iter()
            .find(|f| f.field == field::FILTERKEY)
            .map(|f| f.text.as_slice())
    }
}

/// Why the kernel would refuse a rule.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum KernelError {
    /// `EINVAL`: the rule is malformed for the kernel.
    #[error("the kernel refuses this rule: {0}")]
    Invalid(String),
    /// `EEXIST`: the same rule is already loaded (by the line `earlier`).
    #[error("rule exists: the same rule is already loaded{}", from(.earlier))]
    Exists {
        /// The line that loaded it, when known.
        earlier: Option<Origin>,
    },
    /// `ENOENT` on delete: no loaded rule is identical.
    #[error("no loaded rule matches this one")]
    NoMatch,
    /// A path the rule names cannot be resolved on this system.
    #[error("{what} {path}: {reason}")]
    Path {
        what: &'static str,
        path: String,
        reason: String,
    },
}

/// ` from FILE:LINE`, naming the line that loaded a rule.
fn from(earlier: &Option<Origin>) -> String {
    earlier
        .as_ref()
        .map(|o| format!(" from {o}"))
        .unwrap_or_default()
}

fn invalid(msg: impl Into<String>) -> KernelError {
    KernelError::Invalid(msg.into())
}

fn name(f: u32) -> String {
    crate::tables::field_name(f).map_or_else(|| format!("field {f}"), str::to_string)
}

/// Whether the operator is `=` or `!=`.
fn eq_or_ne(o: u32) -> bool {
    o == op::EQUAL || o == op::NOT_EQUAL
}

/// The kernel's `audit_data_to_entry` checks: list, action, and each field's
/// operator, value and combination with the others.
pub fn check_entry(rule: &Rule) -> Result<(), KernelError> {
    let l = rule.list;
    if !matches!(
        l,
        list::USER | list::TASK | list::EXIT | list::EXCLUDE | list::FS | list::URING_EXIT
    ) {
        return Err(invalid("unknown filter list"));
    }
    if rule.action != abi::action::NEVER && rule.action != abi::action::ALWAYS {
        return Err(invalid("unknown action"));
    }
    if rule.fields.len() > abi::MAX_FIELDS {
        return Err(invalid(format!("more than {} fields", abi::MAX_FIELDS)));
    }
    let mut seen = Seen::default();
    for f in &rule.fields {
        let mut ty = f.field;
        // The kernel turns auid=-1 into a loginuid_set test.
        if ty == field::LOGINUID && f.value == abi::UNSET_ID {
            ty = field::LOGINUID_SET;
        }
        check_list(l, ty)?;
        check_operator(ty, f.op)?;
        check_value(ty, f)?;
        seen.add(l, ty, f)?;
    }
    Ok(())
}

/// Whether field type `ty` may appear on list `l`.
fn check_list(l: u32, ty: u32) -> Result<(), KernelError> {
    match ty {
        field::MSGTYPE if l != list::EXCLUDE && l != list::USER => {
            return Err(invalid(
                "msgtype is only valid on the user and exclude lists",
            ))
        }
        field::FSTYPE if l != list::FS => {
            return Err(invalid("fstype is only valid on the filesystem list"))
        }
        field::PERM if l == list::URING_EXIT => {
            return Err(invalid("perm is not valid on the io_uring list"))
        }
        _ => {}
    }
    if l == list::FS && ty != field::FSTYPE && ty != field::FILTERKEY {
        return Err(invalid(format!(
            "{} is not valid on the filesystem list",
            name(ty)
        )));
    }
    Ok(())
}

/// Whether field type `ty` takes operator `o`: bit operators only on
/// a0-a3, pers and devminor; the string, path and arch fields only = or !=.
fn check_operator(ty: u32, o: u32) -> Result<(), KernelError> {
    match ty {
        field::ARG0..=field::ARG3 | field::PERS | field::DEVMINOR => {}
        field::UID..=field::LOGINUID
        | field::OBJ_UID
        | field::OBJ_GID
        | field::PID
        | field::MSGTYPE
        | field::PPID
        | field::DEVMAJOR
        | field::EXIT
        | field::SUCCESS
        | field::INODE
        | field::SESSIONID
        | field::SUBJ_SEN
        | field::SUBJ_CLR
        | field::OBJ_LEV_LOW
        | field::OBJ_LEV_HIGH
        | field::SADDR_FAM => {
            if o == op::BIT_MASK || o == op::BIT_TEST {
                return Err(invalid(format!(
                    "{}: bit operators only apply to a0-a3, pers and devminor",
                    name(ty)
                )));
            }
        }
        field::SUBJ_USER
        | field::SUBJ_ROLE
        | field::SUBJ_TYPE
        | field::OBJ_USER
        | field::OBJ_ROLE
        | field::OBJ_TYPE
        | field::WATCH
        | field::DIR
        | field::FILTERKEY
        | field::LOGINUID_SET
        | field::ARCH
        | field::FSTYPE
        | field::PERM
        | field::FILETYPE
        | field::FIELD_COMPARE
        | field::EXE => {
            if !eq_or_ne(o) {
                let what = if ty == field::LOGINUID_SET {
                    "auid=-1 (unset)".to_string()
                } else {
                    name(ty)
                };
                return Err(invalid(format!("{what} only takes = or !=")));
            }
        }
        _ => return Err(invalid(format!("unknown field type {ty}"))),
    }
    Ok(())
}

/// Whether field `f` (of type `ty`) has a value the kernel takes.
fn check_value(ty: u32, f: &Field) -> Result<(), KernelError> {
    match ty {
        field::PERM if f.value & !15 != 0 => return Err(invalid("perm value out of range")),
        field::FILETYPE if f.value & !abi::S_IFMT != 0 => {
            return Err(invalid("filetype value out of range"))
        }
        field::SADDR_FAM if f.value >= abi::AF_MAX => {
            return Err(invalid("saddr_fam is past AF_MAX"))
        }
        field::UID..=field::FSUID | field::LOGINUID | field::OBJ_UID
            if f.value == abi::UNSET_ID =>
        {
            return Err(invalid(format!("{}: -1 is not a valid uid", name(ty))))
        }
        field::GID..=field::FSGID | field::OBJ_GID if f.value == abi::UNSET_ID => {
            return Err(invalid(format!("{}: -1 is not a valid gid", name(ty))))
        }
        _ => {}
    }
    if field::is_string(ty) && (f.text.is_empty() || f.text.len() > abi::PATH_MAX) {
        return Err(invalid(format!("{}: string length out of range", name(ty))));
    }
    Ok(())
}

/// The fields of a rule that limit each other: one path, dir or inode
/// field, one key, one exe.
#[derive(Default)]
struct Seen {
    watch: bool,
    tree: bool,
    inode: bool,
    key: bool,
    exe: bool,
}

impl Seen {
    /// Field `f` (of type `ty`) on list `l`, given the fields before it.
    fn add(&mut self, l: u32, ty: u32, f: &Field) -> Result<(), KernelError> {
        match ty {
            field::WATCH => {
                if f.text[0] != b'/' || f.text.ends_with(b"/") {
                    return Err(invalid("a watched path must be absolute and not end in /"));
                }
                if l != list::EXIT || f.op != op::EQUAL || self.inode || self.watch || self.tree {
                    return Err(invalid(
                        "path= needs the exit list, =, and no other path, dir or inode field",
                    ));
                }
                self.watch = true;
            }
            field::DIR => {
                if f.text[0] != b'/' {
                    return Err(invalid("dir= must be absolute"));
                }
                if (l != list::EXIT && l != list::URING_EXIT)
                    || f.op != op::EQUAL
                    || self.inode
                    || self.watch
                    || self.tree
                {
                    return Err(invalid(
                        "dir= needs the exit list, =, and no other path, dir or inode field",
                    ));
                }
                self.tree = true;
            }
            field::INODE => {
                if (l != list::EXIT && l != list::URING_EXIT)
                    || self.inode
                    || self.watch
                    || self.tree
                {
                    return Err(invalid(
                        "inode= needs the exit list and no other path, dir or inode field",
                    ));
                }
                // Any inode field counts here; the kernel forgets an inode
                // != test only after all fields are read.
                self.inode = true;
            }
            field::FILTERKEY => {
                if self.key || f.text.len() > abi::MAX_KEY_LEN {
                    return Err(invalid("only one key field of at most 256 bytes"));
                }
                self.key = true;
            }
            field::EXE => {
                if self.exe {
                    return Err(invalid("only one exe field"));
                }
                if f.text[0] != b'/' || f.text.ends_with(b"/") {
                    return Err(invalid("exe= must be an absolute path not ending in /"));
                }
                self.exe = true;
            }
            _ => {}
        }
        Ok(())
    }
}

/// The kernel's path lookups when a rule is added: a watch's and an exe's
/// parent directory must exist, a dir= tree must exist.
pub fn check_paths(rule: &Rule, host: &dyn Host) -> Result<(), KernelError> {
    for f in &rule.fields {
        let (what, res) = match f.field {
            field::WATCH => ("watch", host::parent_must_exist(host, &f.text)),
            field::EXE => ("exe", host::parent_must_exist(host, &f.text)),
            field::DIR => ("dir", host.lookup(&f.text)),
            _ => continue,
        };
        if let Err(e) = res {
            return Err(KernelError::Path {
                what,
                path: String::from_utf8_lossy(&f.text).into_owned(),
                reason: crate::os_error::describe(&e),
            });
        }
    }
    Ok(())
}
