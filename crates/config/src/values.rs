//! Value checks, key by key, with auditd 3.0.9's rules and messages.

use crate::keys::{action_words, Key, Kind};
use crate::Host;

/// A checked value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// `yes`/`no`.
    Bool(bool),
    /// One of the key's words, lower case.
    Word(&'static str),
    /// A number.
    Number(u64),
    /// A free-space threshold: megabytes, or a percentage of the disk.
    Space { amount: u64, percent: bool },
    /// A failure action, with its program for `exec`.
    Action {
        word: &'static str,
        exe: Option<String>,
    },
    /// A group id.
    Gid(u32),
    /// Text as written.
    Text(String),
    /// An inclusive port range.
    Ports(u16, u16),
    /// A deprecated key: nothing.
    Nothing,
}

/// A value's check: the value and warnings, or why it is refused.
pub type Checked = Result<(Value, Vec<String>), String>;

fn digits(value: &str) -> Result<(), String> {
    if value.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(format!("value {value} should only be numbers"))
    }
}

/// strtoul of a digits-only string: out of range is auditd's ERANGE error.
fn number(value: &str) -> Result<u64, String> {
    digits(value)?;
    // An empty string cannot be a word; strtoul would give 0.
    if value.is_empty() {
        return Ok(0);
    }
    value.parse::<u64>().map_err(|_| {
        format!("error converting {value} to a number (Numerical result out of range)")
    })
}

fn word(words: &'static [&'static str], value: &str) -> Result<&'static str, String> {
    words
        .iter()
        .find(|w| w.eq_ignore_ascii_case(value))
        .copied()
        .ok_or_else(|| format!("option {value} not found"))
}

/// Check `value` (and the action's `option`) for `key`, as auditd's parser
/// for that key does. `verify_email` is the current setting of that key.
pub fn check(
    key: &Key,
    value: &str,
    option: Option<&str>,
    verify_email: bool,
    host: &dyn Host,
) -> Checked {
    let mut warnings = Vec::new();
    let v = match key.kind {
        Kind::YesNo => Value::Bool(word(&["yes", "no"], value)? == "yes"),
        Kind::Word(words) => {
            let w = word(words, value)?;
            if key.name == "log_format" && w == "nolog" {
                warnings.push(
                    "the NOLOG option to log_format is deprecated (auditd: use write_logs = no); \
                     it sets write_logs = no"
                        .into(),
                );
            }
            Value::Word(w)
        }
        Kind::Number { min, max } => {
            let n = number(value)?;
            if key.name == "num_logs" && n > max {
                return Err("num_logs must be 999 or less".into());
            }
            if key.name == "q_depth" && n > max {
                return Err("q_depth must be 99999 or less".into());
            }
            if n > max {
                return Err(format!("converted number ({value}) is too large"));
            }
            if n < min {
                return Err(format!("converted number ({value}) is too small"));
            }
            if key.name == "q_depth" && n < 512 {
                warnings.push("q_depth should be larger than 512 for safety margin".into());
            }
            Value::Number(n)
        }
        Kind::Space => space(value)?,
        Kind::Action { forbidden } => {
            let w = word(action_words(), value)?;
            if forbidden.contains(&w) {
                return Err(format!("illegal option {value} for {}", key.name));
            }
            let exe = match w {
                "exec" => {
                    let path = option.ok_or("executable path needed")?;
                    if !path.starts_with('/') {
                        return Err(format!("absolute path needed for {path}"));
                    }
                    host.check_exe(path)?;
                    Some(path.to_string())
                }
                "email" => {
                    if !host.mail_command_executable() {
                        warnings.push(
                            "email option is specified but /usr/lib/sendmail doesn't seem executable"
                                .into(),
                        );
                    }
                    None
                }
                _ => None,
            };
            if option.is_some() && w != "exec" {
                warnings.push(format!(
                    "the word after {value} is used only with exec: ignored, as auditd ignores it"
                ));
            }
            Value::Action { word: w, exe }
        }
        Kind::Group => group(value, host)?,
        Kind::LogFile => {
            // auditd: dirname() at least 4 bytes ('/var' is the shortest).
            let dir = dirname(value);
            if dir.len() < 4 {
                return Err(format!("the directory name: {dir} is too short"));
            }
            warnings.extend(host.check_log_file(value)?);
            Value::Text(value.to_string())
        }
        Kind::Email => {
            if verify_email {
                email(value)?;
                // auditd takes a failed look-up for a temporary failure:
                // it says so and keeps the address.
                if let Some((_, domain)) = value.split_once('@') {
                    if let Err(why) = host.look_up_mail_domain(domain) {
                        warnings.push(format!(
                            "verify_email: failed looking up host for {domain} ({why}); the address is kept, as auditd keeps it"
                        ));
                    }
                }
            }
            Value::Text(value.to_string())
        }
        Kind::Ports => ports(value)?,
        Kind::Text => Value::Text(value.to_string()),
        Kind::Deprecated => {
            warnings.push(format!("the {} option is deprecated", key.name));
            Value::Nothing
        }
    };
    Ok((v, warnings))
}

/// POSIX dirname, as auditd takes it of log_file.
pub fn dirname(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return if path.starts_with('/') { "/" } else { "." };
    }
    match trimmed.rfind('/') {
        None => ".",
        Some(i) => {
            let d = trimmed[..i].trim_end_matches('/');
            if d.is_empty() {
                "/"
            } else {
                d
            }
        }
    }
}

fn space(value: &str) -> Result<Value, String> {
    if let Some(c) = value.chars().find(|&c| !c.is_ascii_digit() && c != '%') {
        return Err(format!(
            "value {c} {value} should only be numbers or percent"
        ));
    }
    let percent = value.contains('%');
    // auditd blanks the first '%' and strtoul reads the leading digits.
    let lead: String = value.chars().take_while(char::is_ascii_digit).collect();
    let amount = if lead.is_empty() { 0 } else { number(&lead)? };
    if percent && amount > 99 {
        return Err("percentages should be less than 100".into());
    }
    Ok(Value::Space { amount, percent })
}

fn group(value: &str, host: &dyn Host) -> Result<Value, String> {
    if value.starts_with(|c: char| c.is_ascii_digit()) {
        // strtoul: the leading digits, the rest ignored.
        let lead: String = value.chars().take_while(char::is_ascii_digit).collect();
        let n = lead.parse::<u64>().map_err(|_| {
            format!("numeric group ID conversion error (Numerical result out of range) for {value}")
        })?;
        // gid_t is 32 bits: auditd's assignment truncates.
        return Ok(Value::Gid(n as u32));
    }
    host.group_id(value)
        .map(Value::Gid)
        .ok_or_else(|| format!("group ID is non-numeric and unknown ({value})"))
}

fn email(acct: &str) -> Result<(), String> {
    if acct.len() < 2 {
        return Err(format!(
            "email: {acct} is too short, expecting at least 2 characters"
        ));
    }
    if !acct
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "@.-_".contains(c))
    {
        return Err(format!("email: {acct} has illegal character"));
    }
    if let Some(at) = acct.find('@') {
        if acct.rfind('.').is_none_or(|dot| dot < at) {
            return Err(format!("email: {acct} should have . after @"));
        }
    }
    Ok(())
}

fn ports(value: &str) -> Result<Value, String> {
    let bad =
        || format!("value {value} should only be numbers, or two numbers separated by a dash");
    let (lo, hi) = match value.get(1..).and_then(|rest| rest.find('-')) {
        Some(i) if i + 2 < value.len() => (&value[..=i], &value[i + 2..]),
        _ => (value, value),
    };
    let lo = number(lo).map_err(|_| bad())?;
    let hi = number(hi).map_err(|_| bad())?;
    for n in [lo, hi] {
        if n > 65535 {
            return Err(format!("converted number ({n}) is too large"));
        }
    }
    if lo > hi {
        return Err(format!("converted range ({lo}-{hi}) is reversed"));
    }
    Ok(Value::Ports(lo as u16, hi as u16))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirnames() {
        assert_eq!(dirname("/var/log/audit/audit.log"), "/var/log/audit");
        assert_eq!(dirname("/x"), "/");
        assert_eq!(dirname("audit.log"), ".");
        assert_eq!(dirname("/var//a.log"), "/var");
    }

    #[test]
    fn spaces_and_ports() {
        assert_eq!(
            space("75").unwrap(),
            Value::Space {
                amount: 75,
                percent: false
            }
        );
        assert_eq!(
            space("25%").unwrap(),
            Value::Space {
                amount: 25,
                percent: true
            }
        );
        assert!(space("100%").is_err());
        assert!(space("7M").is_err());
        assert_eq!(ports("1024-65535").unwrap(), Value::Ports(1024, 65535));
        assert_eq!(ports("60").unwrap(), Value::Ports(60, 60));
        assert!(ports("9-1").is_err());
        assert!(ports("-1").is_err());
        assert!(ports("1-").is_err());
        assert!(ports("70000").is_err());
    }

    #[test]
    fn emails() {
        assert!(email("root").is_ok());
        assert!(email("a@b.c").is_ok());
        assert!(email("a@bc").is_err());
        assert!(email("x").is_err());
        assert!(email("a b").is_err());
    }
}
