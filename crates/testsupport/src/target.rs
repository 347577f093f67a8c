//! The machine the tests run on (the test binary's build target) and what
//! its syscall tables make of a scenario written for x86_64: rules whose
//! `-S` lists name calls this machine lacks (arm64 has only the `*at`
//! calls, no fork or pipe), workloads that make raw syscalls by number,
//! and tests of a compat ABI this machine's kernel does not have.
//!
//! On x86_64 everything here gives back what it was given: the scenarios
//! are written with x86_64's names, and their rules and workloads stay
//! byte for byte what they were.

use fastaudit_rules::Target;

/// The machine this test binary was built for, which is the one it runs
/// on (a cross-built binary runs in a guest of its own machine).
pub fn this_target() -> Target {
    Target::of_rust_arch(std::env::consts::ARCH)
        .unwrap_or_else(|| panic!("fastaudit is not built for {}", std::env::consts::ARCH))
}

/// Whether this machine is x86_64, the machine the scenarios were
/// written on.
pub fn is_x86_64() -> bool {
    this_target() == Target::X86_64
}

/// The number of syscall `name` in one ABI's table of this machine: from
/// libaudit's table, or for a call newer than it from the kernel's.
pub fn syscall_number(compat: bool, name: &str) -> Option<u32> {
    number_on(this_target(), compat, name)
}

/// [`syscall_number`] on target `t`.
fn number_on(t: Target, compat: bool, name: &str) -> Option<u32> {
    t.syscall_number(compat, name)
        .or_else(|| t.machine(compat).newer_syscall_number(name.as_bytes()))
}

/// The native number of syscall `name`; panics naming the call when this
/// machine has none (the test must then be written for the machine).
pub fn nr(name: &str) -> u32 {
    nr_on(this_target(), name)
}

/// [`nr`] on target `t`.
fn nr_on(t: Target, name: &str) -> u32 {
    number_on(t, false, name).unwrap_or_else(|| {
        panic!(
            "{} has no syscall {name}: write the scenario for this machine",
            t.name()
        )
    })
}

/// The call of one ABI that `name` stands for on this machine: itself
/// where its table has it, else the call the C library makes in its place
/// (the `*at` successor; `clone` for `fork`), else none.
pub fn spelled_here(compat: bool, name: &str) -> Option<&str> {
    spelled_on(this_target(), compat, name)
}

/// [`spelled_here`] on target `t`.
pub fn spelled_on(t: Target, compat: bool, name: &str) -> Option<&str> {
    if name == "all" || name.parse::<i64>().is_ok() || number_on(t, compat, name).is_some() {
        return Some(name);
    }
    successor(name).filter(|s| number_on(t, compat, s).is_some())
}

/// The call that replaced `name` where a machine has only the newer one
/// (asm-generic's table, as on arm64), as glibc makes it there.
fn successor(name: &str) -> Option<&'static str> {
    Some(match name {
        "open" | "creat" => "openat",
        "stat" | "lstat" => "newfstatat",
        "fork" | "vfork" => "clone",
        "pipe" => "pipe2",
        "chmod" => "fchmodat",
        "chown" | "lchown" => "fchownat",
        "mkdir" => "mkdirat",
        "mknod" => "mknodat",
        "rmdir" | "unlink" => "unlinkat",
        "rename" => "renameat",
        "link" => "linkat",
        "symlink" => "symlinkat",
        "readlink" => "readlinkat",
        "access" => "faccessat",
        "futimesat" | "utimes" | "utime" => "utimensat",
        "dup2" => "dup3",
        "poll" => "ppoll",
        "select" => "pselect6",
        "epoll_wait" => "epoll_pwait",
        "epoll_create" => "epoll_create1",
        "inotify_init" => "inotify_init1",
        "eventfd" => "eventfd2",
        "signalfd" => "signalfd4",
        _ => return None,
    })
}

/// The first of `names` this machine has natively: `first_present(&["chmod",
/// "fchmodat"])` is chmod on x86_64, fchmodat on arm64.
pub fn first_present<'a>(names: &[&'a str]) -> &'a str {
    names
        .iter()
        .copied()
        .find(|n| syscall_number(false, n).is_some())
        .unwrap_or_else(|| panic!("{} has none of {names:?}", this_target().name()))
}

/// Rules text written for x86_64, for this machine: in each syscall rule
/// (not an io_uring one: those name io_uring operations), a `-S` list's
/// names this machine's table (the compat one for `-F arch=b32`) lacks
/// are replaced by the calls made in their place ([`spelled_here`]),
/// each listed once; a `-S` left empty is dropped. A rule all of whose
/// names are gone, or one testing arguments (`-F a0..a3`) of a call
/// replaced, panics: it needs writing for this machine. Lines with
/// nothing to change (every line on x86_64) are kept as they are.
pub fn rules_here(rules: &str) -> String {
    rules_for(this_target(), rules)
}

/// [`rules_here`] on target `t`.
fn rules_for(t: Target, rules: &str) -> String {
    let mut out = String::with_capacity(rules.len());
    for line in rules.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        out.push_str(&rule_for(t, body));
        out.push_str(end);
    }
    out
}

/// [`rules_here`] of one line.
fn rule_for(t: Target, line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let is_syscall_rule = words
        .windows(2)
        .any(|w| matches!(w[0], "-a" | "-A" | "-d") && !w[1].contains("io_uring"));
    if !is_syscall_rule || !words.contains(&"-S") {
        return line.to_string();
    }
    let compat = words.windows(2).any(|w| w == ["-F", "arch=b32"]);
    let mut kept: Vec<String> = Vec::new();
    // Names already listed by the rule: a successor of two calls (rmdir,
    // unlink) or of a call listed beside it (chmod,fchmodat) once.
    let mut seen: Vec<&str> = Vec::new();
    let mut changed = false;
    let mut lists = 0;
    let mut i = 0;
    while i < words.len() {
        if words[i] == "-S" && i + 1 < words.len() {
            let mut names: Vec<&str> = Vec::new();
            for n in words[i + 1].split(',') {
                match spelled_on(t, compat, n) {
                    Some(s) if !seen.contains(&s) => {
                        seen.push(s);
                        names.push(s);
                    }
                    _ => {}
                }
            }
            let list = names.join(",");
            changed |= list != words[i + 1];
            if !list.is_empty() {
                kept.push("-S".into());
                kept.push(list);
                lists += 1;
            }
            i += 2;
        } else {
            kept.push(words[i].to_string());
            i += 1;
        }
    }
    if !changed {
        return line.to_string();
    }
    // A successor takes its arguments elsewhere (chmod's mode is a1,
    // fchmodat's a2): an argument test cannot follow it unchanged.
    let args_tested = words
        .windows(2)
        .any(|w| w[0] == "-F" && ["a0", "a1", "a2", "a3"].iter().any(|a| w[1].starts_with(a)));
    assert!(
        !args_tested,
        "`{line}` tests arguments of calls {} makes otherwise: write it for this machine",
        t.name()
    );
    assert!(
        lists > 0,
        "`{line}` names no syscall {} has: write it for this machine",
        t.name()
    );
    kept.join(" ")
}

/// `text` with every `NR(name)` replaced by the native number of syscall
/// `name` on this machine (see [`nr`]): workloads that make raw syscalls
/// (python's `libc.syscall`) name them, so the same workload runs on
/// every machine.
pub fn syscall_numbers(text: &str) -> String {
    numbers_for(this_target(), text)
}

/// [`syscall_numbers`] on target `t`.
fn numbers_for(t: Target, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("NR(") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        let Some(close) = after.find(')') else {
            out.push_str(&rest[at..]);
            return out;
        };
        out.push_str(&nr_on(t, &after[..close]).to_string());
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The static armhf (32-bit arm) busybox the arm compat scenarios run,
/// named by `$FASTAUDIT_TEST_ARMHF_BUSYBOX` (Debian's busybox-static
/// armhf package has one): on arm64 a 32-bit program is the only way to
/// make arm compat syscalls. None, saying why the test is skipped, on
/// x86_64 (its compat ABI is ia32, which the ia32 scenarios cover),
/// without one, or where it does not run (a CPU without 32-bit EL0).
pub fn armhf_busybox(test: &str) -> Option<std::path::PathBuf> {
    let why = if is_x86_64() {
        "an arm compat-ABI test: x86_64's compat ABI is ia32 (the ia32 scenarios)".to_string()
    } else {
        match std::env::var_os("FASTAUDIT_TEST_ARMHF_BUSYBOX") {
            None => "no armhf busybox: set FASTAUDIT_TEST_ARMHF_BUSYBOX to a static armhf busybox (Debian's busybox-static armhf package)".to_string(),
            Some(bb) => {
                let runs = std::process::Command::new(&bb)
                    .arg("true")
                    .status()
                    .is_ok_and(|s| s.success());
                if runs {
                    return Some(bb.into());
                }
                format!(
                    "{} does not run here: this CPU has no 32-bit EL0 (arm programs refused), or it is no armhf busybox",
                    std::path::Path::new(&bb).display()
                )
            }
        }
    };
    crate::skipped::say_skipped(test, &why);
    None
}

/// Whether the running test, one of x86_64's ia32 ABI (`int 0x80` from a
/// 64-bit process, which only x86_64 has), must be skipped on this
/// machine: it is, saying why (`why_not_here`: what the equivalent would
/// take here), and the skip is appended to `$FASTAUDIT_SKIPPED_LOG` as
/// the kernel-oracle skips are.
pub fn skip_unless_x86_64(test: &str, why_not_here: &str) -> bool {
    if is_x86_64() {
        return false;
    }
    let why = format!(
        "an x86_64 ia32-ABI test, on {}: {why_not_here}",
        this_target().name()
    );
    crate::skipped::say_skipped(test, &why);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86_RULES: &str = "-a always,exit -F arch=b64 -S fchmodat,chmod -k c\n\
        -a always,exit -S unlinkat,unlink -k rm\n\
        -a always,exit -F arch=b64 -S execve,clone,clone3,fork,vfork -k proc\n\
        -a always,exit -F arch=b64 -S mkdir -S mkdirat -k f2\n\
        -a always,exit -F arch=b64 -S chdir,chroot,rmdir,rename -k dirs\n\
        -a always,io_uring -S openat,openat2,connect,unlinkat -k ur\n\
        -w /etc/passwd -p wa -k w\n\
        -a always,exit -F arch=b32 -S open,close,chmod,chown32 -k ia32";

    #[test]
    fn rules_stay_as_written_on_x86_64_and_get_the_calls_made_instead_on_arm64() {
        assert_eq!(rules_for(Target::X86_64, X86_RULES), X86_RULES);
        assert_eq!(
            rules_for(Target::AARCH64, X86_RULES),
            "-a always,exit -F arch=b64 -S fchmodat -k c\n\
             -a always,exit -S unlinkat -k rm\n\
             -a always,exit -F arch=b64 -S execve,clone,clone3 -k proc\n\
             -a always,exit -F arch=b64 -S mkdirat -k f2\n\
             -a always,exit -F arch=b64 -S chdir,chroot,unlinkat,renameat -k dirs\n\
             -a always,io_uring -S openat,openat2,connect,unlinkat -k ur\n\
             -w /etc/passwd -p wa -k w\n\
             -a always,exit -F arch=b32 -S open,close,chmod,chown32 -k ia32"
        );
        assert_eq!(rules_here(X86_RULES), rules_for(this_target(), X86_RULES));
    }

    #[test]
    #[should_panic(expected = "names no syscall")]
    fn a_rule_left_with_no_call_is_refused() {
        // No machine has it, and nothing stands in for it.
        let _ = rules_for(
            Target::AARCH64,
            "-a always,exit -F arch=b64 -S nosuchcall -k x",
        );
    }

    #[test]
    #[should_panic(expected = "tests arguments")]
    fn argument_tests_of_a_replaced_call_are_refused() {
        let line = "-a always,exit -F arch=b64 -S chmod -F a1=0x381 -k act";
        assert_eq!(rules_for(Target::X86_64, line), line);
        let _ = rules_for(Target::AARCH64, line);
    }

    #[test]
    fn raw_syscalls_in_workloads_take_each_machines_numbers() {
        let text = "sc(L(NR(mq_open)), N); sc(L(NR(openat2)), 1) NR(";
        let x86 = "sc(L(240), N); sc(L(437), 1) NR(";
        assert_eq!(numbers_for(Target::X86_64, text), x86);
        assert_eq!(
            numbers_for(Target::AARCH64, text),
            "sc(L(180), N); sc(L(437), 1) NR("
        );
        assert_eq!(numbers_for(Target::X86_64, "no numbers"), "no numbers");
        assert_eq!(syscall_numbers(text), numbers_for(this_target(), text));
        // fchmodat2 is newer than libaudit's tables.
        assert_eq!(nr_on(Target::AARCH64, "fchmodat2"), 452);
    }

    #[test]
    fn the_call_each_machine_has() {
        let got = first_present(&["chmod", "fchmodat"]);
        assert_eq!(got, if is_x86_64() { "chmod" } else { "fchmodat" });
        assert_eq!(spelled_on(Target::X86_64, false, "fork"), Some("fork"));
        assert_eq!(spelled_on(Target::AARCH64, false, "fork"), Some("clone"));
        assert_eq!(spelled_on(Target::AARCH64, true, "fork"), Some("fork"));
        assert_eq!(spelled_here(false, "all"), Some("all"));
        assert_eq!(spelled_here(false, "nosuch"), None);
    }

    /// Each successor is a call asm-generic machines (arm64) have.
    #[test]
    fn every_successor_is_in_the_aarch64_table() {
        for name in Target::X86_64.native.syscall_names() {
            if let Some(s) = successor(name) {
                assert!(
                    Target::AARCH64.syscall_number(false, s).is_some(),
                    "{name} -> {s}"
                );
            }
        }
    }
}
