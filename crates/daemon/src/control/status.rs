//! `fastaudit ctl -s`: `auditctl -s`'s lines, with fastaudit's values.

use super::parts::Parts;
use crate::kernel::KernelSettings;
use fastaudit_netlink::proto::mask;

/// The status lines: `enabled` fastaudit's flag; `failure`,
/// `rate_limit`, `backlog_limit`, `backlog_wait_time` as the running
/// rules set them (what fastaudit applies to the kernel at start), else
/// the kernel's; `pid` fastaudit's; `lost` every event lost so far, as an
/// admin reading `auditctl -s` expects: those fastaudit lost (in its ring
/// buffer, as they happen; dropped by its log; kernel records its queue
/// dropped) plus the kernel's own `lost` (records the kernel could not
/// send, before or during the run); `backlog` the records it holds
/// waiting for their other half; `backlog_wait_time_actual` 0: fastaudit
/// never makes a task wait.
pub fn status(parts: &mut Parts) -> String {
    let (rules, sink) = (&*parts.rules, &*parts.sink);
    let enabled = rules.enabled();
    let set = KernelSettings::of(rules.current()).set;
    let of_kernel = parts.kernel.status();
    let rx = parts.kernel.stats();
    let kernel_lost = of_kernel.as_ref().map_or(0, |s| u64::from(s.lost));
    let value = |m: u32, read: fn(&fastaudit_netlink::proto::Status) -> u32| {
        set.iter()
            .find(|(k, _)| *k == m)
            .map(|(_, v)| *v)
            .or(of_kernel.as_ref().map(read))
            .unwrap_or(0)
    };
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
        (
            "lost",
            parts.ring_lost + sink.log.lost() + rx.dropped + kernel_lost,
        ),
        ("backlog", parts.held as u64),
        (
            "backlog_wait_time",
            u64::from(value(mask::BACKLOG_WAIT_TIME, |s| s.backlog_wait_time)),
        ),
        ("backlog_wait_time_actual", 0),
    ];
    lines.iter().map(|(k, v)| format!("{k} {v}\n")).collect()
}
