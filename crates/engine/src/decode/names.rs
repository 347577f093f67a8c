//! The CWD and PATH records of an event, from what the BPF side sent
//! (paths.bpf.h): the working directory, the path arguments as strings,
//! and the inodes the syscall touched (objects.bpf.h). The kernel fills
//! its names list during path lookup; here each syscall family's items
//! are rebuilt in the kernel's order and name types (`audit_inode`,
//! `audit_inode_child` as fs/namei.c calls them), matched to the inodes
//! by their flags and dentry names.

use crate::decode::exec_files;
use crate::decode::lookup;
pub use crate::decode::sent::PathRecords;
use crate::decode::sent::{decode, u32_at, Obj, Sent};
use crate::host::facts::Facts;
use crate::payload::Aux;
use fastaudit_bpf::types::fa_obj_flag;
use fastaudit_bpf::types::fa_obj_flag as F;
use fastaudit_records::path::{parent_len, NameType, PathItem};
use fastaudit_records::Syscall;
use fastaudit_rules::tables::Machine;

/// The last component of a path (trailing slashes ignored).
fn base(path: &[u8]) -> &[u8] {
    let trimmed = match path.iter().rposition(|&c| c != b'/') {
        Some(end) => &path[..=end],
        None => path,
    };
    &trimmed[parent_len(trimmed)..]
}

/// One PATH item before it is pushed: its name, its object, its type.
type Item<'o> = (Option<Vec<u8>>, Option<&'o Obj>, NameType);

struct Build<'a> {
    sent: &'a Sent,
    items: Vec<PathItem>,
    kernel: Facts,
}

impl Build<'_> {
    fn name(&self, i: usize) -> Option<Vec<u8>> {
        self.sent.names[i].clone()
    }

    /// The directory part of argument i, or the working directory for a
    /// plain name (`audit_log_name` with name_len 0).
    fn parent_name(&self, i: usize) -> Option<Vec<u8>> {
        let n = self.sent.names[i].as_ref()?;
        match parent_len(n) {
            0 => self.sent.cwd.clone(),
            len => Some(n[..len].to_vec()),
        }
    }

    fn push(&mut self, name: Option<Vec<u8>>, obj: Option<&Obj>, t: NameType) {
        self.items.push(PathItem {
            name,
            inode: obj.map(|o| o.inode),
            nametype: t,
        });
    }

    /// Two items in the order the kernel takes their names: `a` then
    /// `b`, or `b` first where `b_first` (it differs by kernel version:
    /// [`NameOrder`]).
    fn push_two(&mut self, b_first: bool, a: Item<'_>, b: Item<'_>) {
        let (x, y) = if b_first { (b, a) } else { (a, b) };
        self.push(x.0, x.1, x.2);
        self.push(y.0, y.1, y.2);
    }

    fn obj(&self, pick: impl Fn(&Obj) -> bool) -> Option<&Obj> {
        self.sent.objs.iter().find(|o| pick(o))
    }

    fn obj_ino(&self, ino: u64) -> Option<&Obj> {
        self.obj(|o| o.inode.ino == ino)
    }

    /// An entry named by argument i among the changed objects (its dentry
    /// still had that name when its ctime changed).
    fn entry(&self, i: usize) -> Option<&Obj> {
        let n = self.sent.names[i].as_ref()?;
        let want = base(n);
        self.obj(|o| o.has(fa_obj_flag::FA_OBJ_ALIAS) && o.name == want)
    }
}

/// A syscall's name on machine `m` (a target's native or compat one),
/// from arrays built once from the syscall tables (a hash lookup, once
/// per event, showed in profiles).
fn syscall_name(m: Machine, nr: u32) -> Option<&'static str> {
    type Names = Vec<(Machine, Vec<Option<&'static str>>)>;
    static NAMES: std::sync::OnceLock<Names> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        fastaudit_rules::Target::ALL
            .iter()
            .flat_map(|t| [t.native, t.compat])
            .map(|m| {
                let names = (0..crate::limits::NR_SYSCALLS)
                    .map(|nr| m.syscall_name(nr))
                    .collect();
                (m, names)
            })
            .collect()
    });
    match names
        .iter()
        .find(|(at, _)| *at == m)
        .and_then(|(_, names)| names.get(nr as usize))
    {
        Some(name) => *name,
        None => m.syscall_name(nr),
    }
}

/// The path of the named AF_UNIX socket in the event's SOCKADDR data.
fn unix_socket_path(aux: &[Aux]) -> Option<Vec<u8>> {
    let a = aux
        .iter()
        .find(|a| a.ty == fastaudit_records::types::SOCKADDR)?;
    let read = u32_at(&a.data, 4)? as usize;
    let addr = a.data.get(8..8 + read)?;
    let (family, path) = (addr.get(..2)?, addr.get(2..)?);
    if family != 1u16.to_ne_bytes() || path.first().is_none_or(|&c| c == 0) {
        return None;
    }
    let end = path.iter().position(|&c| c == 0).unwrap_or(path.len());
    Some(path[..end].to_vec())
}

/// Syscalls that take an empty path with AT_EMPTY_PATH to mean their fd.
fn empty_path_is_the_fd(name: &str) -> bool {
    matches!(
        name,
        "newfstatat" | "statx" | "fchownat" | "faccessat2" | "utimensat" | "execveat" | "linkat"
    )
}

/// Whether a syscall that failed with `exit` failed in its path lookup,
/// before any object was found: errors only a lookup gives, and EACCES
/// from syscalls whose only permission check is the lookup's search of
/// the directories (the stat family, statfs).
fn lookup_failed(name: &str, exit: i64) -> bool {
    use nix::libc;
    const ENOENT: i64 = libc::ENOENT as i64;
    const EACCES: i64 = libc::EACCES as i64;
    const ENOTDIR: i64 = libc::ENOTDIR as i64;
    const ENAMETOOLONG: i64 = libc::ENAMETOOLONG as i64;
    const ELOOP: i64 = libc::ELOOP as i64;
    let lookup_only = matches!(
        name,
        "stat" | "lstat" | "newfstatat" | "statx" | "statfs" | "readlink" | "readlinkat"
    );
    match -exit {
        ENOENT | ENOTDIR | ENAMETOOLONG | ELOOP => lookup_only,
        EACCES => lookup_only,
        _ => false,
    }
}

/// The CWD and PATH records of ev's syscall (`None` when it names no
/// path, or on an ABI of no machine fastaudit runs on).
pub(crate) fn path_records(sc: &Syscall, aux: &[Aux], kernel: Facts) -> Option<PathRecords> {
    let mut sent = decode(aux)?;
    // The record's arch names the ABI the syscall came through, and so
    // the table its number is read with; a compat (i386, arm) syscall
    // names what its native counterpart does.
    let machine = Machine::from_elf(sc.arch)?;
    let compat = fastaudit_rules::Target::of_machine(machine)?.abi_of(sc.arch)?;
    let name = crate::plan::path_args::as_native(syscall_name(machine, sc.syscall)?, compat);
    if name == "io_uring_enter" {
        return Some(crate::decode::uring_paths::enter_paths(sent, sc.pid));
    }
    // An empty path with AT_EMPTY_PATH (glibc's fstat is newfstatat(fd,
    // "", AT_EMPTY_PATH)) names the open file without a lookup: since
    // Linux 6.11 the kernel takes no name for it, so no CWD or PATH.
    // Before 6.11 the stat family took the empty name, and its PATH item
    // (`name=""`) is the file stat returned.
    // (Only given AT_EMPTY_PATH: without it an empty name fails, ENOENT,
    // before the kernel takes it.)
    const AT_EMPTY_PATH: u64 = nix::libc::AT_EMPTY_PATH as u64;
    let flags = match name {
        "newfstatat" => sc.args[3],
        "statx" => sc.args[2],
        _ => 0,
    };
    let stat_takes_empty_name = flags & AT_EMPTY_PATH != 0 && kernel.version < (6, 11);
    for n in &mut sent.names[..2] {
        if stat_takes_empty_name {
            break;
        }
        if n.as_ref().is_some_and(|n| n.is_empty()) {
            *n = None;
        }
    }
    if sent.names[..2].iter().all(Option::is_none) && empty_path_is_the_fd(name) {
        return None;
    }
    let exit = sc.exit;
    if name == "mq_open" {
        return crate::decode::mq_names::mq_open_records(&sent, sc.args[1], exit, sc.pid);
    }
    if let Some(mqueue) = crate::plan::path_args::names_fd_file(name) {
        return descriptor_file(&sent, name, mqueue, exit, kernel);
    }
    let call = lookup::Call {
        name,
        args: sc.args,
        pid: sc.pid,
        cwd: sent.cwd.as_deref(),
        names: &sent.names,
        bases: &sent.bases,
        kernel,
    };
    let failed = exit.is_some_and(fastaudit_records::exit::failed);
    let nargs = sent.names[..2].iter().filter(|n| n.is_some()).count();
    let socket_path = match name {
        "connect" | "bind" => unix_socket_path(aux),
        _ => None,
    };
    if let Some(path) = socket_path {
        return Some(PathRecords {
            cwd: sent.cwd.clone(),
            items: socket_items(&call, path, failed, exit),
            hidden: 0,
        });
    }
    let mut items = if failed {
        failed_items(&call, nargs, exit)
    } else {
        let mut b = Build {
            sent: &sent,
            items: Vec::new(),
            kernel,
        };
        b.family_items(&call, nargs, sc.exe.as_deref());
        b.items
    };
    exec_files::add_file_caps(sent.cwd.as_deref(), &mut items);
    Some(PathRecords {
        cwd: sent.cwd.clone(),
        items,
        hidden: 0,
    })
}

/// The file a descriptor names (`audit_file()`): one nameless item, with
/// the attributes it had as the syscall began. No item (nor CWD) where
/// the kernel takes no file: a bad descriptor (or an O_PATH one, which
/// these syscalls refuse with EBADF), fchown on a read-only mount
/// (refused before the file is named), and so fsetxattr and fremovexattr
/// since Linux 6.13 (their `file_*xattr` take write access to the mount
/// first; before, the file was named first); for a message queue (`mqueue`),
/// one of another file (BPF sends none), or a priority or timeout refused
/// first (EINVAL, EFAULT), while an EBADF for the descriptor's mode comes
/// after.
fn descriptor_file(
    sent: &Sent,
    name: &str,
    mqueue: bool,
    exit: Option<i64>,
    kernel: Facts,
) -> Option<PathRecords> {
    let xattr_write = |n: &str| matches!(n, "fsetxattr" | "fremovexattr");
    const EBADF: i64 = -9;
    const EFAULT: i64 = -14;
    const EINVAL: i64 = -22;
    const EROFS: i64 = -30;
    let before = match exit {
        Some(EBADF) => !mqueue,
        Some(EINVAL | EFAULT) => mqueue,
        Some(EROFS) => name == "fchown" || (xattr_write(name) && kernel.version >= (6, 13)),
        _ => false,
    };
    if before {
        return None;
    }
    let file = sent.objs.iter().find(|o| o.has(F::FA_OBJ_FILE))?;
    Some(PathRecords {
        cwd: sent.cwd.clone(),
        items: vec![PathItem {
            name: None,
            inode: Some(file.inode),
            nametype: NameType::Normal,
        }],
        hidden: 0,
    })
}

/// A named AF_UNIX socket's path (connect, bind), looked up from user
/// space as a failed syscall's are (BPF sees no object for it).
fn socket_items(
    call: &lookup::Call,
    path: Vec<u8>,
    failed: bool,
    exit: Option<i64>,
) -> Vec<PathItem> {
    let names = [Some(path), None, None];
    let call = lookup::Call {
        names: &names,
        ..*call
    };
    match (call.name, failed) {
        (_, true) if lookup_failed("stat", exit.unwrap_or(0)) => lookup::bare_items(&call, 1),
        ("bind", _) => lookup::created(&call),
        _ => lookup::items(&call, 1),
    }
}

/// Whether a rename failed before vfs_rename, whose may_delete names the
/// files: renameat2's RENAME_NOREPLACE refusing an existing new name
/// (EEXIST; `mv` tries it first). Its items are the two directories
/// only, whatever user space finds there later. rename and renameat have
/// no flags: their EEXIST (a file system's, for a non-empty directory)
/// comes after may_delete.
fn refused_before_vfs_rename(name: &str, exit: i64) -> bool {
    name == "renameat2" && -exit == nix::libc::EEXIST as i64
}

/// A failed syscall's items. No lookup result is visible to BPF for it.
/// One whose error can only come from the lookup itself never reached an
/// object: its names are bare (fastaudit, looking again with its own
/// rights, might find what the task could not).
fn failed_items(call: &lookup::Call, nargs: usize, exit: Option<i64>) -> Vec<PathItem> {
    if lookup_failed(call.name, exit.unwrap_or(0)) {
        lookup::bare_items(call, nargs)
    } else if refused_before_vfs_rename(call.name, exit.unwrap_or(0)) {
        lookup::rename_directories(call)
    } else {
        lookup::items(call, nargs)
    }
}

/// A successful syscall's items, per syscall family, in the order and
/// name types fs/namei.c gives them.
impl Build<'_> {
    fn family_items(&mut self, call: &lookup::Call, nargs: usize, exe_path: Option<&[u8]>) {
        match call.name {
            "open" | "openat" | "openat2" | "creat" => self.opened(call),
            "execve" | "execveat" => self.executed(call, exe_path),
            "mkdir" | "mkdirat" | "mknod" | "mknodat" | "symlink" | "symlinkat" => {
                self.made(call.name.starts_with("symlink"))
            }
            "unlink" | "unlinkat" | "rmdir" => self.unlinked(),
            "link" | "linkat" => self.linked(),
            "rename" | "renameat" | "renameat2" => self.renamed(),
            _ => self.one_object(call, nargs),
        }
    }

    /// open and creat: the file opened, or a new file and its directory
    /// (before Linux 6.12, the directory also for an O_CREAT open of a
    /// file that was there: looked up from user space, as BPF sends the
    /// directory only of a create).
    fn opened(&mut self, call: &lookup::Call) {
        let opened = self.obj(|o| o.has(F::FA_OBJ_OPENED)).cloned();
        match opened {
            Some(o) if o.has(F::FA_OBJ_CREATED) => {
                let dir = self.obj(|p| p.has(F::FA_OBJ_PARENT)).cloned();
                self.push(self.parent_name(0), dir.as_ref(), NameType::Parent);
                self.push(self.name(0), Some(&o), NameType::Create);
            }
            o => {
                if lookup::open_names_parent(call) {
                    self.items.extend(lookup::parent(call));
                }
                self.push(self.name(0), o.as_ref(), NameType::Normal)
            }
        }
    }

    /// An exec: the program (a script and its interpreter), then its ELF
    /// interpreter.
    fn executed(&mut self, call: &lookup::Call, exe_path: Option<&[u8]>) {
        let exe = self.obj(|o| o.has(F::FA_OBJ_EXEC)).cloned();
        let script = self.name(0).and_then(|n| {
            exec_files::script(self.sent.cwd.as_deref(), &n, exe.as_ref().map(|e| &e.inode))
        });
        match script {
            Some((inode, interp)) => {
                self.items.push(PathItem {
                    name: self.name(0),
                    inode: Some(inode),
                    nametype: NameType::Normal,
                });
                self.push(Some(interp), exe.as_ref(), NameType::Normal);
            }
            None => self.push(self.name(0), exe.as_ref(), NameType::Normal),
        }
        if lookup::exec_names_program_twice(call) {
            if let Some(first) = self.items.first() {
                let again = lookup::program_again(call, first);
                self.items.insert(1, again);
            }
        }
        if let Some(mut loader) = self.obj(|o| o.has(F::FA_OBJ_LOADER)).cloned() {
            let name = exe_path.and_then(exec_files::elf_interp);
            // The mapping may hold the file under an overlay (a backing
            // file, Linux 6.6+) where the kernel's lookup of the name found
            // the overlay's: the device as that lookup's.
            if let Some(dev) = name
                .as_deref()
                .and_then(|n| exec_files::device_by_name(n, loader.inode.ino))
            {
                loader.inode.dev = dev;
            }
            self.push(name, Some(&loader), NameType::Normal);
        }
    }

    /// mkdir, mknod, symlink: the directory and the new inode (a
    /// symlink's target between them, or first where the kernel takes it
    /// first: [`NameOrder`]).
    fn made(&mut self, symlink: bool) {
        // The new inode had no dentry yet when its times were set.
        let new = self.obj(|o| !o.has(F::FA_OBJ_ALIAS)).cloned();
        let dir = self.obj(|o| o.is_dir() && o.has(F::FA_OBJ_ALIAS)).cloned();
        let parent = (self.parent_name(0), dir.as_ref(), NameType::Parent);
        if symlink {
            // The target is a name the kernel never looks up.
            let target = (self.name(2), None, NameType::Unknown);
            self.push_two(self.kernel.order.symlink_target_first, parent, target);
        } else {
            self.push(parent.0, parent.1, parent.2);
        }
        self.push(self.name(0), new.as_ref(), NameType::Create);
    }

    /// unlink and rmdir: the directory and the entry removed.
    fn unlinked(&mut self) {
        let named = self.entry(0).cloned();
        // A file with other hard links may show another of its names
        // (the inode's first alias): then the one changed non-directory.
        let victim = named.clone().or_else(|| {
            self.obj(|o| !o.is_dir() && o.has(F::FA_OBJ_CHANGED))
                .cloned()
        });
        let dir = match &named {
            Some(v) => self.obj_ino(v.parent_ino).cloned(),
            None => self
                .obj(|o| o.is_dir() && o.has(F::FA_OBJ_CHANGED))
                .cloned(),
        };
        self.push(self.parent_name(0), dir.as_ref(), NameType::Parent);
        self.push(self.name(0), victim.as_ref(), NameType::Delete);
    }

    /// link: the new name's directory, the file under its old name (or
    /// the old name first: [`NameOrder`]), then under its new one.
    fn linked(&mut self) {
        let linked = self.obj(|o| !o.is_dir()).cloned();
        let dir = self.obj(|o| o.is_dir()).cloned();
        self.push_two(
            self.kernel.order.link_old_first,
            (self.parent_name(1), dir.as_ref(), NameType::Parent),
            (self.name(0), linked.as_ref(), NameType::Normal),
        );
        self.push(self.name(1), linked.as_ref(), NameType::Create);
    }

    /// rename: both directories, the file moved (and the one it
    /// replaced), then the file under its new name.
    fn renamed(&mut self) {
        let moved_named = self.entry(0).cloned();
        let victim_named = self.entry(1).cloned();
        let ino = |o: &Option<Obj>| o.as_ref().map(|o| o.inode.ino);
        // A moved file with other hard links may show another of its
        // names (the inode's first alias): then the changed
        // non-directory that is not the victim.
        let moved = moved_named.clone().or_else(|| {
            self.obj(|o| {
                !o.is_dir() && o.has(F::FA_OBJ_CHANGED) && Some(o.inode.ino) != ino(&victim_named)
            })
            .cloned()
        });
        let victim = victim_named.filter(|v| Some(v.inode.ino) != ino(&moved));
        let same_dir = self.parent_name(0) == self.parent_name(1);
        let old_dir = match &moved_named {
            Some(m) => self.obj_ino(m.parent_ino).cloned(),
            // The alias's directory is not the one renamed from.
            None => victim
                .as_ref()
                .filter(|_| same_dir)
                .and_then(|v| self.obj_ino(v.parent_ino))
                .cloned(),
        };
        let new_dir = match &victim {
            Some(v) => self.obj_ino(v.parent_ino).cloned(),
            None => self
                .obj(|o| {
                    o.is_dir()
                        && Some(o.inode.ino) != old_dir.as_ref().map(|d| d.inode.ino)
                        && Some(o.inode.ino) != moved.as_ref().map(|m| m.inode.ino)
                })
                .cloned()
                .or_else(|| old_dir.clone()),
        };
        // getname(new) ran before getname(old): the new name's
        // directory is item 0 (the old one's where the kernel takes the
        // old name first).
        self.push_two(
            self.kernel.order.rename_old_first,
            (self.parent_name(1), new_dir.as_ref(), NameType::Parent),
            (self.parent_name(0), old_dir.as_ref(), NameType::Parent),
        );
        self.push(self.name(0), moved.as_ref(), NameType::Delete);
        if victim.is_some() {
            self.push(self.name(1), victim.as_ref(), NameType::Delete);
        }
        self.push(self.name(1), moved.as_ref(), NameType::Create);
    }

    /// One object looked up and (for the attribute and write classes)
    /// changed: chmod, chown, truncate, setxattr, ...; chdir and chroot's
    /// directory. Syscalls that change nothing (readlink, getxattr, ...):
    /// the object as it is now.
    fn one_object(&mut self, call: &lookup::Call, nargs: usize) {
        let seen = self
            .obj(|o| o.has(F::FA_OBJ_CHANGED) || o.has(F::FA_OBJ_FS_DIR))
            .cloned();
        match seen {
            Some(o) => self.push(self.name(0), Some(&o), NameType::Normal),
            // A stat's own buffer: its lookup's view, not a later one.
            None if self.sent.stat.is_some() && nargs == 1 => {
                // Its st_dev: on overlayfs a layer's, not the kernel's.
                let mut inode = self.sent.stat;
                // A followed symlink's target decides: its directory, not
                // the link's, may lie on another overlay.
                let path = lookup::path_of(call, 0).map(|p| match call.follows() {
                    true => std::fs::canonicalize(&p).unwrap_or(p),
                    false => p,
                });
                if let (Some(i), Some(p)) = (inode.as_mut(), path) {
                    i.dev = crate::host::identity::kernel_dev_of(
                        &p,
                        i.mode & 0o170000 == 0o040000,
                        i.dev,
                    );
                }
                self.items.push(PathItem {
                    name: self.name(0),
                    inode,
                    nametype: NameType::Normal,
                })
            }
            None => self.items = lookup::items(call, nargs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::facts::NameOrder;
    use fastaudit_bpf::types::{fa_aux_kind, fa_obj, fa_objs};
    use fastaudit_rules::abi::arch;

    const DIR: u32 = 0o040755;
    const FILE: u32 = 0o100644;

    fn name(ty: fa_aux_kind, index: u32, s: &str) -> Aux {
        let mut data = index.to_ne_bytes().to_vec();
        data.extend_from_slice(&(s.len() as u32).to_ne_bytes());
        data.extend_from_slice(s.as_bytes());
        Aux { ty: ty.0, data }
    }

    /// Objects as (inode, mode, flags, parent inode, dentry name).
    fn objs(list: &[(u64, u32, fa_obj_flag, u64, &str)]) -> Aux {
        let mut h = fa_objs {
            count: list.len() as u32,
            ..fa_objs::default()
        };
        for (slot, &(ino, mode, flags, parent_ino, n)) in h.o.iter_mut().zip(list) {
            *slot = fa_obj {
                ino,
                mode,
                flags: flags.0
                    | if n.is_empty() {
                        0
                    } else {
                        fa_obj_flag::FA_OBJ_ALIAS.0
                    },
                parent_ino,
                dev: 0xfe << 20,
                name_len: n.len() as u32,
                ..fa_obj::default()
            };
            for (d, s) in slot.name.iter_mut().zip(n.bytes()) {
                *d = s as _;
            }
        }
        // SAFETY: fa_objs is a plain repr(C) struct of integers and arrays.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                (&h as *const fa_objs).cast::<u8>(),
                std::mem::size_of::<fa_objs>(),
            )
        };
        Aux {
            ty: fa_aux_kind::FA_AUX_OBJS.0,
            data: bytes.to_vec(),
        }
    }

    /// As Linux 6.18 writes them (the older link and symlink order).
    fn records(syscall: &str, exit: i64, aux: &[Aux]) -> PathRecords {
        records_on(syscall, exit, aux, Facts::at((6, 18)))
    }

    fn records_on(syscall: &str, exit: i64, aux: &[Aux], kernel: Facts) -> PathRecords {
        let sc = Syscall {
            arch: arch::X86_64,
            syscall: fastaudit_rules::tables::Machine::X86_64
                .syscall_number(syscall.as_bytes())
                .unwrap(),
            exit: Some(exit),
            ..Syscall::default()
        };
        path_records(&sc, aux, kernel).unwrap()
    }

    /// `records` of a syscall of another machine's ABI, by its record's arch.
    fn records_of(m: fastaudit_rules::tables::Machine, syscall: &str, aux: &[Aux]) -> PathRecords {
        let sc = Syscall {
            arch: m.elf(),
            syscall: m.syscall_number(syscall.as_bytes()).unwrap(),
            exit: Some(0),
            ..Syscall::default()
        };
        path_records(&sc, aux, Facts::at((6, 18))).unwrap()
    }

    #[test]
    fn xattr_writes_refused_by_a_read_only_mount_name_their_file_before_6_13_only() {
        let aux = [objs(&[(7, DIR, F::FA_OBJ_FILE, 2, "")])];
        let items = |syscall: &str, kernel: (u32, u32)| {
            let m = fastaudit_rules::tables::Machine::X86_64;
            let sc = Syscall {
                arch: m.elf(),
                syscall: m.syscall_number(syscall.as_bytes()).unwrap(),
                exit: Some(-(nix::libc::EROFS as i64)),
                ..Syscall::default()
            };
            path_records(&sc, &aux, Facts::at(kernel)).map(|r| r.items.len())
        };
        // 6.12: audit_file() before mnt_want_write_file(); 6.13's
        // file_removexattr/file_setxattr take the mount first.
        assert_eq!(items("fremovexattr", (6, 12)), Some(1));
        assert_eq!(items("fsetxattr", (6, 12)), Some(1));
        assert_eq!(items("fremovexattr", (6, 13)), None);
        assert_eq!(items("fsetxattr", (7, 3)), None);
        assert_eq!(items("fchown", (6, 12)), None);
    }

    #[test]
    fn a_rename_refused_for_noreplace_names_the_directories_only() {
        use std::os::unix::ffi::OsStrExt;
        let dir = std::env::temp_dir().join(format!("fa-noreplace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("created"), b"").unwrap();
        std::fs::write(dir.join("victim"), b"").unwrap();
        let names = [Some(b"created".to_vec()), Some(b"victim".to_vec()), None];
        let bases = [None, None];
        let types = |name: &str, exit: i64| {
            let c = lookup::Call {
                name,
                // Both directory descriptors AT_FDCWD.
                args: [0xffff_ff9c, 0, 0xffff_ff9c, 0],
                pid: std::process::id() as i32,
                cwd: Some(dir.as_os_str().as_bytes()),
                names: &names,
                bases: &bases,
                kernel: Facts::at((6, 1)),
            };
            failed_items(&c, 2, Some(exit))
                .into_iter()
                .map(|i| i.nametype)
                .collect::<Vec<_>>()
        };
        let eexist = -(nix::libc::EEXIST as i64);
        // mv's renameat2(RENAME_NOREPLACE) onto victim: refused before
        // vfs_rename, though both files are there when user space looks.
        assert_eq!(
            types("renameat2", eexist),
            [NameType::Parent, NameType::Parent]
        );
        // renameat's EEXIST (a non-empty directory) comes after may_delete.
        assert_eq!(
            types("renameat", eexist),
            [
                NameType::Parent,
                NameType::Parent,
                NameType::Delete,
                NameType::Delete
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_syscall_is_read_with_the_table_of_its_records_arch() {
        use fa_obj_flag as F;
        use fastaudit_rules::tables::Machine;
        let aux = [
            name(fa_aux_kind::FA_AUX_CWD, 0, "/w"),
            name(fa_aux_kind::FA_AUX_NAME, 0, "/t/a"),
            name(fa_aux_kind::FA_AUX_NAME, 1, "/t/b"),
            objs(&[
                (10, DIR, F::FA_OBJ_CHANGED, 2, "t"),
                (11, FILE, F::FA_OBJ_CHANGED, 10, "a"),
                (12, FILE, F::FA_OBJ_CHANGED, 10, "b"),
            ]),
        ];
        // renameat2 is 316 on x86_64, 276 on aarch64 (x86_64's 276 is
        // tee); rename is 38 on i386 and arm.
        let x86 = shown(&records_of(Machine::X86_64, "renameat2", &aux));
        assert_eq!(x86.len(), 5);
        assert_eq!(shown(&records_of(Machine::Aarch64, "renameat2", &aux)), x86);
        assert_eq!(shown(&records_of(Machine::Arm, "rename", &aux)), x86);
        assert_eq!(shown(&records_of(Machine::X86, "rename", &aux)), x86);
        let tee = Syscall {
            arch: arch::X86_64,
            syscall: 276,
            exit: Some(0),
            ..Syscall::default()
        };
        let as_tee = path_records(&tee, &aux, Facts::at((6, 18))).map(|p| shown(&p));
        assert_ne!(as_tee, Some(x86), "276 read as x86_64's is not a rename");
        // A machine fastaudit does not run on: nothing decoded.
        let ppc = Syscall {
            arch: Machine::Ppc.elf(),
            syscall: 38,
            ..Syscall::default()
        };
        assert!(path_records(&ppc, &aux, Facts::at((6, 18))).is_none());
    }

    #[test]
    fn an_fstat_by_empty_path_names_its_file_before_linux_6_11() {
        let sc = Syscall {
            arch: arch::X86_64,
            syscall: fastaudit_rules::tables::Machine::X86_64
                .syscall_number(b"newfstatat")
                .unwrap(),
            exit: Some(0),
            args: [4, 0x7000, 0x7100, 0x1000],
            ..Syscall::default()
        };
        // What the BPF side sends: the cwd, the empty name, the stat buffer.
        // (struct fa_aux_stat: statx flag, length, a struct stat).
        let mut stat = vec![0u8; 8 + 144];
        stat[4..8].copy_from_slice(&144u32.to_ne_bytes());
        stat[8..16].copy_from_slice(&0x19u64.to_ne_bytes()); // st_dev
        stat[16..24].copy_from_slice(&1211u64.to_ne_bytes()); // st_ino
        stat[32..36].copy_from_slice(&FILE.to_ne_bytes()); // st_mode
        let aux = [
            name(fa_aux_kind::FA_AUX_CWD, 0, "/w"),
            name(fa_aux_kind::FA_AUX_NAME, 0, ""),
            // The descriptor's file, as the base of a dirfd-relative name.
            name(
                fa_aux_kind::FA_AUX_NAME,
                fastaudit_bpf::types::fa_name_index::FA_NAME_BASE.0,
                "/w/f",
            ),
            Aux {
                ty: fa_aux_kind::FA_AUX_STAT.0,
                data: stat,
            },
        ];
        assert!(path_records(&sc, &aux, Facts::at((6, 11))).is_none());
        // Without AT_EMPTY_PATH the empty name fails before it is taken.
        let refused = Syscall {
            args: [4, 0x7000, 0x7100, 0],
            exit: Some(-2),
            ..sc.clone()
        };
        assert!(path_records(&refused, &aux, Facts::at((6, 1))).is_none());
        let p = path_records(&sc, &aux, Facts::at((6, 1))).expect("records before 6.11");
        assert_eq!(p.cwd.as_deref(), Some(&b"/w"[..]));
        assert_eq!(p.items.len(), 1);
        assert_eq!(p.items[0].name.as_deref(), Some(&b""[..]));
        assert_eq!(p.items[0].inode.map(|i| i.ino), Some(1211));
    }

    fn shown(p: &PathRecords) -> Vec<String> {
        p.items
            .iter()
            .enumerate()
            .map(|(i, it)| String::from_utf8(it.body(i)).unwrap())
            .map(|b| b.split(" cap_fp").next().unwrap().to_string())
            .collect()
    }

    #[test]
    fn rename_over_a_victim_lists_the_kernels_five_items() {
        use fa_obj_flag as F;
        let p = records(
            "rename",
            0,
            &[
                name(fa_aux_kind::FA_AUX_CWD, 0, "/w"),
                name(fa_aux_kind::FA_AUX_NAME, 0, "/t/a"),
                name(fa_aux_kind::FA_AUX_NAME, 1, "/t/b"),
                objs(&[
                    (10, DIR, F::FA_OBJ_CHANGED, 2, "t"),
                    (11, FILE, F::FA_OBJ_CHANGED, 10, "a"),
                    (12, FILE, F::FA_OBJ_CHANGED, 10, "b"),
                ]),
            ],
        );
        assert_eq!(p.cwd.as_deref(), Some(&b"/w"[..]));
        assert_eq!(
            shown(&p),
            [
                "item=0 name=\"/t/\" inode=10 dev=fe:00 mode=040755 ouid=0 ogid=0 rdev=00:00 nametype=PARENT",
                "item=1 name=\"/t/\" inode=10 dev=fe:00 mode=040755 ouid=0 ogid=0 rdev=00:00 nametype=PARENT",
                "item=2 name=\"/t/a\" inode=11 dev=fe:00 mode=0100644 ouid=0 ogid=0 rdev=00:00 nametype=DELETE",
                "item=3 name=\"/t/b\" inode=12 dev=fe:00 mode=0100644 ouid=0 ogid=0 rdev=00:00 nametype=DELETE",
                "item=4 name=\"/t/b\" inode=11 dev=fe:00 mode=0100644 ouid=0 ogid=0 rdev=00:00 nametype=CREATE",
            ]
        );
    }

    #[test]
    fn an_open_that_creates_names_the_directory_then_the_file() {
        use fa_obj_flag as F;
        let p = records(
            "openat",
            3,
            &[
                name(fa_aux_kind::FA_AUX_CWD, 0, "/w"),
                name(fa_aux_kind::FA_AUX_NAME, 0, "new"),
                objs(&[
                    (20, DIR, F::FA_OBJ_PARENT, 1, "w"),
                    (
                        21,
                        FILE,
                        fa_obj_flag(F::FA_OBJ_OPENED.0 | F::FA_OBJ_CREATED.0),
                        20,
                        "new",
                    ),
                ]),
            ],
        );
        let s = shown(&p);
        assert!(
            s[0].starts_with("item=0 name=\"/w\" inode=20 "),
            "a plain name's directory is the cwd: {s:?}"
        );
        assert!(s[0].ends_with("nametype=PARENT"));
        assert!(s[1].starts_with("item=1 name=\"new\" inode=21 "));
        assert!(s[1].ends_with("nametype=CREATE"));
    }

    #[test]
    fn a_symlink_names_its_target_unlooked_up() {
        use fa_obj_flag as F;
        let p = records(
            "symlink",
            0,
            &[
                name(fa_aux_kind::FA_AUX_CWD, 0, "/w"),
                name(fa_aux_kind::FA_AUX_NAME, 0, "/t/l"),
                name(fa_aux_kind::FA_AUX_NAME, 2, "target"),
                objs(&[
                    (30, 0o120777, F::FA_OBJ_CHANGED, 0, ""),
                    (10, DIR, F::FA_OBJ_CHANGED, 2, "t"),
                ]),
            ],
        );
        let s = shown(&p);
        assert_eq!(s.len(), 3);
        assert!(s[0].ends_with("nametype=PARENT") && s[0].contains("inode=10 "));
        assert_eq!(s[1], "item=1 name=\"target\" nametype=UNKNOWN");
        assert!(s[2].contains("name=\"/t/l\" inode=30 ") && s[2].ends_with("nametype=CREATE"));
    }

    #[test]
    fn a_kernel_that_takes_the_old_name_first_names_it_first() {
        use fa_obj_flag as F;
        let newer = Facts {
            version: (7, 3),
            order: NameOrder {
                link_old_first: true,
                symlink_target_first: true,
                rename_old_first: true,
            },
            tomoyo: false,
            uring_delayed_names: true,
        };
        let symlink = [
            name(fa_aux_kind::FA_AUX_CWD, 0, "/w"),
            name(fa_aux_kind::FA_AUX_NAME, 0, "/t/l"),
            name(fa_aux_kind::FA_AUX_NAME, 2, "target"),
            objs(&[
                (30, 0o120777, F::FA_OBJ_CHANGED, 0, ""),
                (10, DIR, F::FA_OBJ_CHANGED, 2, "t"),
            ]),
        ];
        let s = shown(&records_on("symlink", 0, &symlink, newer));
        assert_eq!(s.len(), 3);
        assert_eq!(s[0], "item=0 name=\"target\" nametype=UNKNOWN");
        assert!(s[1].ends_with("nametype=PARENT") && s[1].contains("inode=10 "));
        assert!(s[2].contains("name=\"/t/l\" inode=30 ") && s[2].ends_with("nametype=CREATE"));

        let link = [
            name(fa_aux_kind::FA_AUX_CWD, 0, "/w"),
            name(fa_aux_kind::FA_AUX_NAME, 0, "/t/f"),
            name(fa_aux_kind::FA_AUX_NAME, 1, "/u/h"),
            objs(&[
                (40, FILE, F::FA_OBJ_CHANGED, 10, "f"),
                (11, DIR, F::FA_OBJ_CHANGED, 2, "u"),
            ]),
        ];
        let older = shown(&records_on("link", 0, &link, Facts::at((6, 18))));
        let s = shown(&records_on("link", 0, &link, newer));
        assert_eq!(s.len(), 3);
        assert!(
            s[0].starts_with("item=0 name=\"/t/f\" inode=40 ") && s[0].ends_with("nametype=NORMAL")
        );
        assert!(
            s[1].starts_with("item=1 name=\"/u/\" inode=11 ") && s[1].ends_with("nametype=PARENT")
        );
        assert!(
            s[2].starts_with("item=2 name=\"/u/h\" inode=40 ") && s[2].ends_with("nametype=CREATE")
        );
        // The older order: the new name's directory first.
        assert!(older[0].ends_with("nametype=PARENT") && older[1].ends_with("nametype=NORMAL"));
    }
}
