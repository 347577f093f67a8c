//! The writer's actions that reach beyond the log, as auditd carries
//! them out: `exec` (logging suspended, then the key's program run),
//! `email` (a mail to action_mail_acct, and syslog), `single` and `halt`
//! (init asked once), and the syslog notices of max_log_file_action.

use super::{say, say_at, Writer, SIZE_SAID_EVERY};
use crate::action::Action;
use crate::counts::FaultKind;
use crate::syslog::Priority;
use crate::system_actions::mail::Mail;
use crate::system_actions::runlevel::{Runlevel, INIT};
use std::path::Path;
use std::time::Instant;

impl Writer {
    /// The program of the `exec` action `kind` runs, if any.
    pub(super) fn program(&self, kind: FaultKind) -> Option<&Path> {
        kind.key().and_then(|k| self.cfg.programs.of(k))
    }

    /// `exec`: as auditd, the log is closed first (the program may move
    /// or compress it) and logging stays suspended until SIGUSR2, which
    /// the program is expected to send once it is done.
    pub(super) fn exec(&mut self, kind: FaultKind) {
        if !self.suspend(kind, Action::Exec) {
            return;
        }
        let Some(program) = self.program(kind).map(Path::to_path_buf) else {
            return;
        };
        if let Err(e) = self.system.run_program(&program) {
            say(
                &format!(
                    "could not run {}: {e}: logging stays suspended until SIGUSR2",
                    program.display()
                ),
                true,
            );
        }
    }

    /// `single` or `halt`: said to syslog, then /sbin/init asked.
    pub(super) fn ask_init(&mut self, what: &str, kind: FaultKind, action: Action) {
        let level = if action == Action::Single {
            Runlevel::Single
        } else {
            Runlevel::Halt
        };
        let key = kind.key().map_or("", |k| k.name());
        say(
            &format!(
                "{what}: {} ({INIT} {}), as {key} = {action} asks",
                level.doing(),
                level.arg()
            ),
            true,
        );
        if let Err(e) = self.system.change_runlevel(level) {
            say(&format!("could not run {INIT} {}: {e}", level.arg()), true);
        }
    }

    /// `email` for a space threshold: the mail, then the alert to syslog.
    pub(super) fn email(&mut self, what: &str, admin: bool, free: u64) {
        let to = self.cfg.action_mail_acct.as_str();
        let mail = if admin {
            Mail::admin_space_left(to, &self.cfg.path, free)
        } else {
            Mail::space_left(to, &self.cfg.path, free)
        };
        match self.system.send_mail(&mail) {
            Ok(()) => say(&format!("{what}: mailing {to}"), true),
            Err(e) => say(&format!("{what}; could not mail {to}: {e}"), true),
        }
    }

    /// max_log_file_action = syslog: the log is past its size and grows
    /// on; said at LOG_ERR as auditd does, at most once a minute.
    pub(super) fn say_too_large(&mut self) {
        if self
            .size_said
            .is_some_and(|t| t.elapsed() < SIZE_SAID_EVERY)
        {
            return;
        }
        self.size_said = Some(Instant::now());
        say_at(
            Priority::Err,
            &format!(
                "{}: the log is larger than max_log_file ({} MiB) and grows on (max_log_file_action = syslog)",
                self.cfg.path.display(),
                self.cfg.max_bytes >> 20
            ),
        );
    }

    /// A rotation at max_log_file, said at LOG_NOTICE as auditd says it.
    pub(super) fn say_rotating(&self, how: &str) {
        say_at(
            Priority::Notice,
            &format!("{}: reached max_log_file: {how}", self.cfg.path.display()),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::system_actions::mail::Mail;
    use crate::system_actions::runlevel::Runlevel;
    use crate::system_actions::System;
    use crate::{Action, Config, FaultKind, Programs, SizeAction, Source, Threshold, Writer};
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};

    /// What the actions asked of the system, in order (nothing runs).
    #[derive(Clone, Default)]
    struct Recorder(Arc<Mutex<Vec<String>>>);

    impl Recorder {
        fn asked(&self) -> Vec<String> {
            self.0.lock().unwrap().clone()
        }
        fn note(&self, s: String) -> std::io::Result<()> {
            self.0.lock().unwrap().push(s);
            Ok(())
        }
    }

    impl System for Recorder {
        fn send_mail(&self, m: &Mail) -> std::io::Result<()> {
            self.note(format!("mail {} {}", m.to, m.subject))
        }
        fn run_program(&self, path: &Path) -> std::io::Result<()> {
            self.note(format!("exec {}", path.display()))
        }
        fn change_runlevel(&self, level: Runlevel) -> std::io::Result<()> {
            self.note(format!("init {}", level.arg()))
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "fastaudit-log-actions-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// A writer whose space thresholds are always crossed (99% free
    /// wanted) unless set to 0.
    fn writer(d: &Path, c: impl FnOnce(&mut Config)) -> (Writer, Recorder) {
        let mut cfg = Config {
            space_left: Threshold::Mib(0),
            admin_space_left: Threshold::Mib(0),
            ..Config::new(d.join("audit.log"))
        };
        c(&mut cfg);
        let r = Recorder::default();
        (Writer::open_with(cfg, Box::new(r.clone())).unwrap(), r)
    }

    fn events(w: &mut Writer, n: usize) {
        for i in 0..n {
            w.write_event(format!("event-{i}\n").as_bytes(), Source::Event);
            w.commit();
            // Free space is looked at every 200 ms: look again now.
            w.space_checked = None;
        }
    }

    #[test]
    fn email_mails_action_mail_acct_once_a_crossing_and_logging_goes_on() {
        let d = dir("email");
        let (mut w, r) = writer(&d, |c| {
            c.space_left = Threshold::Percent(99);
            c.space_left_action = Action::Email;
            c.action_mail_acct = "secops@example.com".into();
        });
        events(&mut w, 3);
        assert_eq!(
            r.asked(),
            ["mail secops@example.com Audit Disk Space Alert"]
        );
        assert_eq!(w.lost(), 0, "email does not stop logging");
        // SIGUSR2 looks at space afresh, as auditd's resume does.
        w.resume();
        events(&mut w, 1);
        assert_eq!(r.asked().len(), 2);
        let (mut w, r) = writer(&dir("email-admin"), |c| {
            c.admin_space_left = Threshold::Percent(99);
            c.admin_space_left_action = Action::Email;
        });
        events(&mut w, 2);
        assert_eq!(r.asked(), ["mail root Audit Admin Space Alert"]);
    }

    #[test]
    fn exec_suspends_then_runs_the_program_and_sigusr2_resumes() {
        let d = dir("exec");
        let (mut w, r) = writer(&d, |c| {
            c.admin_space_left = Threshold::Percent(99);
            c.admin_space_left_action = Action::Exec;
            c.programs = Programs {
                admin_space_left: Some("/usr/local/sbin/archive-audit".into()),
                ..Programs::default()
            };
        });
        events(&mut w, 2);
        assert_eq!(r.asked(), ["exec /usr/local/sbin/archive-audit"]);
        assert_eq!(w.suspended(), Some(FaultKind::AdminSpaceLeft));
        assert_eq!(w.lost(), 2);
        let f = w.fault_now().unwrap();
        assert_eq!(
            (f.kind, f.action),
            (FaultKind::AdminSpaceLeft, Action::Exec)
        );
        // The program moved the log away and sent SIGUSR2.
        std::fs::rename(d.join("audit.log"), d.join("archived")).unwrap();
        assert!(w.resume());
        assert!(w.suspended().is_none());
        assert!(d.join("audit.log").exists(), "a fresh log");
    }

    #[test]
    fn single_and_halt_ask_init_once_and_logging_goes_on() {
        for (action, arg) in [(Action::Single, "1"), (Action::Halt, "0")] {
            let d = dir(&format!("init{arg}"));
            let (mut w, r) = writer(&d, |c| {
                c.admin_space_left = Threshold::Percent(99);
                c.admin_space_left_action = action;
            });
            events(&mut w, 4);
            assert_eq!(r.asked(), [format!("init {arg}")], "{action}");
            assert_eq!(w.lost(), 0, "{action}: logging goes on");
            assert!(w.suspended().is_none());
        }
    }

    /// Make the writer's next writes fail (EBADF: a disk error), or work
    /// again.
    fn break_log(w: &mut Writer, d: &Path, broken: bool) {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(!broken)
            .append(!broken)
            .open(d.join("audit.log"))
            .unwrap();
        w.file = Some(f);
    }

    #[test]
    fn a_disk_error_asks_init_once_a_fault_and_again_for_the_next() {
        let d = dir("disk-halt");
        let (mut w, r) = writer(&d, |c| c.disk_error_action = Action::Halt);
        break_log(&mut w, &d, true);
        events(&mut w, 3);
        assert_eq!(r.asked(), ["init 0"]);
        assert_eq!(w.lost(), 3, "logging goes on, each failed write lost");
        assert!(w.suspended().is_none());
        break_log(&mut w, &d, false);
        events(&mut w, 1);
        let f = w.take_recovered().expect("the fault is over");
        assert_eq!((f.action, f.lost), (Action::Halt, 3));
        // A new fault asks again.
        break_log(&mut w, &d, true);
        events(&mut w, 2);
        assert_eq!(r.asked(), ["init 0", "init 0"]);
    }

    #[test]
    fn a_disk_error_with_exec_suspends_and_runs_the_program_once() {
        let d = dir("disk-exec");
        let (mut w, r) = writer(&d, |c| {
            c.disk_error_action = Action::Exec;
            c.programs.disk_error = Some("/usr/local/sbin/on-error".into());
        });
        break_log(&mut w, &d, true);
        events(&mut w, 3);
        assert_eq!(r.asked(), ["exec /usr/local/sbin/on-error"]);
        assert!(matches!(w.suspended(), Some(FaultKind::DiskError(_))));
        assert!(w.file.is_none(), "the log is closed for the program");
        assert_eq!(w.lost(), 3);
    }

    #[test]
    fn an_exec_needs_its_program() {
        let mut c = Config::new("/var/log/audit/audit.log");
        c.disk_full_action = Action::Exec;
        let e = c.check().unwrap_err();
        assert!(
            e.contains("disk_full_action = exec needs the program"),
            "{e}"
        );
        c.programs
            .set(crate::ActionKey::DiskFull, Some("/sbin/x".into()));
        assert_eq!(c.check(), Ok(()));
        c.disk_error_action = Action::Email;
        assert!(c.check().unwrap_err().contains("disk_error_action"));
    }

    #[test]
    fn max_log_file_syslog_keeps_writing_past_the_size() {
        let d = dir("size-syslog");
        let (mut w, r) = writer(&d, |c| {
            c.max_bytes = 10;
            c.size_action = SizeAction::Syslog;
        });
        events(&mut w, 4);
        assert_eq!(w.lost(), 0);
        assert!(!d.join("audit.log.1").exists(), "no rotation");
        assert_eq!(
            std::fs::read_to_string(d.join("audit.log"))
                .unwrap()
                .lines()
                .count(),
            4
        );
        assert!(w.size_said.is_some(), "said");
        assert!(r.asked().is_empty());
    }
}
