//! `-S` and `-U`: syscalls (by name of the rule's arch, number, or `all`)
//! and, on the io_uring list, io_uring operations.

use super::{err, show, Flow, Pending, State, SyntaxError};
use crate::abi::list;
use crate::cnum::{starts_with_digit, strtol};
use crate::rule::Rule;
use crate::suggest;
use crate::tables::{self, Machine};
use crate::warning::Warning;

/// The comma-separated names of a `-S` value (empty names skipped, as
/// auditctl's `strtok` does).
fn names(arg: &[u8]) -> impl Iterator<Item = &[u8]> {
    arg.split(|&b| b == b',').filter(|n| !n.is_empty())
}

impl State<'_> {
    /// `-S names` / `-U ops`.
    pub(super) fn syscalls(&mut self, c: u8, arg: &[u8]) -> Result<Flow, SyntaxError> {
        let (add, del) = (self.add, self.del);
        let on = |l| add == Some(l) || del == Some(l);
        if on(list::URING_EXIT) {
            for name in names(arg) {
                self.uring_op(name)?;
            }
            self.syscall_added = true;
            return Ok(Flow::Continue(Pending::Rule));
        }
        if c == b'U' {
            return err(format!(
                "-U {}: io_uring operations need the io_uring list (-a always,io_uring)",
                show(arg)
            ));
        }
        if on(list::TASK) {
            return err("syscall auditing being added to the task list");
        }
        if on(list::USER) {
            return err("syscall auditing being added to the user list");
        }
        if on(list::FS) {
            return err("syscall auditing being added to the filesystem list");
        }
        if on(list::EXCLUDE) {
            return err("syscall auditing cannot be put on the exclude list");
        }
        let unknown_arch = self.elf == 0;
        if unknown_arch {
            let Some(m) = self.host.machine() else {
                return err("error detecting machine type");
            };
            self.elf = m.elf();
        }
        for name in names(arg) {
            self.syscall_by_name(name)?;
        }
        self.syscall_added = true;
        if unknown_arch && self.add.is_some() && self.differs_on_32bit(arg) {
            self.warn(Warning::ArchMismatch);
        }
        Ok(Flow::Continue(Pending::Nothing))
    }

    /// auditctl's `check_rule_mismatch`: would the same names select other
    /// numbers on the 32-bit side of this machine?
    fn differs_on_32bit(&self, arg: &[u8]) -> bool {
        let Some(alt) = Machine::from_elf(self.elf).map(|m| m.side_32bit().unwrap_or(m)) else {
            return false;
        };
        let mut other = Rule::empty();
        for name in names(arg) {
            if name == b"all" {
                other.add_all_syscalls();
            } else if let Some(nr) = alt.syscall_number(name) {
                other.add_syscall(nr as u64);
            } else if starts_with_digit(name) {
                other.add_syscall(strtol(name, 0).value as u64);
            }
        }
        other.mask != self.rule.mask
    }

    /// `audit_rule_syscallbyname_data`: a name of this arch, a number, or `all`.
    fn syscall_by_name(&mut self, name: &[u8]) -> Result<(), SyntaxError> {
        let Some(machine) = Machine::from_elf(self.elf) else {
            return err(format!("-S: elf type unknown: 0x{:x}", self.elf));
        };
        self.select(
            name,
            |n| machine.syscall_number(n),
            Rule::add_all_syscalls,
            "-S",
            "-S: syscall name unknown",
            |n| syscall_hint(machine, n),
        )
    }

    /// An io_uring operation by name, number or `all`.
    fn uring_op(&mut self, name: &[u8]) -> Result<(), SyntaxError> {
        let all_ops = |r: &mut Rule| {
            for i in 0..tables::URING_OPS.len() {
                r.add_syscall(i as u64);
            }
        };
        self.select(
            name,
            tables::uring_op_number,
            all_ops,
            "-U",
            "io_uring op unknown",
            |n| suggest::did_you_mean(n, tables::URING_OPS.iter().copied()),
        )
    }

    /// Set the bitmap bit of `name`: `all` (as `all` sets it), a name
    /// `lookup` knows, or a number (C `strtol`, as auditctl reads it).
    /// `hint` adds what may fix a name no table knows.
    fn select(
        &mut self,
        name: &[u8],
        lookup: impl Fn(&[u8]) -> Option<u32>,
        all: impl FnOnce(&mut Rule),
        what: &str,
        unknown: &str,
        hint: impl Fn(&[u8]) -> String,
    ) -> Result<(), SyntaxError> {
        if name == b"all" {
            all(&mut self.rule);
            return Ok(());
        }
        let nr = match lookup(name) {
            Some(nr) => nr as u64,
            None if starts_with_digit(name) => {
                // auditctl stores strtol's result in an int and refuses
                // only what is negative then, so 2^32+2 is syscall 2.
                let c = strtol(name, 0);
                let nr = c.value as i32;
                if nr < 0 {
                    return err(format!("{unknown}: {}", show(name)));
                }
                self.note_i64(what, name, c, 0, i32::MAX.into());
                nr as u64
            }
            None => {
                let hint = self.hint(|| hint(name));
                return err(format!("{unknown}: {}{hint}", show(name)));
            }
        };
        if !self.rule.add_syscall(nr) {
            return err(format!("{unknown}: {}", show(name)));
        }
        Ok(())
    }
}

/// What may fix a syscall name `machine` does not know. A name some
/// machine knows is a real syscall, not a typo: this machine may spell it
/// with or without a number (`pread` for `pread64` on x86_64, `umount2`
/// for `umount`), else it may be a syscall of the other side of a 64/32-bit
/// pair (socketcall is i386's). Any other name gets the nearest of this
/// machine's, but not one it only adds digits to (`fchmodat2` is a newer
/// syscall than auditctl's tables, not a misspelt `fchmodat`: its number
/// is given, from the kernel's newer syscalls, where known).
fn syscall_hint(machine: Machine, name: &[u8]) -> String {
    if let Some(nr) = machine.newer_syscall_number(name) {
        return format!(
            " (a syscall newer than auditctl's table: on {} give its number, -S {nr})",
            machine.name()
        );
    }
    let names = || machine.syscall_names();
    if !Machine::ALL
        .iter()
        .any(|m| m.syscall_number(name).is_some())
    {
        return suggest::did_you_mean(
            name,
            names().filter(|n| !suggest::numbered_variant(name, n)),
        );
    }
    let respelt = names().filter(|n| {
        suggest::numbered_variant(name, n) || suggest::numbered_variant(n.as_bytes(), &show(name))
    });
    let near = suggest::did_you_mean(name, respelt);
    if !near.is_empty() {
        return near;
    }
    match machine
        .other_side()
        .filter(|o| o.syscall_number(name).is_some())
    {
        Some(other) => format!(
            " (a syscall of {}: give -F arch={} before -S)",
            other.name(),
            if other.is_64bit() { "b64" } else { "b32" }
        ),
        None => String::new(),
    }
}
