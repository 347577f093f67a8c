//! JSON events against RAW lines written by the kernel and auditd.

use super::*;
use crate::encode::untrusted;
use proptest::prelude::*;
use serde_json::json;

struct Ids;

impl Names for Ids {
    fn user(&self, uid: u32) -> Option<String> {
        (uid == 1000).then(|| "alice".into())
    }
    fn group(&self, _: u32) -> Option<String> {
        None
    }
}

/// The JSON of the event these RAW lines make (one stamp), checked to be
/// one line.
fn json_of(node: Option<&str>, lines: &[&[u8]]) -> Value {
    let mut stamp = None;
    let records: Vec<Record> = lines
        .iter()
        .map(|l| {
            let (r, s) = parse_line(l).expect("a RAW line");
            stamp = Some(s);
            r
        })
        .collect();
    let text = event(node, stamp.expect("a line"), &records, &Ids);
    assert_eq!(text.last(), Some(&b'\n'));
    assert!(!text[..text.len() - 1].contains(&b'\n'));
    serde_json::from_slice(&text).expect("JSON")
}

fn one(line: &str) -> Value {
    json_of(Some("web-1"), &[line.as_bytes()])
}

/// RFC 3986 percent-decoding, as consumers do it.
fn unpercent(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

#[test]
fn syscall_fields_typed_decoded_and_interpreted() {
    let v = one("type=SYSCALL msg=audit(1700000000.005:2147483650): arch=c000003e syscall=268 success=no exit=-2 a0=ffffff9c a1=7FFD a2=3eb a3=0 items=1 ppid=1 pid=2 auid=1000 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=4294967295 comm=\"t\" exe=2F746D702F6120622F74 subj==unconfined key=6B61016B62");
    assert_eq!(v["ID"], "1700000000.005:2147483650");
    assert_eq!(v["NODE"], "web-1");
    let s = &v["SYSCALL"];
    assert!(s.is_object(), "{v}");
    assert_eq!(s["syscall"], 268);
    assert_eq!(s["exit"], -2);
    assert_eq!(s["success"], "no");
    assert_eq!(
        (&s["pid"], &s["ppid"], &s["items"]),
        (&json!(2), &json!(1), &json!(1))
    );
    assert_eq!(
        (&s["uid"], &s["auid"], &s["ses"]),
        (&json!(0), &json!(1000), &json!(4294967295u64))
    );
    assert_eq!(s["arch"], "0xc000003e");
    assert_eq!(
        (&s["a0"], &s["a1"], &s["a3"]),
        (&json!("0xffffff9c"), &json!("0x7ffd"), &json!("0x0"))
    );
    assert_eq!(s["SYSCALL"], "fchmodat");
    assert_eq!(s["ARCH"], "x86_64");
    assert_eq!((&s["AUID"], &s["UID"]), (&json!("alice"), &json!("root")));
    assert_eq!(s["comm"], "t");
    assert_eq!(s["exe"], "/tmp/a b/t");
    assert_eq!(s["tty"], "(none)");
    assert_eq!(s["subj"], "=unconfined");
    assert_eq!(s["key"], json!(["ka", "kb"]));
    let v = one("type=SYSCALL msg=audit(1.002:3): arch=c000003e syscall=1 key=(null) exe=(null)");
    assert_eq!(v["ID"], "1.002:3");
    assert_eq!(v["SYSCALL"]["key"], json!([]));
    assert_eq!(v["SYSCALL"]["exe"], Value::Null);
}

#[test]
fn an_event_keyed_by_record_type() {
    let ev: [&[u8]; 8] = [
        b"type=SYSCALL msg=audit(1.002:9): arch=c000003e syscall=59 success=yes exit=0 a0=1 a1=2 a2=3 a3=4 items=2 ppid=1 pid=2 auid=1000 uid=1000 gid=1000 euid=1000 suid=1000 fsuid=1000 egid=1000 sgid=1000 fsgid=1000 tty=pts0 ses=3 comm=\"sh\" exe=\"/bin/sh\" key=\"x\"",
        b"type=EXECVE msg=audit(1.002:9): argc=4 a0=\"sh\" a1=\"-c\" a2_len=6 a2[0]=6563",
        b"type=EXECVE msg=audit(1.002:9): a2[1]=686F2025 a3=FF2B",
        b"type=CWD msg=audit(1.002:9): cwd=\"/root\"",
        b"type=PATH msg=audit(1.002:9): item=0 name=\"/bin/sh\" inode=401923 dev=fd:01 mode=0100755 ouid=0 ogid=0 rdev=00:00 nametype=NORMAL cap_fp=0 cap_fi=0 cap_fe=0 cap_fver=0 cap_frootid=0",
        b"type=PATH msg=audit(1.002:9): item=1 name=(null) inode=7 dev=fd:01 mode=040755 ouid=0 ogid=0 rdev=00:00 nametype=PARENT cap_fp=00000000000000ff cap_fi=0 cap_fe=1 cap_fver=2 cap_frootid=0",
        b"type=SOCKADDR msg=audit(1.002:9): saddr=020000507F0000010000000000000000",
        b"type=PROCTITLE msg=audit(1.002:9): proctitle=7368002D63006563686F2025",
    ];
    let v = json_of(None, &ev);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "ID",
            "SYSCALL",
            "EXECVE",
            "CWD",
            "PATH",
            "SOCKADDR",
            "PROCTITLE"
        ]
    );
    assert!(v.get("NODE").is_none());
    // EXECVE: one object over its records; the arguments only as ARGV.
    assert_eq!(
        v["EXECVE"],
        json!({"argc": 4, "ARGV": ["sh", "-c", "echo %25", "%ff%2b"]})
    );
    assert_eq!(v["CWD"], json!({"cwd": "/root"}));
    let paths = v["PATH"].as_array().unwrap();
    assert_eq!(paths.len(), 2);
    assert_eq!(
        (&paths[0]["item"], &paths[0]["inode"], &paths[0]["mode"]),
        (&json!(0), &json!(401923), &json!("0o100755"))
    );
    assert_eq!(
        (&paths[0]["dev"], &paths[0]["nametype"]),
        (&json!("fd:01"), &json!("NORMAL"))
    );
    assert_eq!(
        (&paths[0]["OUID"], &paths[0]["cap_fp"]),
        (&json!("root"), &json!("0x0"))
    );
    assert_eq!(paths[1]["name"], Value::Null);
    assert_eq!(
        (
            &paths[1]["cap_fp"],
            &paths[1]["cap_fe"],
            &paths[1]["cap_fver"]
        ),
        (&json!("0xff"), &json!(1), &json!("0x2"))
    );
    assert_eq!(
        v["SOCKADDR"]["SADDR"],
        json!({"saddr_fam": "inet", "laddr": "127.0.0.1", "lport": 80})
    );
    assert_eq!(v["SOCKADDR"]["saddr"], "020000507F0000010000000000000000");
    // PROCTITLE: the command line once, as a list.
    assert_eq!(v["PROCTITLE"], json!({"ARGV": ["sh", "-c", "echo %25"]}));
}

#[test]
fn local_socket_paths_are_exact() {
    let mut body = b"saddr=".to_vec();
    crate::encode::hex_upper(&mut body, b"\x01\x00/run/a b\xff\x00junk");
    let line = [b"type=SOCKADDR msg=audit(1.002:9): ".as_slice(), &body].concat();
    let v = json_of(None, &[&line]);
    assert_eq!(
        v["SOCKADDR"]["SADDR"],
        json!({"saddr_fam": "local", "path": "/run/a b%ff"})
    );
    let mut body = b"saddr=".to_vec();
    crate::encode::hex_upper(&mut body, b"\x01\x00\x00abcd\x00");
    let line = [b"type=SOCKADDR msg=audit(1.002:9): ".as_slice(), &body].concat();
    let v = json_of(None, &[&line]);
    assert_eq!(v["SOCKADDR"]["SADDR"]["path"], "abcd");
}

#[test]
fn user_and_daemon_messages() {
    let v = one("type=USER_AUTH msg=audit(1.002:3): pid=7 uid=0 auid=1000 ses=2 msg='op=PAM:authentication grantors=pam_unix acct=\"root\" exe=\"/usr/bin/su\" hostname=? addr=? terminal=pts/0 res=success'");
    let r = &v["USER_AUTH"];
    assert!(r.is_object(), "{v}");
    assert_eq!(
        (&r["pid"], &r["auid"], &r["AUID"]),
        (&json!(7), &json!(1000), &json!("alice"))
    );
    assert_eq!(r["msg"]["op"], "PAM:authentication");
    assert_eq!(r["msg"]["acct"], "root");
    assert_eq!(r["msg"]["hostname"], Value::Null);
    assert_eq!(r["msg"]["res"], "success");
    let v = one("type=USER msg=audit(1.002:3): pid=7 uid=0 auid=0 ses=2 msg='hello world'");
    assert_eq!(v["USER"]["msg"], "hello world");
    let v = one("type=USER msg=audit(1.002:3): pid=7 uid=0 auid=0 ses=2 msg='text=it's a b exe=\"/usr/sbin/auditctl\" res=success'");
    assert_eq!(v["USER"]["msg"]["text"], "it's a b");
    assert_eq!(v["USER"]["msg"]["exe"], "/usr/sbin/auditctl");
    // User space's text is bytes: what is not UTF-8 is escaped.
    let v = json_of(
        None,
        &[b"type=USER msg=audit(1.002:3): pid=7 msg='text=caf\xe9 100%'"],
    );
    assert_eq!(v["USER"]["msg"]["text"], "caf%e9 100%25");
    let v = one("type=DAEMON_START msg=audit(1.002:3): op=start ver=3.0.9 format=json kernel=6.1.0 auid=4294967295 pid=9 uid=0 ses=4294967295 res=success");
    assert_eq!(
        (
            &v["DAEMON_START"]["ver"],
            &v["DAEMON_START"]["pid"],
            &v["DAEMON_START"]["res"]
        ),
        (&json!("3.0.9"), &json!(9), &json!("success"))
    );
    let v = one("type=LOGIN msg=audit(1.002:3): pid=5 uid=0 old-auid=4294967295 auid=0 tty=(none) old-ses=4294967295 ses=1 res=1");
    assert_eq!(
        (&v["LOGIN"]["res"], &v["LOGIN"]["OLD-AUID"]),
        (&json!(1), &json!("unset"))
    );
}

#[test]
fn an_unset_id_is_one_number_in_every_record_type() {
    // The kernel writes an unset id as 4294967295 (SYSCALL, DAEMON_START);
    // auditd writes DAEMON_END's unknown sender as -1. A SIEM indexes one
    // number for one meaning; a pid of -1 ("no process") stays -1.
    let start = one("type=DAEMON_START msg=audit(1.002:3): op=start ver=3.0.9 format=json kernel=6.1.0 auid=4294967295 pid=9 uid=0 ses=4294967295 res=success");
    let end = one("type=DAEMON_END msg=audit(1.002:4): op=terminate auid=-1 uid=-1 ses=-1 pid=-1 subj=? res=success");
    let unset = json!(4294967295u64);
    for field in ["auid", "ses"] {
        assert_eq!(start["DAEMON_START"][field], unset, "{field}");
    }
    for field in ["auid", "uid", "ses"] {
        assert_eq!(end["DAEMON_END"][field], unset, "{field}");
    }
    assert_eq!(end["DAEMON_END"]["pid"], json!(-1));
    assert_eq!(end["DAEMON_END"]["AUID"], json!("unset"));
    // Every id field reads -1 the same way; other numbers stay signed.
    let v = one(
        "type=USER msg=audit(1.002:5): pid=7 uid=-1 auid=-1 ses=-1 msg='op=x gid=-1 res=success'",
    );
    assert_eq!(
        (&v["USER"]["uid"], &v["USER"]["auid"], &v["USER"]["ses"]),
        (&unset, &unset, &unset)
    );
    assert_eq!(v["USER"]["msg"]["gid"], unset);
    let v = one("type=SYSCALL msg=audit(1.002:6): arch=c000003e syscall=2 success=no exit=-1 items=0 ppid=1 pid=2 auid=-1 uid=0 ses=-1");
    assert_eq!(v["SYSCALL"]["exit"], json!(-1));
}

#[test]
fn lists_for_types_that_repeat() {
    let v = json_of(
        None,
        &[
            b"type=CONFIG_CHANGE msg=audit(1.002:3): auid=0 ses=1 op=add_rule key=\"k\" list=4 res=1",
            b"type=CONFIG_CHANGE msg=audit(1.002:3): audit_enabled=1 old=0 auid=0 ses=1 res=1",
            b"type=UNKNOWN[1999] msg=audit(1.002:3): x=1",
        ],
    );
    assert_eq!(v["CONFIG_CHANGE"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["CONFIG_CHANGE"][0]["key"], json!(["k"]));
    assert_eq!(v["CONFIG_CHANGE"][1]["audit_enabled"], 1);
    assert_eq!(v["UNKNOWN[1999]"], json!([{"x": "1"}]));
    // A type written once, twice after all: kept, as a list.
    let v = json_of(
        None,
        &[
            b"type=CWD msg=audit(1.002:3): cwd=\"/a\"",
            b"type=CWD msg=audit(1.002:3): cwd=\"/b\"",
        ],
    );
    assert_eq!(v["CWD"], json!([{"cwd": "/a"}, {"cwd": "/b"}]));
}

#[test]
fn values_that_do_not_read_as_their_kind_stay_as_written() {
    let v = one("type=MMAP msg=audit(1.002:3): fd=-1 flags=0x22");
    assert_eq!(v["MMAP"], json!({"fd": -1, "flags": "0x22"}));
    let v = one("type=OPENAT2 msg=audit(1.002:3): oflag=0100 mode=00 resolve=0x8");
    assert_eq!(
        v["OPENAT2"],
        json!({"oflag": "0o100", "mode": "0o0", "resolve": "0x8"})
    );
    let v = one(
        "type=X msg=audit(1.002:3): pid=abc mode=9 arch=zz exit=99999999999999999999999 note='a b'",
    );
    assert_eq!(
        v["X"][0],
        json!({"pid": "abc", "mode": "9", "arch": "zz", "exit": "99999999999999999999999", "note": "a b", "ARCH": "?"})
    );
    // Words before any field.
    let v = one("type=AVC msg=audit(1.002:3): avc:  denied  { read } for pid=3 comm=\"cat\"");
    assert_eq!(v["AVC"][0]["text"], "avc: denied { read } for");
    assert_eq!(v["AVC"][0]["pid"], 3);
}

#[test]
fn escaping_marks_what_is_not_utf8() {
    assert_eq!(percent(b"/tmp/plain"), "/tmp/plain");
    assert_eq!(percent("é €".as_bytes()), "é €");
    assert_eq!(percent(b"\xff\xfe"), "%ff%fe");
    assert_eq!(percent(b"a%b+c"), "a%25b%2bc");
    assert_eq!(percent(b"nl\n\ttab\x7f"), "nl%0a%09tab%7f");
    // A file literally named "%ff" is not the byte 0xff.
    assert_ne!(percent(b"%ff"), percent(b"\xff"));
    // Truncated UTF-8 (a 128-byte PROCTITLE cut inside a letter).
    assert_eq!(percent(b"caf\xc3"), "caf%c3");
    let v = one("type=SYSCALL msg=audit(1.002:3): comm=FF00 exe=\"/%ff\"");
    assert_eq!(
        (&v["SYSCALL"]["comm"], &v["SYSCALL"]["exe"]),
        (&json!("%ff%00"), &json!("/%25ff"))
    );
}

#[test]
fn stats_close_the_stream() {
    let s = Stamp {
        sec: 5,
        msec: 7,
        serial: 99,
    };
    let line = stats(
        Some("n"),
        s,
        &[("bpf_events_lost", 0), ("bpf_events_logged", 3)],
    );
    let v: Value = serde_json::from_slice(&line).unwrap();
    assert_eq!(
        v,
        json!({"ID": "5.007:0", "NODE": "n", "STATS": {"bpf_events_lost": 0, "bpf_events_logged": 3}})
    );
    let text = String::from_utf8(line).unwrap();
    assert!(text.find("bpf_events_lost") < text.find("bpf_events_logged"));
}

#[test]
fn raw_and_enriched_lines_parse_alike() {
    let raw =
        b"node=h type=LOGIN msg=audit(1.002:3): pid=5 uid=0 old-auid=4294967295 auid=0 res=1\n";
    let enriched = b"node=h type=LOGIN msg=audit(1.002:3): pid=5 uid=0 old-auid=4294967295 auid=0 res=1\x1dUID=\"root\"\n";
    assert_eq!(parse_line(raw), parse_line(enriched));
    let (r, s) = parse_line(raw).unwrap();
    assert_eq!((r.ty.as_str(), s.serial), ("LOGIN", 3));
    let f: Vec<(&[u8], &[u8])> = fields(b"a=1  b=\"x y\" c='p q' d msg='e='f' g'");
    assert_eq!(
        f,
        [
            (&b"a"[..], &b"1"[..]),
            (b"b", b"\"x y\""),
            (b"c", b"'p q'"),
            (b"", b"d"),
            (b"msg", b"'e='f' g'"),
        ]
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Any bytes: the escaped form decodes back to them, and holds no
    /// control character and no `%` that does not start an escape.
    #[test]
    fn any_bytes_round_trip_through_the_escape(b in proptest::collection::vec(any::<u8>(), 0..64)) {
        let s = percent(&b);
        prop_assert!(!s.bytes().any(|c| c < 0x20 || c == 0x7f || c == b'+'));
        prop_assert_eq!(unpercent(&s), Some(b.clone()));
        if let Ok(text) = std::str::from_utf8(&b) {
            if !text.contains(['%', '+']) && !text.chars().any(|c| c < ' ' || c == '\x7f') {
                prop_assert_eq!(s, text);
            }
        }
    }

    /// Any bytes as a file name the kernel logs (quoted or hex): PATH's
    /// `name` in JSON decodes back to them.
    #[test]
    fn any_file_name_round_trips(name in proptest::collection::vec(any::<u8>(), 1..48)) {
        let mut line = b"type=PATH msg=audit(1.002:3): item=0 name=".to_vec();
        untrusted(&mut line, &name);
        line.extend_from_slice(b" inode=1 nametype=NORMAL");
        let v = json_of(None, &[&line]);
        let got = v["PATH"][0]["name"].as_str().unwrap_or_default().to_string();
        prop_assert_eq!(unpercent(&got), Some(name));
    }

}

proptest! {
    // Long arguments make each case slow: fewer of them.
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Any argument list, written as the kernel writes EXECVE (long
    /// arguments in pieces, over several records): ARGV decodes back to it.
    #[test]
    fn any_argv_round_trips(
        args in proptest::collection::vec(
            prop_oneof![
                proptest::collection::vec(1u8..=255, 0..12),
                proptest::collection::vec(1u8..=255, 7000..9000),
            ],
            1..4,
        )
    ) {
        let mut area = Vec::new();
        for a in &args {
            area.extend_from_slice(a);
            area.push(0);
        }
        let argc = u32::try_from(args.len()).unwrap_or(0);
        let lines: Vec<Vec<u8>> = crate::execve::bodies(argc, &area)
            .into_iter()
            .map(|b| [b"type=EXECVE msg=audit(1.002:3): ".as_slice(), &b].concat())
            .collect();
        let refs: Vec<&[u8]> = lines.iter().map(Vec::as_slice).collect();
        let v = json_of(None, &refs);
        let argv: Vec<Option<Vec<u8>>> = v["EXECVE"]["ARGV"]
            .as_array()
            .map(|a| a.iter().map(|s| unpercent(s.as_str().unwrap_or("?"))).collect())
            .unwrap_or_default();
        prop_assert_eq!(v["EXECVE"]["argc"].as_u64(), Some(args.len() as u64));
        prop_assert_eq!(argv, args.into_iter().map(Some).collect::<Vec<_>>());
    }
}
