//! The CWD and PATH record bodies (`audit_log_exit`: the working
//! directory, then `audit_log_name` for each name the syscall used).

use crate::encode::untrusted;
use crate::num;
use crate::special::{cap, FileCaps};

/// What the kernel says a name was to the syscall (`nametype=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameType {
    /// Looked up, not a directory entry created or removed.
    Normal,
    /// The directory holding an entry that was created or removed.
    Parent,
    /// An entry the syscall removed.
    Delete,
    /// An entry the syscall created.
    Create,
    /// A name whose lookup never reached an inode.
    Unknown,
}

impl NameType {
    fn as_str(self) -> &'static str {
        match self {
            NameType::Normal => "NORMAL",
            NameType::Parent => "PARENT",
            NameType::Delete => "DELETE",
            NameType::Create => "CREATE",
            NameType::Unknown => "UNKNOWN",
        }
    }
}

/// An inode's attributes as a PATH record prints them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Inode {
    /// Inode number.
    pub ino: u64,
    /// Device of its file system (kernel dev_t: major << 20 | minor).
    pub dev: u32,
    /// `i_mode`.
    pub mode: u32,
    /// Owner uid.
    pub uid: u32,
    /// Owner gid.
    pub gid: u32,
    /// Device it stands for (kernel dev_t), for device files.
    pub rdev: u32,
    /// Its file capabilities (`security.capability`), as the kernel's
    /// lookup copied them.
    pub caps: FileCaps,
}

/// PATH's `cap_fp=... cap_frootid=...` fields, with their leading space
/// (all zero for a file without capabilities).
fn write_file_caps(o: &mut Vec<u8>, caps: &FileCaps) {
    cap(o, "cap_fp", caps.permitted);
    cap(o, "cap_fi", caps.inheritable);
    o.extend_from_slice(b" cap_fe=");
    num::dec(o, caps.effective.into());
    // `%x` of a revision (0-3): the same digit as decimal.
    o.extend_from_slice(b" cap_fver=");
    num::dec(o, caps.version.into());
    o.extend_from_slice(b" cap_frootid=");
    num::dec(o, caps.rootid.into());
}

/// One PATH record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathItem {
    /// The name as the kernel prints it (`None`: `name=(null)`).
    pub name: Option<Vec<u8>>,
    /// The inode, when the lookup reached one.
    pub inode: Option<Inode>,
    /// `nametype=`.
    pub nametype: NameType,
}

/// `MAJOR:MINOR` of a kernel dev_t, as `%02x:%02x`.
fn dev(o: &mut Vec<u8>, d: u32) {
    num::hex2(o, (d >> 20).into());
    o.push(b':');
    num::hex2(o, (d & 0xfffff).into());
}

impl PathItem {
    /// The PATH body for item number `item`, byte for byte as the kernel
    /// writes it.
    pub fn body(&self, item: usize) -> Vec<u8> {
        let mut o = Vec::with_capacity(200);
        self.body_into(&mut o, item);
        o
    }

    /// [`PathItem::body`] appended to `o`.
    pub fn body_into(&self, o: &mut Vec<u8>, item: usize) {
        o.extend_from_slice(b"item=");
        num::dec(o, item as u64);
        match &self.name {
            Some(n) => {
                o.extend_from_slice(b" name=");
                untrusted(o, n);
            }
            None => o.extend_from_slice(b" name=(null)"),
        }
        if let Some(i) = &self.inode {
            o.extend_from_slice(b" inode=");
            num::dec(o, i.ino);
            o.extend_from_slice(b" dev=");
            dev(o, i.dev);
            o.extend_from_slice(b" mode=0");
            num::oct(o, i.mode.into());
            o.extend_from_slice(b" ouid=");
            num::dec(o, i.uid.into());
            o.extend_from_slice(b" ogid=");
            num::dec(o, i.gid.into());
            o.extend_from_slice(b" rdev=");
            dev(o, i.rdev);
        }
        o.extend_from_slice(b" nametype=");
        o.extend_from_slice(self.nametype.as_str().as_bytes());
        write_file_caps(o, &self.inode.map(|i| i.caps).unwrap_or_default());
    }
}

/// The CWD body: the working directory as d_path spells it.
pub fn cwd_body(cwd: &[u8]) -> Vec<u8> {
    let mut o = Vec::with_capacity(cwd.len() + 8);
    cwd_body_into(&mut o, cwd);
    o
}

/// [`cwd_body`] appended to `o`.
pub fn cwd_body_into(o: &mut Vec<u8>, cwd: &[u8]) {
    o.extend_from_slice(b"cwd=");
    untrusted(o, cwd);
}

/// The length of the directory part of a path name, trailing slash
/// included (the kernel's `parent_len`): 0 for a plain name, whose
/// directory the kernel then prints as the working directory.
pub fn parent_len(path: &[u8]) -> usize {
    if path.is_empty() {
        return 0;
    }
    let mut p = path.len() - 1;
    while path[p] == b'/' && p > 0 {
        p -= 1;
    }
    while path[p] != b'/' && p > 0 {
        p -= 1;
    }
    if path[p] == b'/' {
        p += 1;
    }
    p
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_capabilities_print_as_the_kernel_does() {
        use crate::special::FileCaps;
        // setcap cap_net_bind_service+ep: revision 2, effective.
        let mut v2 = 0x0200_0001u32.to_le_bytes().to_vec();
        for w in [0x400u32, 0, 0, 0] {
            v2.extend_from_slice(&w.to_le_bytes());
        }
        let mut o = Vec::new();
        super::write_file_caps(&mut o, &FileCaps::from_xattr(&v2).unwrap());
        assert_eq!(
            String::from_utf8(o).unwrap(),
            " cap_fp=0000000000000400 cap_fi=0 cap_fe=1 cap_fver=2 cap_frootid=0"
        );
    }

    use super::*;

    #[test]
    fn matches_kernel_records() {
        let file = PathItem {
            name: Some(b"/tmp/rpw/d/exist".to_vec()),
            inode: Some(Inode {
                ino: 10092636,
                dev: 0xfe << 20,
                mode: 0o100644,
                ..Inode::default()
            }),
            nametype: NameType::Normal,
        };
        assert_eq!(
            String::from_utf8(file.body(0)).unwrap(),
            "item=0 name=\"/tmp/rpw/d/exist\" inode=10092636 dev=fe:00 mode=0100644 ouid=0 ogid=0 rdev=00:00 nametype=NORMAL cap_fp=0 cap_fi=0 cap_fe=0 cap_fver=0 cap_frootid=0"
        );
        let tty = PathItem {
            name: Some(b"/dev/tty".to_vec()),
            inode: Some(Inode {
                ino: 9,
                dev: 6,
                mode: 0o20666,
                rdev: (5 << 20),
                ..Inode::default()
            }),
            nametype: NameType::Normal,
        };
        assert!(String::from_utf8(tty.body(1))
            .unwrap()
            .contains("inode=9 dev=00:06 mode=020666 ouid=0 ogid=0 rdev=05:00 nametype=NORMAL"));
        let missing = PathItem {
            name: Some(b"a b".to_vec()),
            inode: None,
            nametype: NameType::Unknown,
        };
        assert_eq!(
            String::from_utf8(missing.body(2)).unwrap(),
            "item=2 name=612062 nametype=UNKNOWN cap_fp=0 cap_fi=0 cap_fe=0 cap_fver=0 cap_frootid=0"
        );
        assert_eq!(cwd_body(b"/tmp/rpw"), b"cwd=\"/tmp/rpw\"");
    }

    #[test]
    fn parent_lengths() {
        assert_eq!(parent_len(b"/tmp/d/x"), 7);
        assert_eq!(parent_len(b"/tmp/d/sub/"), 7);
        assert_eq!(parent_len(b"x"), 0);
        assert_eq!(parent_len(b"d/x"), 2);
        assert_eq!(parent_len(b"/x"), 1);
    }
}
