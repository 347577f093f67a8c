//! `--format json` against RAW: one run as the audit daemon writing JSON,
//! one `--bpf-only` run writing RAW, both seeing the same workload. Every
//! JSON line is one event object with its ID; every RAW event is found in
//! the JSON log (by pid) with each record under its type and each field's
//! value typed and decoded as docs/json.md says (the test's own reading of
//! RAW); file names that are not UTF-8 come back exactly; jq selects and
//! sums the events; kernel records (auditctl -m) come through JSON too;
//! the loss counters close the stream.

use fastaudit_testsupport as support;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::process::Command;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

/// docs/json.md's escaping, written again: UTF-8 kept; controls, `%`,
/// `+` and bytes that are not UTF-8 as `%xx`.
fn escape(b: &[u8]) -> String {
    let mut out = String::new();
    for chunk in b.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c < ' ' || c == '\x7f' || c == '%' || c == '+' {
                out.push_str(&format!("%{:02x}", c as u32));
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("%{b:02x}"));
        }
    }
    out
}

/// Percent-decoding, as a consumer does it.
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn unhex(raw: &str) -> Option<Vec<u8>> {
    if raw.is_empty() || !raw.len().is_multiple_of(2) {
        return None;
    }
    (0..raw.len() / 2)
        .map(|i| u8::from_str_radix(&raw[2 * i..2 * i + 2], 16).ok())
        .collect()
}

/// A RAW field's value in JSON, as docs/json.md says.
fn expected(name: &str, raw: &str) -> Value {
    const NUMBERS: &[&str] = &[
        "pid",
        "ppid",
        "auid",
        "uid",
        "gid",
        "euid",
        "suid",
        "fsuid",
        "egid",
        "sgid",
        "fsgid",
        "ses",
        "items",
        "item",
        "exit",
        "syscall",
        "inode",
        "ouid",
        "ogid",
        "cap_fe",
        "cap_frootid",
    ];
    const HEX: &[&str] = &[
        "arch", "a0", "a1", "a2", "a3", "cap_fp", "cap_fi", "cap_fver",
    ];
    const UNTRUSTED: &[&str] = &["comm", "exe", "name", "cwd", "key", "proctitle"];
    if raw == "(null)" {
        return if name == "key" {
            json!([])
        } else {
            Value::Null
        };
    }
    let bytes = match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(q) => Some(q.as_bytes().to_vec()),
        None if UNTRUSTED.contains(&name) => unhex(raw),
        None => None,
    };
    let trimmed = |d: &str| match d.trim_start_matches('0') {
        "" => "0".to_string(),
        t => t.to_ascii_lowercase(),
    };
    match (name, bytes) {
        ("key", Some(b)) => b.split(|&c| c == 1).map(escape).collect(),
        ("proctitle", Some(b)) => b.split(|&c| c == 0).map(escape).collect(),
        (_, Some(b)) => escape(&b).into(),
        _ if NUMBERS.contains(&name) => raw.parse::<i64>().unwrap().into(),
        _ if HEX.contains(&name) => format!("0x{}", trimmed(raw)).into(),
        ("mode", _) => format!("0o{}", trimmed(raw)).into(),
        _ => escape(raw.as_bytes()).into(),
    }
}

/// RAW events by serial: (type, [(field, raw value)]) per record.
type RawEvent = Vec<(String, Vec<(String, String)>)>;

fn raw_events(text: &str) -> HashMap<String, RawEvent> {
    let mut events: HashMap<String, RawEvent> = HashMap::new();
    for l in text.lines() {
        let ty = l["type=".len()..l.find(' ').unwrap()].to_string();
        let serial = l[l.find(':').unwrap() + 1..l.find("): ").unwrap()].to_string();
        let body = &l[l.find("): ").unwrap() + 3..];
        let fields = body
            .split(' ')
            .filter_map(|w| w.split_once('='))
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        events.entry(serial).or_default().push((ty, fields));
    }
    events
}

/// The members of an event that are records: (type, record) in order,
/// a list's items one by one.
fn records(ev: &Value) -> Vec<(&str, &Value)> {
    let mut out = Vec::new();
    for (k, v) in ev.as_object().unwrap() {
        match v {
            _ if k == "ID" || k == "NODE" => {}
            Value::Array(items) => out.extend(items.iter().map(|r| (k.as_str(), r))),
            _ => out.push((k.as_str(), v)),
        }
    }
    out
}

fn jq(filter: &str, args: &[&str], file: &std::path::Path) -> Value {
    let out = Command::new("jq")
        .args(["-s", filter])
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("jq (scripts/setup.sh installs it): {e}"));
    assert!(out.status.success(), "jq {filter}: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn json_events_round_trip_the_raw_records() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S fchmodat -F dir=/tmp -k jsonkey -k second\n",
    )
    .unwrap();
    // A command name with a space: comm and exe are hex in RAW.
    let tool = dir.join("my chmod");
    std::fs::copy("/usr/bin/chmod", &tool).unwrap();
    let names: [&[u8]; 6] = [
        b"plain",
        b"with space",
        b"q\"uote",
        "é".as_bytes(),
        b"caf\xe9",
        b"100%+x",
    ];
    for n in names {
        std::fs::write(dir.join(OsStr::from_bytes(n)), "").unwrap();
    }
    let json_log = dir.join("audit.json");
    let raw_log = dir.join("audit.raw");
    let json = FastauditRun::start(FASTAUDIT, &rules, &json_log, &["--format", "json"]);
    let raw = FastauditRun::start(
        FASTAUDIT,
        &rules,
        &raw_log,
        &["--bpf-only", "--format", "raw"],
    );
    let mut pids = Vec::new();
    for n in names {
        let child = Command::new(&tool)
            .arg("600")
            .arg(dir.join(OsStr::from_bytes(n)))
            .spawn()
            .unwrap();
        pids.push(u64::from(child.id()));
        assert!(child.wait_with_output().unwrap().status.success());
    }
    let out = auditctl(&["-m", "json-log user message"]);
    assert!(out.status.success(), "{out:?}");
    // The raw run (--bpf-only) reads its ring buffer to the end when
    // stopped; the user message reaches the JSON run through kauditd.
    wait_until(20, "the user message in the JSON log", || {
        file_holds(&json_log, "json-log user message")
    });
    raw.stop();
    json.stop();

    let json_text = std::fs::read_to_string(&json_log).unwrap();
    let lines: Vec<Value> = json_text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    for v in &lines {
        let id = v["ID"].as_str().unwrap_or_else(|| panic!("no ID: {v}"));
        let (time, serial) = id.split_once(':').unwrap();
        let (sec, msec) = time.split_once('.').unwrap();
        assert!(sec.parse::<u64>().is_ok() && msec.len() == 3 && serial.parse::<u64>().is_ok());
        assert!(v.get("NODE").is_none(), "no name_format: {v}");
    }
    assert_eq!(lines[0]["DAEMON_START"]["format"], "json", "{}", lines[0]);
    let by_pid: HashMap<u64, &Value> = lines
        .iter()
        .filter_map(|e| Some((e["SYSCALL"]["pid"].as_u64()?, e)))
        .collect();

    let raw_text = std::fs::read_to_string(&raw_log).unwrap();
    let (mut compared, mut ours) = (0, 0);
    for raw_records in raw_events(&raw_text).values() {
        if raw_records[0].0 != "SYSCALL" {
            continue;
        }
        let pid = &raw_records[0].1.iter().find(|(n, _)| n == "pid").unwrap().1;
        let pid: u64 = pid.parse().unwrap();
        let ev = by_pid
            .get(&pid)
            .unwrap_or_else(|| panic!("RAW event of pid {pid} missing from JSON"));
        let recs = records(ev);
        let types: Vec<&str> = raw_records.iter().map(|(t, _)| t.as_str()).collect();
        let json_types: Vec<&str> = recs.iter().map(|(t, _)| *t).collect();
        assert_eq!(json_types, types, "{ev}");
        assert!(ev["SYSCALL"].is_object() && ev["PATH"].is_array(), "{ev}");
        for ((_, fields), (ty, rec)) in raw_records.iter().zip(&recs) {
            for (name, value) in fields {
                let member = if name == "proctitle" { "ARGV" } else { name };
                assert_eq!(rec[member], expected(name, value), "{ty}.{name} in {rec}");
            }
            // Nothing twice: a member is a RAW field or an interpretation
            // (upper case); PROCTITLE's command line is only its ARGV.
            for k in rec.as_object().unwrap().keys() {
                assert!(
                    fields.iter().any(|(n, _)| n == k) || *k == k.to_uppercase(),
                    "{k} in {rec}"
                );
            }
            assert!(rec.get("proctitle").is_none(), "{rec}");
        }
        compared += 1;
        // The workload's own events: what their fields hold is known.
        let Some(i) = pids.iter().position(|p| *p == pid) else {
            continue;
        };
        ours += 1;
        let sys = &ev["SYSCALL"];
        assert_eq!(sys["key"], json!(["jsonkey", "second"]));
        assert_eq!(
            (&sys["comm"], &sys["SYSCALL"], &sys["syscall"]),
            (
                &json!("my chmod"),
                &json!("fchmodat"),
                &json!(target::nr("fchmodat"))
            )
        );
        assert_eq!(
            (&sys["ARCH"], &sys["UID"], &sys["uid"]),
            (
                &json!(target::this_target().name()),
                &json!("root"),
                &json!(0)
            )
        );
        assert_eq!(sys["exe"], tool.to_str().unwrap());
        let path = dir.join(OsStr::from_bytes(names[i]));
        let name = ev["PATH"][0]["name"].as_str().unwrap();
        assert_eq!(unescape(name), path.as_os_str().as_bytes(), "{name}");
        let argv: Vec<Vec<u8>> = ev["PROCTITLE"]["ARGV"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| unescape(a.as_str().unwrap()))
            .collect();
        let want: Vec<&[u8]> = vec![
            tool.as_os_str().as_bytes(),
            b"600",
            path.as_os_str().as_bytes(),
        ];
        assert_eq!(argv, want, "{ev}");
    }
    assert_eq!(ours, names.len(), "{raw_text}");
    assert!(compared >= ours);

    // What a SIEM user asks, in jq: the workload's events by syscall name
    // and key, and how many per uid.
    let pids_arg = serde_json::to_string(&pids).unwrap();
    let found = jq(
        r#"map(select(.SYSCALL.SYSCALL == "fchmodat" and any(.SYSCALL.key[]; . == "jsonkey")
                      and (.SYSCALL.pid as $p | $pids | index($p))) | .SYSCALL.pid) | sort"#,
        &["--argjson", "pids", &pids_arg],
        &json_log,
    );
    let mut sorted = pids.clone();
    sorted.sort();
    assert_eq!(found, json!(sorted));
    let per_uid = jq(
        "map(select(.SYSCALL.pid as $p | $pids | index($p))) | group_by(.SYSCALL.uid) \
         | map({uid: .[0].SYSCALL.uid, events: length, items: (map(.SYSCALL.items) | add)})",
        &["--argjson", "pids", &pids_arg],
        &json_log,
    );
    assert_eq!(
        per_uid,
        json!([{"uid": 0, "events": names.len(), "items": names.len()}])
    );

    // A kernel record (user space's, over netlink) is an event of its own.
    let user = lines
        .iter()
        .find(|e| e["USER"].is_object())
        .unwrap_or_else(|| panic!("no USER event in {json_text}"));
    let rec = &user["USER"];
    assert_eq!(rec["msg"]["text"], "json-log user message", "{rec}");
    assert_eq!(rec["msg"]["exe"], "/usr/sbin/auditctl", "{rec}");
    assert_eq!((&rec["UID"], &rec["uid"]), (&json!("root"), &json!(0)));
    let serial: u64 = user["ID"]
        .as_str()
        .unwrap()
        .split(':')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(serial < 1 << 31, "the kernel's serial");

    // The loss counters close the stream.
    let last = lines.last().unwrap();
    assert!(last["ID"].as_str().unwrap().ends_with(":0"), "{last}");
    let stats = &last["STATS"];
    assert_eq!(stats["bpf_events_lost"], 0, "{last}");
    assert!(
        stats["bpf_events_logged"].as_u64().unwrap() >= names.len() as u64,
        "{stats}"
    );
    assert!(
        stats["kernel_records_received"].as_u64().unwrap() >= 1,
        "{stats}"
    );
    assert_eq!(stats["log_events_dropped"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// DAEMON_END is the last record fastaudit writes, in RAW and in JSON
/// (JSON's STATS line, which closes the stream, aside): the kernel's BPF
/// `op=UNLOAD` records of fastaudit's own programs, and the restore's
/// CONFIG_CHANGE, are logged before it.
#[test]
fn daemon_end_follows_the_unload_of_its_own_programs() {
    let _ka = KernelAudit::acquire();
    let dir = tempdir();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "-a always,exit -F arch=b64 -S fchmodat -F dir=/tmp -k unload\n",
    )
    .unwrap();
    for format in ["raw", "json"] {
        let log = dir.join(format!("audit.{format}"));
        FastauditRun::start(FASTAUDIT, &rules, &log, &["--format", format]).stop();
        let text = std::fs::read_to_string(&log).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        if format == "json" {
            let last = lines.pop().unwrap_or("");
            assert!(
                last.contains("\"STATS\":"),
                "JSON closes with STATS: {last}"
            );
        }
        let is_end = |l: &str| l.starts_with("type=DAEMON_END ") || l.contains("\"DAEMON_END\":");
        let unloads = lines
            .iter()
            .filter(|l| {
                (l.starts_with("type=BPF ") && l.contains("op=UNLOAD"))
                    || l.contains("\"op\":\"UNLOAD\"")
            })
            .count();
        assert!(
            unloads > 0,
            "{format}: the programs' UNLOAD records logged:\n{text}"
        );
        assert!(
            lines.last().is_some_and(|l| is_end(l)),
            "{format}: DAEMON_END is the last record:\n{text}"
        );
        assert_eq!(lines.iter().filter(|l| is_end(l)).count(), 1, "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
