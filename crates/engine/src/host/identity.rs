//! The kernel's identity of a file (its inode number and device) from
//! what user space sees of it. They differ on overlayfs (container roots,
//! live systems): stat() of a non-directory there reports a per-layer
//! pseudo device, while the kernel's inode, which PATH records, `exe=`
//! and watches name, belongs to the overlay's own super block (the
//! device its directories report).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;
use std::sync::Mutex;

use nix::sys::statfs::OVERLAYFS_SUPER_MAGIC;

/// The kernel dev_t (major << 20 | minor) of a user-space st_dev.
pub(crate) fn kernel_dev(d: u64) -> u32 {
    let major = ((d >> 8) & 0xfff) | ((d >> 32) & !0xfff);
    let minor = (d & 0xff) | ((d >> 12) & !0xff);
    ((major as u32) << 20) | (minor as u32 & 0xfffff)
}

/// The kernel's device of the file at `path` whose stat() gave `st_dev`
/// (a directory's, `is_dir`, is always its own).
pub(crate) fn kernel_file_dev(path: &Path, is_dir: bool, st_dev: u64) -> u32 {
    kernel_dev_of(path, is_dir, kernel_dev(st_dev))
}

/// [`kernel_file_dev`] of a device already in the kernel's encoding.
pub(crate) fn kernel_dev_of(path: &Path, is_dir: bool, dev: u32) -> u32 {
    if is_dir {
        return dev;
    }
    // A pseudo device stands for one layer of one overlay mount: found
    // once, then remembered (each costs a statfs and a stat).
    static SEEN: Mutex<Option<HashMap<u32, u32>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let seen = seen.get_or_insert_with(HashMap::new);
    if let Some(&d) = seen.get(&dev) {
        return d;
    }
    let overlay =
        nix::sys::statfs::statfs(path).is_ok_and(|s| s.filesystem_type() == OVERLAYFS_SUPER_MAGIC);
    let found = match path.parent().filter(|_| overlay) {
        Some(dir) => match std::fs::metadata(dir) {
            Ok(m) => kernel_dev(m.dev()),
            // Not known yet: not remembered either.
            Err(_) => return dev,
        },
        None => dev,
    };
    seen.insert(dev, found);
    found
}

/// The kernel's (inode number, device) of the file at `path`, of which
/// `md` is the metadata.
pub(crate) fn kernel_identity(path: &Path, md: &std::fs::Metadata) -> (u64, u32) {
    (md.ino(), kernel_file_dev(path, md.is_dir(), md.dev()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_numbers_take_the_kernels_encoding() {
        assert_eq!(kernel_dev(0xfe00), 0xfe << 20);
        assert_eq!(kernel_dev(0x0103), (1 << 20) | 3);
    }

    #[test]
    fn a_file_off_overlayfs_keeps_its_own_device() {
        let md = std::fs::metadata("/proc/self/exe").unwrap();
        let exe = std::fs::canonicalize("/proc/self/exe").unwrap();
        let on_overlay = nix::sys::statfs::statfs(&exe)
            .is_ok_and(|s| s.filesystem_type() == OVERLAYFS_SUPER_MAGIC);
        if !on_overlay {
            assert_eq!(kernel_identity(&exe, &md).1, kernel_dev(md.dev()));
        }
    }
}
