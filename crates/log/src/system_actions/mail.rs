//! auditd's `email` action: a message to `action_mail_acct` handed to
//! /usr/lib/sendmail as auditd 3.0.9 hands it (`sendmail -t -fACCT`, the
//! account as envelope sender too; the headers `To:`, `From: root` and
//! `Subject:` with auditd's subjects, which mail filters match; the text,
//! then a line with a lone dot, which ends the input for sendmail).

use std::path::Path;
use std::process::Command;

/// The mail command auditd runs (`email_command`).
pub const SENDMAIL: &str = "/usr/lib/sendmail";

/// One alert mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mail {
    /// The recipient (`action_mail_acct`).
    pub to: String,
    /// The subject line.
    pub subject: &'static str,
    /// The text.
    pub body: String,
}

impl Mail {
    /// space_left_action's mail: the log's file system is low on space.
    pub fn space_left(to: &str, log: &Path, free: u64) -> Mail {
        Mail {
            to: to.to_string(),
            subject: "Audit Disk Space Alert",
            body: format!(
                "fastaudit, the audit daemon, is running low on disk space for its log\n\
                 {}\n({} free, below space_left). Free some space so that the system\n\
                 stays audited.",
                log.display(),
                crate::action::amount(free)
            ),
        }
    }

    /// admin_space_left_action's mail: very low, lower than space_left.
    pub fn admin_space_left(to: &str, log: &Path, free: u64) -> Mail {
        Mail {
            to: to.to_string(),
            subject: "Audit Admin Space Alert",
            body: format!(
                "fastaudit, the audit daemon, is very low on disk space for its log\n\
                 {}\n({} free, below admin_space_left). Act at once, or audit events\n\
                 will be lost.",
                log.display(),
                crate::action::amount(free)
            ),
        }
    }

    /// sendmail's arguments after its name.
    pub fn args(&self) -> [String; 2] {
        ["-t".into(), format!("-f{}", self.to)]
    }

    /// What sendmail reads on its stdin.
    pub fn message(&self) -> Vec<u8> {
        format!(
            "To: {}\nFrom: root\nSubject: {}\n\n{}\n.\n\n",
            self.to, self.subject, self.body
        )
        .into_bytes()
    }
}

/// Hand `mail` to /usr/lib/sendmail in the background (its exit is
/// reaped and a failure said to syslog). An error: sendmail is not
/// executable, or could not be started.
pub fn send(mail: &Mail) -> std::io::Result<()> {
    if nix::unistd::access(SENDMAIL, nix::unistd::AccessFlags::X_OK).is_err() {
        return Err(std::io::Error::other(format!(
            "{SENDMAIL} isn't executable"
        )));
    }
    let mut cmd = Command::new(SENDMAIL);
    cmd.args(mail.args());
    super::spawn::spawn_reaped(
        cmd,
        format!("{SENDMAIL} (to {})", mail.to),
        Some(mail.message()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_auditd_hands_it_to_sendmail() {
        let m = Mail::space_left("root", Path::new("/var/log/audit/audit.log"), 12 << 20);
        assert_eq!(m.args(), ["-t".to_string(), "-froot".to_string()]);
        let text = String::from_utf8(m.message()).unwrap();
        assert!(
            text.starts_with("To: root\nFrom: root\nSubject: Audit Disk Space Alert\n\n"),
            "{text}"
        );
        assert!(
            text.contains("/var/log/audit/audit.log\n(12 MiB free, below space_left)"),
            "{text}"
        );
        assert!(text.ends_with("\n.\n\n"), "{text}");
        let a = Mail::admin_space_left("ops@example.com", Path::new("/l/a.log"), 1);
        assert_eq!(a.subject, "Audit Admin Space Alert");
        assert_eq!(a.args()[1], "-fops@example.com");
    }
}
