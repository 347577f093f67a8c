//! `fastaudit ctl -s`: `auditctl -s`'s lines, with fastaudit's values.

use crate::kernel::{Kernel, KernelSettings};
use crate::rules::Rules;
use crate::sink::Sink;
use fastaudit_netlink::proto::mask;

/// The status lines: `enabled` fastaudit's flag; `failure`,
/// `rate_limit`, `backlog_limit`, `backlog_wait_time` as the running
/// rules set them (what fastaudit applies to the kernel at start), else
/// the kernel's; `pid` fastaudit's; `lost` what fastaudit has lost so
/// far (events its log dropped, kernel records its queue dropped; ring
/// buffer losses are counted at the stop); `backlog` the records it
/// holds waiting for their other half; `backlog_wait_time_actual` 0:
/// fastaudit never makes a task wait. `held` is that backlog.
pub fn status(rules: &Rules, kernel: &mut Kernel, sink: &Sink, held: usize) -> String {
    let enabled = rules.enabled();
    let set = KernelSettings::of(rules.current()).set;
    let of_kernel = kernel.status();
    let rx = kernel.stats();
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
        ("lost", sink.log.lost() + rx.dropped),
        ("backlog", held as u64),
        (
            "backlog_wait_time",
            u64::from(value(mask::BACKLOG_WAIT_TIME, |s| s.backlog_wait_time)),
        ),
        ("backlog_wait_time_actual", 0),
    ];
    lines.iter().map(|(k, v)| format!("{k} {v}\n")).collect()
}
