//! auditd's fault actions (`ignore`, `syslog`, `rotate`, `suspend`, ...),
//! which of them fastaudit carries out, free-space thresholds, and the
//! messages that go to stderr and syslog.

use std::fmt;

/// What to do on a disk fault or low free space (auditd.conf's words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Carry on; events that could not be written are counted as lost.
    Ignore,
    /// Carry on, saying so on stderr and to syslog.
    Syslog,
    /// Rotate the logs (freeing the oldest), then carry on.
    Rotate,
    /// Stop writing until SIGUSR2 (events counted as lost), saying so.
    Suspend,
}

/// The auditd words fastaudit does not carry out, and why.
const REFUSED: &[(&str, &str)] = &[
    ("email", "fastaudit sends no mail"),
    ("exec", "fastaudit runs no program on a fault"),
    ("single", "fastaudit does not change the runlevel"),
    ("halt", "fastaudit does not halt the system"),
];

/// Which auditd.conf key an action is for: each allows its own words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKey {
    /// `space_left_action`.
    SpaceLeft,
    /// `admin_space_left_action`.
    AdminSpaceLeft,
    /// `disk_full_action`.
    DiskFull,
    /// `disk_error_action`.
    DiskError,
}

impl ActionKey {
    /// The auditd.conf key.
    pub fn name(self) -> &'static str {
        match self {
            ActionKey::SpaceLeft => "space_left_action",
            ActionKey::AdminSpaceLeft => "admin_space_left_action",
            ActionKey::DiskFull => "disk_full_action",
            ActionKey::DiskError => "disk_error_action",
        }
    }

    /// Whether the key takes the action (auditd refuses `rotate` for
    /// disk_error_action).
    pub fn allows(self, action: Action) -> Result<(), String> {
        if self == ActionKey::DiskError && action == Action::Rotate {
            return Err(format!(
                "{}: `rotate` is not an action for it (auditd refuses it too): ignore, syslog or suspend",
                self.name()
            ));
        }
        Ok(())
    }

    /// Parse auditd's word for this key (any case, as auditd reads it).
    pub fn parse(self, word: &str) -> Result<Action, String> {
        let w = word.to_ascii_lowercase();
        let action = match w.as_str() {
            "ignore" => Action::Ignore,
            "syslog" => Action::Syslog,
            "rotate" => Action::Rotate,
            "suspend" => Action::Suspend,
            _ => {
                let why = REFUSED.iter().find(|(n, _)| *n == w).map_or_else(
                    || "not an auditd action".to_string(),
                    |(_, why)| format!("not supported: {why}"),
                );
                return Err(format!(
                    "{} {word:?}: {why}; fastaudit carries out ignore, syslog, {}suspend",
                    self.name(),
                    if self == ActionKey::DiskError {
                        ""
                    } else {
                        "rotate, "
                    }
                ));
            }
        };
        self.allows(action)?;
        Ok(action)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::Ignore => "ignore",
            Action::Syslog => "syslog",
            Action::Rotate => "rotate",
            Action::Suspend => "suspend",
        })
    }
}

/// A free-space threshold (auditd's `space_left` / `admin_space_left`):
/// MiB, or a percentage of the file system's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threshold {
    /// This many MiB free (0: no threshold).
    Mib(u64),
    /// This percentage of the file system free (0-99).
    Percent(u32),
}

impl Threshold {
    /// Parse auditd's form: digits, with a `%` for a percentage.
    pub fn parse(s: &str) -> Result<Threshold, String> {
        let (digits, pct) = match s.strip_suffix('%') {
            Some(d) => (d, true),
            None => (s, false),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "{s:?}: a number of MiB, or a percentage such as 25%"
            ));
        }
        let n: u64 = digits
            .parse()
            .map_err(|_| format!("{s:?}: the number is too large"))?;
        if !pct {
            return Ok(Threshold::Mib(n));
        }
        match u32::try_from(n) {
            Ok(p) if p <= 99 => Ok(Threshold::Percent(p)),
            _ => Err(format!("{s:?}: percentages must be below 100")),
        }
    }

    /// The threshold in bytes on a file system of `total` bytes.
    pub fn bytes(self, total: u64) -> u64 {
        match self {
            Threshold::Mib(m) => m.saturating_mul(1 << 20),
            Threshold::Percent(p) => total / 100 * u64::from(p),
        }
    }
}

/// Say `msg` on stderr and, when `syslog`, to the system log (priority
/// alert, facility daemon, as auditd's `audit_msg(LOG_ALERT, ...)`).
pub(crate) fn say(msg: &str, syslog: bool) {
    eprintln!("fastaudit: {msg}");
    if syslog {
        crate::syslog::syslog(crate::syslog::Priority::Alert, msg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auditd_words_any_case_and_refusals_with_the_reason() {
        assert_eq!(ActionKey::DiskFull.parse("SUSPEND"), Ok(Action::Suspend));
        assert_eq!(ActionKey::SpaceLeft.parse("rotate"), Ok(Action::Rotate));
        let e = ActionKey::DiskFull.parse("halt").unwrap_err();
        assert!(
            e.contains("disk_full_action") && e.contains("does not halt"),
            "{e}"
        );
        let e = ActionKey::DiskError.parse("rotate").unwrap_err();
        assert!(e.contains("not an action for it"), "{e}");
        assert!(ActionKey::DiskError.parse("exec").is_err());
        assert!(ActionKey::SpaceLeft.parse("bogus").is_err());
    }

    #[test]
    fn thresholds_in_mib_or_percent() {
        assert_eq!(Threshold::parse("75"), Ok(Threshold::Mib(75)));
        assert_eq!(Threshold::parse("25%"), Ok(Threshold::Percent(25)));
        assert!(Threshold::parse("100%").is_err());
        assert!(Threshold::parse("1x").is_err());
        assert!(Threshold::parse("").is_err());
        assert_eq!(Threshold::Mib(2).bytes(0), 2 << 20);
        assert_eq!(Threshold::Percent(10).bytes(1000), 100);
    }
}
