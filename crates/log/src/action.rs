//! auditd's fault actions (`ignore`, `syslog`, `rotate`, `email`, `exec`,
//! `suspend`, `single`, `halt`), the words each key takes, free-space
//! thresholds, and the messages that go to stderr and syslog.

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
    /// Mail `action_mail_acct` through /usr/lib/sendmail and say so to
    /// syslog, then carry on (space_left and admin_space_left only).
    Email,
    /// Stop writing (the log is closed, as with suspend) and run the
    /// key's program, which is expected to send SIGUSR2 once it is done.
    Exec,
    /// Stop writing until SIGUSR2 (events counted as lost), saying so.
    Suspend,
    /// Ask init for single user mode (`/sbin/init 1`), then carry on.
    Single,
    /// Ask init to halt the system (`/sbin/init 0`), then carry on.
    Halt,
}

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

/// Every action word, as auditd.conf spells it.
const WORDS: &[(&str, Action)] = &[
    ("ignore", Action::Ignore),
    ("syslog", Action::Syslog),
    ("rotate", Action::Rotate),
    ("email", Action::Email),
    ("exec", Action::Exec),
    ("suspend", Action::Suspend),
    ("single", Action::Single),
    ("halt", Action::Halt),
];

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

    /// The words this key takes, as auditd 3.0.9 takes them: every action
    /// for the space keys; no `email` for disk_full_action; neither
    /// `email` nor `rotate` for disk_error_action.
    pub fn words(self) -> Vec<&'static str> {
        WORDS
            .iter()
            .filter(|(_, a)| self.takes(*a))
            .map(|(w, _)| *w)
            .collect()
    }

    fn takes(self, action: Action) -> bool {
        !matches!(
            (self, action),
            (ActionKey::DiskFull | ActionKey::DiskError, Action::Email)
                | (ActionKey::DiskError, Action::Rotate)
        )
    }

    /// Whether the key takes the action (auditd refuses `email` for the
    /// disk keys, which mail nobody, and `rotate` for disk_error_action).
    pub fn allows(self, action: Action) -> Result<(), String> {
        if !self.takes(action) {
            return Err(format!(
                "{}: `{action}` is not an action for it (auditd refuses it too): {}",
                self.name(),
                self.words().join(", ")
            ));
        }
        Ok(())
    }

    /// Parse auditd's word for this key (any case, as auditd reads it).
    /// `exec`'s program is not part of the word: see [`Config`](crate::Config).
    pub fn parse(self, word: &str) -> Result<Action, String> {
        let Some(&(_, action)) = WORDS.iter().find(|(w, _)| w.eq_ignore_ascii_case(word)) else {
            return Err(format!(
                "{} {word:?}: not an auditd action; it takes {}",
                self.name(),
                self.words().join(", ")
            ));
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
            Action::Email => "email",
            Action::Exec => "exec",
            Action::Suspend => "suspend",
            Action::Single => "single",
            Action::Halt => "halt",
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

/// A number of bytes for people: MiB, or KiB below 1 MiB (a small log
/// file system has less than 1 MiB free long before it is full).
pub fn amount(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
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

/// Say `msg` on stderr and to the system log at `priority` (auditd says
/// a rotation at LOG_NOTICE and a log past its size at LOG_ERR).
pub(crate) fn say_at(priority: crate::syslog::Priority, msg: &str) {
    eprintln!("fastaudit: {msg}");
    crate::syslog::syslog(priority, msg);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auditd_words_any_case_and_refusals_with_the_reason() {
        assert_eq!(ActionKey::DiskFull.parse("SUSPEND"), Ok(Action::Suspend));
        assert_eq!(ActionKey::SpaceLeft.parse("rotate"), Ok(Action::Rotate));
        assert_eq!(ActionKey::SpaceLeft.parse("Email"), Ok(Action::Email));
        assert_eq!(
            ActionKey::AdminSpaceLeft.parse("single"),
            Ok(Action::Single)
        );
        assert_eq!(ActionKey::DiskFull.parse("HALT"), Ok(Action::Halt));
        assert_eq!(ActionKey::DiskError.parse("exec"), Ok(Action::Exec));
        assert_eq!(ActionKey::DiskError.parse("single"), Ok(Action::Single));
        let e = ActionKey::DiskError.parse("rotate").unwrap_err();
        assert!(e.contains("not an action for it"), "{e}");
        for key in [ActionKey::DiskFull, ActionKey::DiskError] {
            let e = key.parse("email").unwrap_err();
            assert!(e.contains(key.name()) && e.contains("`email`"), "{e}");
        }
        let e = ActionKey::SpaceLeft.parse("bogus").unwrap_err();
        assert!(
            e.contains("not an auditd action") && e.contains("halt"),
            "{e}"
        );
    }

    #[test]
    fn each_key_takes_auditds_words() {
        let all = "ignore syslog rotate email exec suspend single halt";
        assert_eq!(ActionKey::SpaceLeft.words().join(" "), all);
        assert_eq!(ActionKey::AdminSpaceLeft.words().join(" "), all);
        assert_eq!(
            ActionKey::DiskFull.words().join(" "),
            "ignore syslog rotate exec suspend single halt"
        );
        assert_eq!(
            ActionKey::DiskError.words().join(" "),
            "ignore syslog exec suspend single halt"
        );
        for key in [
            ActionKey::SpaceLeft,
            ActionKey::AdminSpaceLeft,
            ActionKey::DiskFull,
            ActionKey::DiskError,
        ] {
            for w in key.words() {
                let a = key.parse(w).unwrap();
                assert_eq!(a.to_string(), w, "Display gives the word back");
            }
        }
    }

    proptest::proptest! {
        /// Any word: taken exactly when it is one of the key's words in
        /// some case, and then its Display is that word in lower case.
        #[test]
        fn any_word_is_taken_only_as_one_of_the_keys_words(
            word in "(?i)(ignore|syslog|rotate|email|exec|suspend|single|halt|keep_logs)|[a-zA-Z_ ]{0,12}",
            k in 0usize..4,
        ) {
            let key = [
                ActionKey::SpaceLeft,
                ActionKey::AdminSpaceLeft,
                ActionKey::DiskFull,
                ActionKey::DiskError,
            ][k];
            let lower = word.to_ascii_lowercase();
            match key.parse(&word) {
                Ok(a) => proptest::prop_assert_eq!(a.to_string(), lower),
                Err(e) => {
                    proptest::prop_assert!(!key.words().contains(&lower.as_str()));
                    proptest::prop_assert!(e.contains(key.name()), "{}", e);
                }
            }
        }
    }

    #[test]
    fn amounts_in_mib_or_kib() {
        assert_eq!(amount(3 << 20 | 5), "3 MiB");
        assert_eq!(amount(1 << 20), "1 MiB");
        assert_eq!(amount(1000 << 10), "1000 KiB");
        assert_eq!(amount(0), "0 KiB");
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
