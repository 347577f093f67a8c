//! The generated rule lines of the oracle tests: lists × arches × syscalls
//! × fields × operators × values, plus typed and edge-case lines, drawn
//! deterministically from a seed. Shared by `rules_generated` (against the
//! kernel) and `rules_golden` (a fixed sample recorded as goldens).

use fastaudit_rules::Target;
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

/// Fields with values of their own type, so most generated rules are accepted.
const TYPED: &[(&str, &[&str])] = &[
    (
        "uid",
        &[
            "0", "1000", "root", "daemon", "unset", "-1", "0x10", "65534",
        ],
    ),
    ("euid", &["0", "1000", "root"]),
    ("suid", &["0", "42"]),
    ("fsuid", &["0", "7"]),
    ("auid", &["0", "1000", "unset", "-1", "4294967295", "500"]),
    ("loginuid", &["1000", "unset"]),
    ("gid", &["0", "root", "daemon", "100"]),
    ("egid", &["0", "10"]),
    ("sgid", &["5"]),
    ("fsgid", &["6"]),
    ("obj_uid", &["0", "root"]),
    ("obj_gid", &["0", "root"]),
    ("pid", &["1", "1234"]),
    ("ppid", &["1", "99"]),
    ("pers", &["0", "8"]),
    ("sessionid", &["1", "unset", "-1", "x"]),
    (
        "exit",
        &[
            "0",
            "-1",
            "-EPERM",
            "-EACCES",
            "EPERM",
            "-ENOENT",
            "-EWOULDBLOCK",
            "13",
            "-13",
            "-200",
        ],
    ),
    ("success", &["0", "1", "2"]),
    (
        "a0",
        &["0", "1", "0x10", "-1", "4294967295", "0777", "99999999999"],
    ),
    ("a1", &["0", "0x1f"]),
    ("a2", &["0100", "03"]),
    ("a3", &["8"]),
    ("inode", &["1234", "4294967295"]),
    ("devmajor", &["8"]),
    ("devminor", &["1"]),
    (
        "filetype",
        &[
            "file",
            "dir",
            "socket",
            "link",
            "block",
            "character",
            "fifo",
            "FILE",
        ],
    ),
    ("path", &["/etc/passwd", "/etc/hosts", "/tmp/nothing-here"]),
    ("dir", &["/etc", "/etc/", "/tmp"]),
    ("perm", &["r", "w", "x", "a", "rwxa", "wa"]),
    ("exe", &["/usr/bin/ls", "/bin/sh", "/usr/bin/nothing-here"]),
    ("subj_type", &["unconfined_t", "crond_t"]),
    ("subj_user", &["system_u"]),
    ("subj_sen", &["s0"]),
    ("obj_type", &["etc_t"]),
    ("obj_lev_high", &["s0:c0.c1023"]),
    ("saddr_fam", &["2", "10", "45"]),
    ("key", &["k1", "identity", "a-b_c"]),
];

fn typed_field() -> impl Strategy<Value = String> {
    (
        prop::sample::select(TYPED),
        pick(&["=", "=", "=", "!=", ">=", "<=", "<", ">", "&", "&="]),
        any::<prop::sample::Index>(),
    )
        .prop_map(|((f, vals), o, i)| format!("-F {f}{o}{}", i.get(vals)))
}

fn typed_line() -> impl Strategy<Value = String> {
    (
        pick(&[
            "-a always,exit",
            "-a never,exit",
            "-A always,exit",
            "-a exit,always",
            "-d always,exit",
        ]),
        pick(&["-F arch=b64", "-F arch=b32", "-F arch=b64", ""]),
        prop::collection::vec(
            pick(&[
                "open",
                "openat",
                "chmod,fchmod",
                "execve",
                "all",
                "2",
                "5",
                "rename",
                "mount",
                "socketcall",
                "ipc",
                "999",
            ]),
            0..3,
        ),
        prop::collection::vec(
            prop_oneof![8 => typed_field(), 1 => pick(CMPS).prop_map(|c| format!("-C {c}"))],
            0..4,
        ),
        prop::collection::vec(pick(&["k1", "k2", "longer-key"]), 0..3),
    )
        .prop_map(|(l, a, s, f, k)| {
            let mut parts = vec![l.to_string(), a.to_string()];
            parts.extend(s.iter().map(|s| format!("-S {s}")));
            parts.extend(f);
            parts.extend(k.iter().map(|k| format!("-k {k}")));
            parts
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
}

fn other_list_line() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            pick(&[
                "-a always,user",
                "-a never,user",
                "-a always,exclude",
                "-a never,exclude"
            ]),
            prop::collection::vec(
                prop_oneof![
                    (
                        pick(&["msgtype"]),
                        pick(&["=", "!=", "<", ">="]),
                        pick(&[
                            "USER_LOGIN",
                            "SYSCALL",
                            "1100",
                            "CWD",
                            "UNKNOWN[1999]",
                            "PATH"
                        ])
                    )
                        .prop_map(|(f, o, v)| format!("-F {f}{o}{v}")),
                    (
                        pick(&["uid", "gid", "pid", "auid", "subj_type", "exe"]),
                        pick(&["=", "!="]),
                        pick(&["0", "root", "/usr/bin/ls", "1"])
                    )
                        .prop_map(|(f, o, v)| format!("-F {f}{o}{v}")),
                ],
                1..3
            )
        )
            .prop_map(|(l, f)| format!("{l} {}", f.join(" "))),
        (
            pick(&["-a always,filesystem", "-a never,filesystem"]),
            pick(&["tracefs", "debugfs", "61267", "0x9fa0"]),
            prop::option::of(pick(&["k1", "fs"]))
        )
            .prop_map(|(l, t, k)| format!(
                "{l} -F fstype={t}{}",
                k.map(|k| format!(" -k {k}")).unwrap_or_default()
            )),
        (
            pick(&["-a never,task", "-a always,task"]),
            prop::collection::vec(typed_field(), 0..2)
        )
            .prop_map(|(l, f)| format!("{l} {}", f.join(" "))),
    ]
}

/// Spelling and limit edge cases: attached values, escapes, tabs, operator
/// characters inside values, many fields, long keys.
fn syntax_line() -> impl Strategy<Value = String> {
    prop_oneof![
        pick(&[
            "-aalways,exit -Farch=b64 -Sopen -kattached",
            "-A exit,always -F arch=b64 -S open -k a=b",
            "-a always,exit -F arch=b64 -S open -F key=a=b",
            "-a always,exit -F arch=b64 -S open -F key=a!=b",
            "-a always,exit -F arch=b64 -S open -F key=",
            "-a always,exit -F arch=b64 -S open -F key",
            "-a always,exit -F arch=b64 -S open -k has\\ space",
            "-a always,exit -F arch=b64 -S open -k back\\\\slash",
            "-a always,exit -F arch=b64 -S open\t-k tab",
            "-a always,exit\t-F arch=b64 -S open",
            "-a always,exit -F arch=b64 -S open -k #hash",
            "-a always,exit -F arch=b64 -S open -F path=/etc/../etc/passwd",
            "-a always,exit -F arch=b64 -S open -F path=/etc/pass*",
            "-w /etc/pass?d -p w",
            "-w /etc/../etc/hosts -p r",
            "-a always,exit -F arch=b64 -S open -F uid<=1000 -F uid>=1000",
            "-a always,exit -F arch=b64 -S open -F a0=-0x10 -F a1=+5",
            "-a always,exit -F arch=b64 -S open -F exit=-0x10",
            "-a always,exit -F arch=b64 -S open -F exit=+1",
            "-a always,exit -F arch=b64 -S open -F uid=1e3",
            "-a always,exit -F arch=b64 -S open -F success=-1",
            "-a always,exit -F arch=b64 -S 0x101,0b1,010",
            "-a always,exit -F arch=b64 -S ,open,",
            "-a always,exit -F arch=B64 -S Open",
            "-a always,exit -F arch=X86_64 -S open",
            "-a ALWAYS,exit -S open",
            "-a always,EXIT -S open",
            "-a always,exit -F arch=b64 -S open -- -k x",
            "-a always,exit -F arch=b64 -S open -k",
            "-a always,exit -F arch=b64 -S",
            "-a",
            "-w",
            "-w /etc/passwd -p",
            "-w /etc/passwd -p ''",
            "-w /etc/passwd -k x -p ra",
            "-w /etc/passwd -p w -p r",
            "-W /etc/passwd -p w -p r",
            "-w /etc/passwd -F uid=0",
            "-w /etc/passwd -S open",
            "-w /etc/passwd -C uid=euid",
            "-a always,exit -w /etc/passwd",
            "-a always,exit -F arch=b64 -S open -p r",
            "-a always,exit -F arch=b64 -S open -F perm=r -p w",
            "-a always,exit -F arch=b64 -F perm=r -p w -k permkey",
            "-a always,exit -F path=/etc/hosts -F path=/etc/passwd",
            "-a always,exit -F dir=/etc -F path=/etc/passwd",
            "-a always,exit -F inode=5 -F path=/etc/passwd",
            "-a always,exit -F path=/etc/passwd -F inode=5",
            "-a always,exit -F inode!=5 -F inode!=6",
            "-a always,exit -F exe=/usr/bin/ls -F exe=/bin/sh",
            "-a always,exit -F exe=/usr/bin/ls -k exekey",
            "-a never,exit -F exe!=/usr/bin/ls",
            "-a always,user -F exe=/usr/bin/ls",
            "-a always,exclude -F exe=/usr/bin/ls",
            "-a always,exclude -F msgtype=SYSCALL -k x",
            "-a always,user -F uid=0 -k x",
            "-a always,task -F uid=0 -k x",
            "-a never,filesystem -F fstype=tracefs -F fstype=debugfs",
            "-a never,filesystem -F fstype!=tracefs -k fskey",
            "-a always,exit -F arch=b64 -S open -F saddr_fam=abc",
            "-a always,exit -F arch=b64 -S open -F sessionid=abc",
            "-a always,exit -F arch=b64 -S open -F field_compare=3",
            "-a always,exit -F arch=b64 -S open -F field_compare=99",
            "-a always,exit -F arch=b64 -S open -F loginuid_set=1",
            "-a always,exit -F arch=b64 -S open -F devmajor&1",
            "-a always,exit -F arch=b64 -S open -F pers&=1",
            "-a always,exit -F arch=b64 -S open -F subj_sen>s0",
            "-a always,exit -F arch=b64 -S open -F subj_type>x",
            "-a always,exit -F arch=b64 -S open -F obj_lev_low&s0",
        ])
        .prop_map(str::to_string),
        (1usize..70).prop_map(|n| {
            let fields: Vec<String> = (0..n).map(|i| format!("-F a{}={i}", i % 4)).collect();
            format!("-a always,exit -F arch=b64 -S open {}", fields.join(" "))
        }),
        (1usize..40, 1usize..12).prop_map(|(n, len)| {
            let keys: Vec<String> = (0..n)
                .map(|i| format!("-k {}", "k".repeat(len) + &i.to_string()))
                .collect();
            format!("-a always,exit -F arch=b64 -S close {}", keys.join(" "))
        }),
        (250usize..260).prop_map(|n| format!(
            "-a always,exit -F arch=b64 -S close -F key={}",
            "x".repeat(n)
        )),
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
    prop_oneof![
        6 => rule,
        12 => typed_line(),
        3 => other_list_line(),
        4 => syntax_line(),
        2 => watch,
        1 => pick(&["k1", "k2", "ident"]).prop_map(|k| format!("-D -k {k}")),
    ]
}

/// `count` lines drawn from the generator seeded with `seed_name`, for
/// this machine ([`for_target`]).
pub fn generated(seed_name: &str, count: usize) -> Vec<Vec<u8>> {
    generated_for(crate::target::this_target(), seed_name, count)
}

/// `count` lines drawn from the generator seeded with `seed_name`, for
/// target `t`: the same draws on every target, each line as
/// [`for_target`] makes it.
pub fn generated_for(t: Target, seed_name: &str, count: usize) -> Vec<Vec<u8>> {
    drawn(seed_name, count)
        .into_iter()
        .map(|l| for_target(t, &l).into_bytes())
        .collect()
}

/// The generator's lists are written for x86_64. Elsewhere a line says
/// the same of its own machine: a syscall name its native table lacks
/// becomes the call made in its place (open: openat), where there is one
/// (a name no machine has stays, to be refused), and `-F arch=` values
/// naming x86_64 or i386 name this machine's native and compat ABIs (and
/// aarch64, the foreign machine on x86_64, becomes x86_64). On x86_64
/// the line is as drawn.
pub fn for_target(t: Target, line: &str) -> String {
    if t == Target::X86_64 {
        return line.to_string();
    }
    let arch = |v: &str| -> String {
        let native = t.audit_arch(false);
        let compat = t.audit_arch(true);
        match v {
            "x86_64" => t.native.name().to_string(),
            "X86_64" => t.native.name().to_ascii_uppercase(),
            "i686" => "armv7l".to_string(),
            "aarch64" => "x86_64".to_string(),
            "0xc000003e" => format!("{native:#x}"),
            "c000003e" => format!("{native:x}"),
            "1073741827" => compat.to_string(),
            _ => v.to_string(),
        }
    };
    let names = |list: &str| -> String {
        list.split(',')
            .map(|n| crate::target::spelled_on(t, false, n).unwrap_or(n))
            .collect::<Vec<_>>()
            .join(",")
    };
    let words: Vec<&str> = line.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let prev = if i > 0 { words[i - 1] } else { "" };
        let word = if prev == "-S" {
            names(w)
        } else if let Some(list) = w.strip_prefix("-S").filter(|l| !l.is_empty()) {
            format!("-S{}", names(list))
        } else if let Some((field, op, v)) = arch_test(w) {
            format!("{field}{op}{}", arch(v))
        } else {
            w.to_string()
        };
        out.push(word);
    }
    out.join(" ")
}

/// An `arch` field word (`arch=V`, `arch!=V`, attached `-Farch=V`) as
/// its field (with any `-F`), operator and value.
fn arch_test(w: &str) -> Option<(&str, &str, &str)> {
    let rest_at = w.find("arch")? + "arch".len();
    if !matches!(&w[..rest_at], "arch" | "-Farch") {
        return None;
    }
    let rest = &w[rest_at..];
    ["!=", "="]
        .into_iter()
        .find_map(|op| rest.strip_prefix(op).map(|v| (&w[..rest_at], op, v)))
}

/// The lines the generator draws from `seed_name`, as written.
fn drawn(seed_name: &str, count: usize) -> Vec<String> {
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
        .map(|_| line().new_tree(&mut runner).expect("generate").current())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_64_lines_are_as_drawn_and_arm64_lines_name_its_calls() {
        let x86 = generated_for(Target::X86_64, "fastaudit-generated-a", 400);
        let raw: Vec<Vec<u8>> = drawn("fastaudit-generated-a", 400)
            .into_iter()
            .map(String::into_bytes)
            .collect();
        assert_eq!(x86, raw);
        let arm = generated_for(Target::AARCH64, "fastaudit-generated-a", 400);
        assert_eq!(arm.len(), x86.len());
        assert_ne!(arm, x86);
        let t = Target::AARCH64;
        assert_eq!(
            for_target(
                t,
                "-a always,exit -F arch=b64 -S rename,unlink -S open,,close -k x"
            ),
            "-a always,exit -F arch=b64 -S renameat,unlinkat -S openat,,close -k x"
        );
        assert_eq!(
            for_target(
                t,
                "-aalways,exit -Farch=x86_64 -Sopen -F arch!=c000003e -S nosuch"
            ),
            "-aalways,exit -Farch=aarch64 -Sopenat -F arch!=c00000b7 -S nosuch"
        );
        assert_eq!(
            for_target(
                t,
                "-a always,exit -F arch=1073741827 -F arch=0xc000003e -F arch=aarch64"
            ),
            "-a always,exit -F arch=1073741864 -F arch=0xc00000b7 -F arch=x86_64"
        );
    }
}
