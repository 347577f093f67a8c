//! The engine against the live kernel: rules compiled, BPF attached, a
//! child process's syscalls recorded with the right fields, `never` rules
//! honoured, and nothing left attached afterwards. Needs root.

use fastaudit_engine::{compile, run, syscalls, AuditEvent, Environment, Kind, Options, Stats};
use fastaudit_rules::{lexer, Origin, RuleSet, SystemHost};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

static LOCK: Mutex<()> = Mutex::new(());

fn rules(text: &str) -> RuleSet {
    let mut set = RuleSet::default();
    for l in lexer::lines(text.as_bytes()) {
        set.apply_words(
            &l.words,
            &Origin {
                file: "t.rules".into(),
                line: l.lineno,
            },
            &SystemHost,
        )
        .expect("rule");
    }
    set
}

/// Run the rules while `workload` runs as child processes; return the
/// events, the counters, the attached hooks and the workload's pids.
fn record(text: &str, workload: &[&[&str]]) -> (Vec<AuditEvent>, Stats, Vec<String>, Vec<u32>) {
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let _flock = fastaudit_netlink::lock::lock_kernel_audit().expect("the kernel audit lock");
    let plan = compile(&rules(text), Environment::probe(&Kind::ALL)).expect("plan");
    let stop = AtomicBool::new(false);
    let mut events = Vec::new();
    let mut hooks = Vec::new();
    let mut pids = Vec::new();
    std::thread::scope(|s| {
        let stats = run(
            &plan,
            Options::default(),
            &stop,
            |attached| {
                hooks = attached.hooks.clone();
                for argv in workload {
                    let mut child = Command::new(argv[0])
                        .args(&argv[1..])
                        .spawn()
                        .expect("spawn workload");
                    pids.push(child.id());
                    child.wait().expect("wait workload");
                }
                s.spawn(|| {
                    std::thread::sleep(Duration::from_millis(300));
                    stop.store(true, Ordering::Relaxed);
                });
            },
            |ev| events.push(ev),
            || {},
        )
        .expect("engine runs (as root)");
        (events, stats, hooks, pids)
    })
}

fn scratch(name: &str) -> String {
    let p = std::env::temp_dir().join(format!("fastaudit-engine-{}-{name}", std::process::id()));
    std::fs::write(&p, b"x").unwrap();
    p.to_str().unwrap().to_string()
}

fn links_left() -> usize {
    let out = Command::new("bpftool")
        .args(["link", "show"])
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    String::from_utf8_lossy(&out)
        .lines()
        .filter(|l| l.contains("fa_raw_exit") || l.contains("fa_syscall_exit"))
        .count()
}

#[test]
fn loginuid_writes_come_as_companions_with_the_write_and_no_key() {
    let own = "echo 0 > /proc/self/loginuid";
    // Set once, then refused (no CAP_AUDIT_CONTROL): LOGIN res=0, EPERM.
    let refused = "echo 0 > /proc/self/loginuid; echo 5 > /proc/self/loginuid";
    // Another process's loginuid: EPERM before any record.
    let other = "echo 0 > /proc/$PPID/loginuid";
    for text in [
        "-a always,exit -F arch=b64 -S fchmodat -F key=fa-test\n",
        "-a always,exit -S fchmodat -F key=fa-test\n",
    ] {
        let (events, _, hooks, pids) = record(
            text,
            &[
                &["sh", "-c", own],
                &["setpriv", "--reuid=1000", "sh", "-c", refused],
                &["sh", "-c", other],
            ],
        );
        let of = |pid: u32| -> Vec<&AuditEvent> {
            events
                .iter()
                .filter(|e| e.syscall.pid as u32 == pid)
                .collect()
        };
        let write = syscalls::x86_64("write");
        let shape = |e: &AuditEvent| {
            (
                e.companion,
                e.syscall.syscall,
                e.syscall.exit,
                e.syscall.key.clone(),
            )
        };
        assert_eq!(
            of(pids[0]).into_iter().map(shape).collect::<Vec<_>>(),
            vec![(true, write, Some(2), None)],
            "{hooks:?}"
        );
        let refused = of(pids[1]);
        assert_eq!(
            refused.iter().map(|e| shape(e)).collect::<Vec<_>>(),
            vec![(true, write, Some(2), None), (true, write, Some(-1), None)],
            "{hooks:?}"
        );
        assert_eq!(
            refused[0].syscall.auid, 0,
            "ids read at exit: the new loginuid"
        );
        assert!(
            of(pids[2]).is_empty(),
            "another task's loginuid: no LOGIN, no companion"
        );
    }
}

#[test]
fn per_syscall_tracepoint_records_a_child_chmod() {
    let f = scratch("tp");
    let (events, stats, hooks, pids) = record(
        "-a always,exit -F arch=b64 -S fchmodat -F key=fa-test\n",
        &[&["chmod", "600", &f]],
    );
    // fchmodat's object (PATH) comes from the inode changes: their three
    // hooks first.
    assert!(
        hooks[..3].iter().all(|h| h.contains("timestamp:")),
        "{hooks:?}"
    );
    assert_eq!(
        hooks[3],
        "tracepoint/syscalls:sys_exit_fchmodat by fa_syscall_exit"
    );
    assert!(
        hooks[4..]
            .iter()
            .all(|h| h.contains("sys_exit_") && (h.contains("write") || h.contains("send"))),
        "then the write family and sendto/sendmsg, for companions: {hooks:?}"
    );
    let ev = events
        .iter()
        .find(|e| e.syscall.pid as u32 == pids[0])
        .expect("the child's fchmodat is recorded");
    let s = &ev.syscall;
    assert_eq!(
        (s.arch, s.syscall, s.exit),
        (0xc000003e, syscalls::x86_64("fchmodat"), Some(0))
    );
    assert_eq!(s.args[2], 0o600);
    assert_eq!(s.comm, b"chmod");
    assert_eq!(s.key.as_deref(), Some(&b"fa-test"[..]));
    assert_eq!(s.ppid as u32, std::process::id());
    assert_eq!(s.ids, [0; 8]);
    assert!(
        s.exe.as_deref().is_some_and(|e| e.ends_with(b"/chmod")),
        "{:?}",
        s.exe
    );
    assert_eq!(
        ev.cmdline,
        [b"chmod\x00600\x00".as_slice(), f.as_bytes(), b"\x00"].concat()
    );
    assert!(
        events
            .iter()
            .all(|e| e.syscall.pid as u32 != std::process::id()),
        "the engine never audits itself"
    );
    assert_eq!(stats.emitted, stats.delivered);
    assert_eq!(stats.lost, 0);
    assert_eq!(links_left(), 0);
}

#[test]
fn raw_hook_records_failures_and_honours_never() {
    let f = scratch("raw");
    // python's os.chmod uses chmod(2); coreutils chmod uses fchmodat(2).
    let text =
        "-a never,exit -S fchmodat -F a2=0644\n-a always,exit -S fchmodat,chmod -F key=raw\n";
    let (events, stats, hooks, pids) = record(
        text,
        &[
            &["chmod", "600", &f],
            &["chmod", "644", &f],
            &[
                "python3",
                "-c",
                "import os\ntry: os.chmod('/nonexistent/fastaudit-x', 0o600)\nexcept OSError: pass",
            ],
        ],
    );
    assert_eq!(
        hooks[0],
        "tp_btf/raw_syscalls:sys_exit by fa_raw_exit".to_string()
    );
    assert!(
        hooks[1..].iter().all(|h| h.contains("timestamp:")),
        "and the inode changes, for chmod's PATH: {hooks:?}"
    );
    let of = |pid: u32| {
        events
            .iter()
            .filter(|e| e.syscall.pid as u32 == pid)
            .collect::<Vec<_>>()
    };
    assert_eq!(of(pids[0]).len(), 1);
    assert!(
        of(pids[1]).is_empty(),
        "a never rule earlier in the list wins"
    );
    let failed = of(pids[2]);
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].syscall.exit, Some(-2));
    assert_eq!(stats.emitted, stats.delivered);
    assert_eq!(links_left(), 0);
}

#[test]
fn field_tests_select_by_id_and_argument() {
    let f = scratch("fields");
    let text = "-a always,exit -F arch=b64 -S fchmodat -F uid=0 -F a2&0200 -C uid=euid -F success=1 -k sel\n";
    let (events, _, _, pids) = record(text, &[&["chmod", "600", &f], &["chmod", "400", &f]]);
    let of = |pid: u32| {
        events
            .iter()
            .filter(|e| e.syscall.pid as u32 == pid)
            .count()
    };
    assert_eq!(of(pids[0]), 1, "0600 has the 0200 bit");
    assert_eq!(of(pids[1]), 0, "0400 lacks it");
}

#[test]
fn no_rules_attach_only_the_loginuid_writes() {
    let (events, stats, hooks, pids) = record(
        "",
        &[&["true"], &["sh", "-c", "echo 0 > /proc/self/loginuid"]],
    );
    assert_eq!(hooks.len(), 7, "{hooks:?}");
    assert!(
        hooks
            .iter()
            .all(|h| h.contains("write") || h.contains("send")),
        "{hooks:?}"
    );
    let mine: Vec<&AuditEvent> = events
        .iter()
        .filter(|e| pids.contains(&(e.syscall.pid as u32)))
        .collect();
    assert_eq!(mine.len(), 1, "only the loginuid write: {mine:?}");
    assert!(mine[0].companion && mine[0].syscall.pid as u32 == pids[1]);
    assert_eq!(stats.lost, 0);
}
