//! auditd.conf, read exactly as auditd 3.0.9 reads it: every key with its
//! default, its value checks, the file checks (owned by root, not world
//! writable, a regular file, no symlink) and the final sanity checks.
//! Refusals and warnings carry `FILE:LINE`. What fastaudit does with each
//! key is in [`keys::KEYS`]; the live system (groups, directories,
//! programs) is asked through [`Host`], so this crate only reads the file.

mod host;
pub mod keys;
pub mod lines;
pub mod values;

pub use host::Host;
use keys::{Key, Use, KEYS};
use lines::Line;
use std::fmt;
use std::path::{Path, PathBuf};
use thiserror::Error;
pub use values::Value;

/// auditd's configuration file.
pub const DEFAULT_PATH: &str = "/etc/audit/auditd.conf";

/// A message about one place in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file.
    pub file: PathBuf,
    /// Its line (from 1), when the message is about one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// Why a configuration file is refused.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// It could not be opened or read, or fails auditd's file checks.
    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },
    /// Lines that auditd would refuse (every one is listed).
    #[error("{}", list(.0))]
    Invalid(Vec<Diagnostic>),
}

fn list(d: &[Diagnostic]) -> String {
    d.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// One key's setting: its value and the line that set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The value (`None`: unset, auditd's NULL).
    pub value: Option<Value>,
    /// The line that set it; `None`: auditd's default.
    pub line: Option<usize>,
}

/// A read configuration: every key's setting, plus the warnings.
#[derive(Clone, Debug)]
pub struct Conf {
    /// The file it was read from.
    pub file: PathBuf,
    /// Settings in [`KEYS`] order.
    settings: Vec<Setting>,
    /// Warnings, in line order (the file is accepted with them).
    pub warnings: Vec<Diagnostic>,
}

/// A key set in the file that fastaudit does not act on yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The key.
    pub key: &'static Key,
    /// Where it was set.
    pub line: usize,
    /// What fastaudit lacks for it.
    pub missing: keys::Missing,
}

impl Conf {
    /// auditd's defaults (`clear_config`), as if read from `file`.
    pub fn defaults(file: impl Into<PathBuf>) -> Conf {
        let settings = KEYS
            .iter()
            .map(|k| Setting {
                value: k.default.map(|d| default_value(k, d)),
                line: None,
            })
            .collect();
        Conf {
            file: file.into(),
            settings,
            warnings: Vec::new(),
        }
    }

    fn index(name: &str) -> usize {
        let i = KEYS.iter().position(|k| k.name == name);
        debug_assert!(i.is_some(), "no auditd.conf key {name}");
        i.unwrap_or(0)
    }

    /// A key's setting by its (lower-case) name.
    pub fn setting(&self, name: &str) -> &Setting {
        &self.settings[Self::index(name)]
    }

    /// A key's value.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.setting(name).value.as_ref()
    }

    /// The line that set a key, if the file did.
    pub fn line(&self, name: &str) -> Option<usize> {
        self.setting(name).line
    }

    /// A yes/no key.
    pub fn yes(&self, name: &str) -> bool {
        matches!(self.get(name), Some(Value::Bool(true)))
    }

    /// A word key's word, lower case.
    pub fn word(&self, name: &str) -> Option<&'static str> {
        match self.get(name) {
            Some(Value::Word(w)) => Some(w),
            _ => None,
        }
    }

    /// A number key.
    pub fn number(&self, name: &str) -> u64 {
        match self.get(name) {
            Some(Value::Number(n)) => *n,
            _ => 0,
        }
    }

    /// A text key.
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Some(Value::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// A `Diagnostic` about the line that set `name` (or the file).
    pub fn at(&self, name: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: self.file.clone(),
            line: self.line(name),
            message: message.into(),
        }
    }

    /// Keys set in the file that fastaudit does not act on (not applied,
    /// or refused: see [`Key::usage`]), in line order.
    pub fn unsupported(&self) -> Vec<Unsupported> {
        let mut out: Vec<Unsupported> = KEYS
            .iter()
            .zip(&self.settings)
            .filter_map(|(k, s)| match (k.usage, s.line) {
                (Use::NotYet(missing) | Use::Refused(missing), Some(line)) => Some(Unsupported {
                    key: k,
                    line,
                    missing,
                }),
                _ => None,
            })
            .collect();
        out.sort_by_key(|u| u.line);
        out
    }
}

fn default_value(k: &Key, d: &str) -> Value {
    // Defaults are constants the unit tests check; no host is consulted.
    values::check(k, d, None, false, &NoHost)
        .map(|(v, _)| v)
        .unwrap_or(Value::Nothing)
}

/// A host that knows nothing and accepts every path: for the defaults, and
/// for tests that check what a configuration means, not the machine.
pub struct NoHost;

impl Host for NoHost {
    fn group_id(&self, _: &str) -> Option<u32> {
        None
    }
    fn check_log_file(&self, _: &str) -> Result<Vec<String>, String> {
        Ok(Vec::new())
    }
    fn check_exe(&self, _: &str) -> Result<(), String> {
        Ok(())
    }
    fn mail_command_executable(&self) -> bool {
        true
    }
    fn look_up_mail_domain(&self, _: &str) -> Result<(), String> {
        Ok(())
    }
}

/// Read `path` with auditd's file checks, then [`parse`] it.
pub fn load(path: &Path, host: &dyn Host) -> Result<Conf, ConfigError> {
    use std::io::Read;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let err = |message: String| ConfigError::File {
        path: path.to_path_buf(),
        message,
    };
    // auditd opens it O_NOFOLLOW (a symlink is refused) and O_NONBLOCK is
    // ours: a FIFO must not hang the start; it is refused below.
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix_flags())
        .open(path)
        .map_err(|e| err(format!("error opening config file ({e})")))?;
    let st = f
        .metadata()
        .map_err(|e| err(format!("error fstat'ing config file ({e})")))?;
    if st.uid() != 0 {
        return Err(err("isn't owned by root".into()));
    }
    if st.mode() & 0o002 != 0 {
        return Err(err("is world writable".into()));
    }
    if !st.file_type().is_file() {
        return Err(err("is not a regular file".into()));
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)
        .map_err(|e| err(format!("reading: {e}")))?;
    parse(path, &String::from_utf8_lossy(&bytes), host)
}

/// O_NOFOLLOW | O_NONBLOCK, as open(2) numbers them on Linux.
fn nix_flags() -> i32 {
    const O_NONBLOCK: i32 = 0o4000;
    const O_NOFOLLOW: i32 = 0o400000;
    O_NOFOLLOW | O_NONBLOCK
}

/// Parse auditd.conf text read from `file`: every line auditd would refuse
/// is listed in the error; otherwise the settings and the warnings.
pub fn parse(file: &Path, text: &str, host: &dyn Host) -> Result<Conf, ConfigError> {
    let mut conf = Conf::defaults(file);
    let mut errors = Vec::new();
    let mut any_line = false;
    // log_file's checks matter only when a log is written: with
    // `write_logs = no` (known once every line is read) its directory
    // need not exist. auditd checks it either way; fastaudit does not
    // refuse a file for a log it will never open.
    let mut log_file_error = None;
    let diag = |line: usize, message: String| Diagnostic {
        file: file.to_path_buf(),
        line: Some(line),
        message,
    };
    for (n, l) in lines::lines(text) {
        any_line = true;
        let (name, value, option, extra) = match l {
            Line::Blank => continue,
            Line::Skipped(why) => {
                conf.warnings.push(diag(n, why.into()));
                continue;
            }
            Line::Incomplete { name, why } => {
                errors.push(diag(n, format!("{name}: {why}")));
                continue;
            }
            Line::Pair {
                name,
                value,
                option,
                extra,
            } => (name, value, option, extra),
        };
        let Some(key) = keys::lookup(name) else {
            errors.push(diag(n, format!("unknown keyword \"{name}\"")));
            continue;
        };
        if extra {
            conf.warnings.push(diag(
                n,
                format!("{name}: wrong number of arguments: the words after the third are ignored, as auditd ignores them"),
            ));
        }
        if let (Some(o), false) = (option, keys::takes_option(key)) {
            errors.push(diag(
                n,
                format!("keyword \"{name}\" has invalid option \"{o}\""),
            ));
            continue;
        }
        match values::check(key, value, option, conf.yes("verify_email"), host) {
            Ok((v, warnings)) => {
                conf.warnings.extend(
                    warnings
                        .into_iter()
                        .map(|w| diag(n, format!("{}: {w}", key.name))),
                );
                if key.name == "log_format" && v == Value::Word("nolog") {
                    let i = Conf::index("write_logs");
                    conf.settings[i] = Setting {
                        value: Some(Value::Bool(false)),
                        line: Some(n),
                    };
                }
                conf.settings[Conf::index(key.name)] = Setting {
                    value: Some(v),
                    line: Some(n),
                };
            }
            Err(why) if key.name == "log_file" => {
                conf.settings[Conf::index(key.name)] = Setting {
                    value: Some(Value::Text(value.to_string())),
                    line: Some(n),
                };
                log_file_error = Some(diag(n, format!("{}: {why}", key.name)));
            }
            Err(why) => errors.push(diag(n, format!("{}: {why}", key.name))),
        }
    }
    if let Some(e) = log_file_error.filter(|_| conf.yes("write_logs")) {
        errors.push(e);
        errors.sort_by_key(|d| d.line);
    }
    // auditd's sanity_check runs once a line was read.
    if errors.is_empty() && any_line {
        sanity_check(&mut conf, &mut errors);
    }
    if errors.is_empty() {
        Ok(conf)
    } else {
        Err(ConfigError::Invalid(errors))
    }
}

fn space(conf: &Conf, name: &str) -> (u64, bool) {
    match conf.get(name) {
        Some(Value::Space { amount, percent }) => (*amount, *percent),
        _ => (0, false),
    }
}

/// auditd's `sanity_check`: checks that involve several keys.
fn sanity_check(conf: &mut Conf, errors: &mut Vec<Diagnostic>) {
    // A percentage of 0 is auditd's absolute 0.
    let (space_left, sl_pct) = space(conf, "space_left");
    let (admin, admin_pct) = space(conf, "admin_space_left");
    let (sl_pct, admin_pct) = (sl_pct && space_left > 0, admin_pct && admin > 0);
    if !sl_pct && !admin_pct && space_left <= admin {
        errors.push(conf.at(
            "space_left",
            format!("space_left({space_left}) must be larger than admin_space_left({admin})"),
        ));
    }
    let flush = conf.word("flush");
    let incremental = matches!(flush, Some("incremental" | "incremental_async"));
    if incremental && conf.number("freq") == 0 {
        errors.push(conf.at(
            "flush",
            "incremental flushing chosen, but 0 selected for freq",
        ));
    }
    if matches!(conf.get("log_group"), Some(Value::Gid(g)) if *g != 0) {
        let file = conf.text("log_file").unwrap_or_default();
        if values::dirname(file) == "/var/log" {
            errors.push(conf.at(
                "log_group",
                "log_file is directly in /var/log and chgrp will alter a system directory's permissions. Use another directory.",
            ));
        }
    }
    if matches!(flush, Some("data" | "sync")) && conf.number("freq") != 0 {
        let w = conf.at(
            "freq",
            "freq is non-zero and incremental flushing not selected",
        );
        conf.warnings.push(w);
    }
}

#[cfg(test)]
mod tests;
