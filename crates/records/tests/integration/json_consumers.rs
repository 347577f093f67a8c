//! JSON events as the tools SIEM users point at them read them: jq
//! selects events by syscall name and key, compares numbers, sums by uid,
//! joins ARGV; Python's urllib gives a non-UTF-8 file name's exact bytes
//! back from its escaped form. The events are written by the crate's own
//! RAW writers (the bodies the daemon logs), then made JSON.

use fastaudit_records::enrich::Names;
use fastaudit_records::line::line;
use fastaudit_records::path::{cwd_body, Inode, NameType, PathItem};
use fastaudit_records::syscall::proctitle_body;
use fastaudit_records::{execve, group, json, types, Format, Stamp, Syscall};
use serde_json::{json, Value};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Users;
impl Names for Users {
    fn user(&self, uid: u32) -> Option<String> {
        (uid == 1000).then(|| "alice".into())
    }
    fn group(&self, _: u32) -> Option<String> {
        None
    }
}

/// One syscall event's RAW records: SYSCALL, EXECVE (for execve), CWD,
/// PATH, PROCTITLE.
struct Ev {
    syscall: u32,
    uid: u32,
    exit: i64,
    key: &'static [u8],
    name: &'static [u8],
    argv: &'static [&'static [u8]],
}

const EVENTS: &[Ev] = &[
    Ev {
        syscall: 268,
        uid: 1000,
        exit: 0,
        key: b"perm",
        name: b"/tmp/a b",
        argv: &[b"chmod", b"600", b"/tmp/a b"],
    },
    Ev {
        syscall: 268,
        uid: 1000,
        exit: -13,
        key: b"perm\x01second",
        name: b"/tmp/caf\xe9",
        argv: &[b"chmod", b"600", b"/tmp/caf\xe9"],
    },
    Ev {
        syscall: 59,
        uid: 0,
        exit: 0,
        key: b"exec",
        name: b"/usr/bin/ls",
        argv: &[b"ls", b"-l", b"100%"],
    },
    Ev {
        syscall: 268,
        uid: 0,
        exit: 0,
        key: b"other",
        name: b"/etc/shadow",
        argv: &[b"chmod", b"600", b"/etc/shadow"],
    },
];

fn raw_lines(serial: u64, e: &Ev) -> Vec<u8> {
    let stamp = Stamp {
        sec: 1_795_375_434,
        msec: 7,
        serial,
    };
    let mut records = vec![(
        types::SYSCALL,
        Syscall {
            arch: 0xc000003e,
            syscall: e.syscall,
            exit: Some(e.exit),
            args: [0xffffff9c, 0x7ffd138ddfd7, 0x180, 0],
            items: 1,
            ppid: 1,
            pid: 4000 + serial as i32,
            auid: 1000,
            ids: [e.uid; 8],
            ses: 3,
            comm: e.argv[0].to_vec(),
            exe: Some(b"/usr/bin/chmod".to_vec()),
            key: Some(e.key.to_vec()),
            ..Syscall::default()
        }
        .body(),
    )];
    let cmdline = e.argv.join(&0u8);
    if e.syscall == 59 {
        let mut area = cmdline.clone();
        area.push(0);
        for b in execve::bodies(e.argv.len() as u32, &area) {
            records.push((types::EXECVE, b));
        }
    }
    records.push((types::CWD, cwd_body(b"/root")));
    let item = PathItem {
        name: Some(e.name.to_vec()),
        inode: Some(Inode {
            ino: 12,
            dev: 8 << 20 | 1,
            mode: 0o100644,
            ..Inode::default()
        }),
        nametype: NameType::Normal,
    };
    records.push((types::PATH, item.body(0)));
    records.push((types::PROCTITLE, proctitle_body(&cmdline)));
    let mut out = Vec::new();
    for (ty, body) in records {
        out.extend(line(None, ty, stamp, &body, Format::Raw, &Users));
    }
    out
}

/// The JSON log of [`EVENTS`] and a user message, in a directory of its own.
fn json_log(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fastaudit-json-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut raw = Vec::new();
    for (i, e) in EVENTS.iter().enumerate() {
        raw.extend(raw_lines(100 + i as u64, e));
    }
    raw.extend_from_slice(b"type=USER msg=audit(1795375435.001:200): pid=9 uid=0 auid=1000 ses=3 msg='text=hello + bye exe=\"/usr/sbin/auditctl\" res=success'\n");
    let mut events: Vec<(Stamp, Vec<group::Record>)> = Vec::new();
    for l in raw.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let (r, s) = json::parse_line(l).expect("a RAW line");
        match events.last_mut() {
            Some((last, recs)) if *last == s => recs.push(r),
            _ => events.push((s, vec![r])),
        }
    }
    let mut text = Vec::new();
    for (s, recs) in &events {
        text.extend(json::event(Some("web-1"), *s, recs, &Users));
    }
    let path = dir.join("audit.json");
    std::fs::write(&path, text).unwrap();
    path
}

/// `jq ARGS FILE`'s output.
fn jq(args: &[&str], file: &Path) -> String {
    let out = Command::new("jq")
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("jq (scripts/setup.sh installs it): {e}"));
    assert!(out.status.success(), "jq {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn jq_json(args: &[&str], file: &Path) -> Value {
    serde_json::from_str(&jq(args, file)).unwrap()
}

#[test]
fn jq_queries_a_siem_would_run() {
    let log = json_log("jq");
    let text = std::fs::read_to_string(&log).unwrap();
    // Every line is one object jq reads.
    assert_eq!(jq(&["-c", "."], &log).lines().count(), text.lines().count());
    assert_eq!(text.lines().count(), EVENTS.len() + 1);

    // Events by syscall name and key (one rule may give several keys).
    let ids = jq_json(
        &[
            "-s",
            r#"map(select(.SYSCALL.SYSCALL == "fchmodat" and any(.SYSCALL.key[]; . == "perm")) | .ID)"#,
        ],
        &log,
    );
    assert_eq!(ids, json!(["1795375434.007:100", "1795375434.007:101"]));

    // Numbers are numbers: compared, summed, grouped.
    let failed = jq_json(
        &[
            "-s",
            "map(select((.SYSCALL.exit // 0) < 0) | [.SYSCALL.pid, .SYSCALL.exit])",
        ],
        &log,
    );
    assert_eq!(failed, json!([[4101, -13]]));
    let by_uid = jq_json(
        &[
            "-s",
            "map(select(.SYSCALL)) | group_by(.SYSCALL.uid) \
             | map({uid: .[0].SYSCALL.uid, user: .[0].SYSCALL.UID, events: length, \
                    items: (map(.SYSCALL.items) | add)})",
        ],
        &log,
    );
    assert_eq!(
        by_uid,
        json!([
            {"uid": 0, "user": "root", "events": 2, "items": 2},
            {"uid": 1000, "user": "alice", "events": 2, "items": 2}
        ])
    );
    let types = jq_json(
        &[
            "-s",
            "map(.SYSCALL | select(.) | (.pid, .uid, .exit, .items, .syscall, .ses) | type) | unique",
        ],
        &log,
    );
    assert_eq!(types, json!(["number"]));

    // Command lines, files, user messages.
    let argv = jq(
        &["-r", r#"select(.EXECVE) | .EXECVE.ARGV | join(" ")"#],
        &log,
    );
    assert_eq!(argv, "ls -l 100%25\n");
    let names = jq_json(&["-s", "map(.PATH[]?.name)"], &log);
    assert_eq!(
        names,
        json!(["/tmp/a b", "/tmp/caf%e9", "/usr/bin/ls", "/etc/shadow"])
    );
    let cmd = jq_json(&["-s", "map(.PROCTITLE.ARGV // empty | .[0])"], &log);
    assert_eq!(cmd, json!(["chmod", "chmod", "ls", "chmod"]));
    let user = jq_json(&["-c", "select(.USER) | .USER.msg"], &log);
    assert_eq!(
        user,
        json!({"text": "hello %2b bye", "exe": "/usr/sbin/auditctl", "res": "success"})
    );
    let _ = std::fs::remove_dir_all(log.parent().unwrap());
}

#[test]
fn python_decodes_the_escaped_bytes() {
    let log = json_log("python");
    let script = "import json, sys, urllib.parse\n\
        for l in open(sys.argv[1]):\n\
        \x20   for p in json.loads(l).get('PATH', []):\n\
        \x20       print(urllib.parse.unquote_to_bytes(p['name']).hex())\n";
    let mut child = Command::new("python3")
        .args(["-", log.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python3 (scripts/setup.sh installs it): {e}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let want: Vec<String> = EVENTS
        .iter()
        .map(|e| e.name.iter().map(|b| format!("{b:02x}")).collect())
        .collect();
    let got: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(log.parent().unwrap());
}
