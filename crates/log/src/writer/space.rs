//! Free space on the log's file system: below `space_left` or
//! `admin_space_left`, their actions, as auditd's check_space_left.

use super::{say, Writer, SPACE_CHECK_BYTES, SPACE_CHECK_EVERY};
use crate::action::Action;
use crate::counts::FaultKind;
use nix::sys::statvfs::fstatvfs;
use std::time::Instant;

impl Writer {
    /// Look at free space now and then; below a threshold, its action
    /// (auditd's check_space_left, once per crossing).
    pub(super) fn check_space(&mut self) {
        if self.since_space_check < SPACE_CHECK_BYTES
            && self
                .space_checked
                .is_some_and(|t| t.elapsed() < SPACE_CHECK_EVERY)
        {
            return;
        }
        self.space_checked = Some(Instant::now());
        self.since_space_check = 0;
        let Some(Ok(st)) = self.file.as_ref().map(fstatvfs) else {
            return;
        };
        let frag = st.fragment_size();
        // What will be left once the pending events are written.
        let free = st
            .blocks_available()
            .saturating_mul(frag)
            .saturating_sub(self.pending.len() as u64);
        let total = st.blocks().saturating_mul(frag);
        for admin in [false, true] {
            let (threshold, action, warned) = if admin {
                let c = &self.cfg;
                (
                    c.admin_space_left,
                    c.admin_space_left_action,
                    self.admin_warned,
                )
            } else {
                let c = &self.cfg;
                (c.space_left, c.space_left_action, self.space_warned)
            };
            let limit = threshold.bytes(total);
            let low = limit > 0 && free < limit;
            // auditd acts once per crossing; rotate as often as it takes,
            // and syslog again after space came back.
            let flag = match (low, warned) {
                (true, false) => {
                    self.low_space(admin, action, free);
                    action != Action::Rotate
                }
                (false, true) if action == Action::Syslog => false,
                _ => warned,
            };
            if admin {
                self.admin_warned = flag;
            } else {
                self.space_warned = flag;
            }
        }
    }

    fn low_space(&mut self, admin: bool, action: Action, free: u64) {
        let key = if admin {
            "admin_space_left"
        } else {
            "space_left"
        };
        let kind = if admin {
            FaultKind::AdminSpaceLeft
        } else {
            FaultKind::SpaceLeft
        };
        let what = format!(
            "{}: low on disk space for logging: {} free, below {key}",
            self.cfg.path.display(),
            crate::action::amount(free)
        );
        match action {
            Action::Ignore => {}
            Action::Syslog => say(&what, true),
            Action::Rotate => {
                say(&format!("{what}: rotating the logs"), true);
                self.rotate_for_fault();
            }
            Action::Email => self.email(&what, admin, free),
            Action::Suspend | Action::Exec => {
                self.write_pending(false);
                if action == Action::Exec {
                    self.exec(kind);
                } else {
                    self.suspend(kind, action);
                }
            }
            // Once a crossing (the caller's flag); logging goes on.
            Action::Single | Action::Halt => self.ask_init(&what, kind, action),
        }
    }
}
