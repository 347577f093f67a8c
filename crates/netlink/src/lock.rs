//! The kernel audit lock: every tool of this project that changes the
//! kernel's audit state (the integration tests, `fastaudit bench`) holds
//! it, so two never interleave, across processes and checkouts. It lives
//! here, beside the netlink client those changes go through, as the one
//! crate all of them depend on.

use std::fs::File;

/// The lock's file (an flock on it; shell scripts take it with `flock`).
pub const KERNEL_AUDIT_LOCK: &str = "/tmp/fastaudit-kernel-audit.lock";

/// Take the lock, waiting for its holder; held until the value is dropped.
pub fn lock_kernel_audit() -> std::io::Result<nix::fcntl::Flock<File>> {
    let file = File::create(KERNEL_AUDIT_LOCK)?;
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| std::io::Error::from(e))
}
