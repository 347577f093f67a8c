//! Where a run's rules come from: the files given, else
//! /etc/audit/rules.d, else (only when that does not exist) the built-in
//! default rules.

use fastaudit_rules::{lexer, LoadErrors, Origin, Partial, RuleSet, SystemHost};
use std::path::PathBuf;

/// The rules used when neither --rules nor /etc/audit/rules.d is given.
const DEFAULT_RULES: &str = include_str!("../../../../rules/default.rules");
pub const RULES_D: &str = "/etc/audit/rules.d";

/// Where a run without `--rules` takes its rules from, in words.
pub fn default_source() -> String {
    if std::path::Path::new(RULES_D).exists() {
        RULES_D.to_string()
    } else {
        "the built-in default rules".to_string()
    }
}

/// The rules of `paths`, else of /etc/audit/rules.d, else the built-in
/// defaults: a rules.d that exists but cannot be read (as non-root, say)
/// is an error, never a silent fallback. The errors: one line each.
pub fn load(paths: &[PathBuf], host: &SystemHost, strict: bool) -> Result<RuleSet, Vec<String>> {
    load_limited(
        paths,
        host,
        strict,
        fastaudit_rules::report::MESSAGES_PER_FILE,
    )
}

/// [`load`], printing at most `limit` messages a file (0: all).
pub fn load_limited(
    paths: &[PathBuf],
    host: &SystemHost,
    strict: bool,
    limit: usize,
) -> Result<RuleSet, Vec<String>> {
    let strings = |e: LoadErrors| e.report();
    if !paths.is_empty() {
        return RuleSet::load_limited(paths, host, strict, limit).map_err(strings);
    }
    match std::fs::metadata(RULES_D) {
        Ok(_) => {
            return RuleSet::load_limited(&[PathBuf::from(RULES_D)], host, strict, limit)
                .map_err(strings)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("fastaudit: {RULES_D} does not exist: using the built-in default rules");
        }
        Err(e) => {
            return Err(vec![format!(
                "{RULES_D}: cannot read: {} (the built-in default rules are used only when it does not exist)",
                fastaudit_rules::os_error::describe(&e)
            )])
        }
    }
    let mut set = RuleSet::default();
    let mut errors = Vec::new();
    for l in lexer::lines(DEFAULT_RULES.as_bytes()) {
        let origin = Origin {
            file: "<built-in default rules>".into(),
            line: l.lineno,
        };
        if let Err(e) = set.apply_words(&l.words, &origin, host) {
            errors.push(e.to_string());
        }
    }
    if errors.is_empty() {
        Ok(set)
    } else {
        Err(errors)
    }
}

/// The rules a run starts with: with `strict`, all of them or an error
/// ([`load`]); else as `auditctl -R` (augenrules) loads them, the lines
/// before the first refused one (past it after `-c` or `-i`), so that a
/// rules error never leaves the host without an audit daemon. Only a
/// rules.d that exists but cannot be listed is an error then.
pub fn load_for_run(
    paths: &[PathBuf],
    host: &SystemHost,
    strict: bool,
) -> Result<Partial, Vec<String>> {
    if strict {
        return load(paths, host, true).map(|set| Partial {
            set,
            refused: None,
            stopped: None,
            ignored: false,
        });
    }
    let limit = fastaudit_rules::report::MESSAGES_PER_FILE;
    if !paths.is_empty() {
        return Ok(RuleSet::load_as_auditctl(paths, host, limit));
    }
    match std::fs::metadata(RULES_D) {
        // A rules.d that cannot be listed is no rule set at all: an error,
        // as in `load`, not an empty partial one.
        Ok(_) => match std::fs::read_dir(RULES_D) {
            Ok(_) => Ok(RuleSet::load_as_auditctl(
                &[PathBuf::from(RULES_D)],
                host,
                limit,
            )),
            Err(e) => Err(vec![format!(
                "{RULES_D}: cannot read: {} (the built-in default rules are used only when it does not exist)",
                fastaudit_rules::os_error::describe(&e)
            )]),
        },
        // The built-in rules load on every host (tests/rules check them).
        Err(_) => load(paths, host, false).map(|set| Partial {
            set,
            refused: None,
            stopped: None,
            ignored: false,
        }),
    }
}

/// The warnings of a load, `FILE:LINE: warning: ...`, on stderr, at most
/// `limit` a file (0: all), then how many more (as `fastaudit rules`
/// prints them).
pub fn print_warnings(set: &RuleSet, limit: usize) {
    let none = Default::default();
    for line in fastaudit_rules::report::lines(&[], &set.warnings, &none, limit) {
        eprintln!("{line}");
    }
}
