//! `--format json` against RAW: one run as the audit daemon writing JSON,
//! one `--bpf-only` run writing RAW, both seeing the same workload. Every
//! JSON line parses; every RAW event is found in the JSON log (by pid) with
//! each field's value decoded; kernel records (auditctl -m) come through
//! JSON too; the loss counters close the stream.

mod common;
use common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::process::Command;

/// The test's own reading of a RAW field: quotes removed; the kernel's hex
/// form of untrusted strings decoded.
fn decode(name: &str, raw: &str) -> String {
    if let Some(q) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        return q.to_string();
    }
    let hex = ["comm", "exe", "key", "proctitle", "name", "cwd"].contains(&name)
        && raw.len().is_multiple_of(2)
        && raw.bytes().all(|b| b.is_ascii_hexdigit());
    if hex {
        let bytes: Vec<u8> = (0..raw.len() / 2)
            .map(|i| u8::from_str_radix(&raw[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        return String::from_utf8(bytes).unwrap();
    }
    raw.to_string()
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
    let names = ["plain", "with space", "q\"uote", "é"];
    for n in names {
        std::fs::write(dir.join(n), "").unwrap();
    }
    let json_log = dir.join("audit.json");
    let raw_log = dir.join("audit.raw");
    let json = FastauditRun::start(&rules, &json_log, &["--format", "json"]);
    let raw = FastauditRun::start(&rules, &raw_log, &["--bpf-only", "--format", "raw"]);
    let mut pids = Vec::new();
    for n in names {
        let child = Command::new(&tool)
            .args(["600", dir.join(n).to_str().unwrap()])
            .spawn()
            .unwrap();
        pids.push(child.id().to_string());
        assert!(child.wait_with_output().unwrap().status.success());
    }
    let out = auditctl(&["-m", "json-log user message"]);
    assert!(out.status.success(), "{out:?}");
    std::thread::sleep(std::time::Duration::from_millis(500));
    raw.stop();
    json.stop();

    let json_text = std::fs::read_to_string(&json_log).unwrap();
    let lines: Vec<Value> = json_text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    for v in &lines {
        assert!(v["kind"] == "event" || v["kind"] == "stats", "{v}");
        assert!(v["time"].as_str().is_some_and(|t| t.contains('.')), "{v}");
    }
    let events: Vec<&Value> = lines.iter().filter(|v| v["kind"] == "event").collect();
    let start = &events[0]["records"][0];
    assert_eq!(
        (start["type"].as_str(), start["format"].as_str()),
        (Some("DAEMON_START"), Some("json"))
    );
    let by_pid: HashMap<String, &Value> = events
        .iter()
        .filter(|e| e["records"][0]["type"] == "SYSCALL")
        .map(|e| (e["records"][0]["pid"].as_str().unwrap().to_string(), *e))
        .collect();

    let raw_text = std::fs::read_to_string(&raw_log).unwrap();
    let (mut compared, mut ours) = (0, 0);
    for records in raw_events(&raw_text).values() {
        if records[0].0 != "SYSCALL" {
            continue;
        }
        let pid = &records[0].1.iter().find(|(n, _)| n == "pid").unwrap().1;
        let ev = by_pid
            .get(pid)
            .unwrap_or_else(|| panic!("RAW event of pid {pid} missing from JSON"));
        let recs = ev["records"].as_array().unwrap();
        assert_eq!(recs.len(), records.len(), "{ev}");
        for ((ty, fields), rec) in records.iter().zip(recs) {
            assert_eq!(rec["type"], ty.as_str());
            for (name, value) in fields {
                let want = decode(name, value);
                if name == "key" {
                    let keys: Vec<&str> = want.split('\x01').collect();
                    assert_eq!(rec["key"], serde_json::json!(keys), "{rec}");
                } else {
                    assert_eq!(rec[name.as_str()], want.as_str(), "{name} in {rec}");
                }
            }
        }
        compared += 1;
        // The workload's own events: what their fields hold is known.
        let Some(i) = pids.iter().position(|p| p == pid) else {
            continue;
        };
        ours += 1;
        let sys = &recs[0];
        assert_eq!(sys["key"], serde_json::json!(["jsonkey", "second"]));
        assert_eq!(
            (sys["comm"].as_str(), sys["SYSCALL"].as_str()),
            (Some("my chmod"), Some("fchmodat"))
        );
        assert_eq!(
            (sys["ARCH"].as_str(), sys["UID"].as_str()),
            (Some("x86_64"), Some("root"))
        );
        assert_eq!(sys["exe"], tool.to_str().unwrap());
        let argv = serde_json::json!([
            tool.to_str().unwrap(),
            "600",
            dir.join(names[i]).to_str().unwrap()
        ]);
        assert_eq!(recs.last().unwrap()["ARGV"], argv);
    }
    assert_eq!(ours, names.len(), "{raw_text}");
    assert!(compared >= ours);

    // A kernel record (user space's, over netlink) is an event of its own.
    let user = events
        .iter()
        .find(|e| e["records"][0]["type"] == "USER")
        .unwrap_or_else(|| panic!("no USER event in {json_text}"));
    let rec = &user["records"][0];
    assert_eq!(rec["msg"]["text"], "json-log user message", "{rec}");
    assert_eq!(rec["msg"]["exe"], "/usr/sbin/auditctl", "{rec}");
    assert_eq!(rec["UID"], "root");
    assert!(
        user["serial"].as_u64().unwrap() < 1 << 31,
        "the kernel's serial"
    );

    // The loss counters close the stream.
    let stats = lines.last().unwrap();
    assert_eq!(stats["kind"], "stats", "{stats}");
    assert_eq!(stats["bpf_events_lost"], 0);
    assert!(
        stats["bpf_events_logged"].as_u64().unwrap() >= names.len() as u64,
        "{stats}"
    );
    assert!(
        stats["kernel_records_received"].as_u64().unwrap() >= 1,
        "{stats}"
    );
    assert_eq!(stats["log_events_dropped"], 0);
}
