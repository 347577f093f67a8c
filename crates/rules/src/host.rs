//! What rule parsing needs to know about the machine it runs on: the
//! machine type, user and group names, and which paths exist.
//!
//! auditctl and the kernel consult the live system (a `-w` on a directory
//! becomes a directory watch, a watch whose parent is missing is refused),
//! so a listing is only exact against the same machine. Tests substitute
//! their own [`Host`].

use crate::tables::Machine;
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The facts about the running system that rule parsing depends on.
pub trait Host {
    /// Machine type (`uname -m`), used for `b64`/`b32` and rules without an arch.
    fn machine(&self) -> Option<Machine>;
    /// uid of a user name, as `getpwnam` resolves it.
    fn user_id(&self, name: &[u8]) -> Option<u32>;
    /// gid of a group name, as `getgrnam` resolves it.
    fn group_id(&self, name: &[u8]) -> Option<u32>;
    /// Whether `path` is a directory, following symlinks (`stat`).
    fn is_dir(&self, path: &[u8]) -> bool;
    /// Whether `path` resolves, not following a final symlink.
    fn lookup(&self, path: &[u8]) -> io::Result<()>;
}

/// The live system.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemHost;

fn os(path: &[u8]) -> &Path {
    Path::new(OsStr::from_bytes(path))
}

impl Host for SystemHost {
    fn machine(&self) -> Option<Machine> {
        let uts = nix::sys::utsname::uname().ok()?;
        Machine::from_name(uts.machine().as_bytes())
    }

    fn user_id(&self, name: &[u8]) -> Option<u32> {
        let name = std::str::from_utf8(name).ok()?;
        nix::unistd::User::from_name(name)
            .ok()
            .flatten()
            .map(|u| u.uid.as_raw())
    }

    fn group_id(&self, name: &[u8]) -> Option<u32> {
        let name = std::str::from_utf8(name).ok()?;
        nix::unistd::Group::from_name(name)
            .ok()
            .flatten()
            .map(|g| g.gid.as_raw())
    }

    fn is_dir(&self, path: &[u8]) -> bool {
        std::fs::metadata(os(path)).is_ok_and(|m| m.is_dir())
    }

    fn lookup(&self, path: &[u8]) -> io::Result<()> {
        std::fs::symlink_metadata(os(path)).map(|_| ())
    }
}

/// A host with fixed answers, so that what a rule set means does not depend
/// on the machine (unit tests, tools): x86_64, the user `root` (0) only, no
/// groups, no directories, every path present.
#[derive(Clone, Copy, Debug, Default)]
pub struct FixedHost;

impl Host for FixedHost {
    fn machine(&self) -> Option<Machine> {
        Some(Machine::X86_64)
    }

    fn user_id(&self, name: &[u8]) -> Option<u32> {
        (name == b"root").then_some(0)
    }

    fn group_id(&self, _: &[u8]) -> Option<u32> {
        None
    }

    fn is_dir(&self, _: &[u8]) -> bool {
        false
    }

    fn lookup(&self, _: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

/// [`FixedHost`] on another machine: `b64`/`b32`, arch-less rules and `-S`
/// names mean that machine's, as auditctl run there reads them (plans and
/// listings for a target other than the one running the tests).
#[derive(Clone, Copy, Debug)]
pub struct FixedHostOn(pub Machine);

impl Host for FixedHostOn {
    fn machine(&self) -> Option<Machine> {
        Some(self.0)
    }

    fn user_id(&self, name: &[u8]) -> Option<u32> {
        FixedHost.user_id(name)
    }

    fn group_id(&self, name: &[u8]) -> Option<u32> {
        FixedHost.group_id(name)
    }

    fn is_dir(&self, path: &[u8]) -> bool {
        FixedHost.is_dir(path)
    }

    fn lookup(&self, path: &[u8]) -> io::Result<()> {
        FixedHost.lookup(path)
    }
}

/// The directory part of a path as the kernel's parent lookup sees it.
pub fn parent_of(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&b| b == b'/') {
        Some(0) => b"/",
        Some(i) => &path[..i],
        None => b".",
    }
}

/// Check that the parent directory of `path` exists, as the kernel's
/// `kern_path_locked` requires for watches and `exe=`.
pub fn parent_must_exist(host: &dyn Host, path: &[u8]) -> io::Result<()> {
    let parent = parent_of(path);
    let mut with_dot = parent.to_vec();
    // Resolving "parent/." follows a symlinked parent and fails with ENOTDIR
    // when the parent is not a directory, as a path walk does.
    with_dot.extend_from_slice(b"/.");
    host.lookup(&with_dot)
}
