//! Generated rules (lists × fields × operators × values) compared against
//! the real kernel audit: the same lines refused, the same listing.

mod common;
use common::*;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

const LISTS: &[&str] = &[
    "-a always,exit",
    "-a exit,always",
    "-a never,exit",
    "-A always,exit",
    "-d always,exit",
    "-a always,task",
    "-a task,never",
    "-a always,user",
    "-a never,user",
    "-a always,exclude",
    "-a exclude,never",
    "-a never,filesystem",
    "-a always,filesystem",
    "-a always,entry",
    "-a possible,exit",
    "-a exit,possible",
    "-a always",
    "-A never,exit",
];
const ARCHES: &[&str] = &[
    "",
    "",
    "-F arch=b64",
    "-F arch=b32",
    "-F arch=x86_64",
    "-F arch=i686",
    "-F arch!=b64",
    "-F arch=0xc000003e",
    "-F arch=1073741827",
    "-F arch=aarch64",
    "-F arch=c000003e",
    "-F arch>b64",
    "-F arch=b65",
];
const SYSCALLS: &[&str] = &[
    "open",
    "openat",
    "chmod",
    "fchmodat",
    "execve",
    "socketcall",
    "all",
    "2",
    "5",
    "0x3b",
    "999",
    "2047",
    "OPEN",
    "rename,unlink",
    "open,,close",
    "nosuch",
    "fchmodat2",
    "read,all",
    "-1",
    "mount,umount2,umount",
];
const FIELDS: &[&str] = &[
    "pid",
    "uid",
    "euid",
    "suid",
    "fsuid",
    "gid",
    "egid",
    "sgid",
    "fsgid",
    "auid",
    "loginuid",
    "pers",
    "arch",
    "msgtype",
    "subj_user",
    "subj_role",
    "subj_type",
    "subj_sen",
    "subj_clr",
    "ppid",
    "obj_user",
    "obj_role",
    "obj_type",
    "obj_lev_low",
    "obj_lev_high",
    "sessionid",
    "devmajor",
    "devminor",
    "inode",
    "exit",
    "success",
    "path",
    "perm",
    "dir",
    "filetype",
    "fstype",
    "obj_uid",
    "obj_gid",
    "field_compare",
    "a0",
    "a1",
    "a2",
    "a3",
    "key",
    "exe",
    "saddr_fam",
    "UID",
    "bogus",
];
const OPS: &[&str] = &["=", "!=", "<", ">", "<=", ">=", "&", "&="];
const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "1000",
    "-1",
    "4294967295",
    "4294967296",
    "0x10",
    "077",
    "08",
    "unset",
    "root",
    "daemon",
    "nobody",
    "nosuchname",
    "EPERM",
    "-EACCES",
    "-eperm",
    "abc",
    "file",
    "dir",
    "fifo",
    "SYSCALL",
    "USER_LOGIN",
    "UNKNOWN[1300]",
    "1100",
    "tracefs",
    "debugfs",
    "r",
    "wa",
    "rwxa",
    "xw",
    "rwxaa",
    "q",
    "/etc/passwd",
    "/etc",
    "/etc/",
    "/tmp/nothing-here",
    "/nonexistent/x",
    "/usr/bin/ls",
    "relative",
    "system_u",
    "s0",
    "b64",
    "25",
    "45",
    "46",
    "-5",
    "99999999999",
    "7key",
];
const CMPS: &[&str] = &[
    "uid=euid",
    "auid!=obj_uid",
    "gid=sgid",
    "euid=suid",
    "fsgid!=obj_gid",
    "uid=gid",
    "sgid=sgid",
    "loginuid=fsuid",
    "uid<euid",
    "x=y",
];

fn pick(v: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    prop::sample::select(v)
}

fn field() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (pick(FIELDS), pick(OPS), pick(VALUES)).prop_map(|(f, o, v)| format!("-F {f}{o}{v}")),
        1 => pick(CMPS).prop_map(|c| format!("-C {c}")),
        1 => pick(VALUES).prop_map(|k| format!("-k {k}")),
        1 => (pick(&["r", "wa", "rwxa", "x", "z"])).prop_map(|p| format!("-p {p}")),
    ]
}

fn line() -> impl Strategy<Value = String> {
    let rule = (
        pick(LISTS),
        pick(ARCHES),
        prop::collection::vec(pick(SYSCALLS), 0..3),
        prop::collection::vec(field(), 0..4),
    )
        .prop_map(|(l, a, s, f)| {
            let mut parts = vec![l.to_string(), a.to_string()];
            parts.extend(s.iter().map(|s| format!("-S {s}")));
            parts.extend(f);
            parts
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        });
    let watch = (
        pick(&["-w", "-W"]),
        pick(&[
            "/etc/passwd",
            "/etc/",
            "/etc",
            "/tmp/nothing-here",
            "/nonexistent/x",
            "/",
            "//",
            "/etc//",
        ]),
        prop::collection::vec(field(), 0..3),
    )
        .prop_map(|(w, p, f)| format!("{w} {p} {}", f.join(" ")));
    prop_oneof![8 => rule, 2 => watch, 1 => Just("-D".to_string()), 1 => pick(VALUES).prop_map(|k| format!("-D -k {k}"))]
}

fn generated(seed_name: &str, count: usize) -> Vec<Vec<u8>> {
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &{
            let mut s = [0u8; 32];
            s[..seed_name.len().min(32)]
                .copy_from_slice(&seed_name.as_bytes()[..seed_name.len().min(32)]);
            s
        }),
    );
    (0..count)
        .map(|_| {
            line()
                .new_tree(&mut runner)
                .expect("generate")
                .current()
                .into_bytes()
        })
        .collect()
}

fn run(seed: &str, count: usize) {
    let ka = KernelAudit::acquire();
    let lines = generated(seed, count);
    if std::env::var_os("FASTAUDIT_DUMP").is_some() {
        std::fs::write(format!("/tmp/{seed}.rules"), lines.join(&b"\n"[..])).unwrap();
    }
    let diffs = differential(&ka, seed, &lines);
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

#[test]
fn generated_rules_match_auditctl_batch_a() {
    run("fastaudit-generated-a", 400);
}

#[test]
fn generated_rules_match_auditctl_batch_b() {
    run("fastaudit-generated-b", 400);
}
