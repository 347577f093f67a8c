//! Property tests: the whole pipeline (lines, options, fields, kernel checks,
//! listing) never panics, whatever bytes a rules file holds, and every
//! refusal names the line; for near-valid rule files (the shapes real sets
//! use, with values auditctl wraps or reads past), whatever is accepted
//! lists and re-parses to the same listing, warnings never change the
//! listing, and `--strict` accepts exactly the inputs with no warning.
//! Bad input: a file that is no plain text is refused whole, in one
//! message; what a refusal suggests ("did you mean ...") is accepted in
//! its place; the printed report stays bounded and counts every message.

use fastaudit_rules::parse::parse_words;
use fastaudit_rules::tables::{self, Machine};
use fastaudit_rules::warning::Warning;
use fastaudit_rules::{content, lexer, report, Host, LineError, Origin, RuleSet};
use proptest::prelude::*;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

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

/// Pieces of near-valid lines: (usual values, odd ones), from what real
/// rule sets hold and values auditctl wraps, reads past or refuses. Odd
/// values are picked one time in eight, so most files load.
type Choices = (&'static [&'static str], &'static [&'static str]);
const LISTS: Choices = (
    &["always,exit", "never,exit", "exit,always"],
    &[
        "always,task",
        "never,exclude",
        "always,user",
        "possible,exit",
    ],
);
const ARCHES: Choices = (
    &["b64", "b32"],
    &["x86_64", "i386", "c000003e", "3221225534x", "b16"],
);
const SYSCALLS: Choices = (
    &["open", "openat", "chmod,fchmod", "unlink,rename", "all"],
    &["12abc", "4294967298", "2147483648", "0x101", "-1", "nosuch"],
);
const FIELDS: Choices = (
    &[
        "uid",
        "auid",
        "euid",
        "pid",
        "a0",
        "a1",
        "exit",
        "success",
        "sessionid",
        "pers",
    ],
    &[
        "gid",
        "ppid",
        "msgtype",
        "perm",
        "path",
        "dir",
        "exe",
        "arch",
        "saddr_fam",
    ],
);
const OPS: Choices = (&["=", "!=", ">="], &["<", "&", "&=", ">", "<="]);
const VALUES: Choices = (
    &[
        "0",
        "1",
        "1000",
        "4294967295",
        "1000abc",
        "4294967296",
        "0x10",
    ],
    &[
        "unset",
        "root",
        "x",
        "-1",
        "-2",
        "0x10000000000000000",
        "99999999999999999999999",
        "08",
        "wheel",
        "-EPERM",
        "EACCES",
        "wa",
        "/etc/passwd",
        "/etc/ssh",
        "/tmp/x",
        "SYSCALL",
        "UNKNOWN[1300]",
        "k\x01y",
    ],
);

/// One near-valid line from random numbers (each below 64).
fn near_valid_line(choice: &[usize]) -> String {
    let c = |i: usize| choice.get(i).copied().unwrap_or(0);
    let pick = |t: Choices, i: usize| {
        let (usual, odd) = t;
        if c(i) % 8 == 0 {
            odd[(c(i) / 8) % odd.len()]
        } else {
            usual[c(i) % usual.len()]
        }
    };
    match c(0) % 8 {
        0 => format!(
            "-w {} -p {} -k {}",
            pick(
                (
                    &["/etc/passwd", "/etc/ssh/"],
                    &["/etc/x\\r", "/tmp/y", "/etc/a..b"]
                ),
                1
            ),
            pick((&["wa", "rwxa"], &["x", "q"]), 2),
            pick(VALUES, 3)
        ),
        1 => format!(
            "{} {}",
            pick((&["-b", "-r", "--backlog_wait_time"], &["-f", "-e"]), 1),
            pick(VALUES, 2)
        ),
        2 => format!("-D -k {}", pick(VALUES, 1)),
        _ => {
            let mut line = format!(
                "-{} {} -F arch={} -S {}",
                pick((&["a", "a", "A"], &["d"]), 1),
                pick(LISTS, 2),
                pick(ARCHES, 3),
                pick(SYSCALLS, 4)
            );
            for k in 0..c(5) % 4 {
                line.push_str(&format!(
                    " -F {}{}{}",
                    pick(FIELDS, 6 + 3 * k),
                    pick(OPS, 7 + 3 * k),
                    pick(VALUES, 8 + 3 * k)
                ));
            }
            if c(18) % 2 == 0 {
                line.push_str(&format!(" -k {}", pick(VALUES, 19)));
            }
            line
        }
    }
}

fn listing(set: &RuleSet) -> String {
    let mut out = Vec::new();
    set.write_listing(&mut out, &FakeHost)
        .expect("listing to memory");
    String::from_utf8_lossy(&out).into_owned()
}

/// A rules file of `text` in a directory of its own (the test process's).
fn rules_file(text: &[u8]) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("fa-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let f = dir.join(format!("{}.rules", N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&f, text).expect("write rules");
    f
}

fn check_near_valid(text: &str) {
    let file = rules_file(text.as_bytes());
    let name = file.display().to_string();
    let loose = RuleSet::load_with(std::slice::from_ref(&file), &FakeHost, false);
    let strict = RuleSet::load_with(std::slice::from_ref(&file), &FakeHost, true);
    let _ = std::fs::remove_file(&file);
    for e in loose
        .as_ref()
        .err()
        .into_iter()
        .chain(strict.as_ref().err())
        .flat_map(|e| &e.errors)
    {
        assert!(
            e.to_string().starts_with(&format!("{name}:")) && e.origin.file == file,
            "refusal without its file: {e}"
        );
    }
    let Ok(set) = loose else {
        assert!(strict.is_err(), "--strict accepts what is refused: {text}");
        return;
    };
    let listed = listing(&set);
    match strict {
        Ok(strict_set) => {
            assert!(
                set.warnings.is_empty(),
                "--strict accepted warnings: {text}"
            );
            assert_eq!(listing(&strict_set), listed);
        }
        Err(_) => assert!(
            !set.warnings.is_empty(),
            "--strict refused a clean input: {text}"
        ),
    }
    // Every accepted rule lists as a line that loads back to itself, but
    // for auditctl's own quirk: fields it reads as non-negative numbers
    // only (success, pid, ppid, pers ...) it prints signed, so a value of
    // 2^31 or more lists as a negative number it would refuse.
    let (back, signed): (Vec<&str>, Vec<&str>) = listed
        .lines()
        .filter(|l| *l != "No rules")
        .partition(|l| !prints_signed_plain_number(l));
    for line in signed {
        let f = rules_file(format!("{line}\n").as_bytes());
        let r = RuleSet::load(std::slice::from_ref(&f), &FakeHost);
        let _ = std::fs::remove_file(&f);
        let refused = r.err().map(|e| e.errors).unwrap_or_default();
        assert!(
            refused
                .iter()
                .any(|e| e.message.contains("value must be numeric")),
            "{line}: {refused:?}"
        );
    }
    if !back.is_empty() {
        let again = rules_file((back.join("\n") + "\n").as_bytes());
        let reparsed = RuleSet::load(std::slice::from_ref(&again), &FakeHost);
        let _ = std::fs::remove_file(&again);
        // Only `-A` can hold a rule twice (the kernel never finds a rule
        // being prepended already there); `-a` refuses the copy on reload.
        let twice = back.len() > back.iter().collect::<std::collections::HashSet<_>>().len();
        match reparsed {
            Ok(r) => assert_eq!(
                listing(&r).lines().collect::<Vec<_>>(),
                back,
                "from:\n{text}"
            ),
            Err(e) if twice => assert!(
                e.errors
                    .iter()
                    .all(|e| e.message.starts_with("rule exists")),
                "{:?}",
                e.errors
            ),
            Err(e) => panic!(
                "the listing does not load back: {:?}\nlisting:\n{listed}from:\n{text}",
                e.errors
            ),
        }
    }
}

/// Whether a listed rule has a negative value for a field auditctl reads
/// only from a leading digit.
fn prints_signed_plain_number(line: &str) -> bool {
    const DIGITS_ONLY: &[&str] = &[
        "pid", "ppid", "pers", "success", "gid", "egid", "sgid", "fsgid", "obj_gid", "devmajor",
        "devminor", "inode", "msgtype",
    ];
    line.split(" -F ").skip(1).any(|pair| {
        let name_end = pair.find(['=', '!', '<', '>', '&']).unwrap_or(pair.len());
        let value = pair[name_end..].trim_start_matches(['=', '!', '<', '>', '&']);
        DIGITS_ONLY.contains(&&pair[..name_end]) && value.starts_with('-')
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn near_valid_files_list_and_reparse_the_same(
        lines in prop::collection::vec(prop::collection::vec(0usize..64, 20), 1..5)
    ) {
        let text: String = lines.iter().map(|c| near_valid_line(c) + "\n").collect();
        check_near_valid(&text.replace("\\r", "\r").replace("\\x01", "\x01"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Bytes that are no plain text (a NUL, a line ending in CR) are
    /// refused whole: one message, for the file, nothing else; plain text
    /// is never refused for its bytes.
    #[test]
    fn text_that_is_not_plain_is_one_refusal(
        data in prop::collection::vec(
            prop::sample::select(b"-wa /etc\r\n\0x#".to_vec()), 0..120)
    ) {
        let file = rules_file(&data);
        let loaded = RuleSet::load(std::slice::from_ref(&file), &FakeHost);
        let _ = std::fs::remove_file(&file);
        match content::check(&data) {
            Err(why) => {
                let e = loaded.expect_err("refused");
                prop_assert_eq!(e.errors.len(), 1);
                prop_assert_eq!(&e.errors[0].origin, &Origin { file: file.clone(), line: 0 });
                prop_assert_eq!(&e.errors[0].message, &why);
                prop_assert_eq!(e.report(), vec![e.errors[0].to_string()]);
            }
            Ok(()) => {
                for e in loaded.err().map(|e| e.errors).unwrap_or_default() {
                    prop_assert!(e.origin.line > 0, "{}", e);
                }
            }
        }
    }
}

/// The refusal of `line`, if refused.
fn refusal_of(line: &str) -> Option<String> {
    let words: Vec<Vec<u8>> = line.split(' ').map(|w| w.as_bytes().to_vec()).collect();
    parse_words(&words, &FakeHost).err().map(|e| e.0)
}

/// The name a refusal suggests, from its "did you mean NAME?".
fn suggested(message: &str) -> Option<&str> {
    let at = message.find("did you mean ")? + "did you mean ".len();
    message[at..].split('?').next()
}

/// One typo of `word` from random numbers: a neighbour swap, a deletion,
/// an insertion or a replacement.
fn typo(word: &str, kind: usize, at: usize, letter: u8) -> String {
    let mut b = word.as_bytes().to_vec();
    let i = at % b.len().max(1);
    let c = b'a' + letter % 26;
    match kind % 4 {
        0 if b.len() > 1 => {
            let j = i.min(b.len() - 2);
            b.swap(j, j + 1);
        }
        1 if !b.is_empty() => {
            b.remove(i);
        }
        2 => b.insert(i, c),
        _ if !b.is_empty() => b[i] = c,
        _ => {}
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn syscall_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = Machine::X86_64.syscall_names().collect();
    v.sort_unstable();
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// What a refusal suggests for a misspelt syscall, field or keyword is
    /// accepted in its place (and is not the misspelt word itself).
    #[test]
    fn a_suggestion_is_accepted_in_place_of_the_typo(
        pick in 0usize..10_000, kind in 0usize..4, at in 0usize..20, letter in any::<u8>()
    ) {
        let names = syscall_names();
        let bad = typo(names[pick % names.len()], kind, at, letter);
        let line = |s: &str| format!("-a always,exit -F arch=b64 -S {s} -k t");
        if let Some(msg) = refusal_of(&line(&bad)) {
            if let Some(fix) = suggested(&msg) {
                prop_assert_ne!(fix, bad.as_str());
                prop_assert_eq!(refusal_of(&line(fix)), None, "{} suggested for {}", fix, bad);
            }
        }
        let field = tables::FIELDS[pick % tables::FIELDS.len()].0;
        let bad = typo(field, kind, at, letter);
        // uid fields take a user name: only the field name may be refused.
        let line = |f: &str| format!("-a always,exit -F arch=b64 -S open -F {f}=0");
        if let Some(msg) = refusal_of(&line(&bad)) {
            if msg.starts_with("-F: unknown field") {
                if let Some(fix) = suggested(&msg) {
                    prop_assert_ne!(fix, bad.as_str());
                    let again = refusal_of(&line(fix)).unwrap_or_default();
                    prop_assert!(!again.starts_with("-F: unknown field"), "{}", again);
                }
            }
        }
        let keywords = ["always,exit", "exit,always", "never,exit", "always,exclude"];
        let bad = typo(keywords[pick % keywords.len()], kind, at, letter);
        let line = |k: &str| format!("-a {k} -F msgtype=1");
        if let Some(msg) = refusal_of(&line(&bad)) {
            if let Some(fix) = suggested(&msg) {
                prop_assert!(!refusal_of(&line(fix)).unwrap_or_default().contains("keyword"));
            }
        }
    }

    /// A refused `-F` pair whose operator is malformed names it, and the
    /// pair it suggests is accepted.
    #[test]
    fn a_malformed_operator_is_named_and_its_fix_accepted(
        field in prop::sample::select(vec!["uid", "auid", "pid", "a0", "exit", "success"]),
        op in prop::collection::vec(prop::sample::select(b"=!<>&".to_vec()), 1..4),
        value in prop::sample::select(vec!["0", "1000", "-1"]),
    ) {
        let op = String::from_utf8(op).expect("ascii");
        let pair = format!("{field}{op}{value}");
        let line = |p: &str| format!("-a always,exit -F arch=b64 -S open -F {p}");
        let valid = ["=", "!=", "<", ">", "<=", ">=", "&", "&="].contains(&op.as_str());
        if let Some(msg) = refusal_of(&line(&pair)) {
            prop_assert_eq!(msg.contains("malformed operator"), !valid, "{}", msg);
            // The fix may still be refused, but for its value, not its operator.
            if let Some(fix) = suggested(&msg) {
                let again = refusal_of(&line(fix)).unwrap_or_default();
                prop_assert!(!again.contains("operator"), "{} suggested for {}: {}", fix, pair, again);
            }
        }
    }

    /// The report prints at most its limit of messages a file, says how
    /// many it left out, and counts every error and warning.
    #[test]
    fn the_report_is_bounded_and_counts_everything(
        msgs in prop::collection::vec((0usize..3, 1usize..50, any::<bool>()), 0..300),
        unlisted_a in 0usize..5,
        limit in 1usize..40,
    ) {
        let files = ["a", "b", "c"];
        let at = |f: usize, line| Origin { file: files[f].into(), line };
        let errors: Vec<LineError> = msgs.iter().filter(|m| m.2)
            .map(|&(f, line, _)| LineError { origin: at(f, line), message: "bad".into() })
            .collect();
        let warnings: Vec<(Origin, Warning)> = msgs.iter().filter(|m| !m.2)
            .map(|&(f, line, _)| (at(f, line), Warning::Wildcard))
            .collect();
        // Unlisted errors come only after listed ones.
        let unlisted_a = if errors.iter().any(|e| e.origin.file == Path::new("a")) {
            unlisted_a
        } else {
            0
        };
        let unlisted = HashMap::from([(PathBuf::from("a"), unlisted_a)]);
        let out = report::lines(&errors, &warnings, &unlisted, limit);
        for (f, name) in files.iter().enumerate() {
            let shown = out.iter().filter(|l| l.starts_with(&format!("{name}:"))
                && !l.contains(" more not shown")).count();
            let n_err = errors.iter().filter(|e| e.origin.file == Path::new(name)).count()
                + if f == 0 { unlisted_a } else { 0 };
            let n_warn = warnings.iter().filter(|w| w.0.file == Path::new(name)).count();
            let listed = n_err + n_warn - if f == 0 { unlisted_a } else { 0 };
            prop_assert_eq!(shown, listed.min(limit));
            let hidden = n_err + n_warn - shown;
            let more = format!("{name}: ... and {hidden} more not shown");
            prop_assert_eq!(out.contains(&more), hidden > 0);
            let summary = out.iter().find(|l| l.ends_with(&format!(" in {name}")));
            if hidden > 0 || (n_err > 0 && n_err + n_warn > 1) {
                let s = summary.expect("a count");
                prop_assert!(s.starts_with(&format!("{n_err} error")), "{}", s);
                prop_assert!(s.contains(&format!(", {n_warn} warning")), "{}", s);
            } else {
                prop_assert!(summary.is_none());
            }
        }
    }
}
