//! The header's limits (fastaudit.h, reaching Rust as BTF enums), for the
//! planner's tables and the runtime alike.

use fastaudit_bpf::types::fa_limit;

/// Syscall numbers per ABI: native span indexes first, compat ones after.
pub(crate) const NR_SYSCALLS: u32 = fa_limit::FA_NR_SYSCALLS.0;
/// Most tests one rule carries in the rules map.
pub(crate) const MAX_TESTS: usize = fa_limit::FA_MAX_TESTS.0 as usize;
/// Spans index of the task-list rules.
pub(crate) const TASK_SPAN: u32 = fa_limit::FA_TASK_SPAN.0;
/// The ring buffer's size unless a run asks for another (`--ring-buffer-kib`).
pub const RING_BUFFER_BYTES: u32 = fa_limit::FA_RINGBUF_BYTES.0;
/// io_uring op numbers the BPF side indexes (`FA_URING_OPS`).
pub const URING_OPS: u32 = fa_limit::FA_URING_OPS.0;
