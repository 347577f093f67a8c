//! GNU `getopt_long` as auditctl calls it, over byte words.
//!
//! Hand-rolled because a rule line must split into options exactly as
//! auditctl's does: clustered short options (`-lD`), attached values
//! (`-karg`), a required value taken from the next word whatever it looks
//! like, unique-prefix long options, and non-options permuted to the end.
//! clap and friends deliberately behave differently.

/// An option auditctl's `getopt_long` call can return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opt {
    /// A short option letter, with its value if it takes one.
    Short(u8, Option<Vec<u8>>),
    /// A long option by name, with its value if it takes one.
    Long(&'static str, Option<Vec<u8>>),
    /// What getopt reports as `?`: an unknown option or a missing value.
    Invalid(Vec<u8>),
}

/// auditctl's short option string.
const SHORT: &[u8] = b"hicslDvtC:e:f:r:b:a:A:d:S:F:m:R:w:W:k:p:q:U:";
/// auditctl's long options: name and whether it takes a value.
const LONG: &[(&str, bool)] = &[
    ("loginuid-immutable", false),
    ("backlog_wait_time", true),
    ("reset-lost", false),
    ("reset_backlog_wait_time_actual", false),
    ("signal", true),
];

fn short_takes_value(c: u8) -> Option<bool> {
    let i = SHORT.iter().position(|&x| x == c && c != b':')?;
    Some(SHORT.get(i + 1) == Some(&b':'))
}

/// Option scanner over `args` (whose first element is the program name).
pub struct Getopt<'a> {
    args: &'a [Vec<u8>],
    /// Index of the next word to look at.
    next: usize,
    /// Position inside a cluster of short options, 0 when not in one.
    cluster: usize,
    /// Words that are not options, kept for the end-of-scan count.
    nonopts: usize,
    done: bool,
}

impl<'a> Getopt<'a> {
    /// Start scanning; `args[0]` is skipped like `argv[0]`.
    pub fn new(args: &'a [Vec<u8>]) -> Self {
        Getopt {
            args,
            next: 1,
            cluster: 0,
            nonopts: 0,
            done: false,
        }
    }

    /// getopt's `optind`: past the last word scanned while scanning, and the
    /// first non-option (after permutation) once the scan has ended.
    pub fn optind(&self) -> usize {
        if self.done {
            self.next - self.nonopts
        } else {
            self.next
        }
    }

    /// The word at `optind` after permutation, for the handlers that peek at it.
    pub fn peek(&self, offset: usize) -> Option<&'a [u8]> {
        self.args.get(self.next + offset).map(Vec::as_slice)
    }

    fn long(&mut self, body: &[u8]) -> Opt {
        let (name, inline) = match body.iter().position(|&b| b == b'=') {
            Some(i) => (&body[..i], Some(body[i + 1..].to_vec())),
            None => (body, None),
        };
        let exact = LONG.iter().find(|(n, _)| n.as_bytes() == name);
        let candidates: Vec<_> = LONG
            .iter()
            .filter(|(n, _)| n.as_bytes().starts_with(name))
            .collect();
        let Some(&(lname, takes)) = exact.or(if candidates.len() == 1 {
            candidates.first().copied()
        } else {
            None
        }) else {
            return Opt::Invalid([b"--", body].concat());
        };
        if takes {
            match inline {
                Some(v) => Opt::Long(lname, Some(v)),
                None => match self.args.get(self.next) {
                    Some(v) => {
                        self.next += 1;
                        Opt::Long(lname, Some(v.clone()))
                    }
                    None => Opt::Invalid([b"--", body].concat()),
                },
            }
        } else if inline.is_some() {
            Opt::Invalid([b"--", body].concat())
        } else {
            Opt::Long(lname, None)
        }
    }
}

impl Iterator for Getopt<'_> {
    type Item = Opt;

    fn next(&mut self) -> Option<Opt> {
        if self.done {
            return None;
        }
        if self.cluster == 0 {
            loop {
                let Some(word) = self.args.get(self.next) else {
                    self.done = true;
                    return None;
                };
                if word.as_slice() == b"--" {
                    self.next += 1;
                    self.nonopts += self.args.len() - self.next;
                    self.next = self.args.len();
                    self.done = true;
                    return None;
                }
                if word.len() >= 2 && word[0] == b'-' {
                    break;
                }
                self.next += 1;
                self.nonopts += 1;
            }
            let word = &self.args[self.next];
            if word.starts_with(b"--") {
                self.next += 1;
                return Some(self.long(&word[2..]));
            }
            self.cluster = 1;
        }
        let word = &self.args[self.next];
        let c = word[self.cluster];
        self.cluster += 1;
        let at_end = self.cluster >= word.len();
        match short_takes_value(c) {
            None => {
                if at_end {
                    self.cluster = 0;
                    self.next += 1;
                }
                Some(Opt::Invalid(vec![b'-', c]))
            }
            Some(false) => {
                if at_end {
                    self.cluster = 0;
                    self.next += 1;
                }
                Some(Opt::Short(c, None))
            }
            Some(true) => {
                let start = self.cluster;
                self.cluster = 0;
                self.next += 1;
                if !at_end {
                    return Some(Opt::Short(c, Some(word[start..].to_vec())));
                }
                match self.args.get(self.next) {
                    Some(v) => {
                        self.next += 1;
                        Some(Opt::Short(c, Some(v.clone())))
                    }
                    None => Some(Opt::Invalid(vec![b'-', c])),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<Vec<u8>> {
        std::iter::once("auditctl")
            .chain(s.iter().copied())
            .map(|x| x.as_bytes().to_vec())
            .collect()
    }

    #[test]
    fn clusters_values_and_longs() {
        let a = args(&["-lD", "-kfoo", "-S", "-a", "--back=5", "--reset-lost"]);
        let got: Vec<_> = Getopt::new(&a).collect();
        assert_eq!(
            got,
            vec![
                Opt::Short(b'l', None),
                Opt::Short(b'D', None),
                Opt::Short(b'k', Some(b"foo".to_vec())),
                Opt::Short(b'S', Some(b"-a".to_vec())),
                Opt::Long("backlog_wait_time", Some(b"5".to_vec())),
                Opt::Long("reset-lost", None),
            ]
        );
    }

    #[test]
    fn ambiguous_and_missing() {
        let a = args(&["--reset", "-x", "-k"]);
        let got: Vec<_> = Getopt::new(&a).collect();
        assert!(matches!(got[0], Opt::Invalid(_)));
        assert_eq!(got[1], Opt::Invalid(b"-x".to_vec()));
        assert_eq!(got[2], Opt::Invalid(b"-k".to_vec()));
    }

    #[test]
    fn non_options_permute_to_the_end() {
        let a = args(&["foo", "-D", "bar"]);
        let mut g = Getopt::new(&a);
        assert_eq!(g.next(), Some(Opt::Short(b'D', None)));
        assert_eq!(g.next(), None);
        assert_eq!(g.optind(), 2);
    }
}
