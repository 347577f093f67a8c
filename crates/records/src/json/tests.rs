//! JSON records against RAW lines written by the kernel and auditd.

use super::*;

struct Ids;

impl Names for Ids {
    fn user(&self, uid: u32) -> Option<String> {
        (uid == 1000).then(|| "alice".into())
    }
    fn group(&self, _: u32) -> Option<String> {
        None
    }
}

fn one(line: &str) -> Value {
    let (r, stamp) = parse_line(line).expect("a RAW line");
    let text = String::from_utf8(event(Some("web-1"), stamp, &[r], &Ids)).unwrap();
    assert!(text.ends_with('\n') && !text[..text.len() - 1].contains('\n'));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn syscall_fields_decoded_and_interpreted() {
    let v = one("type=SYSCALL msg=audit(1700000000.005:2147483650): arch=c000003e syscall=268 success=yes exit=0 a0=ffffff9c a1=7ffd a2=3eb a3=0 items=1 ppid=1 pid=2 auid=1000 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=4294967295 comm=\"t\" exe=2F746D702F6120622F74 key=6B61016B62");
    assert_eq!(v["kind"], "event");
    assert_eq!(v["time"], "1700000000.005");
    assert_eq!(v["serial"], 2147483650u64);
    assert_eq!(v["node"], "web-1");
    let r = &v["records"][0];
    assert_eq!(r["type"], "SYSCALL");
    assert_eq!(r["syscall"], "268");
    assert_eq!(r["SYSCALL"], "fchmodat");
    assert_eq!(r["ARCH"], "x86_64");
    assert_eq!(r["AUID"], "alice");
    assert_eq!(r["UID"], "root");
    assert_eq!(r["comm"], "t");
    assert_eq!(r["exe"], "/tmp/a b/t");
    assert_eq!(r["tty"], "(none)");
    assert_eq!(r["key"], serde_json::json!(["ka", "kb"]));
}

#[test]
fn proctitle_execve_and_user_messages() {
    let v =
        one("type=PROCTITLE msg=audit(1.002:3): proctitle=2F62696E2F7368002D63006563686F20782079");
    assert_eq!(
        v["records"][0]["ARGV"],
        serde_json::json!(["/bin/sh", "-c", "echo x y"])
    );
    let v = one("type=EXECVE msg=audit(1.002:3): argc=3 a0=\"ls\" a1=2D6C2061 a2_len=4 a2[0]=6162 a2[1]=6364");
    assert_eq!(
        v["records"][0]["ARGV"],
        serde_json::json!(["ls", "-l a", "abcd"])
    );
    assert_eq!(v["records"][0]["a1"], "-l a");
    let v = one("type=USER_AUTH msg=audit(1.002:3): pid=7 uid=0 auid=1000 ses=2 msg='op=PAM:authentication grantors=pam_unix acct=\"root\" exe=\"/usr/bin/su\" hostname=? addr=? terminal=pts/0 res=success'");
    let r = &v["records"][0];
    assert_eq!(r["msg"]["op"], "PAM:authentication");
    assert_eq!(r["msg"]["acct"], "root");
    assert_eq!(r["msg"]["res"], "success");
    let v = one("type=USER msg=audit(1.002:3): pid=7 uid=0 auid=0 ses=2 msg='hello world'");
    assert_eq!(v["records"][0]["msg"], "hello world");
    let v = one("type=USER msg=audit(1.002:3): pid=7 uid=0 auid=0 ses=2 msg='text=a b c exe=\"/usr/sbin/auditctl\" res=success'");
    assert_eq!(v["records"][0]["msg"]["text"], "a b c");
    assert_eq!(v["records"][0]["msg"]["exe"], "/usr/sbin/auditctl");
    let v = one("type=SYSCALL msg=audit(1.002:3): arch=c000003e syscall=1 key=(null)");
    assert_eq!(v["records"][0]["key"], serde_json::json!([]));
    // Not UTF-8: left as the kernel's hex.
    let v = one("type=SYSCALL msg=audit(1.002:3): comm=FF00");
    assert_eq!(v["records"][0]["comm"], "FF00");
}

#[test]
fn raw_and_enriched_lines_parse_alike() {
    let raw =
        "node=h type=LOGIN msg=audit(1.002:3): pid=5 uid=0 old-auid=4294967295 auid=0 res=1\n";
    let enriched = "node=h type=LOGIN msg=audit(1.002:3): pid=5 uid=0 old-auid=4294967295 auid=0 res=1\x1dUID=\"root\"\n";
    assert_eq!(parse_line(raw), parse_line(enriched));
    let (r, s) = parse_line(raw).unwrap();
    assert_eq!((r.ty.as_str(), s.serial), ("LOGIN", 3));
    assert_eq!(
        fields("a=1  b=\"x y\" c='p q' d"),
        [
            ("a".to_string(), "1".to_string()),
            ("b".into(), "\"x y\"".into()),
            ("c".into(), "'p q'".into()),
            ("".into(), "d".into())
        ]
    );
}
