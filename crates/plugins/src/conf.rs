//! Plugin configuration files (`plugin_dir/*.conf`), read as auditd 3.0.9
//! reads them (audisp/audispd-pconfig.c): `name = value [option]` lines
//! split on single spaces, keywords `active`, `direction`, `path`, `type`,
//! `args` (at most two words), `format`, case-insensitive; the file must be
//! a regular file owned by root and not world-writable; an active plugin's
//! program must be a regular file owned by root with at least `rwxr-x---`.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Lines this long or longer are skipped, as auditd's 160-byte line buffer does.
const LINE_MAX: usize = 159;

/// How the plugin is run (`type`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `always`: a program started by the daemon, fed on its stdin.
    Always,
    /// `builtin`: one of auditd's built-in plugins (`path = builtin_NAME`).
    Builtin,
}

/// How events are written to the plugin (`format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// One record per line, as the log has it.
    String,
    /// auditd's binary dispatcher header and message.
    Binary,
}

/// One plugin's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginConf {
    /// The file's name (auditd tells plugins apart by it).
    pub name: String,
    /// The file.
    pub file: PathBuf,
    /// `active = yes`.
    pub active: bool,
    /// The program (or `builtin_NAME`).
    pub path: String,
    /// `type`.
    pub kind: Kind,
    /// `args`: at most two words, passed after the program's path.
    pub args: Vec<String>,
    /// `format`.
    pub format: Wire,
}

/// A configuration file auditd would skip, with why.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{file}{}: {what}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ConfError {
    /// The file.
    pub file: String,
    /// The line, when one is at fault.
    pub line: Option<usize>,
    /// What is wrong.
    pub what: String,
}

/// The files of `dir` auditd reads as plugin configurations: every entry
/// but hidden ones and names with more than one dot (backups such as
/// `x.conf.rpmsave`), sorted by name.
pub fn files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name.matches('.').count() > 1 {
            continue;
        }
        v.push(e.path());
    }
    v.sort();
    Ok(v)
}

/// Read one plugin configuration. Warnings (lines auditd reports and
/// skips) are pushed to `warnings`; a file auditd would skip is an error.
pub fn load(file: &Path, warnings: &mut Vec<String>) -> Result<PluginConf, ConfError> {
    let fname = file.display().to_string();
    let err = |line: Option<usize>, what: String| ConfError {
        file: fname.clone(),
        line,
        what,
    };
    let meta = std::fs::metadata(file).map_err(|e| err(None, e.to_string()))?;
    if meta.uid() != 0 {
        return Err(err(None, "isn't owned by root".into()));
    }
    if meta.mode() & 0o002 != 0 {
        return Err(err(None, "is world writable".into()));
    }
    if !meta.is_file() {
        return Err(err(None, "is not a regular file".into()));
    }
    let text = std::fs::read(file).map_err(|e| err(None, e.to_string()))?;
    parse(file, &text, warnings)
}

/// A plugin configuration's text, `file`'s (whose ownership and mode are
/// checked already), read as auditd reads it.
pub fn parse(
    file: &Path,
    text: &[u8],
    warnings: &mut Vec<String>,
) -> Result<PluginConf, ConfError> {
    let fname = file.display().to_string();
    let err = |line: Option<usize>, what: String| ConfError {
        file: fname.clone(),
        line,
        what,
    };
    let mut conf = PluginConf {
        name: file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        file: file.to_path_buf(),
        active: false,
        path: String::new(),
        kind: Kind::Always,
        args: Vec::new(),
        format: Wire::String,
    };
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if text.ends_with(b"\n") || text.is_empty() {
        lines.pop();
    }
    let any_line = !lines.is_empty();
    for (i, raw) in lines.into_iter().enumerate() {
        let lineno = i + 1;
        if raw.len() >= LINE_MAX {
            warnings.push(format!("{fname}:{lineno}: too long: skipped"));
            continue;
        }
        let line = String::from_utf8_lossy(raw);
        let words: Vec<&str> = line.split(' ').filter(|w| !w.is_empty()).collect();
        let at = |what: String| err(Some(lineno), what);
        if let Some(setting) = Setting::of(&words, &at, |w| {
            warnings.push(format!("{fname}:{lineno}: {w}"))
        })? {
            setting.apply(&mut conf, &at)?;
        }
    }
    if any_line && conf.active {
        sanity_check(&conf).map_err(|what| err(None, what))?;
    }
    Ok(conf)
}

/// One setting line: `name = value [option]`.
struct Setting<'l> {
    name: &'l str,
    value: &'l str,
    option: Option<&'l str>,
}

impl<'l> Setting<'l> {
    /// The setting a line's words make (None for a blank or comment
    /// line); `at` makes the line's error, `warn` says what auditd warns of.
    fn of(
        words: &[&'l str],
        at: &dyn Fn(String) -> ConfError,
        mut warn: impl FnMut(String),
    ) -> Result<Option<Setting<'l>>, ConfError> {
        let Some(&name) = words.first() else {
            return Ok(None);
        };
        if name.starts_with('#') {
            return Ok(None);
        }
        let Some(&eq) = words.get(1) else {
            return Err(at("wrong number of arguments".into()));
        };
        if eq != "=" {
            return Err(at("missing equal sign".into()));
        }
        let Some(&value) = words.get(2) else {
            return Err(at("wrong number of arguments".into()));
        };
        let option = words.get(3).copied();
        if words.len() > 4 {
            // auditd reports it and goes on with the first two words.
            warn(format!(
                "wrong number of arguments: only `{value} {}` kept",
                words[3]
            ));
        }
        Ok(Some(Setting {
            name,
            value,
            option,
        }))
    }

    /// The setting applied to `conf`, its value checked as auditd does.
    fn apply(
        &self,
        conf: &mut PluginConf,
        at: &dyn Fn(String) -> ConfError,
    ) -> Result<(), ConfError> {
        let Setting {
            name,
            value,
            option,
        } = *self;
        let key = name.to_ascii_lowercase();
        if key != "args" {
            if let Some(o) = option {
                return Err(at(format!("keyword \"{name}\" has invalid option \"{o}\"")));
            }
        }
        let pick = |choices: &[&str]| -> Result<String, ConfError> {
            let v = value.to_ascii_lowercase();
            if choices.contains(&v.as_str()) {
                Ok(v)
            } else {
                Err(at(format!("option {value} not found")))
            }
        };
        match key.as_str() {
            "active" => conf.active = pick(&["yes", "no"])? == "yes",
            // auditd 3.0.9 has no input plugins ("in" is commented out there).
            "direction" => {
                pick(&["out"])?;
            }
            "path" => {
                if !value.to_ascii_lowercase().starts_with("builtin_") {
                    let dir = Path::new(value)
                        .parent()
                        .map(|d| d.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    // auditd's rule: '/var' is the shortest directory name.
                    if dir.len() < 4 {
                        return Err(at(format!("the directory name {dir:?} is too short")));
                    }
                }
                conf.path = value.to_string();
            }
            "type" => {
                conf.kind = match pick(&["builtin", "always"])?.as_str() {
                    "builtin" => Kind::Builtin,
                    _ => Kind::Always,
                }
            }
            "args" => {
                conf.args = std::iter::once(value)
                    .chain(option)
                    .map(String::from)
                    .collect();
            }
            "format" => {
                conf.format = match pick(&["binary", "string"])?.as_str() {
                    "binary" => Wire::Binary,
                    _ => Wire::String,
                }
            }
            _ => {
                return Err(at(format!("unknown keyword \"{name}\"")));
            }
        }
        Ok(())
    }
}

/// auditd's checks of an active plugin's program.
fn sanity_check(conf: &PluginConf) -> Result<(), String> {
    if conf.path.is_empty() {
        return Err("the plugin is active but no path is given".into());
    }
    if conf.path.to_ascii_lowercase().starts_with("builtin_") {
        return Ok(());
    }
    let meta = std::fs::metadata(&conf.path).map_err(|e| format!("{}: {e}", conf.path))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", conf.path));
    }
    if meta.uid() != 0 {
        return Err(format!("{} is not owned by root", conf.path));
    }
    if meta.mode() & 0o750 != 0o750 {
        return Err(format!("{} permissions should be 0750", conf.path));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn dir() -> PathBuf {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let d = std::env::temp_dir().join(format!("fa-pconf-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn write(d: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    fn root() -> bool {
        nix::unistd::geteuid().is_root()
    }

    #[test]
    fn debian_syslog_conf_reads_as_auditd_reads_it() {
        if !root() {
            return;
        }
        let d = dir();
        let f = write(
            &d,
            "syslog.conf",
            "# comment\n\nactive = yes\ndirection = out\npath = /sbin/audisp-syslog\ntype = always \nargs = LOG_INFO LOG_LOCAL6\nformat = string\n",
            0o640,
        );
        let mut w = Vec::new();
        let c = load(&f, &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            c,
            PluginConf {
                name: "syslog.conf".into(),
                file: f,
                active: true,
                path: "/sbin/audisp-syslog".into(),
                kind: Kind::Always,
                args: vec!["LOG_INFO".into(), "LOG_LOCAL6".into()],
                format: Wire::String,
            }
        );
    }

    #[test]
    fn bad_lines_are_refused_with_the_line() {
        if !root() {
            return;
        }
        let d = dir();
        for (text, line, what) in [
            ("active = yes\nbogus = 1\n", 2, "unknown keyword"),
            ("active yes\n", 1, "missing equal sign"),
            ("active =\n", 1, "wrong number of arguments"),
            ("direction = in\n", 1, "option in not found"),
            ("active = yes now\n", 1, "invalid option"),
            ("path = /x/prog\n", 1, "too short"),
            ("format = json\n", 1, "option json not found"),
        ] {
            let f = write(&d, "p.conf", text, 0o640);
            let e = load(&f, &mut Vec::new()).unwrap_err();
            assert_eq!(e.line, Some(line), "{text:?}: {e}");
            assert!(e.to_string().contains(what), "{text:?}: {e}");
            assert!(e
                .to_string()
                .starts_with(&format!("{}:{line}: ", f.display())));
        }
    }

    #[test]
    fn files_and_programs_must_be_safe() {
        if !root() {
            return;
        }
        let d = dir();
        let f = write(&d, "w.conf", "active = no\n", 0o666);
        assert!(load(&f, &mut Vec::new())
            .unwrap_err()
            .what
            .contains("world writable"));
        let prog = write(&d, "prog", "#!/bin/sh\n", 0o700);
        let text = format!("active = yes\npath = {}\n", prog.display());
        let f = write(&d, "a.conf", &text, 0o640);
        assert!(load(&f, &mut Vec::new())
            .unwrap_err()
            .what
            .contains("should be 0750"));
        std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(load(&f, &mut Vec::new()).is_ok());
        // An inactive plugin's program is not looked at.
        let f = write(&d, "b.conf", "active = no\npath = /nonexistent/x\n", 0o640);
        assert!(load(&f, &mut Vec::new()).is_ok());
    }

    #[test]
    fn backups_and_hidden_files_are_not_read() {
        let d = dir();
        for n in ["a.conf", "b", ".hidden.conf", "c.conf.rpmsave", "d.conf~"] {
            std::fs::write(d.join(n), "").unwrap();
        }
        let names: Vec<String> = files(&d)
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.conf", "b", "d.conf~"]);
    }

    #[test]
    fn extra_args_are_reported_and_two_kept() {
        if !root() {
            return;
        }
        let d = dir();
        let f = write(&d, "x.conf", "args = --config /etc/x.toml extra\n", 0o640);
        let mut w = Vec::new();
        let c = load(&f, &mut w).unwrap();
        assert_eq!(c.args, ["--config", "/etc/x.toml"]);
        assert_eq!(w.len(), 1, "{w:?}");
    }

    #[test]
    fn the_text_is_read_without_root() {
        let f = Path::new("/etc/audit/plugins.d/x.conf");
        let mut w = Vec::new();
        let c = parse(
            f,
            b"active = yes\npath = /bin/cat\nargs = -u\nTYPE = Always\n",
            &mut w,
        )
        .unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!((c.name.as_str(), c.active), ("x.conf", true));
        assert_eq!(
            (c.path.as_str(), &c.args[..]),
            ("/bin/cat", &["-u".to_string()][..])
        );
        let e = parse(f, b"active = no\nformat = json\n", &mut w).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/etc/audit/plugins.d/x.conf:2: option json not found"
        );
        let long = format!("# {}\nactive = no\n", "x".repeat(LINE_MAX));
        assert!(parse(f, long.as_bytes(), &mut w).is_ok());
        assert_eq!(w, ["/etc/audit/plugins.d/x.conf:1: too long: skipped"]);
    }
}
