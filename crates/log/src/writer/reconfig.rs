//! New settings for a running writer (auditd's `reconfigure` on SIGHUP):
//! what is pending is written under the old ones first, so no event is
//! lost or written twice across the change.

use super::target::Target;
use super::Writer;
use crate::counts::FaultKind;
use crate::flusher::Flusher;
use crate::{Config, Flush, LogError};

impl Writer {
    /// Take `cfg` from now on. A new log (another `log_file`, `log_group`,
    /// or `write_logs` turned on) is opened before anything changes, so a
    /// log that cannot be opened refuses the settings and the running ones
    /// stay. As auditd: a reopened log ends a suspension; a new size limit
    /// or size action ends a suspension for size; new space settings (or
    /// a new log) look at free space afresh.
    pub fn reconfigure(&mut self, cfg: Config) -> Result<(), LogError> {
        cfg.check().map_err(LogError::Config)?;
        let old = &self.cfg;
        let reopen = old.write_logs != cfg.write_logs
            || old.path != cfg.path
            || old.log_group != cfg.log_group
            || old.group_owns_dir != cfg.group_owns_dir;
        let size_changed = old.max_bytes != cfg.max_bytes || old.size_action != cfg.size_action;
        let space_changed = old.space_left != cfg.space_left
            || old.space_left_action != cfg.space_left_action
            || old.admin_space_left != cfg.admin_space_left
            || old.admin_space_left_action != cfg.admin_space_left_action
            || old.disk_full_action != cfg.disk_full_action;
        let target = if reopen {
            Some(Target::open(&cfg)?)
        } else {
            None
        };
        // Everything so far goes where the old settings say.
        self.write_pending(false);
        if let Err(e) = self.sync(true) {
            self.io_fault(&e);
        }
        let async_flush = matches!(cfg.flush, Flush::IncrementalAsync { .. });
        self.cfg = cfg;
        if !async_flush {
            self.flusher = None;
        } else if self.flusher.is_none() {
            self.flusher = Some(Flusher::start());
        }
        if let Some(t) = target {
            self.file = None;
            self.take_target(t);
            self.suspended = None;
            self.since_flush = 0;
        } else if size_changed && self.suspended == Some(FaultKind::MaxLogFile) {
            self.resume();
        }
        if reopen || space_changed {
            self.space_warned = false;
            self.admin_warned = false;
            self.space_checked = None;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Config, Counts, SizeAction, Source, Threshold, Writer};
    use std::path::{Path, PathBuf};

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("fastaudit-reconfig-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn cfg(path: &Path) -> Config {
        Config {
            space_left: Threshold::Mib(0),
            admin_space_left: Threshold::Mib(0),
            ..Config::new(path)
        }
    }

    fn read(p: &Path) -> String {
        std::fs::read_to_string(p).unwrap_or_default()
    }

    #[test]
    fn a_new_log_gets_what_follows_and_the_old_one_what_was_pending() {
        let d = dir("move");
        let mut w = Writer::open(cfg(&d.join("a/audit.log"))).unwrap();
        for i in 0..3 {
            w.write_event(format!("old-{i}\n").as_bytes(), Source::Event);
        }
        // Not committed yet: pending events belong to the old log.
        w.reconfigure(cfg(&d.join("b/audit.log"))).unwrap();
        w.write_event(b"new-0\n", Source::Event);
        w.flush();
        assert_eq!(read(&d.join("a/audit.log")), "old-0\nold-1\nold-2\n");
        assert_eq!(read(&d.join("b/audit.log")), "new-0\n");
        assert_eq!(w.counts(Source::Event), Counts { logged: 4, lost: 0 });
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_log_that_cannot_be_opened_refuses_the_change() {
        let d = dir("refuse");
        let mut w = Writer::open(cfg(&d.join("audit.log"))).unwrap();
        std::fs::write(d.join("file"), "x").unwrap();
        let bad = Config {
            max_bytes: 1,
            ..cfg(&d.join("file/audit.log"))
        };
        assert!(w.reconfigure(bad).is_err());
        w.write_event(b"still\n", Source::Event);
        w.write_event(b"here\n", Source::Event);
        w.flush();
        // Neither the path nor the size limit changed.
        assert_eq!(read(&d.join("audit.log")), "still\nhere\n");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn without_write_logs_nothing_is_opened_and_events_count_as_handed_on() {
        let d = dir("nolog");
        let off = Config {
            write_logs: false,
            ..cfg(&d.join("missing/audit.log"))
        };
        let mut w = Writer::open(off.clone()).unwrap();
        w.write_event(b"a\n", Source::Event);
        w.rotate_now();
        w.flush();
        assert!(!d.exists(), "no directory or file is made");
        assert_eq!(w.counts(Source::Event), Counts { logged: 1, lost: 0 });
        // Turned on: the log is made; off again: it is left alone.
        w.reconfigure(cfg(&d.join("audit.log"))).unwrap();
        w.write_event(b"b\n", Source::Event);
        w.reconfigure(off).unwrap();
        w.write_event(b"c\n", Source::Event);
        w.flush();
        assert_eq!(read(&d.join("audit.log")), "b\n");
        assert_eq!(w.counts(Source::Event), Counts { logged: 3, lost: 0 });
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_new_size_limit_ends_a_suspension_for_size() {
        let d = dir("size");
        let small = Config {
            max_bytes: 10,
            size_action: SizeAction::Suspend,
            ..cfg(&d.join("audit.log"))
        };
        let mut w = Writer::open(small.clone()).unwrap();
        w.write_event(b"event-0\n", Source::Event);
        w.write_event(b"event-1\n", Source::Event);
        assert!(w.suspended().is_some());
        w.reconfigure(Config {
            max_bytes: 1 << 20,
            ..small
        })
        .unwrap();
        assert!(w.suspended().is_none());
        w.write_event(b"event-2\n", Source::Event);
        w.flush();
        assert_eq!(read(&d.join("audit.log")), "event-0\nevent-2\n");
        assert_eq!(w.counts(Source::Event), Counts { logged: 2, lost: 1 });
        let _ = std::fs::remove_dir_all(&d);
    }
}
