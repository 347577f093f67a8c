//! The CWD and PATH records of io_uring ops, as the kernel's audit
//! contexts collect them:
//! - inside io_uring_enter, each op's prep takes its file names with
//!   getname(): they are the syscall's names (`name=` as given, nametype
//!   UNKNOWN), and an open issued inline resolves its own (NORMAL, with
//!   the file it opened); an op sent to an io-wq worker after its inline
//!   attempt has them filled in by the worker's lookups (PARENT, or
//!   NORMAL with the object);
//! - an io-wq worker has a context of its own with no names: each
//!   `audit_inode_child()` of the op finds none to match and adds a
//!   nameless (`name=(null)`) parent and child, once when the name is
//!   looked up and once when the change is notified.
//!
//! The SQPOLL thread's context (which takes the names itself) is not
//! followed: its URINGOP records carry no CWD or PATH.

use crate::decode::exec_files::{inode_of, resolve};
use crate::decode::sent::{decode, Obj, PathRecords, Sent};
use crate::payload::Aux;
use fastaudit_bpf::types::{fa_aux_uring_punt, fa_obj_flag};
use fastaudit_records::path::{parent_len, NameType, PathItem};
use fastaudit_rules::tables;
use std::path::PathBuf;

/// io_uring_enter's CWD and PATH records: its ops' names in the order
/// their preps took them (of process `pid`).
pub(crate) fn enter_paths(mut sent: Sent, pid: i32) -> PathRecords {
    sent.uring_names.sort_by_key(|(i, _)| *i);
    let mut items = sent
        .uring_names
        .iter()
        .map(|(i, name)| {
            let opened = sent.uring_opened.iter().find(|(at, _)| at == i);
            PathItem {
                name: Some(name.clone()),
                inode: opened.map(|(_, inode)| *inode),
                nametype: match opened {
                    Some(_) => NameType::Normal,
                    None => NameType::Unknown,
                },
            }
        })
        .collect::<Vec<_>>();
    for (p, objs) in &sent.uring_punted {
        punted(&mut items, p, objs, sent.cwd.as_deref(), pid);
    }
    PathRecords {
        cwd: (!items.is_empty()).then_some(sent.cwd).flatten(),
        items,
        hidden: 0,
    }
}

/// An op sent to an io-wq worker after its inline attempt: the worker's
/// lookups find the syscall's entries for its names through the shared
/// struct filename (`name->aname`) and fill them in, as they would their
/// own: the directory (PARENT, the name cut to it) for a create, mkdir,
/// unlink, rename or a link's new name, the object (NORMAL) for an open
/// without O_CREAT, a stat or a link's source. Seen on kernels that
/// attempt those ops inline first (Linux 6.1). A directory or link source
/// the worker changed (`objs`) is the inode its lookup found, even if the
/// workload removed it since; anything else is looked up here, after the
/// worker ran.
fn punted(
    items: &mut [PathItem],
    p: &fa_aux_uring_punt,
    objs: &[Obj],
    cwd: Option<&[u8]>,
    pid: i32,
) {
    use Fill::{LinkSource, Object, ObjectNoFollow, Parent};
    const O_CREAT: u32 = nix::libc::O_CREAT as u32;
    const O_NOFOLLOW: u32 = nix::libc::O_NOFOLLOW as u32;
    let Some(op) = tables::URING_OPS.get(p.op as usize) else {
        return;
    };
    let fills: &[(u32, i32, Fill)] = match *op {
        "openat" | "openat2" if p.open_flags & O_CREAT != 0 => &[(0, p.dfd, Parent)],
        "openat" | "openat2" if p.open_flags & O_NOFOLLOW != 0 => &[(0, p.dfd, ObjectNoFollow)],
        "openat" | "openat2" | "statx" => &[(0, p.dfd, Object)],
        "mkdirat" | "unlinkat" => &[(0, p.dfd, Parent)],
        "renameat" => &[(0, p.dfd, Parent), (1, p.dfd2, Parent)],
        "symlinkat" => &[(1, p.dfd2, Parent)],
        "linkat" => &[(0, p.dfd, LinkSource), (1, p.dfd2, Parent)],
        _ => &[],
    };
    // A link's new name is looked up only once its source was found.
    let mut link_failed = false;
    for &(k, dfd, fill) in fills {
        if link_failed {
            break;
        }
        let new_name = items
            .get((p.index + 1) as usize)
            .and_then(|i| i.name.clone());
        let Some(item) = items.get_mut((p.index + k) as usize) else {
            continue;
        };
        if item.nametype != NameType::Unknown {
            continue; // an inline open resolved it itself
        }
        let Some(name) = item.name.clone() else {
            continue;
        };
        let found = match fill {
            Parent => {
                let dir = match parent_len(&name) {
                    0 => cwd.map(<[u8]>::to_vec),
                    len => Some(name[..len].to_vec()),
                };
                let path = at(&name, dfd, cwd, pid, true);
                let changed = changed_dir(objs, *op == "renameat" && k == 1).map(|o| o.inode);
                let looked_up = || {
                    let md = std::fs::metadata(&path).ok()?;
                    Some(inode_of(&path, &md))
                };
                changed
                    .or_else(looked_up)
                    .map(|inode| (dir, inode, NameType::Parent))
            }
            // The source the worker linked; else as found now, or (removed
            // since) the new link to the same inode; none: the link failed
            // at its source.
            LinkSource
                if objs
                    .iter()
                    .any(|o| o.has(fa_obj_flag::FA_OBJ_ALIAS) && !o.is_dir()) =>
            {
                let o = objs
                    .iter()
                    .find(|o| o.has(fa_obj_flag::FA_OBJ_ALIAS) && !o.is_dir());
                o.map(|o| (Some(name.clone()), o.inode, NameType::Normal))
            }
            LinkSource => {
                let source = std::fs::symlink_metadata(at(&name, dfd, cwd, pid, false)).ok();
                let linked = || {
                    let path = at(new_name.as_deref()?, p.dfd2, cwd, pid, false);
                    let m = std::fs::symlink_metadata(&path).ok()?;
                    Some(inode_of(&path, &m))
                };
                let path = at(&name, dfd, cwd, pid, false);
                let inode = source.map(|m| inode_of(&path, &m)).or_else(linked);
                link_failed = inode.is_none();
                inode.map(|i| (Some(name.clone()), i, NameType::Normal))
            }
            Object | ObjectNoFollow => {
                let path = at(&name, dfd, cwd, pid, false);
                let md = match fill {
                    Object => std::fs::metadata(&path),
                    _ => std::fs::symlink_metadata(&path),
                };
                md.ok()
                    .map(|m| (Some(name.clone()), inode_of(&path, &m), NameType::Normal))
            }
        };
        if let Some((name, inode, nametype)) = found {
            *item = PathItem {
                name,
                inode: Some(inode),
                nametype,
            };
        }
    }
}

/// The directory a worker's op changed, which its lookup of a name's
/// parent found: the one holding the op's child (a rename's old
/// directory), or with `second` a rename's new one (the same when it
/// stayed in one directory). New inodes (no dentry yet when noted) are
/// no lookup's.
pub(crate) fn changed_dir(objs: &[Obj], second: bool) -> Option<&Obj> {
    let known = |o: &&Obj| o.is_dir() && o.has(fa_obj_flag::FA_OBJ_ALIAS);
    let (child, dir) = child_and_dir(objs);
    let dir = dir.filter(known).or_else(|| objs.iter().find(known));
    if !second {
        return dir;
    }
    let ino = |o: Option<&Obj>| o.map(|o| (o.inode.ino, o.inode.dev));
    objs.iter()
        .filter(known)
        .find(|o| ino(Some(o)) != ino(dir) && ino(Some(o)) != ino(child))
        .or(dir)
}

/// What a punted op's worker looks up for one of its names.
#[derive(Clone, Copy)]
enum Fill {
    Parent,
    Object,
    ObjectNoFollow,
    LinkSource,
}

/// Where `name` (relative to directory descriptor `dfd` of process
/// `pid`), or with `parent` its directory, is from here.
pub(crate) fn at(name: &[u8], dfd: i32, cwd: Option<&[u8]>, pid: i32, parent: bool) -> PathBuf {
    use std::os::unix::ffi::OsStrExt as _;
    let name = match (parent, parent_len(name)) {
        (true, 0) => &b"."[..],
        (true, len) => &name[..len],
        (false, _) => name,
    };
    const AT_FDCWD: i32 = nix::libc::AT_FDCWD;
    if name.starts_with(b"/") || dfd == AT_FDCWD {
        return resolve(cwd, name);
    }
    PathBuf::from(format!("/proc/{pid}/fd/{dfd}")).join(std::ffi::OsStr::from_bytes(name))
}

/// The CWD and PATH records of op `op` run by an io-wq worker (`None`
/// when the BPF side sent nothing for it: a failure, or an op that names
/// no file).
pub fn worker_paths(op: u32, aux: &[Aux]) -> Option<PathRecords> {
    let sent = decode(aux)?;
    let items = worker_items(tables::URING_OPS.get(op as usize)?, &sent.objs);
    Some(PathRecords {
        cwd: sent.cwd,
        items,
        hidden: 0,
    })
}

/// A nameless item of `obj` (none: a name that found no inode yet).
fn nameless(obj: Option<&Obj>, nametype: NameType) -> PathItem {
    PathItem {
        name: None,
        inode: obj.map(|o| o.inode),
        nametype,
    }
}

/// The object whose dentry's parent is another of `objs` (the child an
/// op changed in a directory it also changed), preferring a
/// non-directory; with its directory.
fn child_and_dir(objs: &[Obj]) -> (Option<&Obj>, Option<&Obj>) {
    let parent = |o: &Obj| {
        objs.iter()
            .find(|d| d.inode.ino == o.parent_ino && d.inode.dev == o.inode.dev && d.is_dir())
    };
    let with_parent = |dirs: bool| {
        objs.iter()
            .filter(|o| o.has(fa_obj_flag::FA_OBJ_ALIAS) && o.is_dir() == dirs)
            .find_map(|o| parent(o).map(|d| (o, d)))
    };
    match with_parent(false).or_else(|| with_parent(true)) {
        Some((child, dir)) => (Some(child), Some(dir)),
        None => (
            objs.iter().find(|o| !o.is_dir()),
            objs.iter().find(|o| o.is_dir()),
        ),
    }
}

/// A worker's items for `op` from the inodes it changed (its ctime:
/// objects.bpf.h), in the order `audit_inode_child()` adds them.
fn worker_items(op: &str, objs: &[Obj]) -> Vec<PathItem> {
    use NameType::{Create, Delete, Parent};
    let inode = |o: Option<&Obj>| o.map(|o| o.inode);
    match op {
        // Looked up (the new name: no inode), then created.
        "openat" | "openat2" | "mkdirat" | "symlinkat" | "linkat" => {
            // A new inode had no dentry when its times were set; a link's
            // is the file linked.
            let new = objs
                .iter()
                .find(|o| !o.has(fa_obj_flag::FA_OBJ_ALIAS))
                .or_else(|| objs.iter().find(|o| !o.is_dir()));
            let dir = objs.iter().find(|o| {
                o.is_dir() && o.has(fa_obj_flag::FA_OBJ_ALIAS) && inode(Some(o)) != inode(new)
            });
            vec![
                nameless(dir, Parent),
                nameless(None, Create),
                nameless(dir, Parent),
                nameless(new, Create),
            ]
        }
        "unlinkat" => {
            let (victim, dir) = child_and_dir(objs);
            vec![nameless(dir, Parent), nameless(victim, Delete)]
        }
        "renameat" => {
            let (moved, old_dir) = child_and_dir(objs);
            let other = |o: &&Obj| {
                o.is_dir() && inode(Some(o)) != inode(old_dir) && inode(Some(o)) != inode(moved)
            };
            let new_dir = objs.iter().find(other).or(old_dir);
            vec![
                nameless(old_dir, Parent),
                nameless(moved, Delete),
                nameless(new_dir, Parent),
                nameless(None, Create),
                nameless(new_dir, Parent),
                nameless(moved, Create),
            ]
        }
        _ => Vec::new(),
    }
}

/// The inode of item `i` (tests).
#[cfg(test)]
fn ino(items: &[PathItem], i: usize) -> Option<u64> {
    items[i].inode.map(|n| n.ino)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastaudit_records::path::Inode;

    const DIR: u32 = 0o040755;
    const FILE: u32 = 0o100644;

    fn obj(ino: u64, mode: u32, parent: u64, alias: bool) -> Obj {
        let mut o = Obj::default();
        o.inode.ino = ino;
        o.inode.mode = mode;
        o.parent_ino = parent;
        o.flags = fa_obj_flag::FA_OBJ_CHANGED.0
            | if alias {
                fa_obj_flag::FA_OBJ_ALIAS.0
            } else {
                0
            };
        o
    }

    #[test]
    fn a_worker_creation_names_the_directory_twice_and_the_new_inode_last() {
        let objs = [obj(10, DIR, 2, true), obj(11, FILE, 0, false)];
        let items = worker_items("openat", &objs);
        let types: Vec<_> = items.iter().map(|i| i.nametype).collect();
        use NameType::*;
        assert_eq!(types, [Parent, Create, Parent, Create]);
        assert_eq!(
            (
                ino(&items, 0),
                ino(&items, 1),
                ino(&items, 2),
                ino(&items, 3)
            ),
            (Some(10), None, Some(10), Some(11))
        );
        assert!(items.iter().all(|i| i.name.is_none()));
    }

    #[test]
    fn a_worker_rename_finds_the_moved_inode_by_its_directory() {
        // Within one directory: a directory moved.
        let objs = [obj(10, DIR, 2, true), obj(12, DIR, 10, true)];
        let items = worker_items("renameat", &objs);
        assert_eq!(items.len(), 6);
        assert_eq!(
            (
                ino(&items, 0),
                ino(&items, 1),
                ino(&items, 4),
                ino(&items, 5)
            ),
            (Some(10), Some(12), Some(10), Some(12))
        );
        // Across directories: the old one is the moved file's parent.
        let objs = [
            obj(20, DIR, 2, true),
            obj(13, FILE, 10, true),
            obj(10, DIR, 2, true),
        ];
        let items = worker_items("renameat", &objs);
        assert_eq!(
            (
                ino(&items, 0),
                ino(&items, 1),
                ino(&items, 2),
                ino(&items, 5)
            ),
            (Some(10), Some(13), Some(20), Some(13))
        );
    }

    #[test]
    fn a_worker_unlink_names_the_directory_and_the_victim() {
        let objs = [obj(13, FILE, 10, true), obj(10, DIR, 2, true)];
        let items = worker_items("unlinkat", &objs);
        assert_eq!((ino(&items, 0), ino(&items, 1)), (Some(10), Some(13)));
        assert_eq!(items[1].nametype, NameType::Delete);
        assert!(worker_items("close", &objs).is_empty());
    }

    #[test]
    fn io_uring_enter_names_are_unknown_unless_an_inline_open_resolved_them() {
        let sent = Sent {
            cwd: Some(b"/root".to_vec()),
            uring_names: vec![(1, b"b".to_vec()), (0, b"/etc/passwd".to_vec())],
            uring_opened: vec![(
                0,
                Inode {
                    ino: 5,
                    ..Inode::default()
                },
            )],
            ..Sent::default()
        };
        let p = enter_paths(sent, 0);
        assert_eq!(p.cwd.as_deref(), Some(&b"/root"[..]));
        assert_eq!(p.items[0].name.as_deref(), Some(&b"/etc/passwd"[..]));
        assert_eq!(
            (p.items[0].nametype, ino(&p.items, 0)),
            (NameType::Normal, Some(5))
        );
        assert_eq!(
            (p.items[1].nametype, ino(&p.items, 1)),
            (NameType::Unknown, None)
        );
    }

    fn unknown(name: &str) -> PathItem {
        PathItem {
            name: Some(name.as_bytes().to_vec()),
            inode: None,
            nametype: NameType::Unknown,
        }
    }

    fn punt(index: u32, op: &str) -> fa_aux_uring_punt {
        fa_aux_uring_punt {
            index,
            op: tables::URING_OPS.iter().position(|o| *o == op).unwrap() as u32,
            open_flags: 0,
            dfd: -100,
            dfd2: -100,
            pad: 0,
        }
    }

    #[test]
    fn what_a_worker_changed_fills_in_names_the_workload_removed_since() {
        // A link (source 20 in directory 10) and a create (in 30), every
        // name gone by the time the event is written.
        let mut items = vec![
            unknown("/gone/t"),
            unknown("/gone/h"),
            unknown("/gone2/f"),
            unknown("/gone2/x"),
        ];
        let link = [obj(20, FILE, 10, true), obj(10, DIR, 2, true)];
        punted(&mut items, &punt(0, "linkat"), &link, None, 0);
        let create = [obj(31, FILE, 0, false), obj(30, DIR, 2, true)];
        let mut open = punt(2, "openat");
        open.open_flags = nix::libc::O_CREAT as u32;
        punted(&mut items, &open, &create, None, 0);
        // Nothing changed and nothing found: stays as the prep took it.
        punted(&mut items, &punt(3, "unlinkat"), &[], None, 0);
        use NameType::*;
        let types: Vec<_> = items.iter().map(|i| i.nametype).collect();
        assert_eq!(types, [Normal, Parent, Parent, Unknown]);
        assert_eq!(
            (ino(&items, 0), ino(&items, 1), ino(&items, 2)),
            (Some(20), Some(10), Some(30))
        );
        assert_eq!(items[1].name.as_deref(), Some(&b"/gone/"[..]));
        // A rename across directories: old 40 (holding the moved 41), new 50.
        let mut items = vec![unknown("/a/x"), unknown("/b/y")];
        let moved = [
            obj(50, DIR, 2, true),
            obj(41, FILE, 40, true),
            obj(40, DIR, 2, true),
        ];
        punted(&mut items, &punt(0, "renameat"), &moved, None, 0);
        assert_eq!((ino(&items, 0), ino(&items, 1)), (Some(40), Some(50)));
    }

    #[test]
    fn a_workers_lookups_fill_in_the_names_of_a_punted_op() {
        use std::os::unix::ffi::OsStrExt as _;
        let dir = std::env::temp_dir().join(format!("fa-punt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.as_os_str().as_bytes().to_vec();
        let name = |n: &str| format!("{}/{n}", dir.display());
        std::fs::write(name("a"), b"").unwrap();
        std::fs::hard_link(name("a"), name("b")).unwrap();
        std::fs::remove_file(name("a")).unwrap();
        // mkdirat: the directory. linkat whose source is gone since: the
        // new link's inode. linkat that failed at its source: nothing.
        let mut items = vec![
            unknown(&name("m")),
            unknown(&name("a")),
            unknown(&name("b")),
            unknown(&name("missing")),
            unknown(&name("c")),
        ];
        for p in [punt(0, "mkdirat"), punt(1, "linkat"), punt(3, "linkat")] {
            punted(&mut items, &p, &[], Some(&d), 0);
        }
        let dir_ino = std::fs::metadata(&dir).unwrap();
        let b_ino = std::fs::metadata(name("b")).unwrap();
        use std::os::unix::fs::MetadataExt as _;
        let types: Vec<_> = items.iter().map(|i| i.nametype).collect();
        use NameType::*;
        assert_eq!(types, [Parent, Normal, Parent, Unknown, Unknown]);
        assert_eq!(ino(&items, 0), Some(dir_ino.ino()));
        assert_eq!(
            items[0].name.as_deref(),
            Some(&format!("{}/", dir.display()).into_bytes()[..])
        );
        assert_eq!(ino(&items, 1), Some(b_ino.ino()));
        assert_eq!(ino(&items, 2), Some(dir_ino.ino()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
