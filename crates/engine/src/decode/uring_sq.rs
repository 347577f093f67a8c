//! The CWD and PATH records of an io_uring op that runs in a context of
//! its own with names the BPF side handed it (uring_sqpoll.bpf.h):
//! - a SQPOLL ring's op, run by its SQPOLL thread or an io-wq worker. The
//!   thread's preps take the op's names outside any audit context (it has
//!   none between ops), so when the op runs no entry exists for them: each
//!   lookup (`__audit_inode()`) adds one, named, and each
//!   `audit_inode_child()` finds the named parent and its child or adds a
//!   nameless pair;
//! - on a kernel whose preps delay their names (Linux 7.x), any op an io
//!   thread runs (a worker's, a SQPOLL thread's): its attempt takes the
//!   names first (`audit_getname()`, an entry each, UNKNOWN), and its
//!   lookups fill those in, as a syscall's do. An attempt that returned
//!   -EAGAIN took them and looked nothing up.
//!
//! [`Names`] keeps a context's list by those rules; each op is the
//! sequence of calls its VFS path makes, fed by what the BPF side sent
//! (the names, the inodes the op changed, the file an open opened) and,
//! for the rest, lookups made here.

use crate::decode::exec_files::inode_of;
use crate::decode::sent::{decode, Obj, PathRecords, Sent};
use crate::decode::uring_paths::{at, changed_dir};
use crate::host::facts::Facts;
use crate::payload::Aux;
use fastaudit_bpf::types::{fa_aux_uring_punt, fa_obj_flag};
use fastaudit_records::path::{parent_len, Inode, NameType, PathItem};
use fastaudit_rules::tables;

/// How much of an entry's name is shown: all, or its directory part.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shown {
    Full,
    Parent(usize),
}

/// One entry of a context's names list.
#[derive(Clone, Debug)]
struct Entry {
    name: Option<Vec<u8>>,
    shown: Shown,
    /// None: not set (no inode yet, or a negative dentry).
    inode: Option<Inode>,
    nametype: NameType,
}

/// A context's names list, as the kernel's audit keeps it.
#[derive(Default)]
struct Names {
    list: Vec<Entry>,
    /// The entry `audit_getname()` made for name argument 0 and 1 (the
    /// struct filename's `aname`), where the names were taken so.
    own: [Option<usize>; 2],
}

fn same(a: Option<Inode>, b: Inode) -> bool {
    a.is_some_and(|a| a.ino == b.ino && a.dev == b.dev)
}

/// The last component of `name` (trailing slashes left out).
fn base(name: &[u8]) -> &[u8] {
    let end = name.iter().rposition(|&c| c != b'/').map_or(0, |i| i + 1);
    let name = &name[..end];
    let start = name.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1);
    &name[start..]
}

/// audit_compare_dname_path(): whether `dname` is the part of `path`
/// after its parent (`shown`, or computed).
fn names_child(dname: &[u8], path: &[u8], shown: Shown) -> bool {
    let plen = match shown {
        Shown::Parent(l) => l,
        Shown::Full => parent_len(path),
    };
    path.get(plen..) == Some(dname)
}

impl Names {
    /// `audit_getname()` of name argument `arg`: an entry of its own,
    /// UNKNOWN until a lookup fills it in.
    fn getname(&mut self, arg: usize, name: &[u8]) {
        self.list.push(Entry {
            name: Some(name.to_vec()),
            shown: Shown::Full,
            inode: None,
            nametype: NameType::Unknown,
        });
        if let Some(own) = self.own.get_mut(arg) {
            *own = Some(self.list.len() - 1);
        }
    }

    /// `__audit_inode()` of name argument `arg` (`name`), found at
    /// `inode` (`parent`: its directory): its own entry if it has one of
    /// a type that fits, else the last of that inode that fits (an entry
    /// with no inode has AUDIT_INO_UNSET, which none matches), else a new
    /// one, named.
    fn inode(&mut self, arg: usize, name: &[u8], inode: Inode, parent: bool) {
        let wanted = |t: NameType| match parent {
            true => matches!(t, NameType::Parent | NameType::Unknown),
            false => t != NameType::Parent,
        };
        let own = self.own.get(arg).copied().flatten();
        let found = own.filter(|&i| wanted(self.list[i].nametype)).or_else(|| {
            self.list
                .iter()
                .rposition(|n| same(n.inode, inode) && wanted(n.nametype))
        });
        let i = found.unwrap_or_else(|| {
            self.list.push(Entry {
                name: Some(name.to_vec()),
                shown: Shown::Full,
                inode: None,
                nametype: NameType::Unknown,
            });
            self.list.len() - 1
        });
        let n = &mut self.list[i];
        if parent {
            n.shown = n
                .name
                .as_deref()
                .map_or(Shown::Full, |nm| Shown::Parent(parent_len(nm)));
            n.nametype = NameType::Parent;
        } else {
            n.shown = Shown::Full;
            n.nametype = NameType::Normal;
        }
        n.inode = Some(inode);
    }

    /// `__audit_inode_child()` of entry `dname` of directory `dir`, the
    /// dentry's inode `inode` (None: negative), as a `nametype` child.
    fn child(&mut self, dir: Inode, dname: &[u8], inode: Option<Inode>, nametype: NameType) {
        use NameType::{Parent, Unknown};
        let parent = self.list.iter().position(|n| {
            matches!(n.nametype, Parent | Unknown)
                && same(n.inode, dir)
                && n.name
                    .as_deref()
                    .is_some_and(|nm| names_child(dname, nm, n.shown))
        });
        let shown = parent.map_or(Shown::Full, |p| self.list[p].shown);
        let found = self.list.iter().position(|n| {
            (n.nametype == nametype || n.nametype == Unknown)
                && n.name
                    .as_deref()
                    .is_some_and(|nm| nm == dname || names_child(dname, nm, shown))
        });
        let parent_name = match parent {
            Some(p) => {
                self.list[p].nametype = Parent;
                self.list[p].name.clone()
            }
            None => {
                self.list.push(Entry {
                    name: None,
                    shown: Shown::Full,
                    inode: Some(dir),
                    nametype: Parent,
                });
                None
            }
        };
        let c = found.unwrap_or_else(|| {
            self.list.push(Entry {
                name: parent_name,
                shown: Shown::Full,
                inode: None,
                nametype,
            });
            self.list.len() - 1
        });
        let child = &mut self.list[c];
        if child.nametype == Unknown {
            child.nametype = nametype;
        }
        child.inode = inode;
    }

    /// The PATH items (a directory part `0` long is the working directory).
    fn items(self, cwd: Option<&[u8]>) -> Vec<PathItem> {
        self.list
            .into_iter()
            .map(|e| PathItem {
                name: match (e.name, e.shown) {
                    (Some(n), Shown::Full) => Some(n),
                    (Some(_), Shown::Parent(0)) => cwd.map(<[u8]>::to_vec),
                    (Some(n), Shown::Parent(l)) => Some(n[..l.min(n.len())].to_vec()),
                    (None, _) => None,
                },
                inode: e.inode,
                nametype: e.nametype,
            })
            .collect()
    }
}

/// The inodes an op changed, by role.
struct Changed<'a>(&'a [Obj]);

impl Changed<'_> {
    fn known(o: &&Obj) -> bool {
        o.has(fa_obj_flag::FA_OBJ_ALIAS)
    }
    /// A new inode (no dentry yet when its times were set).
    fn made(&self) -> Option<Inode> {
        self.0.iter().find(|o| !Self::known(o)).map(|o| o.inode)
    }
    /// A known non-directory (a link's source).
    fn file(&self) -> Option<Inode> {
        self.0
            .iter()
            .find(|o| Self::known(o) && !o.is_dir())
            .map(|o| o.inode)
    }
    /// The child removed or moved: a known inode whose directory changed
    /// too (a non-directory first).
    fn child(&self) -> Option<Inode> {
        let dirs = |o: &&Obj| {
            self.0
                .iter()
                .any(|d| d.is_dir() && d.inode.ino == o.parent_ino && d.inode.dev == o.inode.dev)
        };
        let known = || self.0.iter().filter(Self::known).filter(dirs);
        known()
            .find(|o| !o.is_dir())
            .or_else(|| known().next())
            .map(|o| o.inode)
    }
}

/// What `name` (or its directory) is now, following a last symlink or not.
fn look(
    name: &[u8],
    dfd: i32,
    cwd: Option<&[u8]>,
    pid: i32,
    parent: bool,
    follow: bool,
) -> Option<Inode> {
    let path = at(name, dfd, cwd, pid, parent);
    let md = match follow || parent {
        true => std::fs::metadata(&path),
        false => std::fs::symlink_metadata(&path),
    };
    md.ok().map(|m| inode_of(&path, &m))
}

const O_CREAT: u32 = nix::libc::O_CREAT as u32;
const O_EXCL: u32 = nix::libc::O_EXCL as u32;
const O_NOFOLLOW: u32 = nix::libc::O_NOFOLLOW as u32;

/// One SQPOLL op's context: what the BPF side sent of it, and where its
/// names are looked up now.
struct Op<'a> {
    sent: &'a Sent,
    inputs: &'a fa_aux_uring_punt,
    cwd: Option<&'a [u8]>,
    pid: i32,
    changed: Changed<'a>,
    /// The file an open opened, as the BPF side saw it.
    opened: Option<Inode>,
}

impl Op<'_> {
    /// The op's name argument `i`.
    fn name(&self, i: u32) -> Option<&[u8]> {
        self.sent
            .uring_names
            .iter()
            .find(|(at, _)| *at == self.inputs.index + i)
            .map(|(_, n)| n.as_slice())
    }

    fn look(&self, name: &[u8], dfd: i32, parent: bool, follow: bool) -> Option<Inode> {
        look(name, dfd, self.cwd, self.pid, parent, follow)
    }

    /// A name created in its directory (mkdir, symlink, a link's new
    /// name, an open's O_CREAT): the directory looked up, then the child
    /// checked (may_create: still negative) and, if made, notified.
    fn create(
        &self,
        n: &mut Names,
        (arg, new): (usize, &[u8]),
        dfd: i32,
        made: Option<Inode>,
        dir_changed: bool,
    ) {
        let dir = dir_changed
            .then(|| changed_dir(&self.sent.objs, false).map(|o| o.inode))
            .flatten()
            .or_else(|| self.look(new, dfd, true, true));
        let Some(dir) = dir else {
            return;
        };
        n.inode(arg, new, dir, true);
        let child = base(new);
        match made {
            Some(inode) => {
                n.child(dir, child, None, NameType::Create);
                n.child(dir, child, Some(inode), NameType::Create);
            }
            // There already (EEXIST before any check), else refused.
            None if self.look(new, dfd, false, false).is_some() => {}
            None => n.child(dir, child, None, NameType::Create),
        }
    }

    /// statx: its object, as its lookup found it (the last symlink
    /// followed unless AT_SYMLINK_NOFOLLOW); none where it failed.
    fn statx(&self, n: &mut Names) -> Option<()> {
        const AT_SYMLINK_NOFOLLOW: u32 = nix::libc::AT_SYMLINK_NOFOLLOW as u32;
        let file = self.name(0)?;
        let follow = self.inputs.open_flags & AT_SYMLINK_NOFOLLOW == 0;
        if let Some(i) = self.look(file, self.inputs.dfd, false, follow) {
            n.inode(0, file, i, false);
        }
        Some(())
    }

    /// openat, openat2: the file, or (O_CREAT) its directory and the child.
    fn open(&self, n: &mut Names, kernel: &Facts) -> Option<()> {
        let (inputs, opened) = (self.inputs, self.opened);
        let file = self.name(0)?;
        let follow = inputs.open_flags & (O_NOFOLLOW | O_EXCL) == 0;
        if inputs.open_flags & O_CREAT == 0 {
            if let Some(i) = opened.or_else(|| self.look(file, inputs.dfd, false, follow)) {
                n.inode(0, file, i, false);
            }
        } else if let Some(made) = self.changed.made() {
            self.create(n, (0, file), inputs.dfd, Some(made), true);
        } else {
            // There already: opened (or refused) as it was, found
            // without the directory since Linux 6.12 (unless O_EXCL).
            let there = opened.or_else(|| self.look(file, inputs.dfd, false, follow));
            let parent_first = crate::decode::lookup::creat_names_parent_of_existing(kernel)
                || inputs.open_flags & O_EXCL != 0;
            let dir = match there.is_none() || parent_first {
                true => self.look(file, inputs.dfd, true, true),
                false => None,
            };
            if let Some(dir) = dir {
                n.inode(0, file, dir, true);
            }
            match (there, dir) {
                (Some(i), _) => n.inode(0, file, i, false),
                (None, Some(dir)) => n.child(dir, base(file), None, NameType::Create),
                (None, None) => {}
            }
        }
        Some(())
    }

    /// linkat: the source, then the new name created.
    fn link(&self, n: &mut Names) -> Option<()> {
        let (old, new) = (self.name(0)?, self.name(1)?);
        let linked = self.changed.file();
        let Some(src) = linked.or_else(|| self.look(old, self.inputs.dfd, false, false)) else {
            return Some(());
        };
        n.inode(0, old, src, false);
        self.create(n, (1, new), self.inputs.dfd2, linked, linked.is_some());
        Some(())
    }

    /// unlinkat: the directory, then the victim deleted.
    fn unlink(&self, n: &mut Names) -> Option<()> {
        let victim_name = self.name(0)?;
        let dir = changed_dir(&self.sent.objs, false)
            .map(|o| o.inode)
            .or_else(|| self.look(victim_name, self.inputs.dfd, true, true));
        if let Some(dir) = dir {
            n.inode(0, victim_name, dir, true);
            let victim = self
                .changed
                .child()
                .or_else(|| self.look(victim_name, self.inputs.dfd, false, false));
            if victim.is_some() {
                n.child(dir, base(victim_name), victim, NameType::Delete);
            }
        }
        Some(())
    }

    /// renameat: both directories, the old name deleted, the new created.
    fn rename(&self, n: &mut Names) -> Option<()> {
        let (old, new) = (self.name(0)?, self.name(1)?);
        let moved = self.changed.child();
        let old_dir = changed_dir(&self.sent.objs, false)
            .map(|o| o.inode)
            .or_else(|| self.look(old, self.inputs.dfd, true, true));
        let Some(old_dir) = old_dir else {
            return Some(());
        };
        n.inode(0, old, old_dir, true);
        let new_dir = changed_dir(&self.sent.objs, true)
            .map(|o| o.inode)
            .or_else(|| self.look(new, self.inputs.dfd2, true, true));
        let Some(new_dir) = new_dir else {
            return Some(());
        };
        n.inode(1, new, new_dir, true);
        let source = moved.or_else(|| self.look(old, self.inputs.dfd, false, false));
        if source.is_some() {
            n.child(old_dir, base(old), source, NameType::Delete);
            n.child(new_dir, base(new), None, NameType::Create);
            if moved.is_some() {
                n.child(new_dir, base(new), moved, NameType::Create);
            }
        }
        Some(())
    }
}

/// The CWD and PATH records of op `op` of process `pid` whose attempt
/// returned `exit`, from its event's `aux` (None: not one the BPF side
/// handed names to).
pub(crate) fn sq_paths(
    op: u32,
    exit: Option<i64>,
    aux: &[Aux],
    pid: i32,
    kernel: &Facts,
) -> Option<PathRecords> {
    let sent = decode(aux)?;
    let (inputs, _) = sent.uring_punted.first()?;
    let ctx = Op {
        sent: &sent,
        inputs,
        cwd: sent.cwd.as_deref(),
        pid,
        changed: Changed(&sent.objs),
        opened: sent
            .uring_opened
            .iter()
            .find(|(i, _)| *i == inputs.index)
            .map(|(_, inode)| *inode),
    };
    let name = *tables::URING_OPS.get(op as usize)?;
    let mut n = Names::default();
    if kernel.uring_delayed_names {
        if !matches!(
            name,
            "openat"
                | "openat2"
                | "statx"
                | "mkdirat"
                | "symlinkat"
                | "linkat"
                | "unlinkat"
                | "renameat"
        ) {
            return None;
        }
        for arg in 0..2 {
            if let Some(name) = ctx.name(arg as u32) {
                n.getname(arg, name);
            }
        }
        const EAGAIN: i64 = nix::libc::EAGAIN as i64;
        if exit == Some(-EAGAIN) {
            return Some(records(n, ctx.cwd));
        }
    }
    match name {
        "openat" | "openat2" => ctx.open(&mut n, kernel)?,
        "statx" => ctx.statx(&mut n)?,
        "mkdirat" => ctx.create(
            &mut n,
            (0, ctx.name(0)?),
            inputs.dfd,
            ctx.changed.made(),
            true,
        ),
        "symlinkat" => ctx.create(
            &mut n,
            (1, ctx.name(1)?),
            inputs.dfd2,
            ctx.changed.made(),
            true,
        ),
        "linkat" => ctx.link(&mut n)?,
        "unlinkat" => ctx.unlink(&mut n)?,
        "renameat" => ctx.rename(&mut n)?,
        _ => return None,
    }
    Some(records(n, ctx.cwd))
}

/// The records of a context's list: CWD once it holds a name.
fn records(n: Names, cwd: Option<&[u8]>) -> PathRecords {
    let items = n.items(cwd);
    PathRecords {
        cwd: (!items.is_empty())
            .then(|| cwd.map(<[u8]>::to_vec))
            .flatten(),
        items,
        hidden: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ino(n: u64) -> Inode {
        Inode {
            ino: n,
            ..Inode::default()
        }
    }

    fn shape(items: &[PathItem]) -> Vec<(Option<String>, Option<u64>, NameType)> {
        items
            .iter()
            .map(|i| {
                (
                    i.name
                        .as_deref()
                        .map(|n| String::from_utf8_lossy(n).into_owned()),
                    i.inode.map(|i| i.ino),
                    i.nametype,
                )
            })
            .collect()
    }

    use NameType::*;

    #[test]
    fn a_create_names_its_directory_and_the_new_file_once() {
        let mut n = Names::default();
        n.inode(0, b"/d/f", ino(10), true);
        n.child(ino(10), b"f", None, Create);
        n.child(ino(10), b"f", Some(ino(11)), Create);
        assert_eq!(
            shape(&n.items(None)),
            [
                (Some("/d/".into()), Some(10), Parent),
                (Some("/d/f".into()), Some(11), Create)
            ]
        );
    }

    #[test]
    fn a_rename_in_one_directory_leaves_the_new_name_unnamed() {
        // The new name's lookup finds the old name's directory entry; its
        // children then match no named parent: two nameless pairs.
        let mut n = Names::default();
        n.inode(0, b"/d/a", ino(10), true);
        n.inode(1, b"/d/b", ino(10), true);
        n.child(ino(10), b"a", Some(ino(12)), Delete);
        n.child(ino(10), b"b", None, Create);
        n.child(ino(10), b"b", Some(ino(12)), Create);
        assert_eq!(
            shape(&n.items(None)),
            [
                (Some("/d/".into()), Some(10), Parent),
                (Some("/d/a".into()), Some(12), Delete),
                (None, Some(10), Parent),
                (None, None, Create),
                (None, Some(10), Parent),
                (None, Some(12), Create)
            ]
        );
    }

    #[test]
    fn a_rename_across_directories_names_all_four() {
        let mut n = Names::default();
        n.inode(0, b"/a/x", ino(10), true);
        n.inode(1, b"/b/y", ino(20), true);
        n.child(ino(10), b"x", Some(ino(12)), Delete);
        n.child(ino(20), b"y", None, Create);
        n.child(ino(20), b"y", Some(ino(12)), Create);
        assert_eq!(
            shape(&n.items(None)),
            [
                (Some("/a/".into()), Some(10), Parent),
                (Some("/b/".into()), Some(20), Parent),
                (Some("/a/x".into()), Some(12), Delete),
                (Some("/b/y".into()), Some(12), Create)
            ]
        );
    }

    #[test]
    fn a_relative_names_directory_is_the_working_directory() {
        let mut n = Names::default();
        n.inode(0, b"f", ino(10), true);
        n.child(ino(10), b"f", Some(ino(11)), Delete);
        let items = n.items(Some(b"/home/u"));
        assert_eq!(
            shape(&items),
            [
                (Some("/home/u".into()), Some(10), Parent),
                (Some("f".into()), Some(11), Delete)
            ]
        );
    }

    #[test]
    fn a_link_names_its_source_then_the_new_names_directory() {
        let mut n = Names::default();
        n.inode(0, b"/d/t", ino(11), false);
        n.inode(1, b"/d/h", ino(10), true);
        n.child(ino(10), b"h", None, Create);
        n.child(ino(10), b"h", Some(ino(11)), Create);
        assert_eq!(
            shape(&n.items(None)),
            [
                (Some("/d/t".into()), Some(11), Normal),
                (Some("/d/".into()), Some(10), Parent),
                (Some("/d/h".into()), Some(11), Create)
            ]
        );
    }

    /// Linux 7.x: the names taken first, then filled in by the lookups.
    #[test]
    fn with_names_taken_first_a_rename_in_one_directory_is_a_syscalls() {
        let mut n = Names::default();
        n.getname(0, b"/d/a");
        n.getname(1, b"/d/b");
        n.inode(0, b"/d/a", ino(10), true);
        n.inode(1, b"/d/b", ino(10), true);
        n.child(ino(10), b"a", Some(ino(12)), Delete);
        n.child(ino(10), b"b", None, Create);
        n.child(ino(10), b"b", Some(ino(12)), Create);
        assert_eq!(
            shape(&n.items(None)),
            [
                (Some("/d/".into()), Some(10), Parent),
                (Some("/d/".into()), Some(10), Parent),
                (Some("/d/a".into()), Some(12), Delete),
                (Some("/d/b".into()), Some(12), Create)
            ]
        );
    }

    #[test]
    fn with_names_taken_first_a_symlinks_target_stays_unknown_and_a_failed_lookup_too() {
        let mut n = Names::default();
        n.getname(0, b"/d/t");
        n.getname(1, b"/d/s");
        n.inode(1, b"/d/s", ino(10), true);
        n.child(ino(10), b"s", None, Create);
        n.child(ino(10), b"s", Some(ino(13)), Create);
        assert_eq!(
            shape(&n.items(None)),
            [
                (Some("/d/t".into()), None, Unknown),
                (Some("/d/".into()), Some(10), Parent),
                (Some("/d/s".into()), Some(13), Create)
            ]
        );
        let mut n = Names::default();
        n.getname(0, b"/d/missing");
        assert_eq!(
            shape(&n.items(None)),
            [(Some("/d/missing".into()), None, Unknown)]
        );
    }

    /// The aux samples of an op handed names `names` (lookups' inputs:
    /// `op`, dfd AT_FDCWD) with working directory `cwd`.
    fn handed(op: u32, names: &[&[u8]], cwd: &[u8]) -> Vec<Aux> {
        use fastaudit_bpf::types::fa_aux_kind;
        let named = |i: u32, n: &[u8]| {
            let mut d = i.to_ne_bytes().to_vec();
            d.extend((n.len() as u32).to_ne_bytes());
            d.extend(n);
            d
        };
        let mut aux = vec![Aux {
            ty: fa_aux_kind::FA_AUX_CWD.0,
            data: named(0, cwd),
        }];
        for (i, n) in names.iter().enumerate() {
            aux.push(Aux {
                ty: fa_aux_kind::FA_AUX_URING_NAME.0,
                data: named(i as u32, n),
            });
        }
        let inputs = fa_aux_uring_punt {
            index: 0,
            op,
            open_flags: 0,
            dfd: nix::libc::AT_FDCWD,
            dfd2: nix::libc::AT_FDCWD,
            pad: 0,
        };
        aux.push(Aux {
            ty: fa_aux_kind::FA_AUX_URING_PUNT.0,
            data: crate::payload::bytes(&inputs),
        });
        aux
    }

    fn op_number(name: &str) -> u32 {
        tables::URING_OPS.iter().position(|o| *o == name).unwrap() as u32
    }

    #[test]
    fn with_names_delayed_an_attempt_that_returned_eagain_took_them_and_looked_nothing_up() {
        // A file that exists: a completed lookup would name it NORMAL.
        let open = op_number("openat");
        let aux = handed(open, &[b"/"], b"/");
        let delayed = Facts {
            uring_delayed_names: true,
            ..Facts::at((7, 3))
        };
        let again = sq_paths(open, Some(-i64::from(nix::libc::EAGAIN)), &aux, 1, &delayed).unwrap();
        assert_eq!(shape(&again.items), [(Some("/".into()), None, Unknown)]);
        assert_eq!(again.cwd.as_deref(), Some(&b"/"[..]));
        let done = sq_paths(open, Some(0), &aux, 1, &delayed).unwrap();
        assert_eq!(done.items.len(), 1);
        assert_eq!(done.items[0].nametype, Normal);
        assert!(done.items[0].inode.is_some());
    }

    #[test]
    fn base_is_the_last_component() {
        assert_eq!(base(b"/a/b/"), b"b");
        assert_eq!(base(b"c"), b"c");
        assert_eq!(base(b"/"), b"");
    }
}
