//! The plan's paths resolved on the live file system: watched objects
//! ([`WatchTable`]) and `exe=` executables, by inode identity. This is a
//! step of its own, taken when the maps are filled rather than when the
//! plan is compiled, because identities must be current when the kernel
//! side starts comparing them, and file watches are followed from then on
//! (a thread of the runtime keeps the `watched` map on their paths).

use crate::load::watches::WatchTable;
use crate::plan::image::LivePaths;
use crate::plan::Plan;
use fastaudit_bpf::types::fa_exe;

/// Identities of the plan's paths on this host, now.
pub struct Resolved {
    /// Watched objects and the ids rules test for them.
    pub watches: WatchTable,
    /// Per `Plan::exes` entry: its executable's identity.
    pub exes: Vec<fa_exe>,
}

impl Resolved {
    /// What the plan's map images take of it.
    pub fn live_paths(&self) -> LivePaths {
        LivePaths {
            exes: self.exes.clone(),
            watched: self.watches.entries().collect(),
            watch_by_parent_name: self.watches.by_parent_and_name(),
            watch_paths: self.watches.file_paths(),
            tree_paths: self.watches.tree_paths(),
            watch_ids: self.watches.ids().to_vec(),
        }
    }

    /// Resolve every watched path and `exe=` path of `plan`.
    pub fn on_this_host(plan: &Plan) -> Resolved {
        Resolved {
            watches: WatchTable::resolve(&plan.watches),
            exes: plan.exes.iter().map(|p| exe_identity(p)).collect(),
        }
    }
}

/// The inode and kernel device number of an executable path; a missing
/// file matches nothing.
fn exe_identity(path: &[u8]) -> fa_exe {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(path));
    match std::fs::metadata(path) {
        Ok(m) => fa_exe {
            ino: m.ino(),
            dev: crate::host::identity::kernel_file_dev(path, m.is_dir(), m.dev()),
            pad: 0,
        },
        Err(_) => fa_exe {
            ino: 0,
            dev: u32::MAX,
            pad: 0,
        },
    }
}
