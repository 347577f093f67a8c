//! The cgroup hierarchy events name their task's cgroup in (container
//! identity): cgroup v2 where it is mounted; else, on a cgroup v1 host (or
//! a hybrid one whose v2 hierarchy is not mounted), one v1 controller's,
//! where container runtimes make the same path as in every other. Chosen
//! once at start from the mount table, the controller's index from the
//! kernel's BTF; the BPF side reads the task's cgroup there
//! (cgroup.bpf.h), user space resolves ids to paths under the mount.

use crate::host::btf::KernelBtf;
use crate::host::mountinfo::unescape_octal;
use crate::plan::kinds::CgroupView;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

/// v1 controllers in the order one is taken: those every container
/// runtime joins, with `pids` and `memory` first (always enabled where
/// containers run).
const V1_CONTROLLERS: &[&str] = &[
    "pids", "memory", "cpu", "cpuacct", "cpuset", "blkio", "devices", "freezer",
];

/// This host's view (`None`: no cgroup file system is mounted whole, or
/// the v1 controller's index is not in the kernel's BTF).
pub(crate) fn cgroup_view(btf: Option<&KernelBtf>) -> Option<CgroupView> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let (mount, controller) = choose(&mountinfo)?;
    let controller = match controller {
        None => None,
        Some(name) => {
            let id = btf?.enum_value("cgroup_subsys_id", &format!("{name}_cgrp_id"))?;
            Some((name, u32::try_from(id).ok()?))
        }
    };
    Some(CgroupView { mount, controller })
}

/// From a mount table (/proc/self/mountinfo's text): the cgroup v2 mount,
/// else the first v1 controller's of [`V1_CONTROLLERS`] (with its name).
/// Only mounts of a hierarchy's root: a mount of a cgroup below it (a
/// container's own view) resolves no id of the rest.
pub(crate) fn choose(mountinfo: &str) -> Option<(PathBuf, Option<String>)> {
    let mut v1: Vec<(usize, PathBuf, &str)> = Vec::new();
    for line in mountinfo.lines() {
        let Some((head, tail)) = line.split_once(" - ") else {
            continue;
        };
        let head: Vec<&str> = head.split(' ').collect();
        let tail: Vec<&str> = tail.split(' ').collect();
        let (Some(root), Some(point), Some(fstype)) = (head.get(3), head.get(4), tail.first())
        else {
            continue;
        };
        if *root != "/" {
            continue;
        }
        let point = PathBuf::from(std::ffi::OsString::from_vec(unescape_octal(
            point.as_bytes(),
        )));
        match *fstype {
            "cgroup2" => return Some((point, None)),
            "cgroup" => {
                let opts = tail.get(2).copied().unwrap_or("");
                for o in opts.split(',') {
                    if let Some(rank) = V1_CONTROLLERS.iter().position(|c| *c == o) {
                        v1.push((rank, point.clone(), V1_CONTROLLERS[rank]));
                    }
                }
            }
            _ => {}
        }
    }
    v1.sort_by_key(|(rank, _, _)| *rank);
    v1.into_iter()
        .next()
        .map(|(_, point, name)| (point, Some(name.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HYBRID: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
";

    #[test]
    fn v2_is_taken_where_it_is_mounted() {
        let t = format!(
            "{HYBRID}41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw,nsdelegate\n"
        );
        assert_eq!(choose(&t), Some(("/sys/fs/cgroup/unified".into(), None)));
    }

    #[test]
    fn else_the_first_v1_controller_in_order() {
        assert_eq!(
            choose(HYBRID),
            Some(("/sys/fs/cgroup/pids".into(), Some("pids".into())))
        );
        let only_cpu =
            "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n";
        assert_eq!(
            choose(only_cpu),
            Some(("/sys/fs/cgroup/cpu,cpuacct".into(), Some("cpu".into())))
        );
    }

    #[test]
    fn a_container_view_or_no_cgroup_fs_is_none() {
        let inside = "50 40 0:38 /libpod_parent/libpod-ab /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n";
        assert_eq!(choose(inside), None);
        assert_eq!(choose("22 1 8:1 / / rw - ext4 /dev/vda rw\n"), None);
        assert_eq!(choose("garbage\n\n - \n"), None);
    }

    #[test]
    fn mount_points_are_unescaped() {
        let t = "41 31 0:38 / /mnt/cg\\040two rw - cgroup2 cgroup2 rw\n";
        assert_eq!(choose(t), Some(("/mnt/cg two".into(), None)));
    }

    proptest::proptest! {
        /// Any text: no panic.
        #[test]
        fn any_mount_table_is_read(t in "\\PC*") {
            let _ = choose(&t);
        }
    }
}
