//! What the BPF side sent for an event's CWD and PATH records (paths.bpf.h,
//! objects.bpf.h), decoded: the working directory, the path arguments, the
//! inodes the syscall touched; and the records made of them. Read by the
//! syscall path records (`names`) and the io_uring ones (`uring_paths`).

use crate::payload::Aux;
use fastaudit_bpf::types::{
    fa_aux_kind, fa_aux_uring_obj, fa_aux_uring_punt, fa_name_index, fa_obj, fa_obj_flag, fa_objs,
};
use fastaudit_records::path::{Inode, PathItem};
use fastaudit_rules::abi::S_IFMT;

/// `S_IFDIR`: a mode's file type bits (`S_IFMT`) for a directory.
const S_IFDIR: u32 = 0o040000;

/// An inode as the BPF side saw it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Obj {
    pub(crate) inode: Inode,
    pub(crate) flags: u32,
    pub(crate) parent_ino: u64,
    pub(crate) name: Vec<u8>,
}

impl Obj {
    pub(crate) fn has(&self, f: fa_obj_flag) -> bool {
        self.flags & f.0 != 0
    }
    pub(crate) fn is_dir(&self) -> bool {
        self.inode.mode & S_IFMT == S_IFDIR
    }
}

/// An event's decoded path data.
#[derive(Debug, Default)]
pub(crate) struct Sent {
    pub(crate) cwd: Option<Vec<u8>>,
    /// Path arguments 0 and 1; 2: a symlink's target.
    pub(crate) names: [Option<Vec<u8>>; 3],
    /// The directories dirfd-relative path arguments 0 and 1 start from.
    pub(crate) bases: [Option<Vec<u8>>; 2],
    /// What a successful stat returned: its object as its lookup found it.
    pub(crate) stat: Option<Inode>,
    pub(crate) objs: Vec<Obj>,
    /// io_uring_enter: the names its ops' preps took, by their place.
    pub(crate) uring_names: Vec<(u32, Vec<u8>)>,
    /// io_uring_enter: what its inline opens opened, by name place.
    pub(crate) uring_opened: Vec<(u32, Inode)>,
    /// io_uring_enter: its ops that went to io-wq after an inline
    /// attempt, each with the inodes its worker changed.
    pub(crate) uring_punted: Vec<(fa_aux_uring_punt, Vec<Obj>)>,
}

pub(crate) fn u32_at(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(d.get(at..at + 4)?.try_into().ok()?))
}

/// A `struct fa_aux_name`: index, length, bytes.
fn name_of(a: &Aux) -> Option<(u32, Vec<u8>)> {
    let index = u32_at(&a.data, 0)?;
    let len = u32_at(&a.data, 4)? as usize;
    Some((index, a.data.get(8..8 + len)?.to_vec()))
}

/// One `struct fa_obj` as decoded.
fn obj_of(o: &fa_obj) -> Obj {
    let len = (o.name_len as usize).min(o.name.len());
    let name: Vec<u8> = o.name[..len].iter().map(|&c| c as u8).collect();
    Obj {
        inode: Inode {
            ino: o.ino,
            dev: o.dev,
            mode: o.mode,
            uid: o.uid,
            gid: o.gid,
            rdev: o.rdev,
            caps: Default::default(),
        },
        flags: o.flags,
        parent_ino: o.parent_ino,
        name,
    }
}

fn objs_of(a: &Aux) -> Vec<Obj> {
    let Some(h) = crate::payload::read::<fa_objs>(&a.data) else {
        return Vec::new();
    };
    h.o.iter().take(h.count as usize).map(obj_of).collect()
}

/// The path data among an event's aux records (`None`: it has none).
pub(crate) fn decode(aux: &[Aux]) -> Option<Sent> {
    let mut s = Sent::default();
    let mut any = false;
    for a in aux {
        if a.ty == fa_aux_kind::FA_AUX_CWD.0 {
            let (deleted, mut cwd) = name_of(a)?;
            if deleted != 0 {
                cwd.extend_from_slice(b" (deleted)");
            }
            s.cwd = Some(cwd);
            any = true;
        } else if a.ty == fa_aux_kind::FA_AUX_NAME.0 {
            let (i, n) = name_of(a)?;
            let base = fa_name_index::FA_NAME_BASE.0;
            let slot = match i.checked_sub(base) {
                Some(b) => s.bases.get_mut(b as usize),
                None => s.names.get_mut(i as usize),
            };
            if let Some(slot) = slot {
                *slot = Some(n);
            }
            any = true;
        } else if a.ty == fa_aux_kind::FA_AUX_STAT.0 {
            s.stat = statbuf_inode(&a.data);
        } else if a.ty == fa_aux_kind::FA_AUX_OBJS.0 {
            s.objs = objs_of(a);
            any = true;
        } else if a.ty == fa_aux_kind::FA_AUX_URING_NAME.0 {
            s.uring_names.push(name_of(a)?);
            any = true;
        } else if a.ty == fa_aux_kind::FA_AUX_URING_OBJ.0 {
            if let Some(u) = crate::payload::read::<fa_aux_uring_obj>(&a.data) {
                s.uring_opened.push((u.index, obj_of(&u.obj).inode));
            }
        } else if a.ty == fa_aux_kind::FA_AUX_URING_PUNT.0 {
            s.uring_punted.extend(
                crate::payload::read::<fa_aux_uring_punt>(&a.data).map(|p| (p, Vec::new())),
            );
        } else if a.ty == fa_aux_kind::FA_AUX_URING_PUNT_OBJS.0 {
            // Sent right after its op's FA_AUX_URING_PUNT.
            if let Some((_, objs)) = s.uring_punted.last_mut() {
                *objs = objs_of(a);
            }
        }
    }
    any.then_some(s)
}

/// The attributes in a `struct fa_aux_stat`: a struct stat's or a
/// struct statx's (x86_64 layouts).
fn statbuf_inode(d: &[u8]) -> Option<Inode> {
    let u32_ = |at: usize| u32_at(d, 8 + at);
    let u64_ = |at: usize| Some(u64::from_ne_bytes(d.get(8 + at..16 + at)?.try_into().ok()?));
    let statx = u32_at(d, 0)? != 0;
    let len = u32_at(d, 4)? as usize;
    let kdev = |major: u32, minor: u32| (major << 20) | (minor & 0xfffff);
    if statx {
        if len < 144 {
            return None;
        }
        let mode = u16::from_ne_bytes(d.get(8 + 28..8 + 30)?.try_into().ok()?);
        return Some(Inode {
            ino: u64_(32)?,
            dev: kdev(u32_(136)?, u32_(140)?),
            mode: mode.into(),
            uid: u32_(20)?,
            gid: u32_(24)?,
            rdev: kdev(u32_(128)?, u32_(132)?),
            caps: Default::default(),
        });
    }
    if len < 48 {
        return None;
    }
    Some(Inode {
        ino: u64_(8)?,
        dev: crate::host::identity::kernel_dev(u64_(0)?),
        mode: u32_(24)?,
        uid: u32_(28)?,
        gid: u32_(32)?,
        rdev: crate::host::identity::kernel_dev(u64_(40)?),
        caps: Default::default(),
    })
}

/// The CWD body's path and the PATH items of one event, in the kernel's order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PathRecords {
    /// The working directory, as d_path spells it.
    pub cwd: Option<Vec<u8>>,
    /// The PATH records, item 0 first.
    pub items: Vec<PathItem>,
    /// Names the kernel counts in `items=` but does not print (a hidden
    /// parent: `audit_inode_parent_hidden`, mq_open's create).
    pub hidden: u32,
}
