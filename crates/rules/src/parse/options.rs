//! auditctl's `setopt` switch: one handler per option letter. The options
//! that build a rule are handled here; control settings and queries are in
//! `control`.

use super::lists::{keyword_hint, Setup};
use super::{contains, err, show, Flow, Pending, State, SyntaxError};
use crate::abi::{action, field, list};
use crate::getopt::{Getopt, Opt};
use crate::settings::{Query, Setting};

impl State<'_> {
    /// Handle one option; `count` is auditctl's remaining-word count, which
    /// `-s`, `-l` and `-D` consume as they peek at their companions.
    pub(super) fn option(
        &mut self,
        opt: Opt,
        g: &Getopt,
        args: &[Vec<u8>],
        count: &mut usize,
    ) -> Result<Flow, SyntaxError> {
        let (c, arg) = match opt {
            Opt::Invalid(w) => return err(format!("option {} is invalid", show(&w))),
            Opt::Long(name, arg) => return self.long_option(name, arg.unwrap_or_default()),
            Opt::Short(c, arg) => (c, arg.unwrap_or_default()),
        };
        let optind = g.optind();
        match c {
            b'h' => err("-h (help) is not a rule"),
            b'i' => self.stop_with(Setting::IgnoreErrors),
            b'c' => self.stop_with(Setting::ContinueOnErrors),
            b's' => self.status(args, optind, count),
            b'e' | b'f' => self.flag_setting(c, &arg),
            b'r' | b'b' => self.limit_setting(c, &arg),
            b'l' => self.list_query(args, optind, count),
            b'a' | b'A' => self.add_option(c, &arg),
            b'd' => self.delete_option(&arg),
            b'S' | b'U' => self.syscalls(c, &arg),
            b'F' => self.field_option(&arg, args, optind, *count),
            b'C' => {
                let list = self.list();
                self.compare(&arg, list)?;
                Ok(Flow::Continue(Pending::Nothing))
            }
            b'm' => self.user_message(arg, *count),
            b'R' => err("-R: nested rule files are not supported"),
            b'D' => self.delete_all(args, optind, count),
            b'w' | b'W' => self.watch_option(c, arg),
            b'k' => self.key_option(&arg),
            b'p' => {
                if !self.has_list() {
                    return err("-p: permissions need a watch given before them");
                }
                self.setup_perms(&arg)?;
                Ok(Flow::Continue(Pending::Rule))
            }
            b'q' => self.make_equivalent(&arg),
            b't' => self.return_with(Setting::TrimSubtrees),
            b'v' => {
                self.out.queries.push(Query::Version);
                Ok(Flow::Stop)
            }
            other => err(format!("option -{} is invalid", other as char)),
        }
    }

    /// `-a`/`-A list,action`.
    fn add_option(&mut self, c: u8, arg: &[u8]) -> Result<Flow, SyntaxError> {
        if contains(arg, b"task") && self.syscall_added {
            return err("syscall auditing requested for the task list");
        }
        let mut target = self.add;
        let setup = self.rule_setup(arg, &mut target);
        self.add = target;
        match setup {
            Setup::Ready => {
                if c == b'A' {
                    self.prepend = true;
                }
                Ok(Flow::Continue(Pending::Rule))
            }
            Setup::Deprecated => Ok(Flow::Deprecated),
            Setup::Repeated => repeated(),
            Setup::BadKeyword => self.bad_keyword(c, arg),
        }
    }

    /// `-d list,action`.
    fn delete_option(&mut self, arg: &[u8]) -> Result<Flow, SyntaxError> {
        let mut target = self.del;
        let setup = self.rule_setup(arg, &mut target);
        self.del = target;
        match setup {
            Setup::Ready => Ok(Flow::Continue(Pending::Rule)),
            Setup::Deprecated => Ok(Flow::Deprecated),
            Setup::Repeated => repeated(),
            Setup::BadKeyword => self.bad_keyword(b'd', arg),
        }
    }

    /// `-F name OP value`. Without a list, auditctl lets only `arch=`
    /// through, and only when `-t` follows.
    fn field_option(
        &mut self,
        arg: &[u8],
        args: &[Vec<u8>],
        optind: usize,
        count: usize,
    ) -> Result<Flow, SyntaxError> {
        let list = match self.list() {
            Some(l) => Some(l),
            None if optind < count
                && contains(arg, b"arch=")
                && args.get(optind).map(Vec::as_slice) == Some(b"-t") =>
            {
                None
            }
            None => {
                return err(format!(
                    "-F {}: a list (-a, -A or -d) must be given before fields",
                    show(arg)
                ))
            }
        };
        if let Some(k) = arg.strip_prefix(b"key=") {
            self.process_key(k)?;
            return Ok(Flow::Continue(Pending::Nothing));
        }
        self.written_fieldpair(arg, list)?;
        if self
            .rule
            .fields
            .last()
            .is_some_and(|f| f.field == field::PERM)
        {
            self.perm_added = true;
        }
        Ok(Flow::Continue(Pending::Nothing))
    }

    /// `-w`/`-W path`: a watch on the exit list, added or deleted.
    fn watch_option(&mut self, c: u8, arg: Vec<u8>) -> Result<Flow, SyntaxError> {
        if c == b'w' {
            if self.has_list() {
                return err("-w: a watch can't be given with a syscall rule (-a, -A or -d)");
            }
            self.add = Some(list::EXIT);
        } else {
            self.del = Some(list::EXIT);
        }
        self.action = Some(action::ALWAYS);
        self.syscall_added = true;
        self.setup_watch(arg)?;
        Ok(Flow::Continue(Pending::Rule))
    }

    /// `-k key`: needs a list and something to key.
    fn key_option(&mut self, arg: &[u8]) -> Result<Flow, SyntaxError> {
        if !self.has_key_target() || !self.has_list() {
            return err(format!(
                "-k {}: a key needs a watch or syscall given before it",
                show(arg)
            ));
        }
        self.process_key(arg)?;
        Ok(Flow::Continue(Pending::Nothing))
    }

    /// A `list,action` word with unknown or missing keywords.
    fn bad_keyword(&self, c: u8, arg: &[u8]) -> Result<Flow, SyntaxError> {
        err(format!(
            "-{} {}: bad list or action keyword{}",
            c as char,
            show(arg),
            self.hint(|| keyword_hint(arg))
        ))
    }
}

/// A second `-a`/`-A`/`-d` on one line.
fn repeated() -> Result<Flow, SyntaxError> {
    err("multiple rule insert/delete operations are not allowed on one line")
}
