//! The kernel's tracepoints, as tracefs lists them (mounted where it is
//! not): the per-syscall ones, and any one by category and name.

use std::collections::BTreeSet;
use std::path::Path;

pub(crate) const TRACEFS: &str = "/sys/kernel/tracing";

/// Whether this kernel has per-syscall tracepoints (mounting tracefs,
/// where libbpf finds tracepoint ids, if it is absent).
pub(crate) fn syscall_tracepoints() -> bool {
    let dir = Path::new(TRACEFS).join("events/syscalls");
    if !dir.exists() {
        let _ = nix::mount::mount(
            Some("nodev"),
            TRACEFS,
            Some("tracefs"),
            nix::mount::MsFlags::empty(),
            None::<&str>,
        );
    }
    dir.exists()
}

/// Syscalls NAME with a `syscalls:sys_exit_NAME` tracepoint on this
/// kernel (none when there are no syscall tracepoints or tracefs cannot be
/// read).
pub(crate) fn syscall_tracepoint_names() -> BTreeSet<String> {
    if !syscall_tracepoints() {
        return BTreeSet::new();
    }
    let Ok(dir) = std::fs::read_dir(Path::new(TRACEFS).join("events/syscalls")) else {
        return BTreeSet::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_prefix("sys_exit_"))
                .map(str::to_string)
        })
        .collect()
}

/// Whether tracepoint `category:name` exists (tracefs, mounted if needed).
pub(crate) fn tracepoint_exists(category: &str, name: &str) -> bool {
    syscall_tracepoints();
    Path::new(TRACEFS)
        .join("events")
        .join(category)
        .join(name)
        .exists()
}

/// Whether this kernel has the inode timestamp tracepoints (Linux 6.13+);
/// without them the inode hooks are kprobes.
pub fn inode_tracepoints() -> bool {
    tracepoint_exists("timestamp", "inode_set_ctime_to_ts")
}
