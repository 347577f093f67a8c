//! Property tests: the whole pipeline (lines, options, fields, kernel checks,
//! listing) never panics, whatever bytes a rules file holds, and every
//! refusal names the line.

use fastaudit_rules::tables::Machine;
use fastaudit_rules::{lexer, Host, Origin, RuleSet};
use proptest::prelude::*;
use std::io;

/// A host with fixed answers, so the properties do not depend on the machine.
struct FakeHost;

impl Host for FakeHost {
    fn machine(&self) -> Option<Machine> {
        Some(Machine::X86_64)
    }
    fn user_id(&self, name: &[u8]) -> Option<u32> {
        (name == b"root").then_some(0)
    }
    fn group_id(&self, name: &[u8]) -> Option<u32> {
        (name == b"wheel").then_some(10)
    }
    fn is_dir(&self, path: &[u8]) -> bool {
        path.ends_with(b"dir")
    }
    fn lookup(&self, path: &[u8]) -> io::Result<()> {
        if path.starts_with(b"/etc") {
            Ok(())
        } else {
            Err(io::Error::from(io::ErrorKind::NotFound))
        }
    }
}

fn run_all(data: &[u8]) {
    let mut set = RuleSet::default();
    for line in lexer::lines(data) {
        let origin = Origin {
            file: "fuzz.rules".into(),
            line: line.lineno,
        };
        if let Err(e) = set.apply_words(&line.words, &origin, &FakeHost) {
            assert!(e
                .to_string()
                .starts_with(&format!("fuzz.rules:{}: ", line.lineno)));
        }
    }
    let mut out = Vec::new();
    set.write_listing(&mut out, &FakeHost)
        .expect("listing to memory");
    assert!(out.ends_with(b"\n"));
}

const TOKENS: &[&str] = &[
    "-a",
    "-A",
    "-d",
    "-D",
    "-w",
    "-W",
    "-S",
    "-F",
    "-C",
    "-k",
    "-p",
    "-e",
    "-b",
    "-f",
    "-r",
    "-i",
    "-c",
    "-l",
    "-s",
    "-v",
    "-m",
    "-q",
    "-t",
    "-R",
    "-U",
    "--backlog_wait_time",
    "--loginuid-immutable",
    "--reset-lost",
    "--signal",
    "--",
    "always,exit",
    "exit,always",
    "never,task",
    "always,io_uring",
    "never,user",
    "always,exclude",
    "never,filesystem",
    "arch=b64",
    "arch=b32",
    "open",
    "all",
    "openat,read",
    "uid=0",
    "auid!=unset",
    "a0&=3",
    "exit=-EPERM",
    "key=k",
    "path=/etc/x",
    "dir=/etc",
    "perm=wa",
    "msgtype=SYSCALL",
    "fstype=tracefs",
    "uid=euid",
    "/etc/passwd",
    "/tmp/x/",
    "rwxa",
    "0",
    "1",
    "2",
    "x",
    "#",
    "\\ ",
    "\t",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..400)) {
        run_all(&data);
    }

    #[test]
    fn token_soup_never_panics(lines in prop::collection::vec(prop::collection::vec(prop::sample::select(TOKENS), 0..10), 0..12)) {
        let text = lines.iter().map(|l| l.join(" ")).collect::<Vec<_>>().join("\n");
        run_all(text.as_bytes());
    }
}
