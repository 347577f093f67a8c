//! The names of a failed syscall (and of a successful one whose object
//! changed nothing BPF sees: readlink, getxattr, ...), looked up from
//! user space right after the event, the way the kernel's lookup went:
//! the parent directory of a create or delete (PARENT), the object when
//! it exists (NORMAL, or DELETE for a delete that failed later), else the
//! bare name (UNKNOWN). The files may have changed since the syscall (a
//! race the kernel does not have), and a lookup the syscall's task was
//! refused on the way (a 0700 directory) is made here with fastaudit's
//! rights; both are documented in the README.

use crate::decode::exec_files::{inode_of, resolve};
use crate::host::facts::Facts;
use fastaudit_records::path::{parent_len, Inode, NameType, PathItem};
use nix::libc;
use std::path::PathBuf;

/// libc's `AT_FDCWD`, `AT_SYMLINK_NOFOLLOW`, `O_CREAT`, `O_NOFOLLOW` as
/// the syscall's arguments hold them (64 bits, AT_FDCWD sign-extended).
const AT_FDCWD: u64 = libc::AT_FDCWD as i64 as u64;
const AT_SYMLINK_NOFOLLOW: u64 = libc::AT_SYMLINK_NOFOLLOW as u64;
const O_CREAT: u64 = libc::O_CREAT as u64;
const O_NOFOLLOW: u64 = libc::O_NOFOLLOW as u64;

/// What user space knows of the syscall: its name, arguments, pid, the
/// path arguments and the working directory BPF sent.
pub(crate) struct Call<'a> {
    pub name: &'a str,
    pub args: [u64; 4],
    pub pid: i32,
    pub cwd: Option<&'a [u8]>,
    pub names: &'a [Option<Vec<u8>>; 3],
    /// The directory each dirfd-relative path argument starts from, as
    /// BPF spelled it at the exit.
    pub bases: &'a [Option<Vec<u8>>; 2],
    /// The kernel's facts (the order it takes two names in, ...).
    pub kernel: Facts,
}

impl Call<'_> {
    /// The dirfd argument of path argument i, for the *at syscalls.
    fn dirfd(&self, i: usize) -> u64 {
        let at = |n: usize| self.args[n] as u32 as i32 as i64 as u64;
        match (self.name, i) {
            (
                "openat" | "openat2" | "mkdirat" | "mknodat" | "fchownat" | "unlinkat" | "fchmodat"
                | "fchmodat2" | "execveat" | "readlinkat" | "renameat" | "renameat2" | "linkat"
                | "newfstatat" | "statx" | "faccessat" | "faccessat2" | "utimensat" | "futimesat",
                0,
            ) => at(0),
            ("renameat" | "renameat2" | "linkat", 1) => at(2),
            ("symlinkat", 0) => at(1),
            _ => AT_FDCWD,
        }
    }

    /// Where path argument i (or, with `parent`, its directory) is.
    fn path(&self, i: usize, parent: bool) -> Option<PathBuf> {
        let n = self.names[i].as_ref()?;
        let n = if parent {
            match parent_len(n) {
                0 => &b"."[..],
                len => &n[..len],
            }
        } else {
            &n[..]
        };
        let dfd = self.dirfd(i);
        if dfd == AT_FDCWD || n.starts_with(b"/") {
            return Some(resolve(self.cwd, n));
        }
        // Relative to an open directory: the one BPF spelled, else
        // through the task's fd, if it is still there.
        // An empty name (AT_EMPTY_PATH) is the open file itself: no
        // trailing slash, which would make a file's path fail.
        if let Some(base) = self.bases.get(i).and_then(Option::as_ref) {
            let mut p = base.clone();
            if !n.is_empty() {
                p.push(b'/');
                p.extend_from_slice(n);
            }
            return Some(resolve(None, &p));
        }
        let base = PathBuf::from(format!("/proc/{}/fd/{}", self.pid, dfd as i64));
        if n.is_empty() {
            return Some(base);
        }
        Some(base.join(std::ffi::OsStr::new(std::str::from_utf8(n).ok()?)))
    }

    fn stat(&self, i: usize, parent: bool, follow: bool) -> Option<Inode> {
        let p = self.path(i, parent)?;
        let md = if follow {
            std::fs::metadata(&p)
        } else {
            std::fs::symlink_metadata(&p)
        };
        md.ok().map(|m| inode_of(&p, &m))
    }

    /// The directory part of argument i as the kernel prints it (the
    /// working directory for a plain name).
    fn parent_name(&self, i: usize) -> Option<Vec<u8>> {
        let n = self.names[i].as_ref()?;
        match parent_len(n) {
            0 => self.cwd.map(<[u8]>::to_vec),
            len => Some(n[..len].to_vec()),
        }
    }

    fn item(&self, i: usize, inode: Option<Inode>, t: NameType) -> PathItem {
        PathItem {
            name: self.names[i].clone(),
            inode,
            nametype: if inode.is_some() {
                t
            } else {
                NameType::Unknown
            },
        }
    }

    fn parent_item(&self, i: usize) -> Option<PathItem> {
        let dir = self.stat(i, true, true)?;
        Some(PathItem {
            name: self.parent_name(i),
            inode: Some(dir),
            nametype: NameType::Parent,
        })
    }

    /// Argument i as a create's or delete's parent, else its bare name.
    fn parent_or_name(&self, i: usize) -> PathItem {
        self.parent_item(i)
            .unwrap_or_else(|| self.item(i, None, NameType::Unknown))
    }

    /// Whether the syscall follows a final symlink.
    pub(crate) fn follows(&self) -> bool {
        match self.name {
            "lchown" | "lsetxattr" | "lremovexattr" | "lgetxattr" | "llistxattr" | "readlink"
            | "readlinkat" => false,
            "lstat" => false,
            "fchownat" | "newfstatat" | "faccessat2" | "utimensat" => {
                self.args[3] & AT_SYMLINK_NOFOLLOW == 0
            }
            "statx" => self.args[2] & AT_SYMLINK_NOFOLLOW == 0,
            "open" => self.args[1] & O_NOFOLLOW == 0,
            "openat" => self.args[2] & O_NOFOLLOW == 0,
            _ => true,
        }
    }
}

/// Whether this kernel names the directory (PARENT, before the file) of
/// an O_CREAT open that finds the file already there: before Linux 6.12
/// every O_CREAT open took the create path of fs/namei.c's
/// open_last_lookups, which notes the directory; 6.12 first looks for an
/// existing file, and finds it without noting the directory.
pub(crate) fn creat_names_parent_of_existing(kernel: &Facts) -> bool {
    kernel.version < (6, 12)
}

/// The open flags of an open, openat or creat (0 for openat2, whose
/// flags are in its struct open_how).
pub(crate) fn open_flags(c: &Call) -> u64 {
    match c.name {
        "open" => c.args[1],
        "openat" => c.args[2],
        "creat" => O_CREAT,
        _ => 0,
    }
}

/// Whether an O_CREAT open of a file that exists has the kernel name its
/// directory first (see [`creat_names_parent_of_existing`]).
pub(crate) fn open_names_parent(c: &Call) -> bool {
    open_flags(c) & O_CREAT != 0 && creat_names_parent_of_existing(&c.kernel)
}

/// Whether the kernel names an exec's program a second time: TOMOYO
/// (in Debian's kernels' LSM list) looks the program's name up again, not
/// following a final symlink, when it checks the exec
/// (tomoyo_find_next_domain's tomoyo_realpath_nofollow), and the lookup
/// adds a PATH item after the first.
pub(crate) fn exec_names_program_twice(c: &Call) -> bool {
    c.kernel.tomoyo
}

/// The second item TOMOYO's lookup adds for an exec whose first item is
/// `first`: the same name, and the same file unless the name is a
/// symlink (looked up here, from user space), which that lookup does not
/// follow. An execveat relative to a directory descriptor is named
/// `/dev/fd/N/NAME` there (the kernel's bprm->filename).
pub(crate) fn program_again(c: &Call, first: &PathItem) -> PathItem {
    let dfd = c.args[0] as u32 as i32;
    let name = match (c.name, c.names[0].as_ref()) {
        ("execveat", Some(n)) if dfd != AT_FDCWD as u32 as i32 && !n.starts_with(b"/") => {
            let mut s = format!("/dev/fd/{dfd}").into_bytes();
            if !n.is_empty() {
                s.push(b'/');
                s.extend_from_slice(n);
            }
            Some(s)
        }
        _ => first.name.clone(),
    };
    let link = c.path(0, false).and_then(|p| {
        let m = std::fs::symlink_metadata(&p).ok()?;
        m.file_type().is_symlink().then(|| inode_of(&p, &m))
    });
    PathItem {
        name,
        inode: link.or(first.inode),
        nametype: first.nametype,
    }
}

/// Where path argument i is from here (`None`: no such argument).
pub(crate) fn path_of(c: &Call, i: usize) -> Option<PathBuf> {
    c.path(i, false)
}

/// The PARENT item of path argument 0, looked up from user space.
pub(crate) fn parent(c: &Call) -> Option<PathItem> {
    c.parent_item(0)
}

/// The items of a create that succeeded outside BPF's view (bind of an
/// AF_UNIX socket): the directory, then the new object.
pub(crate) fn created(c: &Call) -> Vec<PathItem> {
    let mut v = vec![c.parent_or_name(0)];
    if let Some(new) = c.stat(0, false, false) {
        v.push(c.item(0, Some(new), NameType::Create));
    }
    v
}

/// The items of a syscall whose lookup failed before reaching any object:
/// each path argument's bare name.
pub(crate) fn bare_items(c: &Call, nargs: usize) -> Vec<PathItem> {
    (0..nargs)
        .map(|i| c.item(i, None, NameType::Unknown))
        .collect()
}

/// A rename's two directories, in the kernel's order (a bare name where
/// the old one's directory is not there: the lookup stopped at it).
pub(crate) fn rename_directories(c: &Call) -> Vec<PathItem> {
    let old_dir = c.parent_item(0);
    let new_dir = old_dir.as_ref().and_then(|_| c.parent_item(1));
    let mut v = vec![
        new_dir.unwrap_or_else(|| c.item(1, None, NameType::Unknown)),
        old_dir.unwrap_or_else(|| c.item(0, None, NameType::Unknown)),
    ];
    if c.kernel.order.rename_old_first {
        v.swap(0, 1);
    }
    v
}

/// The items of a failed syscall, or of a successful one whose object BPF
/// did not see, in the kernel's order (its names list: the path arguments
/// in getname order, then the children of creates and deletes).
pub(crate) fn items(c: &Call, nargs: usize) -> Vec<PathItem> {
    match c.name {
        "mkdir" | "mkdirat" | "mknod" | "mknodat" => vec![c.parent_or_name(0)],
        "symlink" | "symlinkat" => {
            let target = PathItem {
                name: c.names[2].clone(),
                inode: None,
                nametype: NameType::Unknown,
            };
            let mut v = vec![c.parent_or_name(0), target];
            if c.kernel.order.symlink_target_first {
                v.reverse();
            }
            v
        }
        "link" | "linkat" => {
            // getname(new) before getname(old) (or old first: c.order);
            // old is looked up first. Neither follows a final symlink
            // (linkat's AT_SYMLINK_FOLLOW is in a4, which the record does
            // not keep).
            let old = c.stat(0, false, false);
            let new = match old {
                Some(_) => c.parent_or_name(1),
                None => c.item(1, None, NameType::Unknown),
            };
            let mut v = vec![new, c.item(0, old, NameType::Normal)];
            if c.kernel.order.link_old_first {
                v.reverse();
            }
            v
        }
        "unlink" | "unlinkat" | "rmdir" => {
            let Some(parent) = c.parent_item(0) else {
                return vec![c.item(0, None, NameType::Unknown)];
            };
            let mut v = vec![parent];
            if let Some(victim) = c.stat(0, false, false) {
                v.push(c.item(0, Some(victim), NameType::Delete));
            }
            v
        }
        "rename" | "renameat" | "renameat2" => {
            let mut v = rename_directories(c);
            if c.parent_item(0).is_some() {
                if let Some(moved) = c.stat(0, false, false) {
                    v.push(c.item(0, Some(moved), NameType::Delete));
                    if let Some(victim) = c.stat(1, false, false) {
                        v.push(c.item(1, Some(victim), NameType::Delete));
                    }
                }
            }
            v
        }
        "open" | "openat" | "creat" | "openat2" => {
            let flags = open_flags(c);
            match c.stat(0, false, c.follows()) {
                Some(o) if open_names_parent(c) => c
                    .parent_item(0)
                    .into_iter()
                    .chain([c.item(0, Some(o), NameType::Normal)])
                    .collect(),
                Some(o) => vec![c.item(0, Some(o), NameType::Normal)],
                None if flags & O_CREAT != 0 => vec![c.parent_or_name(0)],
                None => vec![c.item(0, None, NameType::Unknown)],
            }
        }
        _ => (0..nargs)
            .map(|i| c.item(i, c.stat(i, false, c.follows()), NameType::Normal))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::facts::NameOrder;
    use std::os::unix::ffi::OsStrExt as _;

    fn call<'a>(
        name: &'a str,
        args: [u64; 4],
        cwd: &'a [u8],
        names: &'a [Option<Vec<u8>>; 3],
    ) -> Call<'a> {
        const NO_BASES: &[Option<Vec<u8>>; 2] = &[None, None];
        Call {
            name,
            args,
            pid: std::process::id() as i32,
            cwd: Some(cwd),
            names,
            bases: NO_BASES,
            kernel: Facts::at((6, 18)),
        }
    }

    #[test]
    fn an_empty_name_by_descriptor_is_the_open_file_itself() {
        // statx(fd, "", AT_EMPTY_PATH): a file's path with a slash added
        // would fail (ENOTDIR), and its device could not be looked up.
        let dir = std::env::temp_dir().join(format!("fa-lookup-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("file");
        std::fs::write(&file, b"x").unwrap();
        let names = [Some(Vec::new()), None, None];
        let bases = [Some(file.as_os_str().as_bytes().to_vec()), None];
        let mut c = call("statx", [3, 0, 0x1000, 0], b"/", &names);
        c.bases = &bases;
        assert_eq!(c.path(0, false), Some(file.clone()));
        let fd = std::fs::File::open(&file).unwrap();
        let no_bases = [None, None];
        c.bases = &no_bases;
        c.args[0] = std::os::fd::AsRawFd::as_raw_fd(&fd) as u64;
        let by_fd = c.path(0, false).unwrap();
        assert_eq!(std::fs::canonicalize(&by_fd).unwrap(), file);
        assert!(std::fs::metadata(&by_fd).unwrap().is_file());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn tomoyos_second_item_is_the_name_again_and_a_symlink_unfollowed() {
        let dir = std::env::temp_dir().join(format!("fa-lookup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let prog = dir.join("prog");
        std::fs::write(&prog, b"#!/bin/sh\n").unwrap();
        let link = dir.join("link");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&prog, &link).unwrap();
        let cwd = dir.as_os_str().as_bytes();
        let target = inode_of(&prog, &std::fs::metadata(&prog).unwrap());
        let first = |n: &str| PathItem {
            name: Some(n.as_bytes().to_vec()),
            inode: Some(target),
            nametype: NameType::Normal,
        };
        // A plain file: the first item again.
        let names = [Some(b"prog".to_vec()), None, None];
        let again = program_again(&call("execve", [0; 4], cwd, &names), &first("prog"));
        assert_eq!(again, first("prog"));
        // A symlink: its own inode, as a lookup that does not follow it finds.
        let names = [Some(b"link".to_vec()), None, None];
        let again = program_again(&call("execve", [0; 4], cwd, &names), &first("link"));
        assert_eq!(again.name.as_deref(), Some(&b"link"[..]));
        let mode = again.inode.map(|i| i.mode & 0o170000);
        assert_eq!(mode, Some(0o120000), "{again:?}");
        // execveat relative to a directory descriptor: /dev/fd/N/NAME.
        let names = [Some(b"prog".to_vec()), None, None];
        let again = program_again(&call("execveat", [5, 0, 0, 0], cwd, &names), &first("prog"));
        assert_eq!(again.name.as_deref(), Some(&b"/dev/fd/5/prog"[..]));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn open_flags_come_from_each_calls_own_argument() {
        let names = [Some(b"f".to_vec()), None, None];
        let creat = O_CREAT | 1;
        assert_eq!(
            open_flags(&call("open", [0, creat, 0, 0], b"/", &names)),
            creat
        );
        assert_eq!(
            open_flags(&call("openat", [0, 0, creat, 0], b"/", &names)),
            creat
        );
        assert_eq!(open_flags(&call("creat", [0; 4], b"/", &names)), O_CREAT);
        assert_eq!(
            open_flags(&call("openat2", [0, 0, creat, 0], b"/", &names)),
            0
        );
    }

    #[test]
    fn failed_links_symlinks_and_renames_name_in_the_kernels_order() {
        let dir = std::env::temp_dir().join(format!("fa-lookup-order-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("d")).unwrap();
        std::fs::write(dir.join("f"), b"").unwrap();
        std::fs::write(dir.join("d/taken"), b"").unwrap();
        let cwd = dir.as_os_str().as_bytes();
        let newer = NameOrder {
            link_old_first: true,
            symlink_target_first: true,
            rename_old_first: true,
        };
        let types = |name: &str, names: &[Option<Vec<u8>>; 3], order: NameOrder| {
            let c = Call {
                kernel: Facts {
                    order,
                    ..Facts::at((6, 18))
                },
                ..call(name, [0; 4], cwd, names)
            };
            items(&c, 2)
                .into_iter()
                .map(|i| (i.name.unwrap_or_default(), i.nametype))
                .collect::<Vec<_>>()
        };
        let n = |s: &str| Some(s.as_bytes().to_vec());
        // link f d/taken (EEXIST): the new name's directory, then f.
        let link = [n("f"), n("d/taken"), None];
        let older = types("link", &link, NameOrder::default());
        assert_eq!(older[0], (b"d/".to_vec(), NameType::Parent));
        assert_eq!(older[1], (b"f".to_vec(), NameType::Normal));
        let newer_link = types("link", &link, newer);
        assert_eq!(newer_link, vec![older[1].clone(), older[0].clone()]);
        // symlink t d/taken (EEXIST): the directory, then the target.
        let symlink = [n("d/taken"), None, n("t")];
        let older = types("symlink", &symlink, NameOrder::default());
        assert_eq!(older[0], (b"d/".to_vec(), NameType::Parent));
        assert_eq!(older[1], (b"t".to_vec(), NameType::Unknown));
        assert_eq!(
            types("symlink", &symlink, newer),
            vec![older[1].clone(), older[0].clone()]
        );
        // rename f d/taken/x (ENOTDIR): the new name (its directory is no
        // directory) before the old one's directory, or after it.
        let rename = [n("f"), n("d/taken/x"), None];
        let older = types("rename", &rename, NameOrder::default());
        let newer_rename = types("rename", &rename, newer);
        assert_eq!(older[0], (b"d/taken/x".to_vec(), NameType::Unknown));
        assert_eq!(newer_rename[0], older[1]);
        assert_eq!(newer_rename[1], older[0]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
