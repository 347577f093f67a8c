//! Options that are not rules: kernel settings (`-e`, `-f`, `-r`, `-b`,
//! long options), queries (`-s`, `-l`, `-v`), `-D`, `-m`, `-q`, `-t`.
//!
//! auditctl checks the word count for some of them (`-s -i`, `-l -k key`,
//! `-D -k key`), so `count` and `args` are auditctl's `argc` and `argv`.

use super::{contains, err, show, Flow, Pending, Request, State, SyntaxError};
use crate::cnum::{starts_with_digit, strtoul};
use crate::settings::{Query, Setting};

impl State<'_> {
    /// A one-shot option that ends the scan (the end checks still run).
    pub(super) fn stop_with(&mut self, s: Setting) -> Result<Flow, SyntaxError> {
        self.out.settings.push(s);
        Ok(Flow::Stop)
    }

    /// An option after which auditctl returns from `setopt` at once.
    pub(super) fn return_with(&mut self, s: Setting) -> Result<Flow, SyntaxError> {
        self.out.settings.push(s);
        Ok(Flow::Return)
    }

    /// `-s` (optionally `-s -i`).
    pub(super) fn status(
        &mut self,
        args: &[Vec<u8>],
        optind: usize,
        count: &mut usize,
    ) -> Result<Flow, SyntaxError> {
        if *count > 3 {
            return err("too many options for the status command (-s)");
        }
        if optind == 2 && *count == 3 {
            if args.get(2).map(Vec::as_slice) != Some(b"-i") {
                return err("only -i is allowed after -s");
            }
            *count -= 1;
        }
        self.out.queries.push(Query::Status);
        Ok(Flow::Stop)
    }

    /// `-e 0|1|2` and `-f 0|1|2`: exactly one of those digits.
    pub(super) fn flag_setting(&mut self, c: u8, arg: &[u8]) -> Result<Flow, SyntaxError> {
        let n = match arg {
            b"0" => 0,
            b"1" => 1,
            b"2" => 2,
            _ => {
                let what = if c == b'e' {
                    "enable (-e)"
                } else {
                    "failure (-f)"
                };
                return err(format!("{what} must be 0, 1, or 2, was {}", show(arg)));
            }
        };
        self.out.settings.push(if c == b'e' {
            Setting::Enabled(n)
        } else {
            Setting::Failure(n)
        });
        Ok(Flow::Continue(Pending::Nothing))
    }

    /// `-r N` and `-b N`.
    pub(super) fn limit_setting(&mut self, c: u8, arg: &[u8]) -> Result<Flow, SyntaxError> {
        let what = if c == b'r' {
            "rate (-r)"
        } else {
            "backlog (-b)"
        };
        let v = self.number_setting(arg, what)?;
        self.out.settings.push(if c == b'r' {
            Setting::RateLimit(v)
        } else {
            Setting::BacklogLimit(v)
        });
        Ok(Flow::Continue(Pending::Nothing))
    }

    /// `-l`, `-l -i`, `-l -k key`.
    pub(super) fn list_query(
        &mut self,
        args: &[Vec<u8>],
        optind: usize,
        count: &mut usize,
    ) -> Result<Flow, SyntaxError> {
        if *count > 4 {
            return err("wrong number of options for the list request (-l)");
        }
        if *count == 3 {
            if args.get(optind).map(Vec::as_slice) != Some(b"-i") {
                return err("only -k or -i may follow -l");
            }
            *count -= 1;
        } else if *count == 4 {
            if args.get(optind).map(Vec::as_slice) != Some(b"-k") {
                return err("only -k or -i may follow -l");
            }
            if let Some(k) = args.get(3) {
                self.append_key_truncated(k);
            }
            *count -= 2;
        }
        self.list_requested = true;
        self.out.queries.push(Query::List);
        Ok(Flow::Stop)
    }

    /// `-m text`: the only option of its line, printable ASCII only.
    pub(super) fn user_message(&mut self, arg: Vec<u8>, count: usize) -> Result<Flow, SyntaxError> {
        if count > 3 {
            return err("-m must be the only option and takes one parameter");
        }
        if arg.iter().any(|&b| !(32..128).contains(&b)) {
            return err("-m: illegal character in audit event text");
        }
        self.return_with(Setting::UserMessage(arg))
    }

    /// `-D` and `-D -k key`.
    pub(super) fn delete_all(
        &mut self,
        args: &[Vec<u8>],
        optind: usize,
        count: &mut usize,
    ) -> Result<Flow, SyntaxError> {
        if *count > 4 || *count == 3 {
            return err("wrong number of options for delete all (-D [-k key])");
        }
        if *count == 4 {
            if args.get(optind).map(Vec::as_slice) != Some(b"-k") {
                return err("only -k may follow -D");
            }
            if let Some(k) = args.get(3) {
                self.append_key_truncated(k);
            }
            *count -= 2;
        }
        let key = std::mem::take(&mut self.key);
        self.out.request = Some(Request::DeleteAll { key });
        Ok(Flow::Stop)
    }

    /// `-q mount-point,subtree`.
    pub(super) fn make_equivalent(&mut self, arg: &[u8]) -> Result<Flow, SyntaxError> {
        if self.syscall_added {
            return err("-q: syscall auditing requested for make equivalent");
        }
        let mut parts = arg.splitn(2, |&b| b == b',');
        let (mp, sub) = (
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
        );
        if sub.is_empty() || contains(sub, b",") {
            return err(format!("-q {}: expected mount-point,subtree", show(arg)));
        }
        self.return_with(Setting::MakeEquivalent(mp.to_vec(), sub.to_vec()))
    }

    /// The long options (getopt has already resolved prefixes).
    pub(super) fn long_option(
        &mut self,
        name: &'static str,
        arg: Vec<u8>,
    ) -> Result<Flow, SyntaxError> {
        match name {
            "loginuid-immutable" => self.return_with(Setting::LoginuidImmutable),
            "backlog_wait_time" => {
                let v = self.number_setting(&arg, "backlog_wait_time")?;
                self.out.settings.push(Setting::BacklogWaitTime(v));
                Ok(Flow::Continue(Pending::Nothing))
            }
            "reset-lost" => self.return_with(Setting::ResetLost),
            "reset_backlog_wait_time_actual" => {
                self.return_with(Setting::ResetBacklogWaitTimeActual)
            }
            _ => {
                let sig = arg.to_ascii_uppercase();
                if !matches!(
                    sig.as_slice(),
                    b"TERM" | b"HUP" | b"USR1" | b"USR2" | b"CONT"
                ) {
                    return err(format!("--signal {}: unsupported signal", show(&arg)));
                }
                self.stop_with(Setting::Signal(show(&sig)))
            }
        }
    }
}

impl State<'_> {
    /// `-b`, `-r`, `--backlog_wait_time`: a leading digit, then C
    /// conversion (refused only on `ERANGE`, stored in 32 bits).
    fn number_setting(&mut self, arg: &[u8], what: &str) -> Result<u32, SyntaxError> {
        if !starts_with_digit(arg) {
            return err(format!("{what} must be a numeric value, was {}", show(arg)));
        }
        let c = strtoul(arg, 0);
        if c.range_error {
            return err(format!("{what}: {} is out of range", show(arg)));
        }
        // "rate (-r)" → "-r"; "backlog_wait_time" → "--backlog_wait_time".
        let flag = match what.split_once(" (") {
            Some((_, f)) => f.trim_end_matches(')').to_string(),
            None => format!("--{what}"),
        };
        Ok(self.note_u32(&flag, arg, c))
    }
}
