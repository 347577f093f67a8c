//! The pair of syscall ABIs a 64-bit Linux kernel runs, for each machine
//! fastaudit is built for: the native one and the 32-bit compat one
//! (x86_64 with i386, aarch64 with arm). What the kernel's audit records
//! as `arch=` and which table names a syscall number both follow the ABI a
//! syscall came through, so everything that plans, hooks or decodes
//! syscalls takes a `Target` instead of assuming one machine.

use crate::tables::Machine;

/// A 64-bit machine and the 32-bit machine whose programs it also runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The machine of native (64-bit) syscalls.
    pub native: Machine,
    /// The machine of compat (32-bit) syscalls.
    pub compat: Machine,
}

impl Target {
    /// x86_64 with its ia32 emulation (`int 0x80`, 32-bit programs).
    pub const X86_64: Target = Target {
        native: Machine::X86_64,
        compat: Machine::X86,
    };

    /// aarch64 with arm (AArch32 programs, where the CPU has 32-bit EL0).
    pub const AARCH64: Target = Target {
        native: Machine::Aarch64,
        compat: Machine::Arm,
    };

    /// Every target fastaudit is built for.
    pub const ALL: [Target; 2] = [Target::X86_64, Target::AARCH64];

    /// The target of a Rust `target_arch` (`CARGO_CFG_TARGET_ARCH` in a
    /// build script), or None for one fastaudit is not built for.
    pub fn of_rust_arch(arch: &str) -> Option<Target> {
        match arch {
            "x86_64" => Some(Target::X86_64),
            "aarch64" => Some(Target::AARCH64),
            _ => None,
        }
    }

    /// The target whose native or compat machine `m` is.
    pub fn of_machine(m: Machine) -> Option<Target> {
        Target::ALL
            .into_iter()
            .find(|t| t.native == m || t.compat == m)
    }

    /// The machine of one ABI.
    pub fn machine(self, compat: bool) -> Machine {
        if compat {
            self.compat
        } else {
            self.native
        }
    }

    /// The `AUDIT_ARCH_*` value of one ABI (the records' `arch=`).
    pub fn audit_arch(self, compat: bool) -> u32 {
        self.machine(compat).elf()
    }

    /// Whether `elf` is the audit arch of this target's compat ABI (else
    /// of its native one, or of neither).
    pub fn abi_of(self, elf: u32) -> Option<bool> {
        if elf == self.native.elf() {
            Some(false)
        } else if elf == self.compat.elf() {
            Some(true)
        } else {
            None
        }
    }

    /// The number of syscall `name` in one ABI's table.
    pub fn syscall_number(self, compat: bool, name: &str) -> Option<u32> {
        self.machine(compat).syscall_number(name.as_bytes())
    }

    /// The prefix of the kernel's syscall wrapper functions of one ABI
    /// (`SYSCALL_DEFINE` makes `__x64_sys_chmod`, `__arm64_sys_openat`),
    /// where a kprobe or fentry program attaches.
    pub fn syscall_function_prefix(self, compat: bool) -> &'static str {
        match (self.native, compat) {
            (Machine::Aarch64, false) => "__arm64_sys_",
            (Machine::Aarch64, true) => "__arm64_compat_sys_",
            (_, false) => "__x64_sys_",
            (_, true) => "__ia32_sys_",
        }
    }

    /// The `uname -m` of the native machine.
    pub fn name(self) -> &'static str {
        self.native.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::arch;

    #[test]
    fn each_target_pairs_a_64_bit_machine_with_a_32_bit_one() {
        for t in Target::ALL {
            assert!(t.native.is_64bit() && !t.compat.is_64bit(), "{t:?}");
            assert_eq!(Target::of_machine(t.native), Some(t));
            assert_eq!(Target::of_machine(t.compat), Some(t));
            assert_eq!(t.abi_of(t.audit_arch(true)), Some(true));
            assert_eq!(t.abi_of(t.audit_arch(false)), Some(false));
        }
        assert_eq!(Target::X86_64.audit_arch(true), arch::I386);
        assert_eq!(Target::AARCH64.audit_arch(false), arch::AARCH64);
        assert_eq!(Target::AARCH64.audit_arch(true), arch::ARM);
        assert_eq!(Target::of_rust_arch("aarch64"), Some(Target::AARCH64));
        assert_eq!(Target::of_rust_arch("riscv64"), None);
        assert_eq!(Target::X86_64.abi_of(arch::AARCH64), None);
    }

    #[test]
    fn the_same_call_has_other_numbers_on_each_target() {
        assert_eq!(Target::X86_64.syscall_number(false, "openat"), Some(257));
        assert_eq!(Target::AARCH64.syscall_number(false, "openat"), Some(56));
        assert_eq!(Target::AARCH64.syscall_number(true, "openat"), Some(322));
        // arm64 has only the *at calls natively.
        assert_eq!(Target::AARCH64.syscall_number(false, "open"), None);
        assert_eq!(Target::AARCH64.syscall_number(true, "open"), Some(5));
    }
}
