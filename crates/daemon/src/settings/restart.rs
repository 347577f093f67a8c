//! The auditd.conf keys a reload does not apply: changed in the file read
//! again, they are reported with FILE:LINE and keep their running value
//! until fastaudit restarts.

use fastaudit_config::keys::AT_RESTART;
use fastaudit_config::Conf;

/// A warning for each key whose value `new` changes from `started` (the
/// file as read at start) that a running daemon does not take.
pub fn restart_only(started: &Conf, new: &Conf) -> Vec<String> {
    AT_RESTART
        .iter()
        .filter(|key| started.get(key) != new.get(key))
        .map(|key| {
            let at = match new.line(key).or(started.line(key)) {
                Some(l) => format!("{}:{l}", new.file.display()),
                None => new.file.display().to_string(),
            };
            format!(
                "{at}: warning: {key} changed: not applied until fastaudit restarts (as in auditd, it is read at start only); the running value stays"
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastaudit_config::{parse, NoHost};
    use std::path::Path;

    fn conf(text: &str) -> Conf {
        let text = format!("space_left = 75\nadmin_space_left = 50\n{text}");
        parse(Path::new("/etc/audit/auditd.conf"), &text, &NoHost).unwrap()
    }

    #[test]
    fn only_restart_keys_that_changed_are_reported_with_their_line() {
        let a = conf("end_of_event_timeout = 2\nflush = none\n");
        let b = conf("flush = data\nend_of_event_timeout = 5\nlocal_events = yes\n");
        assert_eq!(
            restart_only(&a, &b),
            ["/etc/audit/auditd.conf:4: warning: end_of_event_timeout changed: not applied until fastaudit restarts (as in auditd, it is read at start only); the running value stays"]
        );
        assert!(restart_only(&a, &a).is_empty());
    }
}
