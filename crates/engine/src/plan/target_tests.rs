//! Plans made for aarch64 (with its arm compat ABI) on any machine: the
//! planner is pure, so what it makes of a rule set on arm64 is checked
//! here against the aarch64 and arm tables' numbers (spelled out: the
//! kernel's, from arch/arm64's and arm's syscall tables).

use crate::plan::hook::Hook;
use crate::plan::perm::{possible, ATTR, EXEC, READ, WRITE};
use crate::plan::syscalls::{
    companion_exits, is_companion_syscall, names_nothing, special, tracepoint_name,
};
use crate::plan::test_rules::{plan_on, set_on};
use crate::plan::{Environment, Plan};
use fastaudit_rules::{RuleSet, Target};

const ARM64: Target = Target::AARCH64;

fn arm64(text: &str) -> Plan {
    plan_on(ARM64, text, Environment::default()).expect("plan")
}

/// The audited spans as `--explain` lists them: "name" or "name (arm)".
fn spans(p: &Plan) -> Vec<String> {
    let e = p.explain();
    e.lines()
        .skip_while(|l| !l.starts_with("audited syscalls: "))
        .skip(1)
        .map_while(|l| l.strip_prefix("  ")?.split(": ").next())
        .map(str::to_string)
        .collect()
}

#[test]
fn special_syscalls_are_aarch64_and_arm_ones() {
    let native = special(ARM64, false);
    // aarch64 has no open: only the *at calls.
    assert_eq!(native.open, None);
    assert_eq!((native.openat, native.openat2), (56, 437));
    assert_eq!(native.execs(), [221, 281]);
    assert_eq!(native.no_return(), [93, 94]);
    assert_eq!((native.socketcall, native.chdir), (None, Some(49)));
    let compat = special(ARM64, true);
    assert_eq!((compat.open, compat.openat), (Some(5), 322));
    assert_eq!(compat.execs(), [11, 387]);
    assert_eq!(compat.no_return(), [1, 248]);
    // arm64's compat ABI is EABI: 102 (socketcall) is not a syscall there,
    // though libaudit's arm table names it.
    assert_eq!(compat.socketcall, None);
    assert!(compat.sysv_ipc.is_empty() && compat.module_load.is_empty());
    assert_eq!(
        companion_exits(ARM64)
            .into_iter()
            .map(|w| w.0)
            .collect::<Vec<_>>(),
        [64, 68, 66, 70, 287, 206, 211],
        "write, pwrite64, writev, pwritev, pwritev2, sendto, sendmsg"
    );
    assert!(is_companion_syscall(ARM64, 4, true) && is_companion_syscall(ARM64, 181, true));
    assert!(!is_companion_syscall(ARM64, 4, false) && is_companion_syscall(ARM64, 64, false));
    // read (63) and fstat (80, newfstat) name nothing; openat (56) does.
    assert!(names_nothing(ARM64, 63, false) && names_nothing(ARM64, 80, false));
    assert!(!names_nothing(ARM64, 56, false) && names_nothing(ARM64, 3, true));
}

#[test]
fn perm_classes_follow_the_generic_lists_by_aarch64_and_arm_numbers() {
    let p = |nr, compat, mask| possible(ARM64, nr, compat, mask);
    // fchmod 52, fchmodat 53, fchownat 54: attributes; unlinkat 35 and
    // mkdirat 34 write; readlinkat 78 reads.
    assert!(p(52, false, ATTR) && p(53, false, ATTR) && p(54, false, ATTR));
    assert!(!p(53, false, WRITE | READ | EXEC));
    assert!(p(35, false, WRITE) && p(34, false, WRITE) && !p(35, false, ATTR));
    assert!(p(78, false, READ) && !p(78, false, WRITE));
    // bind: aarch64 200, arm 282; fchmodat2 (newer than libaudit) 452 both.
    assert!(p(200, false, WRITE) && p(282, true, WRITE));
    assert!(p(452, false, ATTR) && p(452, true, ATTR));
    // openat judged by its flags, execve and execveat by x natively.
    assert!(p(56, false, READ) && p(56, false, WRITE) && !p(56, false, EXEC));
    assert!(p(221, false, EXEC) && p(281, false, EXEC));
    // getpid (172) nothing; 15 is arm chmod; 90 is capset on aarch64
    // (x86_64's chmod), nothing for perm=.
    assert!(!p(172, false, READ | WRITE | ATTR | EXEC));
    assert!(p(15, true, ATTR) && !p(90, false, READ | WRITE | ATTR | EXEC));
    // The generic compat classifier takes execve only, and has no socketcall.
    assert!(p(11, true, EXEC) && !p(387, true, EXEC));
    assert!(!p(102, true, WRITE));
    // x86_64's own: 90 is chmod there, and the same call on i386 (15).
    assert!(possible(Target::X86_64, 90, false, ATTR));
    assert!(!possible(Target::X86_64, 53, false, ATTR));
}

#[test]
fn b64_and_b32_rules_plan_aarch64_and_arm_numbers() {
    let p = arm64(
        "-a always,exit -F arch=b64 -S openat -k o64\n\
         -a always,exit -F arch=b32 -S open -S openat -k o32\n\
         -a always,exit -F arch=b64 -S fchmodat -k m64\n\
         -a always,exit -F arch=b32 -S chmod -S fchmodat -k m32\n",
    );
    assert_eq!(p.target, ARM64);
    assert_eq!(
        p.by_syscall.keys().copied().collect::<Vec<_>>(),
        [5, 15, 53, 56, 322, 333]
    );
    assert_eq!(p.candidates(56, false), [0]);
    assert_eq!(p.candidates(5, true), [1]);
    assert_eq!(p.candidates(322, true), [1]);
    assert_eq!(p.candidates(53, false), [2]);
    assert_eq!(p.candidates(15, true), [3]);
    assert_eq!(p.candidates(333, true), [3]);
    // A number's other ABI: 56 is no arm syscall the b32 rules name.
    assert!(p.candidates(56, true).is_empty() && p.candidates(5, false).is_empty());
    let e = p.explain();
    assert!(e.contains("audited syscalls: 6 (2 native, 4 arm)"), "{e}");
    assert_eq!(
        spans(&p),
        [
            "open (arm)",
            "chmod (arm)",
            "fchmodat",
            "openat",
            "openat (arm)",
            "fchmodat (arm)"
        ]
    );
}

#[test]
fn arm64_has_no_native_open_or_chmod() {
    // auditctl on arm64 refuses them: the aarch64 table has no such name.
    for rule in [
        "-a always,exit -F arch=b64 -S open\n",
        "-a always,exit -F arch=b64 -S chmod\n",
    ] {
        let r = RuleSet::from_text(
            rule.as_bytes(),
            "t.rules",
            &fastaudit_rules::FixedHostOn(ARM64.native),
        );
        assert!(r.is_err(), "{rule}");
    }
    // An arch-less rule reads names with the native table, as auditctl does.
    let p = arm64("-a always,exit -S fchmodat -S openat\n");
    assert_eq!(p.by_syscall.keys().copied().collect::<Vec<_>>(), [53, 56]);
    // Without an arch test its bits hold for either ABI (the kernel tests
    // the number's bit whatever the arch): arm's syscall 53 matches too.
    assert_eq!(p.candidates(53, true), [0]);
}

#[test]
fn rules_of_a_machine_the_target_does_not_run_never_match() {
    // x86 rules on arm64: loaded (as auditctl loads them), numbered with
    // the x86 tables, but the task's arch is never x86_64 or i386 there.
    let p = arm64(
        "-a always,exit -F arch=x86_64 -S open -k x\n\
         -a always,exit -F arch=i386 -S chmod -k i\n",
    );
    assert_eq!(p.exit_rules.len(), 2);
    assert!(p.by_syscall.is_empty(), "{:?}", p.by_syscall);
    assert!(p
        .hooks
        .iter()
        .all(|h| matches!(h, Hook::CompanionExit { .. })));
    let e = p.explain();
    assert!(e.contains("audited syscalls: 0 (0 native, 0 arm)"), "{e}");
    assert!(
        e.contains("rules of an arch aarch64 does not run (they never match, as in its kernel): 2"),
        "{e}"
    );
    // And aarch64 rules on x86_64.
    let x86 =
        crate::plan::test_rules::plan("-a always,exit -F arch=aarch64 -S openat\n").expect("plan");
    assert!(x86.by_syscall.is_empty());
}

#[test]
fn per_syscall_hooks_take_the_kernels_tracepoint_names() {
    let p = arm64("-a always,exit -F arch=b64 -S pread -S uname -S fchmodat -S exit_group\n");
    let named: Vec<(u32, String)> = p
        .hooks
        .iter()
        .filter_map(|h| match h {
            Hook::SyscallExit { nr, syscall } => Some((*nr, format!("exit {syscall}"))),
            Hook::SyscallEnter { nr, syscall } => Some((*nr, format!("enter {syscall}"))),
            _ => None,
        })
        .collect();
    assert_eq!(
        named,
        [
            (53, "exit fchmodat".to_string()),
            (67, "exit pread64".to_string()),
            (160, "exit newuname".to_string()),
            (94, "enter exit_group".to_string()),
        ]
    );
    assert_eq!(tracepoint_name(ARM64, 92), Some("arm64_personality"));
    assert_eq!(tracepoint_name(Target::X86_64, 17), Some("pread"));
    let points: Vec<String> = p.attachments.iter().map(|a| a.point.to_string()).collect();
    assert!(
        points.iter().any(|a| a.ends_with("sys_exit_pread64")),
        "{points:?}"
    );
    assert!(
        p.attachments.iter().any(
            |a| a.program == fastaudit_bpf::programs::FA_SYSCALL_ENTER_END
                && a.point.to_string().ends_with("sys_enter_exit_group")
        ),
        "exit_group never returns: judged at its entry"
    );
    // The companion writes by their aarch64 numbers.
    assert!(p.hooks.contains(&Hook::CompanionExit {
        nr: 68,
        syscall: "pwrite64".into()
    }));
}

#[test]
fn arm_compat_rules_take_the_raw_hooks_and_arm_entries() {
    let p = arm64("-a always,exit -F arch=b32 -S exit_group -S chdir\n");
    assert!(p.hooks.contains(&Hook::RawSyscallExit));
    assert!(p.hooks.contains(&Hook::RawSyscallEnter), "{:?}", p.hooks);
    let off = plan_on(
        ARM64,
        "-a always,exit -F arch=b32 -S exit_group -S chdir\n",
        Environment {
            ia32_disabled: true,
            ..Environment::default()
        },
    )
    .expect("plan");
    assert!(
        !off.hooks.contains(&Hook::RawSyscallExit),
        "without 32-bit EL0 no arm syscall runs: nothing to hook"
    );
}

#[test]
fn path_arguments_and_spans_by_aarch64_numbers() {
    let p = arm64("-w /etc/passwd -p wa -k passwd\n");
    let images = p
        .map_images(&crate::plan::image::LivePaths::default())
        .expect("images");
    let nr_syscalls = crate::limits::NR_SYSCALLS;
    let arg = |key: u32| {
        images
            .path_args
            .iter()
            .find(|(k, _)| *k == key)
            .map(|e| e.1)
    };
    // openat (56): dirfd a0, path a1; renameat2 (276) two pairs; arm open (5):
    // path a0 from the working directory.
    assert_eq!(
        arg(56).map(|a| (a.n, a.dirfd[0], a.path[0])),
        Some((1, 0, 1))
    );
    assert_eq!(arg(276).map(|a| a.n), Some(2));
    assert_eq!(
        arg(nr_syscalls + 5).map(|a| (a.n, a.dirfd[0], a.path[0])),
        Some((1, 0xFF, 0))
    );
    // A watch's perm=wa selects aarch64's writers: unlinkat (35) and
    // fchmodat (53), not 90 (x86_64's chmod, aarch64's capset).
    let keys: Vec<u32> = images.spans.iter().map(|s| s.0).collect();
    assert!(keys.contains(&35) && keys.contains(&53), "{keys:?}");
    assert!(keys.contains(&(nr_syscalls + 15)), "arm chmod");
    assert!(!keys.contains(&90), "{keys:?}");
    let sysclass = |key: u32| images.sysclass.iter().find(|(k, _)| *k == key).map(|e| e.1);
    assert_eq!(
        sysclass(53),
        Some(crate::plan::perm::sysclass(ARM64, 53, false))
    );
    assert!(set_on(ARM64, "-w /etc/shadow\n").rules().count() == 1);
}
