//! KERN_MODULE after delete_module's SYSCALL (issue 12): written when the
//! kernel would have noted the name (kernel/module/main.c: the capability
//! check, the copy of at most MODULE_NAME_LEN bytes, then
//! audit_log_kern_module), with the name quoted or in hex as the kernel
//! encodes untrusted strings, between SYSCALL and PROCTITLE; absent for a
//! caller without CAP_SYS_MODULE (EPERM), a name the kernel refused
//! before noting it, and a kernel without modules (ENOSYS). The expected
//! records follow from each call's `exit=`, so the test holds on a kernel
//! with or without module support.

use fastaudit_testsupport as support;
use std::process::Command;
use support::logread::{field, records, Rec};
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// Calls delete_module(NAME_HEX decoded, O_NONBLOCK) or, with `finit`,
/// finit_module on the file PATH; prints the raw result. The syscall
/// numbers are this machine's (`target::syscall_numbers`).
const CALLER: &str = r#"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if sys.argv[1] == "delete":
    r = libc.syscall(NR(delete_module), ctypes.c_char_p(bytes.fromhex(sys.argv[2])), os.O_NONBLOCK)
else:
    fd = os.open(sys.argv[2], os.O_RDONLY)
    r = libc.syscall(NR(finit_module), fd, ctypes.c_char_p(b""), 0)
print(r, ctypes.get_errno())
"#;

const EPERM: i64 = -1;
const ENOENT: i64 = -2;
const ENOSYS: i64 = -38;

/// One call made by the workload: its process and what it passed.
struct Call {
    what: &'static str,
    pid: u32,
    name: Vec<u8>,
    unprivileged: bool,
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|c| format!("{c:02x}")).collect()
}

/// Run one caller to completion, as root or as nobody without capabilities.
fn call(script: &std::path::Path, what: &'static str, arg: &[u8], unprivileged: bool) -> Call {
    let arg_text = match what {
        "delete" => hex(arg),
        _ => String::from_utf8(arg.to_vec()).expect("utf8 path"),
    };
    let mut cmd = if unprivileged {
        let mut c = Command::new("setpriv");
        c.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            "/usr/bin/python3",
        ]);
        c
    } else {
        Command::new("/usr/bin/python3")
    };
    let child = cmd
        .arg(script)
        .arg(what)
        .arg(&arg_text)
        .spawn()
        .expect("start the caller");
    let pid = child.id();
    let out = child.wait_with_output().expect("wait the caller");
    assert!(out.status.success(), "{what} {arg_text}: {out:?}");
    Call {
        what,
        pid,
        name: arg.to_vec(),
        unprivileged,
    }
}

/// The records of the event whose SYSCALL has pid `pid`, in log order.
fn event_of(recs: &[Rec], pid: u32) -> Vec<&Rec> {
    let serial = recs
        .iter()
        .find(|r| r.ty == "SYSCALL" && field(&r.body, "pid") == Some(u64::from(pid)))
        .map(|r| r.serial);
    let Some(serial) = serial else {
        panic!("no SYSCALL of pid {pid}: {recs:#?}");
    };
    recs.iter().filter(|r| r.serial == serial).collect()
}

/// SYSCALL's `exit=` (signed).
fn exit_of(syscall: &Rec) -> i64 {
    syscall
        .body
        .split(' ')
        .find_map(|w| w.strip_prefix("exit=")?.parse().ok())
        .expect("exit= in SYSCALL")
}

/// The KERN_MODULE body the kernel writes for delete_module of `name`
/// ending in `exit`, or None when it writes none.
fn expected_delete(name: &[u8], exit: i64) -> Option<String> {
    let noted = exit != EPERM && exit != -14 && exit != ENOSYS;
    // strncpy_from_user(name, MODULE_NAME_LEN = 56): an empty name or one
    // without a NUL in 56 bytes is ENOENT before the record.
    if !noted || name.is_empty() || name.len() > 55 {
        return None;
    }
    let plain = name
        .iter()
        .all(|&b| (0x21..=0x7e).contains(&b) && b != b'"');
    Some(match plain {
        true => format!("name=\"{}\"", String::from_utf8_lossy(name)),
        false => format!("name={}", hex(name).to_uppercase()),
    })
}

#[test]
fn kern_module_after_delete_module_when_the_kernel_noted_it() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let script = dir.join("caller.py");
    std::fs::write(&script, target::syscall_numbers(CALLER)).unwrap();
    let not_a_module = dir.join("not-a-module");
    std::fs::write(&not_a_module, "this is not an ELF image\n").unwrap();
    std::fs::set_permissions(
        &not_a_module,
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S delete_module -k modules\n\
         -a always,exit -F arch=b64 -S finit_module -k modules\n",
    )
    .unwrap();
    let log = dir.join("log/audit.log");
    let fa = FastauditRun::start(FASTAUDIT, &rules, &log, &["--bpf-only"]);

    let calls = [
        call(&script, "delete", b"fa_no_such_module", false),
        // A space and a byte past ASCII: the name in hex.
        call(&script, "delete", b"fa mod\xe9", false),
        // Refused before the record: empty, and no NUL in 56 bytes.
        call(&script, "delete", b"", false),
        call(&script, "delete", &[b'm'; 60], false),
        // No CAP_SYS_MODULE: EPERM before the record.
        call(&script, "delete", b"fa_no_such_module", true),
        // Not an ELF image.
        call(
            &script,
            "finit",
            not_a_module.to_str().unwrap().as_bytes(),
            false,
        ),
    ];
    wait_until(20, "a SYSCALL record of every call", || {
        let recs = records(&log);
        calls.iter().all(|c| {
            recs.iter()
                .any(|r| r.ty == "SYSCALL" && field(&r.body, "pid") == Some(u64::from(c.pid)))
        })
    });
    fa.stop();

    let recs = records(&log);
    let mut noted = 0;
    for c in &calls {
        let event = event_of(&recs, c.pid);
        let syscall = event[0];
        assert_eq!(syscall.ty, "SYSCALL", "{event:#?}");
        assert!(syscall.body.contains("key=\"modules\""), "{event:#?}");
        let exit = exit_of(syscall);
        let kern: Vec<&str> = event
            .iter()
            .filter(|r| r.ty == "KERN_MODULE")
            .map(|r| r.body.as_str())
            .collect();
        let want = match c.what {
            "delete" => {
                if c.unprivileged {
                    assert!(exit == EPERM || exit == ENOSYS, "{event:#?}");
                }
                if !c.unprivileged && !c.name.is_empty() && c.name.len() <= 55 {
                    assert!(exit == ENOENT || exit == ENOSYS, "{event:#?}");
                }
                expected_delete(&c.name, exit)
            }
            // init_module and finit_module's KERN_MODULE (the module's own
            // name, or "?" for an image that is not a module, on a kernel
            // that logs load failures) is not followed (README).
            _ => None,
        };
        assert_eq!(
            kern,
            want.iter().map(String::as_str).collect::<Vec<_>>(),
            "{} {:?} exit={exit}: {event:#?}",
            c.what,
            String::from_utf8_lossy(&c.name)
        );
        if want.is_some() {
            noted += 1;
            // show_special's place: right after SYSCALL, before PROCTITLE.
            let types: Vec<&str> = event.iter().map(|r| r.ty.as_str()).collect();
            assert_eq!(types, ["SYSCALL", "KERN_MODULE", "PROCTITLE"], "{event:#?}");
        }
    }
    // On a kernel with modules, the two root deletes of valid names were
    // noted; on one without (ENOSYS), none was.
    let no_modules = !std::path::Path::new("/proc/modules").exists();
    assert_eq!(noted, if no_modules { 0 } else { 2 }, "{recs:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}
