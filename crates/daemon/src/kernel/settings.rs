//! The kernel settings (`-b`, `-f`, `-r`, `--backlog_wait_time`, `-e 2`,
//! `--loginuid-immutable`) a rule set asks the kernel for.

use fastaudit_netlink::proto::mask;
use fastaudit_rules::settings::Setting;
use fastaudit_rules::RuleSet;

/// The kernel settings a rule set asks for, as `(AUDIT_SET mask, value)`,
/// the last of each kind winning; plus whether `-e 2` and
/// `--loginuid-immutable` were given.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct KernelSettings {
    /// Settings to send, in a fixed order.
    pub set: Vec<(u32, u32)>,
    /// `-e 2`: fastaudit's rule set is immutable until it restarts.
    pub lock: bool,
    /// `--loginuid-immutable`.
    pub loginuid_immutable: bool,
    /// `-f 2`.
    pub panic: bool,
}

impl KernelSettings {
    /// The settings of `set`.
    pub fn of(set: &RuleSet) -> KernelSettings {
        let mut k = KernelSettings::default();
        let (mut failure, mut rate, mut backlog, mut wait) = (None, None, None, None);
        for (_, s) in &set.settings {
            match s {
                Setting::Enabled(2) => k.lock = true,
                Setting::Failure(n) => failure = Some(*n),
                Setting::RateLimit(n) => rate = Some(*n),
                Setting::BacklogLimit(n) => backlog = Some(*n),
                Setting::BacklogWaitTime(n) => wait = Some(*n),
                Setting::LoginuidImmutable => k.loginuid_immutable = true,
                _ => {}
            }
        }
        k.panic = failure == Some(2);
        for (m, v) in [
            (mask::FAILURE, failure),
            (mask::RATE_LIMIT, rate),
            (mask::BACKLOG_LIMIT, backlog),
            (mask::BACKLOG_WAIT_TIME, wait),
        ] {
            if let Some(v) = v {
                k.set.push((m, v));
            }
        }
        k
    }

    /// The settings with `-f 2` sent as `-f 1` unless `allowed`: without
    /// --apply-irreversible the daemon still runs (a rules file a baseline
    /// hardened must not leave the host unaudited), the kernel writes its
    /// losses to its log instead of panicking, and the notes and the
    /// status file say that -f 2 was asked and not applied.
    pub fn with_panic(mut self, allowed: bool) -> KernelSettings {
        if self.panic && !allowed {
            for (m, v) in &mut self.set {
                if *m == mask::FAILURE && *v == 2 {
                    *v = 1;
                }
            }
        }
        self
    }
}

pub(super) fn setting_name(m: u32) -> &'static str {
    match m {
        mask::FAILURE => "-f",
        mask::RATE_LIMIT => "-r",
        mask::BACKLOG_LIMIT => "-b",
        mask::BACKLOG_WAIT_TIME => "--backlog_wait_time",
        _ => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastaudit_rules::{lexer, Origin, SystemHost};

    fn settings(text: &str) -> KernelSettings {
        let mut set = RuleSet::default();
        for l in lexer::lines(text.as_bytes()) {
            let o = Origin {
                file: "t".into(),
                line: l.lineno,
            };
            set.apply_words(&l.words, &o, &SystemHost).unwrap();
        }
        KernelSettings::of(&set)
    }

    #[test]
    fn the_last_setting_of_each_kind_wins() {
        let k = settings("-b 100\n-f 1\n-b 8192\n--backlog_wait_time 60000\n-r 5\n-e 2\n");
        assert_eq!(
            k.set,
            vec![
                (mask::FAILURE, 1),
                (mask::RATE_LIMIT, 5),
                (mask::BACKLOG_LIMIT, 8192),
                (mask::BACKLOG_WAIT_TIME, 60000)
            ]
        );
        assert!(k.lock && !k.panic && !k.loginuid_immutable);
        let k = settings("-f 2\n--loginuid-immutable\n");
        assert!(k.panic && k.loginuid_immutable && !k.lock);
        let kept = settings("-f 2\n").with_panic(true);
        assert_eq!(kept.set, vec![(mask::FAILURE, 2)]);
        let sent = settings("-f 2\n").with_panic(false);
        assert_eq!(sent.set, vec![(mask::FAILURE, 1)]);
    }
}
