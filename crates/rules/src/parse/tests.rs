//! How each kind of option ends a line (the outcome enums), and one value
//! of each field family. The goldens (`tests/integration/golden.rs`) hold the full
//! comparison with auditctl; these name the cases.

use super::*;
use crate::abi::{arch, field, op, perm};
use crate::tables;
use crate::tables::Machine;
use std::io;

/// A fixed host: x86_64, user root and group wheel, nothing on disk.
struct Stub;

impl Host for Stub {
    fn machine(&self) -> Option<Machine> {
        Some(Machine::X86_64)
    }
    fn user_id(&self, name: &[u8]) -> Option<u32> {
        (name == b"root").then_some(0)
    }
    fn group_id(&self, name: &[u8]) -> Option<u32> {
        (name == b"wheel").then_some(10)
    }
    fn is_dir(&self, _: &[u8]) -> bool {
        false
    }
    fn lookup(&self, _: &[u8]) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::NotFound))
    }
}

fn parse(line: &str) -> Result<Parsed, SyntaxError> {
    let words: Vec<Vec<u8>> = line.split(' ').map(|w| w.as_bytes().to_vec()).collect();
    parse_words(&words, &Stub)
}

fn refusal(line: &str) -> String {
    match parse(line) {
        Err(e) => e.0,
        Ok(p) => panic!("{line} accepted: {p:?}"),
    }
}

/// The one field of an accepted `-a always,exit -F arch=b64 -S open -F <pair>`.
fn field_of(pair: &str) -> Field {
    let line = format!("-a always,exit -F arch=b64 -S open -F {pair}");
    match parse(&line).map(|p| p.request) {
        Ok(Some(Request::Add { rule, .. })) => rule.fields[1].clone(),
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn list_action_words() {
    assert!(matches!(
        parse("-A exit,always -F arch=b64 -S open").map(|p| p.request),
        Ok(Some(Request::Add { prepend: true, .. }))
    ));
    let p = parse("-a exit,possible -S open").expect("skipped, not refused");
    assert_eq!(p.request, None);
    assert_eq!(p.warnings.len(), 1);
    assert_eq!(
        refusal("-a possible,exit"),
        "-a possible,exit: bad list or action keyword"
    );
    assert_eq!(
        refusal("-d always,exit -a always,exit"),
        "multiple rule insert/delete operations are not allowed on one line"
    );
}

#[test]
fn how_lines_end() {
    // A syscall without a list: nothing pending, the end check refuses.
    assert_eq!(
        refusal("-S open"),
        "no list specified for the syscall (use -a or -A)"
    );
    // A query stops the scan: nothing is sent, later words are not options.
    let p = parse("-s").expect("status");
    assert_eq!((p.queries, p.request), (vec![Query::Status], None));
    // `-m` returns at once, skipping the end checks.
    let p = parse("-m hello").expect("message");
    assert_eq!(p.settings, vec![Setting::UserMessage(b"hello".to_vec())]);
    // A rule pending at the end becomes the request.
    assert!(matches!(
        parse("-w /etc/passwd -p wa").map(|p| p.request),
        Ok(Some(Request::Add { .. }))
    ));
}

#[test]
fn one_value_per_family() {
    assert_eq!(field_of("uid=root").value, 0);
    assert_eq!(field_of("auid=unset").value, abi::UNSET_ID);
    assert_eq!(field_of("gid=wheel").value, 10);
    let eperm = tables::errnos().lookup(b"EPERM").expect("EPERM known");
    assert_eq!(
        field_of("exit=-EPERM").value,
        (eperm as i32).wrapping_neg() as u32
    );
    assert_eq!(field_of("a0=-1").value, u32::MAX);
    assert_eq!(field_of("a1&=0x10").op, op::BIT_TEST);
    assert_eq!(field_of("inode=077").value, 0o77);
    assert_eq!(field_of("perm=wa").value, perm::WRITE | perm::ATTR);
    assert_eq!(
        Some(field_of("filetype=dir").value),
        tables::lookup_lower(tables::FILETYPES, b"dir")
    );
    let exe = field_of("exe=/usr/bin/ls");
    assert_eq!(
        (exe.field, exe.text.as_slice()),
        (field::EXE, &b"/usr/bin/ls"[..])
    );
    assert_eq!(
        refusal("-a always,exit -F arch=b64 -S open -F uid=nobody"),
        "-F uid: unknown user: nobody"
    );
    assert_eq!(
        refusal("-a always,exit -F arch=b64 -S open -F ppid=x"),
        "-F ppid: value must be numeric, was x"
    );
    assert_eq!(
        refusal("-a always,exit -S open -F arch=b32"),
        "-F arch: must be given before -S"
    );
    match parse("-a always,exit -F arch=b32 -S open").map(|p| p.request) {
        Ok(Some(Request::Add { rule, .. })) => assert_eq!(rule.fields[0].value, arch::I386),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unknown_names_get_the_nearest_known_one() {
    assert_eq!(
        refusal("-a always,exit -F arch=b64 -S opne"),
        "-S: syscall name unknown: opne (did you mean open?)"
    );
    // The names offered are those of the rule's arch (socketcall is i386's).
    assert_eq!(
        refusal("-a always,exit -F arch=b32 -S socketcal"),
        "-S: syscall name unknown: socketcal (did you mean socketcall?)"
    );
    // A real syscall of the other side of the machine: the arch to give.
    assert_eq!(
        refusal("-a always,exit -F arch=b64 -S socketcall"),
        "-S: syscall name unknown: socketcall (a syscall of i386: give -F arch=b32 before -S)"
    );
    // A real syscall this machine spells with(out) a number.
    assert_eq!(
        refusal("-a always,exit -F arch=b64 -S pread64"),
        "-S: syscall name unknown: pread64 (did you mean pread?)"
    );
    // A key with a space: the stray word is named as the rest of the key.
    let why = "a key cannot hold whitespace, as a rule line is split at whitespace and quotes do not group words";
    for (line, extra, key) in [
        (
            "-a always,exit -F arch=b64 -S openat -F key=has space",
            "space",
            "has",
        ),
        ("-w /etc/x -p wa -k \"a b\"", "b\"", "\"a"),
        ("-w /etc/x -kone two", "two", "one"),
        ("-a always,exit -S all -Fkey=k v", "v", "k"),
    ] {
        assert_eq!(
            refusal(line),
            format!("parameter passed without an option given: {extra} (it follows the key \"{key}\": {why})"),
            "{line}"
        );
    }
    // Any other stray word is named alone.
    assert_eq!(
        refusal("-w /etc/x -p wa extra"),
        "parameter passed without an option given: extra"
    );
    // A syscall newer than the tables is no typo of an older one.
    assert_eq!(
        refusal("-a always,exit -F arch=b64 -S fchmodat2"),
        "-S: syscall name unknown: fchmodat2 (a syscall newer than auditctl's table: on x86_64 give its number, -S 452)"
    );
    // The number is the machine's: x86_64 alone has map_shadow_stack.
    assert_eq!(
        refusal("-a always,exit -F arch=b32 -S cachestat"),
        "-S: syscall name unknown: cachestat (a syscall newer than auditctl's table: on i386 give its number, -S 451)"
    );
    assert_eq!(
        refusal("-a always,exit -F arch=b32 -S map_shadow_stack"),
        "-S: syscall name unknown: map_shadow_stack"
    );
    // What the hint says is accepted.
    assert!(parse("-a always,exit -F arch=b64 -S 452").is_ok());
    assert_eq!(
        refusal("-a always,exit -F arch=b64 -S open -F uidd=0"),
        "-F: unknown field: uidd (did you mean uid?)"
    );
    assert_eq!(
        refusal("-a always,exit -F arch=b64 -S open -C auid!=euidd"),
        "-C: unknown field: euidd (did you mean euid?)"
    );
    assert_eq!(
        refusal("-a alwyas,exit -S open"),
        "-a alwyas,exit: bad list or action keyword (did you mean always,exit?)"
    );
    assert_eq!(
        refusal("-a exit,nevr -S open"),
        "-a exit,nevr: bad list or action keyword (did you mean exit,never?)"
    );
    assert_eq!(
        refusal("-d always"),
        "-d always: bad list or action keyword (expected list,action, such as always,exit)"
    );
    assert_eq!(
        refusal("-a always,io_uring -U opnat"),
        "io_uring op unknown: opnat (did you mean openat?)"
    );
    // Nothing near: no guess.
    assert_eq!(
        refusal("-a always,exit -F arch=b64 -S zzzzzz"),
        "-S: syscall name unknown: zzzzzz"
    );
}

#[test]
fn hints_are_left_out_when_asked() {
    let words: Vec<Vec<u8>> = "-a always,exit -F arch=b64 -S opne"
        .split(' ')
        .map(|w| w.as_bytes().to_vec())
        .collect();
    assert_eq!(
        parse_words_with(&words, &Stub, false),
        Err(SyntaxError("-S: syscall name unknown: opne".into()))
    );
}

#[test]
fn malformed_operators_are_named() {
    let base = "-a always,exit -F arch=b64 -S open -F";
    assert_eq!(
        refusal(&format!("{base} uid=>0")),
        "-F uid=>0: malformed operator => (the operators are =, !=, <, >, <=, >=, &, &=); did you mean uid>=0?"
    );
    assert_eq!(
        refusal(&format!("{base} auid=<1000")),
        "-F auid=<1000: malformed operator =< (the operators are =, !=, <, >, <=, >=, &, &=); did you mean auid<=1000?"
    );
    assert_eq!(
        refusal(&format!("{base} uid<>0")),
        "-F uid<>0: malformed operator <> (the operators are =, !=, <, >, <=, >=, &, &=); did you mean uid!=0?"
    );
    assert_eq!(
        refusal(&format!("{base} pid==1")),
        "-F pid==1: malformed operator == (the operators are =, !=, <, >, <=, >=, &, &=); did you mean pid=1?"
    );
    assert_eq!(
        refusal(&format!("{base} a0=&&4")),
        "-F a0=&&4: malformed operator =&& (the operators are =, !=, <, >, <=, >=, &, &=)"
    );
    assert_eq!(
        refusal(&format!("{base} uid0")),
        "-F uid0: missing operator (one of =, !=, <, >, <=, >=, &, &=)"
    );
    // A valid operator keeps the value's own refusal.
    assert_eq!(
        refusal(&format!("{base} uid=nobody")),
        "-F uid: unknown user: nobody"
    );
    // What auditctl accepts is still accepted: an operator byte inside a
    // string value after a valid operator.
    let p = parse(&format!("{base} exe=/usr/bin/a<b")).expect("accepted");
    assert!(p.request.is_some());
}

#[test]
fn the_operator_list_names_every_operator() {
    let listed: std::collections::BTreeSet<&[u8]> = fields::OPERATOR_LIST
        .split(", ")
        .map(str::as_bytes)
        .collect();
    let known: std::collections::BTreeSet<&[u8]> =
        fields::OPS.iter().map(|(sym, _)| *sym).collect();
    assert_eq!(listed, known);
}
