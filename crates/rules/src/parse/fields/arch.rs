//! `arch=`: `b64`/`b32` (this machine's), a machine name, or an ELF
//! `AUDIT_ARCH_*` number; it selects the table `-S` names are read with.

use super::{err, show, Pair, State, SyntaxError};
use crate::cnum::{starts_with_digit, strtoul};
use crate::tables::Machine;

impl State<'_> {
    /// The arch value; it must come before `-S` and take `=` or `!=`.
    pub(super) fn arch_value(&mut self, p: &Pair) -> Result<u32, SyntaxError> {
        if self.syscall_added {
            return err("-F arch: must be given before -S");
        }
        if !p.eq_or_ne() {
            return err("-F arch: only = and != are allowed");
        }
        let v = p.value;
        let elf = if starts_with_digit(v) {
            let c = strtoul(v, 0);
            // auditctl stores the number before it checks it.
            self.elf = c.value as u32;
            if c.range_error || Machine::from_elf(self.elf).is_none() {
                return err(format!("-F arch: unknown elf type: {}", show(v)));
            }
            self.note_u32(&p.what(), v, c)
        } else {
            let Some(m) = self.determine_machine(v) else {
                return err(format!("-F arch: unknown architecture: {}", show(v)));
            };
            m.elf()
        };
        self.elf = elf;
        Ok(elf)
    }

    fn determine_machine(&mut self, arch: &[u8]) -> Option<Machine> {
        let lower = arch.to_ascii_lowercase();
        let (bits, machine) = match lower.as_slice() {
            b"b64" => (Some(true), self.host.machine()?),
            b"b32" => (Some(false), self.host.machine()?),
            _ => match Machine::from_name(arch) {
                Some(m) => (None, m),
                None => {
                    let c = strtoul(arch, 16);
                    if c.range_error {
                        return None;
                    }
                    let m = Machine::from_elf(c.value as u32)?;
                    self.note_u32("-F arch value", arch, c);
                    (None, m)
                }
            },
        };
        let machine = match (bits, machine) {
            (Some(false), Machine::X86_64) => Machine::X86,
            (Some(false), Machine::Ppc64) => Machine::Ppc,
            (Some(false), Machine::S390x) => Machine::S390,
            (Some(false), Machine::Aarch64) => Machine::Arm,
            (_, m) => m,
        };
        let ok = match machine {
            Machine::X86 | Machine::Ppc | Machine::S390 | Machine::Arm => bits != Some(true),
            Machine::Aarch64 | Machine::Ppc64le => bits.is_none() || bits == Some(true),
            Machine::X86_64 | Machine::Ppc64 | Machine::S390x => true,
        };
        ok.then_some(machine)
    }
}
