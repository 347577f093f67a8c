//! The parts of the daemon a control request reads or changes, lent to
//! the request's judging (mod.rs) and to `-s`'s answer (status.rs).

use crate::kernel::Kernel;
use crate::rules::Rules;
use crate::sink::Sink;

/// The parts of the daemon a request reads or changes.
pub struct Parts<'a> {
    /// The rules (a change is switched to through the engine).
    pub rules: &'a mut Rules,
    /// The kernel side (`-s`; `-e 2` locks).
    pub kernel: &'a mut Kernel,
    /// Where the CONFIG_CHANGE records go.
    pub sink: &'a mut Sink,
    /// Records held waiting for their other half (`-s`'s backlog).
    pub held: usize,
    /// Events lost in the ring buffer so far (`-s`'s lost).
    pub ring_lost: u64,
}
