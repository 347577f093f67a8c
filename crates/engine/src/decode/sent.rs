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
use fastaudit_rules::tables::Machine;
use fastaudit_rules::Target;

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
            s.stat = statbuf_inode(&a.data, StatLayout::native());
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

/// Where a native syscall's `struct stat` holds what an inode is known
/// by (byte offsets; dev at 0 and ino at 8, both 64-bit, everywhere).
/// The BPF side sends the first 48 bytes of it (send_statbuf).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StatLayout {
    mode: usize,
    uid: usize,
    gid: usize,
    rdev: usize,
}

impl StatLayout {
    /// x86_64's own `struct stat` (arch/x86/include/uapi/asm/stat.h):
    /// dev, ino, nlink (64-bit), mode, uid, gid, a pad, rdev.
    const X86_64: StatLayout = StatLayout {
        mode: 24,
        uid: 28,
        gid: 32,
        rdev: 40,
    };

    /// The generic one arm64 uses (include/uapi/asm-generic/stat.h):
    /// dev, ino, mode, nlink (32-bit), uid, gid, rdev.
    const GENERIC: StatLayout = StatLayout {
        mode: 16,
        uid: 24,
        gid: 28,
        rdev: 32,
    };

    /// The layout of a native syscall's `struct stat` on `machine`.
    pub(crate) fn of(machine: Machine) -> StatLayout {
        match machine {
            Machine::X86_64 => StatLayout::X86_64,
            _ => StatLayout::GENERIC,
        }
    }

    /// The layout of this program's machine, which is the kernel's: the
    /// BPF object and the program are built for one target.
    pub(crate) fn native() -> StatLayout {
        let native =
            Target::of_rust_arch(std::env::consts::ARCH).map_or(Machine::X86_64, |t| t.native);
        StatLayout::of(native)
    }
}

/// The attributes in a `struct fa_aux_stat`: a struct statx's (one
/// layout everywhere) or a struct stat's (the native ABI's: `stat`).
fn statbuf_inode(d: &[u8], stat: StatLayout) -> Option<Inode> {
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
        mode: u32_(stat.mode)?,
        uid: u32_(stat.uid)?,
        gid: u32_(stat.gid)?,
        rdev: crate::host::identity::kernel_dev(u64_(stat.rdev)?),
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

#[cfg(test)]
mod tests {
    use super::*;
    use nix::libc;
    use std::mem::offset_of;

    /// This machine's layout is its C library's `struct stat` (glibc's
    /// is the kernel's on x86_64 and arm64): run for each target (under
    /// qemu-user for aarch64).
    #[test]
    fn the_native_layout_is_the_c_librarys_struct_stat() {
        let l = StatLayout::native();
        assert_eq!(offset_of!(libc::stat, st_dev), 0);
        assert_eq!(offset_of!(libc::stat, st_ino), 8);
        assert_eq!(l.mode, offset_of!(libc::stat, st_mode));
        assert_eq!(l.uid, offset_of!(libc::stat, st_uid));
        assert_eq!(l.gid, offset_of!(libc::stat, st_gid));
        assert_eq!(l.rdev, offset_of!(libc::stat, st_rdev));
        assert!(l.rdev + 8 <= 48, "within the 48 bytes the BPF side sends");
    }

    /// A stat of a real file, sent as the BPF side sends it (its first
    /// 48 bytes after statx=0, len), decodes to that file's attributes.
    #[test]
    fn a_struct_stat_decodes_to_its_files_attributes() {
        let st = nix::sys::stat::stat("/").expect("stat /");
        // SAFETY: libc::stat is plain old data; the slice covers exactly it.
        let raw = unsafe {
            std::slice::from_raw_parts(
                (&st as *const libc::stat).cast::<u8>(),
                std::mem::size_of::<libc::stat>(),
            )
        };
        let mut d = Vec::new();
        d.extend(0u32.to_ne_bytes());
        d.extend(48u32.to_ne_bytes());
        d.extend(&raw[..48]);
        let got = statbuf_inode(&d, StatLayout::native()).expect("decoded");
        assert_eq!(got.ino, st.st_ino);
        assert_eq!(got.mode, st.st_mode);
        assert_eq!((got.uid, got.gid), (st.st_uid, st.st_gid));
        assert_eq!(got.dev, crate::host::identity::kernel_dev(st.st_dev));
        assert_eq!(got.rdev, crate::host::identity::kernel_dev(st.st_rdev));
        // The other machine's layout reads another mode there.
        let other = match StatLayout::native() == StatLayout::X86_64 {
            true => StatLayout::GENERIC,
            false => StatLayout::X86_64,
        };
        let wrong = statbuf_inode(&d, other).expect("decoded");
        assert_ne!(
            (wrong.mode, wrong.uid, wrong.gid),
            (got.mode, got.uid, got.gid)
        );
    }
}
