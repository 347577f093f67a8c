//! Build the BPF object of the target machine and its Rust skeleton: one
//! source (src/bpf/fastaudit.bpf.c), one object per architecture, each
//! compiled with `-D__TARGET_ARCH_<arch>` (which picks the register
//! header, arch_x86.bpf.h or arch_arm64.bpf.h) and its own vmlinux.h.
//!
//! The vmlinux.h files are committed, not read from the build machine's
//! kernel, so an object is the same wherever it is built (also in a cross
//! build); CO-RE relocations make it run on other kernels with BTF, as
//! libbpf-tools does:
//! - src/bpf/vmlinux/x86/vmlinux.h: `bpftool btf dump file
//!   /sys/kernel/btf/vmlinux format c` of an x86_64 Linux 6.18.
//! - src/bpf/vmlinux/arm64/vmlinux.h: the same dump of Debian 13's arm64
//!   kernel 6.12.117 (package linux-image-6.12.117+deb13-arm64-unsigned).
//!   Its /boot/vmlinuz is an arm64 boot Image, not an ELF file, so the BTF
//!   was taken out of it by its header first:
//!   `tools/btf-from-image.py vmlinuz-6.12.117+deb13-arm64 arm64.btf`,
//!   then `bpftool btf dump file arm64.btf format c`.
//!
//! The kernel ABI numbers the BPF code needs (audit field codes,
//! operators, permission bits, errnos, the target's syscall numbers) are
//! generated into `audit_abi.h` from the rules crate's tables, so C and
//! Rust read them from one definition. One is written per target
//! (OUT_DIR/<arch>/audit_abi.h): the object includes its own; lib.rs's
//! test compiles every header against both.

use fastaudit_rules::abi::{self, arch, config_msg, field, op, perm};
use fastaudit_rules::syscall_sets as sets;
use fastaudit_rules::tables::{errnos, Machine, COMPARISONS};
use fastaudit_rules::Target;
use libbpf_cargo::SkeletonBuilder;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::PathBuf;

/// The kernel's name of a target's architecture: `__TARGET_ARCH_<arch>`
/// (libbpf's bpf_tracing.h) and the directory of its vmlinux.h and
/// audit_abi.h.
fn bpf_arch(target: Target) -> &'static str {
    if target == Target::AARCH64 {
        "arm64"
    } else {
        "x86"
    }
}

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let rust_arch = std::env::var("CARGO_CFG_TARGET_ARCH").expect("CARGO_CFG_TARGET_ARCH");
    let Some(target) = Target::of_rust_arch(&rust_arch) else {
        panic!(
            "fastaudit's BPF side is built for x86_64 and aarch64, not {rust_arch}: \
             its registers and syscall tables are known for those only"
        );
    };
    for t in Target::ALL {
        let dir = out.join(bpf_arch(t));
        std::fs::create_dir_all(&dir).expect("create OUT_DIR/<arch>");
        std::fs::write(dir.join("audit_abi.h"), audit_abi_header(t)).expect("write audit_abi.h");
    }

    let dir = "src/bpf";
    let arch = bpf_arch(target);
    // The object with everything, and the hook kind probes' own small one.
    for (name, programs) in [("fastaudit", "programs.rs"), ("probe", "probe_programs.rs")] {
        let src = format!("{dir}/{name}.bpf.c");
        let obj = out.join(format!("{name}.bpf.o"));
        SkeletonBuilder::new()
            .source(&src)
            .obj(&obj)
            .clang_args([
                format!("-D__TARGET_ARCH_{arch}"),
                format!("-I{}", out.join(arch).display()),
                format!("-I{dir}/vmlinux/{arch}"),
                "-Wall".to_string(),
            ])
            .build_and_generate(out.join(format!("{name}.skel.rs")))
            .unwrap_or_else(|e| panic!("compile {src} (needs clang): {e}"));
        std::fs::write(out.join(programs), programs_module(&obj, target))
            .unwrap_or_else(|e| panic!("write {programs}: {e}"));
    }
    println!("cargo:rerun-if-changed={dir}");
    for t in Target::ALL {
        println!(
            "cargo:rerun-if-changed={dir}/vmlinux/{}/vmlinux.h",
            bpf_arch(t)
        );
    }
    for entry in std::fs::read_dir(dir).expect("read src/bpf") {
        let path = entry.expect("read src/bpf").path();
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// The object's programs as Rust constants, read from the object just
/// compiled (opening it loads nothing): one `FA_...` constant per program
/// holding its name, and every program with its section. Most names are
/// made in C by token pasting (`TWICE`, the per-syscall and kprobe
/// macros); the engine names them by these constants, so a program the
/// object lacks fails to compile rather than to attach.
fn programs_module(obj: &std::path::Path, target: Target) -> String {
    let open = libbpf_rs::ObjectBuilder::default()
        .open_file(obj)
        .expect("open the BPF object just built");
    let mut programs: Vec<(String, String)> = open
        .progs()
        .map(|p| {
            (
                p.name().to_string_lossy().into_owned(),
                p.section().to_string_lossy().into_owned(),
            )
        })
        .collect();
    programs.sort();
    // A program on a syscall wrapper function attaches only where that
    // function exists: the target's (`__arm64_sys_` has no `__x64_sys_`).
    let own = [
        target.syscall_function_prefix(false),
        target.syscall_function_prefix(true),
    ];
    for (name, section) in &programs {
        let function = section.split_once('/').map_or("", |(_, f)| f);
        let foreign = Target::ALL
            .iter()
            .flat_map(|t| {
                [
                    t.syscall_function_prefix(false),
                    t.syscall_function_prefix(true),
                ]
            })
            .any(|p| function.starts_with(p) && !own.contains(&p));
        assert!(
            !foreign,
            "program {name} attaches to {function}, a syscall function of another machine than {}",
            target.name()
        );
    }
    let mut m = String::from(
        "// Generated by crates/bpf/build.rs from the BPF object's programs: do not edit.\n\n",
    );
    for (name, section) in &programs {
        let _ = writeln!(
            m,
            "/// `{name}`, in section `{section}`.\npub const {}: &str = {name:?};",
            name.to_uppercase()
        );
    }
    m.push_str("\n/// Every program of the object: (name, section).\n");
    m.push_str("pub const ALL: &[(&str, &str)] = &[\n");
    for (name, section) in &programs {
        let _ = writeln!(m, "    ({}, {section:?}),", name.to_uppercase());
    }
    m.push_str("];\n");
    m
}

/// The C header of kernel ABI numbers, from the rules crate's tables.
/// The records the BPF side sends as auxiliary samples.
const AUX_RECORDS: &[&str] = &[
    "EXECVE",
    "SOCKADDR",
    "FD_PAIR",
    "OBJ_PID",
    "BPRM_FCAPS",
    "CAPSET",
    "MMAP",
    "OPENAT2",
    "KERN_MODULE",
    "MQ_OPEN",
    "MQ_SENDRECV",
    "MQ_NOTIFY",
    "MQ_GETSETATTR",
    "IPC",
    "TIME_ADJNTPVAL",
    "SOCKETCALL",
];

fn audit_abi_header(target: Target) -> String {
    let mut h = String::from(
        "/* Generated by crates/bpf/build.rs from the rules crate's tables\n \
         * (<linux/audit.h> numbers, libaudit's syscall and errno tables): do\n \
         * not edit. */\n#ifndef AUDIT_ABI_H\n#define AUDIT_ABI_H\n\n",
    );
    // Bit patterns in hex, numbers in decimal, as <linux/audit.h> has them.
    let mut group = |title: &str, prefix: &str, all: &[(&str, u32)], hex: bool| {
        let _ = writeln!(h, "/* {title} */");
        for (name, value) in all {
            let _ = match hex {
                true => writeln!(h, "#define {prefix}{name} {value:#x}"),
                false => writeln!(h, "#define {prefix}{name} {value}"),
            };
        }
        h.push('\n');
    };
    group("Rule fields (AUDIT_*).", "AUDIT_", field::ALL, false);
    group("Operators.", "AUDIT_", op::ALL, true);
    group(
        "Watch permissions (AUDIT_PERM_*).",
        "AUDIT_PERM_",
        perm::ALL,
        false,
    );
    group(
        "Architectures (AUDIT_ARCH_*).",
        "AUDIT_ARCH_",
        arch::ALL,
        true,
    );

    // Sizes and masks, as the rules crate declares them (FA_NR_SYSCALLS of
    // fastaudit.h is FA_ABI_NR_SYSCALLS).
    h.push_str("/* Limits and masks. */\n");
    let _ = writeln!(h, "#define FA_ABI_NR_SYSCALLS {}", abi::NR_SYSCALLS);
    let _ = writeln!(h, "#define FA_AF_MAX {}", abi::AF_MAX);
    let _ = writeln!(h, "#define FA_S_IFMT 0{:o}", abi::S_IFMT);
    h.push('\n');

    // -C comparisons of two subject fields, as an X-macro: X(id, a, b).
    // The object-field ones (obj_uid, obj_gid) are not evaluated in BPF.
    h.push_str("/* -C comparisons between subject fields: X(AUDIT_COMPARE_*, a, b). */\n");
    h.push_str("#define FA_COMPARE_PAIRS(X) \\\n");
    let is_obj = |f: u32| f == field::OBJ_UID || f == field::OBJ_GID;
    let name = |f: u32| {
        field::ALL
            .iter()
            .find(|(_, v)| *v == f)
            .map(|(n, _)| format!("AUDIT_{n}"))
            .expect("comparison field in field::ALL")
    };
    for (a, b, id) in COMPARISONS
        .iter()
        .filter(|(a, b, _)| !is_obj(*a) && !is_obj(*b))
    {
        let _ = writeln!(h, "\tX({id}, {}, {}) \\", name(*a), name(*b));
    }
    h.push_str("\t/* end */\n\n");

    // Record types of the auxiliary records the BPF side sends (issue 12),
    // by name from the message-type table.
    h.push_str("/* Record types (AUDIT_* of <linux/audit.h>). */\n");
    for name in AUX_RECORDS {
        let nr = fastaudit_rules::tables::msgtypes()
            .lookup(name.as_bytes())
            .expect("record type in the message-type table");
        let _ = writeln!(h, "#define AUDIT_{name} {nr}");
    }
    h.push('\n');

    h.push_str("/* Netlink messages that change kernel audit's configuration (AUDIT_*). */\n");
    for (name, value) in config_msg::ALL {
        let _ = writeln!(h, "#define AUDIT_{name} {value}");
    }
    h.push('\n');
    h.push_str("/* The kernel's syscall wrapper functions (fentry/fexit targets). */\n");
    let _ = writeln!(
        h,
        "#define FA_SYSCALL_FN_PREFIX {:?}\n",
        target.syscall_function_prefix(false)
    );
    syscall_sets(&mut h);

    h.push_str("/* Errnos. */\n");
    for (nr, name) in errnos().entries() {
        let _ = writeln!(h, "#define {name} {nr}");
    }
    h.push('\n');
    h.push_str("/* io_uring op numbers (IORING_OP_*). */\n");
    for (nr, name) in fastaudit_rules::tables::URING_OPS.iter().enumerate() {
        let _ = writeln!(h, "#define FA_IORING_OP_{} {nr}", name.to_uppercase());
    }
    h.push('\n');
    for (compat, prefix) in [(false, "FA_NR64_"), (true, "FA_NR32_")] {
        syscall_numbers(&mut h, target, compat, prefix);
    }
    h.push_str("#endif\n");
    h
}

/// Where a syscall that one ABI lacks is numbered: far above every
/// syscall (numbers are below FA_ABI_NR_SYSCALLS) and below ~0 (no
/// syscall, as a kernel thread's), one apart so that two such names can
/// be cases of one switch.
const ABSENT_BASE: u32 = 0x7fff_0000;

/// `#define <prefix><name> <nr>` for every syscall of one ABI's table;
/// then the names only another target's table of that ABI has (arm64 has
/// no open, creat, stat, lstat, fork, vfork, pipe, symlink, futimesat,
/// ...), each a number no syscall has, so the C code names every call
/// on every target and its tests of absent calls never match.
fn syscall_numbers(h: &mut String, target: Target, compat: bool, prefix: &str) {
    let machine = target.machine(compat);
    let names = |m: Machine| -> BTreeSet<&'static str> {
        (0..abi::NR_SYSCALLS)
            .filter_map(|nr| m.syscall_name(nr))
            .collect()
    };
    let _ = writeln!(h, "/* {} syscall numbers. */", machine.name());
    for nr in 0..abi::NR_SYSCALLS {
        if let Some(name) = machine.syscall_name(nr) {
            let _ = writeln!(h, "#define {prefix}{name} {nr}");
        }
    }
    h.push('\n');
    let own = names(machine);
    let others: BTreeSet<&str> = Target::ALL
        .iter()
        .flat_map(|t| names(t.machine(compat)))
        .filter(|n| !own.contains(n))
        .collect();
    if others.is_empty() {
        return;
    }
    let _ = writeln!(
        h,
        "/* Syscalls {} lacks (of other targets' tables): numbers no syscall has. */",
        machine.name()
    );
    for (i, name) in others.into_iter().enumerate() {
        // A name this table has as an alias keeps its number.
        match machine.syscall_number(name.as_bytes()) {
            Some(nr) => writeln!(h, "#define {prefix}{name} {nr}"),
            None => writeln!(h, "#define {prefix}{name} {:#x}", ABSENT_BASE + i as u32),
        }
        .expect("write to a String");
    }
    h.push('\n');
}

/// The syscall sets of `fastaudit_rules::syscall_sets` as C tests of a
/// syscall number (and of a netlink message type), each a macro.
fn syscall_sets(h: &mut String) {
    let test = |prefix: &str, names: &mut dyn Iterator<Item = &str>| -> String {
        names
            .map(|n| format!("(nr) == {prefix}{n}"))
            .collect::<Vec<_>>()
            .join(" || ")
    };
    let mut define = |name: &str, about: &str, expr: String| {
        let _ = writeln!(h, "/* {about} */\n#define {name} ({expr})");
    };
    define(
        "FA_LOGINUID_WRITE64(nr)",
        "The write family (native): a loginuid write makes LOGIN inside one.",
        test(
            "FA_NR64_",
            &mut sets::LOGINUID_WRITES.iter().map(|n| n.native),
        ),
    );
    define(
        "FA_LOGINUID_WRITE32(nr)",
        "The write family (compat).",
        test(
            "FA_NR32_",
            &mut sets::LOGINUID_WRITES.iter().map(|n| n.compat),
        ),
    );
    define(
        "FA_AUDIT_CONFIG_SEND64(nr)",
        "The native sends that can change kernel audit's configuration.",
        test("FA_NR64_", &mut sets::AUDIT_CONFIG_SENDS.into_iter()),
    );
    define(
        "FA_SIGNAL_TO_FIRST_ARG64(nr)",
        "Native syscalls that signal the task their first argument names.",
        test("FA_NR64_", &mut sets::SIGNAL_TO_FIRST_ARG.into_iter()),
    );
    define(
        "FA_SIGNAL_TO_THREAD64(nr)",
        "Native syscalls that signal thread arg1 of thread group arg0.",
        test("FA_NR64_", &mut sets::SIGNAL_TO_THREAD.into_iter()),
    );
    define(
        "FA_OBJ_PID_SENDER64(nr)",
        "Every native syscall whose target OBJ_PID names.",
        test("FA_NR64_", &mut sets::obj_pid_senders()),
    );
    for (abi, prefix) in [("64", "FA_NR64_"), ("32", "FA_NR32_")] {
        define(
            &format!("FA_EXEC{abi}(nr)"),
            "execve and execveat: their registers are gone at exit.",
            test(prefix, &mut sets::EXECS.into_iter()),
        );
        define(
            &format!("FA_NO_RETURN{abi}(nr)"),
            "exit and exit_group: they end the task inside the syscall.",
            test(prefix, &mut sets::NO_RETURN.into_iter()),
        );
    }
    for (set, names) in [
        ("MSG", &sets::SYSV_MSG[..]),
        ("SEM", &sets::SYSV_SEM[..]),
        ("SHM", &sets::SYSV_SHM[..]),
    ] {
        define(
            &format!("FA_SYSV_{set}64(nr)"),
            "Native System V IPC syscalls of one table.",
            test("FA_NR64_", &mut names.iter().copied()),
        );
    }
    define(
        "FA_CONFIG_CHANGE_MSG(t)",
        "Netlink messages that make a record inside the send.",
        config_msg::ALL
            .iter()
            .map(|(n, _)| format!("(t) == AUDIT_{n}"))
            .collect::<Vec<_>>()
            .join(" || "),
    );
    h.push('\n');
}
