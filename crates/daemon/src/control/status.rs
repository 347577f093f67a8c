//! `fastaudit ctl -s`: `auditctl -s`'s lines, with fastaudit's values.

use super::{KernelSettings, Side};
use crate::output::Output;
use fastaudit_netlink::proto::mask;
use fastaudit_netlink::{AuditSocket, KernelDaemon};
use fastaudit_rules::RuleSet;
use std::time::Duration;

impl Side {
    /// The status lines: `enabled` fastaudit's flag; `failure`,
    /// `rate_limit`, `backlog_limit`, `backlog_wait_time` as the running
    /// rules set them (what fastaudit applies to the kernel at start), else
    /// the kernel's; `pid` fastaudit's; `lost` what fastaudit has lost so
    /// far (events its log dropped, kernel records its queue dropped; ring
    /// buffer losses are counted at the stop); `backlog` the records it
    /// holds waiting for their other half; `backlog_wait_time_actual` 0:
    /// fastaudit never makes a task wait.
    pub fn ctl_status(&mut self, enabled: u32, rules: &RuleSet, log: &Output) -> String {
        let set = KernelSettings::of(rules).set;
        let kernel = match self.kernel.as_mut() {
            Some(k) => k.status().ok(),
            None => AuditSocket::open(Duration::from_secs(1))
                .ok()
                .and_then(|mut s| s.status().ok()),
        };
        let value = |m: u32, of_kernel: fn(&fastaudit_netlink::proto::Status) -> u32| {
            set.iter()
                .find(|(k, _)| *k == m)
                .map(|(_, v)| *v)
                .or(kernel.as_ref().map(of_kernel))
                .unwrap_or(0)
        };
        let rx = self
            .kernel
            .as_ref()
            .map(KernelDaemon::stats)
            .unwrap_or_default();
        let lines = [
            ("enabled", u64::from(enabled)),
            ("failure", u64::from(value(mask::FAILURE, |s| s.failure))),
            ("pid", u64::from(std::process::id())),
            (
                "rate_limit",
                u64::from(value(mask::RATE_LIMIT, |s| s.rate_limit)),
            ),
            (
                "backlog_limit",
                u64::from(value(mask::BACKLOG_LIMIT, |s| s.backlog_limit)),
            ),
            ("lost", log.lost() + rx.dropped),
            ("backlog", self.joiner.held() as u64),
            (
                "backlog_wait_time",
                u64::from(value(mask::BACKLOG_WAIT_TIME, |s| s.backlog_wait_time)),
            ),
            ("backlog_wait_time_actual", 0),
        ];
        lines.iter().map(|(k, v)| format!("{k} {v}\n")).collect()
    }
}
