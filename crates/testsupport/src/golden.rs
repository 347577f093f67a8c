//! Golden files: what the real auditctl did with each line of a rules set,
//! recorded once as root, so that fastaudit can be compared against it
//! anywhere, without root or the kernel.
//!
//! Shared between the check, `crates/rules/tests/integration/golden.rs`, and the
//! recording, `crates/cli/tests/integration/rules_golden.rs`, so both read and write
//! one format:
//!
//! ```text
//! # comment lines (what the set is, how it was recorded)
//! source crates/cli/tests/data/mixed.rules
//! mode sequence                       or "alone": each line from scratch
//! host machine x86_64                 every fact fastaudit asked the live
//! host user 0 root                    system while the set was recorded,
//! host group - nosuchgroup            replayed by ReplayHost ("-": none)
//! host dir yes /etc
//! host lookup 2 /nonexistent/dir/.    (errno of the failed lookup, or ok)
//! line 7: -a always,exit -S open      the line, verbatim
//!   auditctl: accepted                accepted, refused, or not sent
//!   auditctl says: ...                auditctl's stderr, if any
//!   fastaudit: ...                    fastaudit's refusal message, if any
//!   fastaudit warns: ...              fastaudit's warnings, if any
//!   + -a always,exit ...              `auditctl -l` lines the line added
//!   - -a always,exit ...              and removed
//! listing                             the final `auditctl -l`
//!   -a always,exit ...
//! ```
use fastaudit_rules::tables::Machine;
use fastaudit_rules::{lexer, Host, Origin, RuleSet};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io;

/// What auditctl did with a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// `auditctl -R` of the line alone succeeded.
    Accepted,
    /// `auditctl -R` of the line alone failed.
    Refused,
    /// A control line (`-e`, `-b` ...): never sent to the kernel.
    NotSent,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Refused => "refused",
            Verdict::NotSent => "not sent",
        }
    }

    fn from_word(w: &str) -> Option<Verdict> {
        Some(match w {
            "accepted" => Verdict::Accepted,
            "refused" => Verdict::Refused,
            "not sent" => Verdict::NotSent,
            _ => return None,
        })
    }
}

/// One line of a set: auditctl's answer and fastaudit's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// 1-based line number in the set.
    pub lineno: usize,
    /// The line as written.
    pub text: String,
    /// auditctl's verdict (`None` only while building).
    pub auditctl: Option<Verdict>,
    /// auditctl's stderr for the line, lines joined with ` | `.
    pub auditctl_says: String,
    /// fastaudit's refusal message (without `FILE:LINE: `), if refused.
    pub fastaudit: Option<String>,
    /// fastaudit's warnings for the line.
    pub warnings: Vec<String>,
    /// Listing lines the line added.
    pub added: Vec<String>,
    /// Listing lines the line removed.
    pub removed: Vec<String>,
}

/// A fact about the live system that fastaudit consulted.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fact {
    /// `uname -m` as a machine name (`-` when unknown).
    Machine(Option<String>),
    /// A user name and its uid.
    User(String, Option<u32>),
    /// A group name and its gid.
    Group(String, Option<u32>),
    /// Whether a path is a directory.
    IsDir(String, bool),
    /// A path lookup: `None` when it resolves, else the errno.
    Lookup(String, Option<i32>),
}

/// A whole golden file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Golden {
    /// The `#` lines at the top.
    pub comments: Vec<String>,
    /// Where the lines come from.
    pub source: String,
    /// Each line was sent on its own (control lines), not one after another.
    pub alone: bool,
    /// The host facts to replay.
    pub host: Vec<Fact>,
    /// One record per line.
    pub records: Vec<Record>,
    /// The final `auditctl -l` output.
    pub listing: String,
}

fn opt_num(v: Option<impl ToString>) -> String {
    v.map_or_else(|| "-".to_string(), |n| n.to_string())
}

fn parse_opt<T: std::str::FromStr>(s: &str) -> Result<Option<T>, String> {
    if s == "-" {
        return Ok(None);
    }
    s.parse().map(Some).map_err(|_| format!("bad number {s:?}"))
}

impl Golden {
    /// The file's text.
    pub fn render(&self) -> String {
        let mut o = String::new();
        for c in &self.comments {
            let _ = writeln!(o, "# {c}");
        }
        let _ = writeln!(o, "source {}", self.source);
        let _ = writeln!(o, "mode {}", if self.alone { "alone" } else { "sequence" });
        for f in &self.host {
            let _ = match f {
                Fact::Machine(m) => writeln!(o, "host machine {}", m.as_deref().unwrap_or("-")),
                Fact::User(n, id) => writeln!(o, "host user {} {n}", opt_num(*id)),
                Fact::Group(n, id) => writeln!(o, "host group {} {n}", opt_num(*id)),
                Fact::IsDir(p, d) => writeln!(o, "host dir {} {p}", if *d { "yes" } else { "no" }),
                Fact::Lookup(p, e) => writeln!(
                    o,
                    "host lookup {} {p}",
                    e.map_or_else(|| "ok".to_string(), |e| e.to_string())
                ),
            };
        }
        for r in &self.records {
            let _ = writeln!(o, "line {}: {}", r.lineno, r.text);
            let v = r.auditctl.map_or("?", Verdict::word);
            let _ = writeln!(o, "  auditctl: {v}");
            if !r.auditctl_says.is_empty() {
                let _ = writeln!(o, "  auditctl says: {}", r.auditctl_says);
            }
            if let Some(m) = &r.fastaudit {
                let _ = writeln!(o, "  fastaudit: {m}");
            }
            for w in &r.warnings {
                let _ = writeln!(o, "  fastaudit warns: {w}");
            }
            for a in &r.added {
                let _ = writeln!(o, "  + {a}");
            }
            for d in &r.removed {
                let _ = writeln!(o, "  - {d}");
            }
        }
        let _ = writeln!(o, "listing");
        for l in self.listing.lines() {
            let _ = writeln!(o, "  {l}");
        }
        o
    }

    /// Read a golden file's text.
    pub fn parse(text: &str) -> Result<Golden, String> {
        let mut g = Golden::default();
        let mut in_listing = false;
        for (i, line) in text.lines().enumerate() {
            let bad = |what: &str| format!("line {}: {what}: {line:?}", i + 1);
            if in_listing {
                let l = line.strip_prefix("  ").ok_or_else(|| bad("listing line"))?;
                g.listing.push_str(l);
                g.listing.push('\n');
            } else if let Some(c) = line
                .strip_prefix("# ")
                .or(line.strip_prefix('#').filter(|c| c.is_empty()))
            {
                g.comments.push(c.to_string());
            } else if let Some(s) = line.strip_prefix("source ") {
                g.source = s.to_string();
            } else if let Some(m) = line.strip_prefix("mode ") {
                g.alone = match m {
                    "alone" => true,
                    "sequence" => false,
                    _ => return Err(bad("mode")),
                };
            } else if let Some(h) = line.strip_prefix("host ") {
                g.host.push(parse_fact(h).ok_or_else(|| bad("host fact"))?);
            } else if let Some(rest) = line.strip_prefix("line ") {
                let (n, text) = rest.split_once(": ").ok_or_else(|| bad("record"))?;
                g.records.push(Record {
                    lineno: n.parse().map_err(|_| bad("line number"))?,
                    text: text.to_string(),
                    ..Record::default()
                });
            } else if line == "listing" {
                in_listing = true;
            } else {
                let r = g
                    .records
                    .last_mut()
                    .ok_or_else(|| bad("detail before a line"))?;
                let d = line.strip_prefix("  ").ok_or_else(|| bad("detail"))?;
                if let Some(v) = d.strip_prefix("auditctl: ") {
                    r.auditctl = Some(Verdict::from_word(v).ok_or_else(|| bad("verdict"))?);
                } else if let Some(s) = d.strip_prefix("auditctl says: ") {
                    r.auditctl_says = s.to_string();
                } else if let Some(m) = d.strip_prefix("fastaudit: ") {
                    r.fastaudit = Some(m.to_string());
                } else if let Some(w) = d.strip_prefix("fastaudit warns: ") {
                    r.warnings.push(w.to_string());
                } else if let Some(a) = d.strip_prefix("+ ") {
                    r.added.push(a.to_string());
                } else if let Some(a) = d.strip_prefix("- ") {
                    r.removed.push(a.to_string());
                } else {
                    return Err(bad("detail"));
                }
            }
        }
        if !in_listing {
            return Err("no final listing".into());
        }
        Ok(g)
    }
}

fn parse_fact(h: &str) -> Option<Fact> {
    let (kind, rest) = h.split_once(' ')?;
    if kind == "machine" {
        return Some(Fact::Machine((rest != "-").then(|| rest.to_string())));
    }
    let (answer, name) = rest.split_once(' ')?;
    let name = name.to_string();
    Some(match kind {
        "user" => Fact::User(name, parse_opt(answer).ok()?),
        "group" => Fact::Group(name, parse_opt(answer).ok()?),
        "dir" => Fact::IsDir(name, answer == "yes"),
        "lookup" => Fact::Lookup(
            name,
            if answer == "ok" {
                None
            } else {
                Some(answer.parse().ok()?)
            },
        ),
        _ => return None,
    })
}

/// Wraps a host and notes every fact asked of it.
pub struct RecordingHost<'h> {
    inner: &'h dyn Host,
    facts: RefCell<BTreeSet<Fact>>,
}

impl<'h> RecordingHost<'h> {
    /// Record what `inner` answers.
    pub fn new(inner: &'h dyn Host) -> Self {
        RecordingHost {
            inner,
            facts: RefCell::new(BTreeSet::new()),
        }
    }

    /// The facts asked so far, sorted.
    pub fn facts(&self) -> Vec<Fact> {
        self.facts.borrow().iter().cloned().collect()
    }

    fn note(&self, f: Fact) {
        self.facts.borrow_mut().insert(f);
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Host for RecordingHost<'_> {
    fn machine(&self) -> Option<Machine> {
        let m = self.inner.machine();
        self.note(Fact::Machine(m.map(|m| m.name().to_string())));
        m
    }
    fn user_id(&self, name: &[u8]) -> Option<u32> {
        let id = self.inner.user_id(name);
        self.note(Fact::User(text(name), id));
        id
    }
    fn group_id(&self, name: &[u8]) -> Option<u32> {
        let id = self.inner.group_id(name);
        self.note(Fact::Group(text(name), id));
        id
    }
    fn is_dir(&self, path: &[u8]) -> bool {
        let d = self.inner.is_dir(path);
        self.note(Fact::IsDir(text(path), d));
        d
    }
    fn lookup(&self, path: &[u8]) -> io::Result<()> {
        let r = self.inner.lookup(path);
        let errno = r
            .as_ref()
            .err()
            .map(|e| e.raw_os_error().unwrap_or(libc_enoent()));
        self.note(Fact::Lookup(text(path), errno));
        r
    }
}

/// `ENOENT`, for a lookup error that carries no errno (not expected).
fn libc_enoent() -> i32 {
    2
}

/// Answers from recorded facts; a question not recorded is noted (the
/// golden must then be recorded again) and answered "no".
pub struct ReplayHost {
    machine: Option<Option<String>>,
    users: BTreeMap<String, Option<u32>>,
    groups: BTreeMap<String, Option<u32>>,
    dirs: BTreeMap<String, bool>,
    lookups: BTreeMap<String, Option<i32>>,
    missing: RefCell<BTreeSet<String>>,
}

impl ReplayHost {
    /// A host answering with `facts`.
    pub fn new(facts: &[Fact]) -> Self {
        let mut h = ReplayHost {
            machine: None,
            users: BTreeMap::new(),
            groups: BTreeMap::new(),
            dirs: BTreeMap::new(),
            lookups: BTreeMap::new(),
            missing: RefCell::new(BTreeSet::new()),
        };
        for f in facts {
            match f.clone() {
                Fact::Machine(m) => h.machine = Some(m),
                Fact::User(n, id) => {
                    h.users.insert(n, id);
                }
                Fact::Group(n, id) => {
                    h.groups.insert(n, id);
                }
                Fact::IsDir(p, d) => {
                    h.dirs.insert(p, d);
                }
                Fact::Lookup(p, e) => {
                    h.lookups.insert(p, e);
                }
            }
        }
        h
    }

    /// Questions that had no recorded answer.
    pub fn missing(&self) -> Vec<String> {
        self.missing.borrow().iter().cloned().collect()
    }

    fn miss(&self, what: String) {
        self.missing.borrow_mut().insert(what);
    }
}

impl Host for ReplayHost {
    fn machine(&self) -> Option<Machine> {
        match &self.machine {
            Some(m) => m.as_deref().and_then(|m| Machine::from_name(m.as_bytes())),
            None => {
                self.miss("machine".into());
                None
            }
        }
    }
    fn user_id(&self, name: &[u8]) -> Option<u32> {
        self.users.get(&text(name)).copied().unwrap_or_else(|| {
            self.miss(format!("user {}", text(name)));
            None
        })
    }
    fn group_id(&self, name: &[u8]) -> Option<u32> {
        self.groups.get(&text(name)).copied().unwrap_or_else(|| {
            self.miss(format!("group {}", text(name)));
            None
        })
    }
    fn is_dir(&self, path: &[u8]) -> bool {
        self.dirs.get(&text(path)).copied().unwrap_or_else(|| {
            self.miss(format!("dir {}", text(path)));
            false
        })
    }
    fn lookup(&self, path: &[u8]) -> io::Result<()> {
        match self.lookups.get(&text(path)) {
            Some(None) => Ok(()),
            Some(Some(e)) => Err(io::Error::from_raw_os_error(*e)),
            None => {
                self.miss(format!("lookup {}", text(path)));
                Err(io::Error::from_raw_os_error(libc_enoent()))
            }
        }
    }
}

/// Listing lines without auditctl's "No rules".
fn rule_lines(listing: &str) -> Vec<String> {
    listing
        .lines()
        .filter(|l| *l != "No rules")
        .map(str::to_string)
        .collect()
}

/// The listing lines `after` has beyond `before` (added), and those it lost
/// (removed), counted as multisets and kept in listing order.
pub fn listing_delta(before: &str, after: &str) -> (Vec<String>, Vec<String>) {
    let (b, a) = (rule_lines(before), rule_lines(after));
    let minus = |x: &[String], y: &[String]| {
        let mut left: BTreeMap<&String, usize> = BTreeMap::new();
        for l in y {
            *left.entry(l).or_default() += 1;
        }
        x.iter()
            .filter(|l| match left.get_mut(l) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            })
            .cloned()
            .collect::<Vec<_>>()
    };
    (minus(&a, &b), minus(&b, &a))
}

/// fastaudit's answers for a set of lines, loaded one after another as
/// `fastaudit rules check` loads a file (or, `alone`, each into an empty
/// set): records without auditctl's part, and the final listing.
pub fn fastaudit_answers(lines: &[String], host: &dyn Host, alone: bool) -> (Vec<Record>, String) {
    let data = lines.join("\n");
    let mut words: BTreeMap<usize, Vec<Vec<u8>>> = lexer::lines(data.as_bytes())
        .into_iter()
        .map(|l| (l.lineno, l.words))
        .collect();
    let mut set = RuleSet::default();
    let mut before = listing(&set, host);
    let mut records = Vec::new();
    for (i, text) in lines.iter().enumerate() {
        let lineno = i + 1;
        let mut r = Record {
            lineno,
            text: text.clone(),
            ..Record::default()
        };
        if let Some(w) = words.remove(&lineno) {
            if alone {
                set = RuleSet::default();
                before = listing(&set, host);
            }
            let origin = Origin {
                file: "golden".into(),
                line: lineno,
            };
            let seen = set.warnings.len();
            if let Err(e) = set.apply_words(&w, &origin, host) {
                r.fastaudit = Some(e.message);
            }
            r.warnings = set.warnings[seen..]
                .iter()
                .map(|(_, w)| w.to_string())
                .collect();
            let after = listing(&set, host);
            (r.added, r.removed) = listing_delta(&before, &after);
            before = after;
        }
        records.push(r);
    }
    (records, before)
}

fn listing(set: &RuleSet, host: &dyn Host) -> String {
    let mut out = Vec::new();
    // Writing to memory cannot fail.
    let _ = set.write_listing(&mut out, host);
    String::from_utf8_lossy(&out).into_owned()
}
