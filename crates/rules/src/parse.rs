//! One rules-file line to a request, following auditctl's option handling
//! (`setopt`, `audit_rule_fieldpair_data` and friends) step by step, so that
//! a line is accepted or refused exactly when auditctl accepts or refuses it.
//!
//! Deliberate extension: the `io_uring` list (`-a always,io_uring -U op`),
//! which the kernel has but auditctl 3.0.9 does not know; `-S` works there
//! too, as in auditctl 4.

use crate::abi::{self, action, field, list, op, perm};
use crate::cnum::{starts_negative, starts_with_digit, strtol, strtoul};
use crate::getopt::{Getopt, Opt};
use crate::host::Host;
use crate::rule::{Field, Rule};
use crate::settings::{Query, Setting};
use crate::tables::{self, Machine};
use thiserror::Error;

/// Why auditctl refuses a line (the message names the option or value).
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{0}")]
pub struct SyntaxError(pub String);

/// What one line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `-a`/`-A`/`-w`: add a rule (at the head of its list when `prepend`).
    Add { rule: Rule, prepend: bool },
    /// `-d`/`-W`: delete the identical rule.
    Delete(Rule),
    /// `-D [-k key]`: delete all rules (whose key contains `key`).
    DeleteAll { key: Vec<u8> },
}

/// Everything a line says: settings first, then at most one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Control settings (`-b`, `-e`, `-f` ...), in order.
    pub settings: Vec<Setting>,
    /// Read-only queries (`-l`, `-s`, `-v`) that change nothing.
    pub queries: Vec<Query>,
    /// The rule change, if any.
    pub request: Option<Request>,
    /// Things auditctl warns about but accepts.
    pub warnings: Vec<String>,
}

fn err<T>(msg: impl Into<String>) -> Result<T, SyntaxError> {
    Err(SyntaxError(msg.into()))
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// auditctl's per-line state (its globals, reset for every line).
struct State<'h> {
    host: &'h dyn Host,
    syscall_added: bool,
    perm_added: bool,
    exe_added: bool,
    filterfs_added: bool,
    elf: u32,
    add: u32,
    del: u32,
    action: Option<u32>,
    multiple: u32,
    rule: Rule,
    key: Vec<u8>,
    list_requested: bool,
    out: Parsed,
}

/// What setopt's handlers return: keep going, or stop the scan.
enum Flow {
    /// retval >= 0: 0 = nothing to send, 1 = a rule to send.
    Continue(i32),
    /// retval -2: done, nothing to send; the end-of-line checks still run.
    Stop,
    /// A handler that returns from setopt directly (skips the end checks).
    Return,
    /// `possible` action: auditctl warns and skips the line.
    Deprecated,
}

/// Parse the words of one line (without the program name).
pub fn parse_words(words: &[Vec<u8>], host: &dyn Host) -> Result<Parsed, SyntaxError> {
    let mut args = vec![b"auditctl".to_vec()];
    args.extend_from_slice(words);
    let mut st = State {
        host,
        syscall_added: false,
        perm_added: false,
        exe_added: false,
        filterfs_added: false,
        elf: 0,
        add: list::UNSET,
        del: list::UNSET,
        action: None,
        multiple: 0,
        rule: Rule::empty(),
        key: Vec::new(),
        list_requested: false,
        out: Parsed::default(),
    };
    st.run(&args)
}

impl State<'_> {
    fn run(&mut self, args: &[Vec<u8>]) -> Result<Parsed, SyntaxError> {
        let mut count = args.len();
        let mut g = Getopt::new(args);
        let mut retval = 0;
        let mut returned = false;
        while let Some(opt) = g.next() {
            match self.option(opt, &g, args, &mut count)? {
                Flow::Continue(r) => retval = retval.max(r),
                Flow::Stop => {
                    retval = -2;
                    break;
                }
                Flow::Return => {
                    retval = -2;
                    returned = true;
                    break;
                }
                Flow::Deprecated => {
                    let mut p = std::mem::take(&mut self.out);
                    p.warnings.push(
                        "the 'possible' action is deprecated; auditctl skips this line".into(),
                    );
                    p.request = None;
                    return Ok(p);
                }
            }
        }
        if !returned {
            if g.optind() == 1 {
                return err("no option given (a rule line starts with an option such as -a or -w)");
            }
            if g.optind() < count {
                let extra = args.get(g.optind()).map(|w| show(w)).unwrap_or_default();
                return err(format!("parameter passed without an option given: {extra}"));
            }
            if !self.key.is_empty() && !self.list_requested {
                // auditctl starts from 0 (the user list) here, not "unset".
                let flags = self.flags().unwrap_or(list::USER);
                let pair = [b"key=".as_slice(), &self.key].concat();
                self.fieldpair(&pair, flags)?;
            }
        }
        self.finish(retval)
    }

    /// auditctl's `handle_request`: turn the collected state into a request.
    fn finish(&mut self, retval: i32) -> Result<Parsed, SyntaxError> {
        if retval == 0 && self.syscall_added {
            return err("no list specified for the syscall (use -a or -A)");
        }
        if retval > 0 {
            let (flags, delete) = if self.add != list::UNSET {
                (self.add, false)
            } else if self.del != list::UNSET {
                (self.del, true)
            } else {
                return err("no list specified (use -a, -A, -d, -w or -W)");
            };
            let mut rule = std::mem::replace(&mut self.rule, Rule::empty());
            rule.list = flags & list::MASK;
            rule.action = self.action.unwrap_or(action::NEVER);
            if rule.list != list::TASK && !self.syscall_added {
                rule.add_all_syscalls();
            }
            self.out.request = Some(if delete {
                Request::Delete(rule)
            } else {
                Request::Add {
                    rule,
                    prepend: flags & list::PREPEND != 0,
                }
            });
        }
        Ok(std::mem::take(&mut self.out))
    }

    /// The list flags of the rule being built, if a list was chosen.
    fn flags(&self) -> Option<u32> {
        if self.add != list::UNSET {
            Some(self.add & list::MASK)
        } else if self.del != list::UNSET {
            Some(self.del & list::MASK)
        } else {
            None
        }
    }

    fn list_of(v: u32) -> u32 {
        v & (list::MASK | list::UNSET)
    }

    fn option(
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
            b'i' => {
                self.out.settings.push(Setting::IgnoreErrors);
                Ok(Flow::Stop)
            }
            b'c' => {
                self.out.settings.push(Setting::ContinueOnErrors);
                Ok(Flow::Stop)
            }
            b's' => {
                if *count > 3 {
                    return err("too many options for the status command (-s)");
                }
                if optind == 2 && *count == 3 {
                    if args[2] != b"-i" {
                        return err("only -i is allowed after -s");
                    }
                    *count -= 1;
                }
                self.out.queries.push(Query::Status);
                Ok(Flow::Stop)
            }
            b'e' | b'f' => {
                let n = match arg.as_slice() {
                    b"0" => 0,
                    b"1" => 1,
                    b"2" => 2,
                    _ => {
                        let what = if c == b'e' {
                            "enable (-e)"
                        } else {
                            "failure (-f)"
                        };
                        return err(format!("{what} must be 0, 1, or 2, was {}", show(&arg)));
                    }
                };
                self.out.settings.push(if c == b'e' {
                    Setting::Enabled(n)
                } else {
                    Setting::Failure(n)
                });
                Ok(Flow::Continue(0))
            }
            b'r' | b'b' => {
                let what = if c == b'r' {
                    "rate (-r)"
                } else {
                    "backlog (-b)"
                };
                let v = Self::number_setting(&arg, what)?;
                self.out.settings.push(if c == b'r' {
                    Setting::RateLimit(v)
                } else {
                    Setting::BacklogLimit(v)
                });
                Ok(Flow::Continue(0))
            }
            b'l' => {
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
                    self.append_key_truncated(&args[3]);
                    *count -= 2;
                }
                self.list_requested = true;
                self.out.queries.push(Query::List);
                Ok(Flow::Stop)
            }
            b'a' | b'A' => {
                if contains(&arg, b"task") && self.syscall_added {
                    return err("syscall auditing requested for the task list");
                }
                let mut target = self.add;
                let rc = self.rule_setup(&arg, &mut target);
                self.add = target;
                match rc {
                    3 => err("multiple rule insert/delete operations are not allowed on one line"),
                    2 => err(format!(
                        "-{} {}: bad list or action keyword",
                        c as char,
                        show(&arg)
                    )),
                    1 => Ok(Flow::Deprecated),
                    _ => {
                        if c == b'A' {
                            self.add |= list::PREPEND;
                        }
                        Ok(Flow::Continue(1))
                    }
                }
            }
            b'd' => {
                let mut target = self.del;
                let rc = self.rule_setup(&arg, &mut target);
                self.del = target;
                match rc {
                    3 => err("multiple rule insert/delete operations are not allowed on one line"),
                    2 => err(format!("-d {}: bad list or action keyword", show(&arg))),
                    1 => Ok(Flow::Deprecated),
                    _ => Ok(Flow::Continue(1)),
                }
            }
            b'S' | b'U' => self.syscalls(c, &arg),
            b'F' => {
                let flags = match self.flags() {
                    Some(f) => f,
                    None if optind < *count
                        && contains(&arg, b"arch=")
                        && args.get(optind).map(Vec::as_slice) == Some(b"-t") =>
                    {
                        list::UNSET
                    }
                    None => {
                        return err(format!(
                            "-F {}: a list (-a, -A or -d) must be given before fields",
                            show(&arg)
                        ))
                    }
                };
                if let Some(k) = arg.strip_prefix(b"key=") {
                    self.process_key(k)?;
                    return Ok(Flow::Continue(0));
                }
                self.fieldpair(&arg, flags)?;
                if self
                    .rule
                    .fields
                    .last()
                    .is_some_and(|f| f.field == field::PERM)
                {
                    self.perm_added = true;
                }
                Ok(Flow::Continue(0))
            }
            b'C' => {
                let flags = self.flags().unwrap_or(list::UNSET);
                self.compare(&arg, flags)?;
                Ok(Flow::Continue(0))
            }
            b'm' => {
                if *count > 3 {
                    return err("-m must be the only option and takes one parameter");
                }
                if arg.iter().any(|&b| !(32..128).contains(&b)) {
                    return err("-m: illegal character in audit event text");
                }
                self.out.settings.push(Setting::UserMessage(arg));
                Ok(Flow::Return)
            }
            b'R' => err("-R: nested rule files are not supported"),
            b'D' => {
                if *count > 4 || *count == 3 {
                    return err("wrong number of options for delete all (-D [-k key])");
                }
                if *count == 4 {
                    if args.get(optind).map(Vec::as_slice) != Some(b"-k") {
                        return err("only -k may follow -D");
                    }
                    self.append_key_truncated(&args[3]);
                    *count -= 2;
                }
                let key = std::mem::take(&mut self.key);
                self.out.request = Some(Request::DeleteAll { key });
                Ok(Flow::Stop)
            }
            b'w' | b'W' => {
                if c == b'w' {
                    if self.add != list::UNSET || self.del != list::UNSET {
                        return err(
                            "-w: a watch can't be given with a syscall rule (-a, -A or -d)",
                        );
                    }
                    self.add = list::EXIT;
                } else {
                    self.del = list::EXIT;
                }
                self.action = Some(action::ALWAYS);
                self.syscall_added = true;
                self.setup_watch(arg)?;
                Ok(Flow::Continue(1))
            }
            b'k' => {
                if !(self.syscall_added || self.perm_added || self.exe_added || self.filterfs_added)
                    || (self.add == list::UNSET && self.del == list::UNSET)
                {
                    return err(format!(
                        "-k {}: a key needs a watch or syscall given before it",
                        show(&arg)
                    ));
                }
                self.process_key(&arg)?;
                Ok(Flow::Continue(0))
            }
            b'p' => {
                if self.add == list::UNSET && self.del == list::UNSET {
                    return err("-p: permissions need a watch given before them");
                }
                self.setup_perms(&arg)?;
                Ok(Flow::Continue(1))
            }
            b'q' => {
                if self.syscall_added {
                    return err("-q: syscall auditing requested for make equivalent");
                }
                let mut parts = arg.splitn(2, |&b| b == b',');
                let (mp, sub) = (
                    parts.next().unwrap_or_default(),
                    parts.next().unwrap_or_default(),
                );
                if sub.is_empty() || contains(sub, b",") {
                    return err(format!("-q {}: expected mount-point,subtree", show(&arg)));
                }
                self.out
                    .settings
                    .push(Setting::MakeEquivalent(mp.to_vec(), sub.to_vec()));
                Ok(Flow::Return)
            }
            b't' => {
                self.out.settings.push(Setting::TrimSubtrees);
                Ok(Flow::Return)
            }
            b'v' => {
                self.out.queries.push(Query::Version);
                Ok(Flow::Stop)
            }
            other => err(format!("option -{} is invalid", other as char)),
        }
    }

    fn long_option(&mut self, name: &'static str, arg: Vec<u8>) -> Result<Flow, SyntaxError> {
        match name {
            "loginuid-immutable" => {
                self.out.settings.push(Setting::LoginuidImmutable);
                Ok(Flow::Return)
            }
            "backlog_wait_time" => {
                let v = Self::number_setting(&arg, "backlog_wait_time")?;
                self.out.settings.push(Setting::BacklogWaitTime(v));
                Ok(Flow::Continue(0))
            }
            "reset-lost" => {
                self.out.settings.push(Setting::ResetLost);
                Ok(Flow::Return)
            }
            "reset_backlog_wait_time_actual" => {
                self.out.settings.push(Setting::ResetBacklogWaitTimeActual);
                Ok(Flow::Return)
            }
            _ => {
                let sig = arg.to_ascii_uppercase();
                if !matches!(
                    sig.as_slice(),
                    b"TERM" | b"HUP" | b"USR1" | b"USR2" | b"CONT"
                ) {
                    return err(format!("--signal {}: unsupported signal", show(&arg)));
                }
                self.out.settings.push(Setting::Signal(show(&sig)));
                Ok(Flow::Stop)
            }
        }
    }

    /// `-b`, `-r`, `--backlog_wait_time`: a leading digit, then C conversion.
    fn number_setting(arg: &[u8], what: &str) -> Result<u32, SyntaxError> {
        if !starts_with_digit(arg) {
            return err(format!("{what} must be a numeric value, was {}", show(arg)));
        }
        let c = strtoul(arg, 0);
        if c.range_error {
            return err(format!("{what}: {} is out of range", show(arg)));
        }
        Ok(c.value as u32)
    }

    /// auditctl's `audit_rule_setup`: `list,action` in either order.
    /// Returns 0 ok, 1 deprecated action, 2 bad keyword, 3 repeated.
    fn rule_setup(&mut self, opt: &[u8], filter: &mut u32) -> u32 {
        self.multiple += 1;
        if self.multiple != 1 {
            return 3;
        }
        let Some(comma) = opt.iter().position(|&b| b == b',') else {
            return 2;
        };
        let (first, second) = (&opt[..comma], &opt[comma + 1..]);
        if contains(second, b",") {
            return 2;
        }
        if self.lookup_action(first) == 2 {
            match lookup_filter(first) {
                Some(f) => *filter = f,
                None => return 2,
            }
        }
        if *filter == list::UNSET {
            if let Some(f) = lookup_filter(second) {
                *filter = f;
            }
        } else {
            let rc = self.lookup_action(second);
            if rc != 0 {
                return rc;
            }
        }
        if *filter == list::UNSET || self.action.is_none() {
            return 2;
        }
        0
    }

    fn lookup_action(&mut self, s: &[u8]) -> u32 {
        match s {
            b"always" => {
                self.action = Some(action::ALWAYS);
                0
            }
            b"never" => {
                self.action = Some(action::NEVER);
                0
            }
            b"possible" => 1,
            _ => 2,
        }
    }

    fn syscalls(&mut self, c: u8, arg: &[u8]) -> Result<Flow, SyntaxError> {
        let add = Self::list_of(self.add);
        let del = Self::list_of(self.del);
        if add == list::URING_EXIT || del == list::URING_EXIT {
            for name in arg.split(|&b| b == b',').filter(|n| !n.is_empty()) {
                self.uring_op(name)?;
            }
            self.syscall_added = true;
            return Ok(Flow::Continue(1));
        }
        if c == b'U' {
            return err(format!(
                "-U {}: io_uring operations need the io_uring list (-a always,io_uring)",
                show(arg)
            ));
        }
        let on = |l| add == l || del == l;
        if on(list::TASK) {
            return err("syscall auditing being added to the task list");
        }
        if on(list::USER) {
            return err("syscall auditing being added to the user list");
        }
        if on(list::FS) {
            return err("syscall auditing being added to the filesystem list");
        }
        if add == list::EXCLUDE || del == list::EXCLUDE {
            return err("syscall auditing cannot be put on the exclude list");
        }
        let unknown_arch = self.elf == 0;
        if unknown_arch {
            let Some(m) = self.host.machine() else {
                return err("error detecting machine type");
            };
            self.elf = m.elf();
        }
        for name in arg.split(|&b| b == b',').filter(|n| !n.is_empty()) {
            self.syscall_by_name(name)?;
        }
        self.syscall_added = true;
        if unknown_arch && self.add != list::UNSET && self.differs_on_32bit(arg) {
            self.out.warnings.push(
                "32/64 bit syscall mismatch, you should specify an arch (-F arch=b64 or b32)"
                    .into(),
            );
        }
        Ok(Flow::Continue(0))
    }

    /// auditctl's `check_rule_mismatch`: would the same names select other
    /// numbers on the 32-bit side of this machine?
    fn differs_on_32bit(&self, arg: &[u8]) -> bool {
        let alt = match Machine::from_elf(self.elf) {
            Some(Machine::X86_64) => Machine::X86,
            Some(Machine::Ppc64) => Machine::Ppc,
            Some(Machine::S390x) => Machine::S390,
            Some(m) => m,
            None => return false,
        };
        let mut other = Rule::empty();
        for name in arg.split(|&b| b == b',').filter(|n| !n.is_empty()) {
            if name == b"all" {
                other.add_all_syscalls();
            } else if let Some(nr) = alt.syscall_number(name) {
                other.add_syscall(nr as u64);
            } else if starts_with_digit(name) {
                other.add_syscall(strtol(name, 0).value as u64);
            }
        }
        other.mask != self.rule.mask
    }

    /// `audit_rule_syscallbyname_data`: a name of this arch, a number, or `all`.
    fn syscall_by_name(&mut self, name: &[u8]) -> Result<(), SyntaxError> {
        let Some(machine) = Machine::from_elf(self.elf) else {
            return err(format!("-S: elf type unknown: 0x{:x}", self.elf));
        };
        self.select(
            name,
            |n| machine.syscall_number(n),
            Rule::add_all_syscalls,
            "-S: syscall name unknown",
        )
    }

    /// An io_uring operation by name, number or `all`.
    fn uring_op(&mut self, name: &[u8]) -> Result<(), SyntaxError> {
        let all_ops = |r: &mut Rule| {
            for i in 0..tables::URING_OPS.len() {
                r.add_syscall(i as u64);
            }
        };
        self.select(
            name,
            tables::uring_op_number,
            all_ops,
            "io_uring op unknown",
        )
    }

    /// Set the bitmap bit of `name`: `all` (as `all` sets it), a name
    /// `lookup` knows, or a number (C `strtol`, as auditctl reads it).
    fn select(
        &mut self,
        name: &[u8],
        lookup: impl Fn(&[u8]) -> Option<u32>,
        all: impl FnOnce(&mut Rule),
        unknown: &str,
    ) -> Result<(), SyntaxError> {
        if name == b"all" {
            all(&mut self.rule);
            return Ok(());
        }
        let nr = match lookup(name) {
            Some(nr) => nr as u64,
            None if starts_with_digit(name) => strtol(name, 0).value as u64,
            None => return err(format!("{unknown}: {}", show(name))),
        };
        if !self.rule.add_syscall(nr) {
            return err(format!("{unknown}: {}", show(name)));
        }
        Ok(())
    }

    fn push(&mut self, field: u32, op: u32, value: u32, text: Vec<u8>) {
        self.rule.fields.push(Field {
            field,
            op,
            value,
            text,
        });
    }

    fn room(&self) -> Result<(), SyntaxError> {
        if self.rule.fields.len() >= abi::MAX_FIELDS - 1 {
            return err(format!(
                "too many fields (auditctl allows {})",
                abi::MAX_FIELDS - 1
            ));
        }
        Ok(())
    }

    /// `-w`/`-W PATH`: check, trim trailing slashes, and build the watch rule.
    fn setup_watch(&mut self, arg: Vec<u8>) -> Result<(), SyntaxError> {
        let mut path = arg;
        if path.len() >= abi::PATH_MAX {
            return err("the path passed for the watch is too big");
        }
        if path.first() != Some(&b'/') {
            return err(format!("watch path {} must start with '/'", show(&path)));
        }
        if basename(&path).len() > abi::NAME_MAX {
            return err("the base name of the watch path is too big");
        }
        if contains(&path, b"..") {
            self.out
                .warnings
                .push("relative path notation is not supported".into());
        }
        if path.contains(&b'*') || path.contains(&b'?') {
            self.out
                .warnings
                .push("wildcard notation is not supported".into());
        }
        if path.len() > 2 && path.ends_with(b"/") {
            while path.len() > 1 && path.ends_with(b"/") {
                path.pop();
            }
        }
        let ty = if self.host.is_dir(&path) {
            field::DIR
        } else {
            field::WATCH
        };
        if !self.rule.fields.is_empty() {
            return err("a watch must come before any field");
        }
        self.rule.add_all_syscalls();
        let len = path.len() as u32;
        self.push(ty, op::EQUAL, len, path);
        self.push(
            field::PERM,
            op::EQUAL,
            perm::READ | perm::WRITE | perm::EXEC | perm::ATTR,
            Vec::new(),
        );
        self.perm_added = true;
        Ok(())
    }

    /// `-p rwxa`: set (or add) the rule's permission filter.
    fn setup_perms(&mut self, arg: &[u8]) -> Result<(), SyntaxError> {
        if arg.len() > 4 {
            return err(format!("-p {}: permission is too long", show(arg)));
        }
        let val = perm_bits(arg).ok_or_else(|| {
            SyntaxError(format!("-p {}: permission must be some of rwxa", show(arg)))
        })?;
        if self.rule.fields.is_empty() {
            return err("-p: permissions should be preceded by other fields");
        }
        let mut done = false;
        for f in self
            .rule
            .fields
            .iter_mut()
            .filter(|f| f.field == field::PERM)
        {
            f.value = val;
            done = true;
        }
        if !done {
            self.room()?;
            self.push(field::PERM, op::EQUAL, val, Vec::new());
        }
        self.perm_added = true;
        Ok(())
    }

    /// `-k` and `-F key=`: append to the rule's key, joined with `\x01`.
    fn process_key(&mut self, k: &[u8]) -> Result<(), SyntaxError> {
        let sep = usize::from(!self.key.is_empty());
        if k.len() + self.key.len() + sep > abi::MAX_KEY_LEN {
            return err(format!(
                "key {} exceeds the size limit ({} bytes for all keys of a rule)",
                show(k),
                abi::MAX_KEY_LEN
            ));
        }
        if k.contains(&abi::KEY_SEPARATOR) {
            self.out
                .warnings
                .push(format!("key {} has an illegal character", show(k)));
        }
        if !self.key.is_empty() {
            self.key.push(abi::KEY_SEPARATOR);
        }
        self.key.extend_from_slice(k);
        Ok(())
    }

    /// `-l -k key` / `-D -k key`: auditctl copies at most the key size.
    fn append_key_truncated(&mut self, k: &[u8]) {
        let room = abi::MAX_KEY_LEN - self.key.len();
        let k = &k[..k.len().min(room)];
        self.key.extend_from_slice(k);
    }

    /// `-C f1=f2` / `-C f1!=f2`: an inter-field comparison (exit list only).
    fn compare(&mut self, pair: &[u8], flags: u32) -> Result<(), SyntaxError> {
        self.room()?;
        let (f, v, o) = if let Some(i) = find(pair, b"!=") {
            (&pair[..i], &pair[i + 2..], op::NOT_EQUAL)
        } else if let Some(i) = find(pair, b"=") {
            (&pair[..i], &pair[i + 1..], op::EQUAL)
        } else {
            return err(format!(
                "-C {}: only = and != are allowed in comparisons",
                show(pair)
            ));
        };
        if f.is_empty() {
            return err(format!(
                "-C {}: missing field name before the operator",
                show(pair)
            ));
        }
        if v.is_empty() {
            return err(format!(
                "-C {}: missing field name after the operator",
                show(pair)
            ));
        }
        let f1 = tables::field_number(f)
            .ok_or_else(|| SyntaxError(format!("-C: unknown field: {}", show(f))))?;
        let f2 = tables::field_number(v)
            .ok_or_else(|| SyntaxError(format!("-C: unknown field: {}", show(v))))?;
        if flags != list::EXIT && flags != list::URING_EXIT {
            return err(format!(
                "-C {}: field comparisons are only valid on the exit list",
                show(pair)
            ));
        }
        let cmp = tables::comparison(f1, f2).ok_or_else(|| {
            SyntaxError(format!(
                "-C {}: these fields cannot be compared",
                show(pair)
            ))
        })?;
        self.push(field::FIELD_COMPARE, o, cmp, Vec::new());
        Ok(())
    }

    /// `-F name OP value`: auditctl's `audit_rule_fieldpair_data`.
    fn fieldpair(&mut self, pair: &[u8], flags: u32) -> Result<(), SyntaxError> {
        self.room()?;
        const OPS: &[(&[u8], u32)] = &[
            (b"!=", op::NOT_EQUAL),
            (b">=", op::GREATER_THAN_OR_EQUAL),
            (b"<=", op::LESS_THAN_OR_EQUAL),
            (b"&=", op::BIT_TEST),
            (b"=", op::EQUAL),
            (b">", op::GREATER_THAN),
            (b"<", op::LESS_THAN),
            (b"&", op::BIT_MASK),
        ];
        let Some((i, sym, o)) = OPS
            .iter()
            .find_map(|(sym, o)| find(pair, sym).map(|i| (i, *sym, *o)))
        else {
            return err(format!("-F {}: missing operator", show(pair)));
        };
        let (name, v) = (&pair[..i], &pair[i + sym.len()..]);
        if name.is_empty() {
            return err(format!("-F {}: missing field name", show(pair)));
        }
        if v.is_empty() {
            return err(format!("-F {}: missing value", show(pair)));
        }
        let Some(fld) = tables::field_number(name) else {
            return err(format!("-F: unknown field: {}", show(name)));
        };
        let exitish = flags == list::EXIT || flags == list::URING_EXIT;
        let exit_only = |what: &str| err(format!("-F {what}: only valid on the exit list"));
        if flags == list::EXCLUDE
            && !matches!(
                fld,
                field::PID
                    | field::UID
                    | field::GID
                    | field::LOGINUID
                    | field::MSGTYPE
                    | field::SUBJ_USER..=field::SUBJ_CLR | field::EXE
            )
        {
            return err(format!("-F {}: only msgtype, pid, uid, gid, auid, subj_* and exe are valid on the exclude list", show(name)));
        }
        let n = show(name);
        let value: u32 = match fld {
            field::UID
            | field::EUID
            | field::SUID
            | field::FSUID
            | field::LOGINUID
            | field::OBJ_UID => {
                if starts_with_digit(v) {
                    strtoul(v, 0).value as u32
                } else if starts_negative(v) {
                    strtol(v, 0).value as u32
                } else if v == b"unset" {
                    abi::UNSET_ID
                } else {
                    self.host
                        .user_id(v)
                        .ok_or_else(|| SyntaxError(format!("-F {n}: unknown user: {}", show(v))))?
                }
            }
            field::GID | field::EGID | field::SGID | field::FSGID | field::OBJ_GID => {
                if starts_with_digit(v) {
                    strtol(v, 0).value as u32
                } else {
                    self.host
                        .group_id(v)
                        .ok_or_else(|| SyntaxError(format!("-F {n}: unknown group: {}", show(v))))?
                }
            }
            field::EXIT => {
                if !exitish {
                    return exit_only(&n);
                }
                if starts_with_digit(v) || starts_negative(v) {
                    strtol(v, 0).value as u32
                } else {
                    let (neg, name) = match v.strip_prefix(b"-") {
                        Some(rest) => (true, rest),
                        None => (false, v),
                    };
                    match tables::errnos().lookup(&name.to_ascii_uppercase()) {
                        Some(e) if neg => (e as i32).wrapping_neg() as u32,
                        Some(e) => e,
                        None => return err(format!("-F {n}: unknown errno: {}", show(v))),
                    }
                }
            }
            field::MSGTYPE => {
                if flags != list::EXCLUDE && flags != list::USER {
                    return err("-F msgtype: only valid on the exclude and user lists");
                }
                if starts_with_digit(v) {
                    strtol(v, 0).value as u32
                } else {
                    match msgtype_number(v) {
                        Some(t) if t > 0 => t as u32,
                        _ => return err(format!("-F msgtype: unknown message type: {}", show(v))),
                    }
                }
            }
            field::OBJ_USER..=field::OBJ_LEV_HIGH
            | field::WATCH
            | field::DIR
            | field::SUBJ_USER..=field::SUBJ_CLR
            | field::FILTERKEY
            | field::EXE => {
                if matches!(
                    fld,
                    field::OBJ_USER..=field::OBJ_LEV_HIGH | field::WATCH | field::DIR
                ) {
                    if !exitish {
                        return exit_only(&n);
                    }
                    if fld == field::WATCH || fld == field::DIR {
                        self.perm_added = true;
                    }
                }
                if fld == field::EXE {
                    if o != op::EQUAL && o != op::NOT_EQUAL {
                        return err("-F exe: only = and != are allowed");
                    }
                    self.exe_added = true;
                }
                if fld == field::FILTERKEY
                    && !(self.syscall_added
                        || self.perm_added
                        || self.exe_added
                        || self.filterfs_added)
                {
                    return err("-F key: a key needs a watch, syscall or exe given before it");
                }
                let max = if fld == field::FILTERKEY {
                    abi::MAX_KEY_LEN
                } else {
                    abi::PATH_MAX
                };
                if v.len() > max {
                    return err(format!("-F {n}: value is too long (at most {max} bytes)"));
                }
                self.push(fld, o, v.len() as u32, v.to_vec());
                return Ok(());
            }
            field::ARCH => {
                if self.syscall_added {
                    return err("-F arch: must be given before -S");
                }
                if o != op::EQUAL && o != op::NOT_EQUAL {
                    return err("-F arch: only = and != are allowed");
                }
                let elf = if starts_with_digit(v) {
                    let c = strtoul(v, 0);
                    self.elf = c.value as u32;
                    if c.range_error || Machine::from_elf(self.elf).is_none() {
                        return err(format!("-F arch: unknown elf type: {}", show(v)));
                    }
                    self.elf
                } else {
                    let m = self.determine_machine(v).ok_or_else(|| {
                        SyntaxError(format!("-F arch: unknown architecture: {}", show(v)))
                    })?;
                    m.elf()
                };
                self.elf = elf;
                elf
            }
            field::PERM => {
                if flags != list::EXIT {
                    return exit_only(&n);
                }
                if o != op::EQUAL {
                    return err("-F perm: only = is allowed");
                }
                if v.len() > 4 {
                    return err(format!("-F perm={}: value is too long", show(v)));
                }
                perm_bits(v).ok_or_else(|| {
                    SyntaxError(format!(
                        "-F perm={}: permission must be some of rwxa",
                        show(v)
                    ))
                })?
            }
            field::FILETYPE => {
                if !exitish {
                    return exit_only(&n);
                }
                tables::lookup_lower(tables::FILETYPES, v).ok_or_else(|| {
                    SyntaxError(format!("-F filetype: unknown file type: {}", show(v)))
                })?
            }
            field::FSTYPE => {
                if flags != list::FS {
                    return err("-F fstype: only valid on the filesystem list");
                }
                if o != op::EQUAL && o != op::NOT_EQUAL {
                    return err("-F fstype: only = and != are allowed");
                }
                let t = if starts_with_digit(v) {
                    strtoul(v, 0).value as u32
                } else {
                    tables::lookup_lower(tables::FSTYPES, v).unwrap_or(u32::MAX)
                };
                if t == u32::MAX {
                    return err(format!("-F fstype: unknown file system type: {}", show(v)));
                }
                self.filterfs_added = true;
                t
            }
            field::ARG0..=field::ARG3 => {
                if starts_with_digit(v) {
                    strtoul(v, 0).value as u32
                } else if starts_negative(v) {
                    strtol(v, 0).value as u32
                } else {
                    return err(format!("-F {n}: value must be numeric, was {}", show(v)));
                }
            }
            field::SESSIONID => {
                if !matches!(
                    flags,
                    list::EXCLUDE | list::USER | list::EXIT | list::URING_EXIT
                ) {
                    return err("-F sessionid: only valid on the exit, user and exclude lists");
                }
                if starts_with_digit(v) {
                    strtoul(v, 0).value as u32
                } else if starts_negative(v) {
                    strtol(v, 0).value as u32
                } else if v == b"unset" {
                    abi::UNSET_ID
                } else {
                    // auditctl leaves the value untouched (zero) here.
                    0
                }
            }
            field::SADDR_FAM => {
                let fam = strtoul(v, 0).value as u32;
                if fam >= abi::AF_MAX {
                    return err(format!("-F saddr_fam={}: value too big", show(v)));
                }
                fam
            }
            _ => {
                if matches!(fld, field::DEVMAJOR..=field::INODE | field::SUCCESS) && !exitish {
                    return exit_only(&n);
                }
                if fld == field::INODE && o != op::EQUAL && o != op::NOT_EQUAL {
                    return err("-F inode: only = and != are allowed");
                }
                if fld == field::PPID && !exitish {
                    return exit_only(&n);
                }
                if !starts_with_digit(v) {
                    return err(format!("-F {n}: value must be numeric, was {}", show(v)));
                }
                if fld == field::INODE {
                    strtoul(v, 0).value as u32
                } else {
                    strtol(v, 0).value as u32
                }
            }
        };
        self.push(fld, o, value, Vec::new());
        Ok(())
    }

    /// `audit_determine_machine`: b64, b32, a machine name, or a hex ELF value.
    fn determine_machine(&self, arch: &[u8]) -> Option<Machine> {
        let lower = arch.to_ascii_lowercase();
        let (bits, machine) = match lower.as_slice() {
            b"b64" => (Some(true), self.host.machine()?),
            b"b32" => (Some(false), self.host.machine()?),
            _ => match Machine::from_name(arch) {
                Some(m) => (None, m),
                None => {
                    let c = strtoul(arch, 16);
                    if c.range_error {
                        return None;
                    }
                    (None, Machine::from_elf(c.value as u32)?)
                }
            },
        };
        let machine = match (bits, machine) {
            (Some(false), Machine::X86_64) => Machine::X86,
            (Some(false), Machine::Ppc64) => Machine::Ppc,
            (Some(false), Machine::S390x) => Machine::S390,
            (Some(false), Machine::Aarch64) => Machine::Arm,
            (_, m) => m,
        };
        let ok = match machine {
            Machine::X86 | Machine::Ppc | Machine::S390 | Machine::Arm => bits != Some(true),
            Machine::Aarch64 | Machine::Ppc64le => bits.is_none() || bits == Some(true),
            Machine::X86_64 | Machine::Ppc64 | Machine::S390x => true,
        };
        ok.then_some(machine)
    }
}

/// auditctl's list keywords (case-sensitive, as in auditctl 3.0.9), plus io_uring.
fn lookup_filter(s: &[u8]) -> Option<u32> {
    Some(match s {
        b"exit" => list::EXIT,
        b"task" => list::TASK,
        b"user" => list::USER,
        b"exclude" => list::EXCLUDE,
        b"filesystem" => list::FS,
        b"io_uring" => list::URING_EXIT,
        _ => return None,
    })
}

/// `audit_name_to_msg_type`: a name, `UNKNOWN[n]`, or a number.
fn msgtype_number(v: &[u8]) -> Option<i64> {
    if let Some(t) = tables::msgtypes().lookup(&v.to_ascii_uppercase()) {
        return Some(t as i64);
    }
    if let Some(rest) = v.strip_prefix(b"UNKNOWN[") {
        let end = rest.iter().position(|&b| b == b']')?;
        return Some(strtol(&rest[..end.min(7)], 10).value);
    }
    None
}

/// Permission letters to bits; `None` on any other letter.
fn perm_bits(s: &[u8]) -> Option<u32> {
    s.iter().try_fold(0, |acc, b| {
        Some(
            acc | match b.to_ascii_lowercase() {
                b'r' => perm::READ,
                b'w' => perm::WRITE,
                b'x' => perm::EXEC,
                b'a' => perm::ATTR,
                _ => return None,
            },
        )
    })
}

/// POSIX `basename` (trailing slashes ignored).
fn basename(p: &[u8]) -> &[u8] {
    let trimmed = {
        let mut end = p.len();
        while end > 1 && p[end - 1] == b'/' {
            end -= 1;
        }
        &p[..end]
    };
    match trimmed.iter().rposition(|&b| b == b'/') {
        Some(i) if trimmed.len() > 1 => &trimmed[i + 1..],
        _ => trimmed,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}
