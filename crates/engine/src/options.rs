//! A run's tunables.

use crate::limits::RING_BUFFER_BYTES;

/// Tunables of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Ring buffer size in bytes (a power of two, at least one page).
    pub ring_buffer_bytes: u32,
    /// Send companion events (a loginuid write's SYSCALL for LOGIN) for
    /// tasks that have a kernel audit context as well: true beside another
    /// audit daemon (`--bpf-only`), false when fastaudit is the daemon,
    /// since the kernel then writes those tasks' SYSCALL records itself.
    pub companion_with_context: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ring_buffer_bytes: RING_BUFFER_BYTES,
            companion_with_context: false,
        }
    }
}
