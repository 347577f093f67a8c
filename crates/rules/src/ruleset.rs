//! A loaded rule set: rules files and directories applied line by line, as
//! `auditctl -R` (or augenrules for a directory) would load them into the
//! kernel, with every refused line reported by file and line.

use crate::host::Host;
use crate::lexer;
use crate::listing::Lister;
use crate::parse::{self, Parsed, Request};
use crate::rule::{self, KernelError, Rule};
use crate::settings::{Query, Setting};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Where a line came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file, as named to the loader.
    pub file: PathBuf,
    /// 1-based line number (0 for errors about the whole file).
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file.display())
        } else {
            write!(f, "{}:{}", self.file.display(), self.line)
        }
    }
}

/// A refused line: where, and what is wrong with it.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{origin}: {message}")]
pub struct LineError {
    /// The offending line.
    pub origin: Origin,
    /// What is wrong, naming the option or value.
    pub message: String,
}

/// Every refused line of a load, in file order.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{} line(s) refused", .0.len())]
pub struct LoadErrors(pub Vec<LineError>);

/// A rule in a loaded set, with the line that added it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// The rule as the kernel would hold it.
    pub rule: Rule,
    /// The line that added it.
    pub origin: Origin,
}

/// Rules per filter list in kernel order, plus the control settings seen.
#[derive(Clone, Debug, Default)]
pub struct RuleSet {
    lists: [Vec<Loaded>; crate::abi::list::COUNT],
    /// How often each rule stands in each list, so that "exists" is one
    /// lookup, not a scan (loading n rules stays linear).
    counts: [HashMap<Rule, usize>; crate::abi::list::COUNT],
    /// Control settings, in the order given.
    pub settings: Vec<(Origin, Setting)>,
    /// Read-only queries found in the files (they change nothing).
    pub queries: Vec<(Origin, Query)>,
    /// Warnings auditctl would print for accepted lines.
    pub warnings: Vec<(Origin, String)>,
}

impl RuleSet {
    /// All rules in the order the kernel lists them (user, task, exit, exclude, filesystem, io_uring).
    pub fn rules(&self) -> impl Iterator<Item = &Loaded> {
        self.lists.iter().flatten()
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.lists.iter().map(Vec::len).sum()
    }

    /// Whether the set has no rules.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Apply one parsed line; on error nothing changes.
    pub fn apply(
        &mut self,
        parsed: Parsed,
        origin: &Origin,
        host: &dyn Host,
    ) -> Result<(), KernelError> {
        match parsed.request {
            Some(Request::Add { mut rule, prepend }) => {
                rule.expand_syscall_classes();
                rule::check_entry(&rule)?;
                let at = rule.list as usize;
                // The kernel marks a prepended rule until it is inserted, so
                // it never equals a loaded one: -A never reports "exists".
                if !prepend && self.counts[at].contains_key(&rule) {
                    return Err(KernelError::Exists);
                }
                rule::check_paths(&rule, host)?;
                *self.counts[at].entry(rule.clone()).or_default() += 1;
                let list = &mut self.lists[at];
                let loaded = Loaded {
                    rule,
                    origin: origin.clone(),
                };
                if prepend {
                    list.insert(0, loaded);
                } else {
                    list.push(loaded);
                }
            }
            Some(Request::Delete(mut rule)) => {
                rule.expand_syscall_classes();
                rule::check_entry(&rule)?;
                let list = &mut self.lists[rule.list as usize];
                let at = list
                    .iter()
                    .position(|l| l.rule == rule)
                    .ok_or(KernelError::NoMatch)?;
                list.remove(at);
                let counts = &mut self.counts[rule.list as usize];
                if let Some(n) = counts.get_mut(&rule) {
                    *n -= 1;
                    if *n == 0 {
                        counts.remove(&rule);
                    }
                }
            }
            Some(Request::DeleteAll { key }) => {
                for (list, counts) in self.lists.iter_mut().zip(&mut self.counts) {
                    list.retain(|l| !key_matches(&l.rule, &key));
                    counts.clear();
                    for l in list.iter() {
                        *counts.entry(l.rule.clone()).or_default() += 1;
                    }
                }
            }
            None => {}
        }
        self.settings
            .extend(parsed.settings.into_iter().map(|s| (origin.clone(), s)));
        self.queries
            .extend(parsed.queries.into_iter().map(|q| (origin.clone(), q)));
        self.warnings
            .extend(parsed.warnings.into_iter().map(|w| (origin.clone(), w)));
        Ok(())
    }

    /// Parse and apply one line of words.
    pub fn apply_words(
        &mut self,
        words: &[Vec<u8>],
        origin: &Origin,
        host: &dyn Host,
    ) -> Result<(), LineError> {
        let fail = |message: String| LineError {
            origin: origin.clone(),
            message,
        };
        let parsed = parse::parse_words(words, host).map_err(|e| fail(e.0))?;
        self.apply(parsed, origin, host)
            .map_err(|e| fail(e.to_string()))
    }

    /// Write the rules as `auditctl -l` would.
    pub fn write_listing(&self, out: &mut dyn Write, host: &dyn Host) -> io::Result<()> {
        Lister::new(host).write_all(out, self.rules().map(|l| &l.rule))
    }

    /// Load rules files and directories in order into a new set. Every line
    /// is tried (a refused line changes nothing); all refusals are returned.
    pub fn load(paths: &[PathBuf], host: &dyn Host) -> Result<RuleSet, LoadErrors> {
        let mut set = RuleSet::default();
        let mut errors = Vec::new();
        for path in paths {
            match source_lines(path) {
                Err(e) => errors.push(e),
                Ok(lines) => {
                    for (origin, words) in lines {
                        if let Err(e) = set.apply_words(&words, &origin, host) {
                            errors.push(e);
                        }
                    }
                }
            }
        }
        if errors.is_empty() {
            Ok(set)
        } else {
            Err(LoadErrors(errors))
        }
    }
}

/// `-D -k key`: auditctl deletes rules whose key contains `key`.
fn key_matches(rule: &Rule, key: &[u8]) -> bool {
    if key.is_empty() {
        return true;
    }
    rule.key()
        .is_some_and(|k| k.windows(key.len()).any(|w| w == key))
}

type Words = Vec<Vec<u8>>;

/// Largest rules file read, in bytes: far above any real rule set (100,000
/// rules are about 10 MB), and a bound so that an endless input cannot
/// exhaust memory.
pub const MAX_RULES_FILE: u64 = 64 << 20;

/// A rules file's bytes, read safely: only a regular file (a FIFO, device
/// or socket is refused before it is read, and opened without blocking),
/// at most `max` bytes. auditctl would block on a FIFO and read a device
/// until memory runs out; refusing them is deliberate.
fn read_rules_file(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let regular = |meta: &std::fs::Metadata| -> Result<(), String> {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        let kind = if t.is_file() {
            return Ok(());
        } else if t.is_fifo() {
            "a FIFO"
        } else if t.is_char_device() {
            "a character device"
        } else if t.is_block_device() {
            "a block device"
        } else if t.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        Err(format!("{kind}, not a regular file: refused"))
    };
    // Checked before opening (opening a device can have effects of its
    // own) and again on the opened file (the path may have changed).
    regular(&std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY | nix::libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| format!("cannot read: {e}"))?;
    regular(&file.metadata().map_err(|e| format!("cannot read: {e}"))?)?;
    let mut data = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut data)
        .map_err(|e| format!("cannot read: {e}"))?;
    if data.len() as u64 > max {
        return Err(format!("larger than {max} bytes: refused"));
    }
    Ok(data)
}

/// The command lines of a file, or of a directory combined as augenrules does.
pub fn source_lines(path: &Path) -> Result<Vec<(Origin, Words)>, LineError> {
    let whole = |message: String| LineError {
        origin: Origin {
            file: path.to_path_buf(),
            line: 0,
        },
        message,
    };
    let meta = std::fs::metadata(path).map_err(|e| whole(format!("cannot read: {e}")))?;
    if !meta.is_dir() {
        let data = read_rules_file(path, MAX_RULES_FILE).map_err(whole)?;
        return Ok(lexer::lines(&data)
            .into_iter()
            .map(|l| {
                (
                    Origin {
                        file: path.to_path_buf(),
                        line: l.lineno,
                    },
                    l.words,
                )
            })
            .collect());
    }
    let mut names: Vec<_> = std::fs::read_dir(path)
        .map_err(|e| whole(format!("cannot read directory: {e}")))?
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| n.as_encoded_bytes().ends_with(b".rules"))
        .collect();
    names.sort_by(|a, b| version_cmp(a.as_encoded_bytes(), b.as_encoded_bytes()));
    let mut raw = Vec::new();
    for name in names {
        let file = path.join(&name);
        let data = read_rules_file(&file, MAX_RULES_FILE).map_err(|message| LineError {
            origin: Origin {
                file: file.clone(),
                line: 0,
            },
            message,
        })?;
        for (line, text) in lexer::raw_lines(&data) {
            raw.push((
                Origin {
                    file: file.clone(),
                    line,
                },
                text.to_vec(),
            ));
        }
    }
    Ok(augenrules_order(raw)
        .into_iter()
        .filter_map(|(o, text)| lexer::words(&text).map(|w| (o, w)))
        .collect())
}

/// augenrules' reordering: the last bare `-D` first, then the last `-b` and
/// `-f`, the other lines in order, and the last `-e` at the very end; empty
/// and comment lines dropped. Debian runs augenrules' awk program with mawk,
/// where its `\s` means a literal `s`, so an indented `-e` or a `-D ` with a
/// trailing space stays in place; this follows that awk, the oracle here.
fn augenrules_order(raw: Vec<(Origin, Vec<u8>)>) -> Vec<(Origin, Vec<u8>)> {
    let (mut d, mut b, mut f, mut e) = (None, None, None, None);
    let mut rest = Vec::new();
    for (o, text) in raw {
        let body = &text[text.iter().take_while(|&&c| c == b's').count()..];
        if text.is_empty() || body.starts_with(b"#") {
            continue;
        }
        if body.starts_with(b"-e") {
            e = Some((o, text));
        } else if body.starts_with(b"-D") && body[2..].iter().all(|&c| c == b's') {
            d = Some((o, text));
        } else if body.starts_with(b"-f") {
            f = Some((o, text));
        } else if body.starts_with(b"-b") {
            b = Some((o, text));
        } else {
            rest.push((o, text));
        }
    }
    [d, b, f]
        .into_iter()
        .flatten()
        .chain(rest)
        .chain(e)
        .collect()
}

/// `ls -v` order: digit runs compare by value, the rest byte by byte.
pub fn version_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let si = i;
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let (x, y) = (trim_zeros(&a[si..i]), trim_zeros(&b[sj..j]));
            let ord = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
            if ord != Ordering::Equal {
                return ord;
            }
        } else {
            if a[i] != b[j] {
                return a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j)).then_with(|| a.cmp(b))
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|&&c| c == b'0').count();
    &d[n.min(d.len().saturating_sub(1))..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::FixedHost;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fa-ruleset-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn line(set: &mut RuleSet, text: &str) -> Result<(), LineError> {
        let words: Vec<Vec<u8>> = text.split(' ').map(|w| w.as_bytes().to_vec()).collect();
        let origin = Origin {
            file: "t".into(),
            line: 1,
        };
        set.apply_words(&words, &origin, &FixedHost)
    }

    #[test]
    fn exists_is_judged_by_lookup_with_the_kernel_semantics() {
        let mut set = RuleSet::default();
        let a = "-a always,exit -F arch=b64 -S chmod -k k";
        line(&mut set, a).unwrap();
        assert!(line(&mut set, a).is_err(), "a duplicate exists");
        line(&mut set, "-A always,exit -F arch=b64 -S chmod -k k").unwrap();
        line(&mut set, "-d always,exit -F arch=b64 -S chmod -k k").unwrap();
        assert!(line(&mut set, a).is_err(), "one copy is still loaded");
        line(&mut set, "-d always,exit -F arch=b64 -S chmod -k k").unwrap();
        line(&mut set, a).unwrap();
        line(&mut set, "-D -k k").unwrap();
        assert_eq!(set.len(), 0);
        line(&mut set, a).unwrap();
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn fifos_and_devices_are_refused_without_blocking() {
        let d = temp("fifo");
        let fifo = d.join("x.rules");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        for path in [fifo.clone(), d.clone(), PathBuf::from("/dev/zero")] {
            let err = source_lines(&path).unwrap_err();
            assert!(
                err.message.contains("not a regular file"),
                "{}: {}",
                err.origin.file.display(),
                err.message
            );
        }
        // In a directory the refusal names the file.
        assert_eq!(source_lines(&d).unwrap_err().origin.file, fifo);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn inputs_past_the_bound_are_refused() {
        let d = temp("big");
        let f = d.join("a.rules");
        std::fs::write(&f, vec![b'#'; 100]).unwrap();
        assert!(read_rules_file(&f, 100).is_ok());
        let err = read_rules_file(&f, 99).unwrap_err();
        assert!(err.contains("larger than 99 bytes"), "{err}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn version_sort() {
        let mut v = vec!["10-a.rules", "9-b.rules", "99-z.rules", "10-A.rules"];
        v.sort_by(|a, b| version_cmp(a.as_bytes(), b.as_bytes()));
        assert_eq!(
            v,
            vec!["9-b.rules", "10-A.rules", "10-a.rules", "99-z.rules"]
        );
    }
}
