//! What an exec's PATH items need that BPF cannot see at the exec's exit:
//! whether the named file was a script (the kernel names the script,
//! then its interpreter as the `#!` line spells it), and the ELF
//! interpreter's name as the executable's PT_INTERP spells it. Both are
//! read from the files right away, so a file replaced in between (a race
//! the kernel does not have) gives what is there now.

use fastaudit_records::path::{Inode, PathItem};
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::PathBuf;

/// BINPRM_BUF_SIZE: the bytes of a file the kernel reads to recognize it.
const BINPRM_BUF_SIZE: usize = 256;

/// The kernel's device of the file an absolute `name` leads to, if it is
/// still inode `ino`.
pub(crate) fn device_by_name(name: &[u8], ino: u64) -> Option<u32> {
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(name));
    let md = std::fs::metadata(path).ok()?;
    let (found, dev) = crate::host::identity::kernel_identity(path, &md);
    (found == ino).then_some(dev)
}

/// `name` as the exec's task would resolve it (relative: under `cwd`).
pub(crate) fn resolve(cwd: Option<&[u8]>, name: &[u8]) -> PathBuf {
    let name = std::ffi::OsStr::from_bytes(name);
    match cwd {
        Some(c) if !name.as_bytes().starts_with(b"/") => {
            PathBuf::from(std::ffi::OsStr::from_bytes(c)).join(name)
        }
        _ => PathBuf::from(name),
    }
}

/// A PATH record's attributes from the metadata of the file at `path`
/// (its device as the kernel's inode has it).
pub(crate) fn inode_of(path: &std::path::Path, md: &std::fs::Metadata) -> Inode {
    Inode {
        ino: md.ino(),
        dev: crate::host::identity::kernel_file_dev(path, md.is_dir(), md.dev()),
        mode: md.mode(),
        uid: md.uid(),
        gid: md.gid(),
        rdev: crate::host::identity::kernel_dev(md.rdev()),
        caps: Default::default(),
    }
}

/// The file capabilities of the items' regular executable files, read
/// from their `security.capability` attribute, which BPF does not see.
/// The kernel copies them at lookup; here the attribute is read after
/// the syscall from the item's name (relative to `cwd`), and only from
/// the same inode. Only executables are read: capabilities do nothing
/// on other files, and each read is a syscall in the log's path.
pub(crate) fn add_file_caps(cwd: Option<&[u8]>, items: &mut [PathItem]) {
    const S_IFMT: u32 = 0o170000;
    const S_IFREG: u32 = 0o100000;
    for it in items {
        let (Some(inode), Some(name)) = (it.inode.as_mut(), it.name.as_ref()) else {
            continue;
        };
        if inode.mode & S_IFMT != S_IFREG || inode.mode & 0o111 == 0 {
            continue;
        }
        let path = resolve(cwd, name);
        let same = std::fs::metadata(&path).is_ok_and(|m| {
            crate::host::identity::kernel_identity(&path, &m) == (inode.ino, inode.dev)
        });
        if !same {
            continue;
        }
        if let Some(caps) = crate::decode::exit_records::file_caps(path.as_os_str().as_bytes()) {
            inode.caps = caps;
        }
    }
}

/// The interpreter a script names (`#!` line, first word), as the
/// kernel's binfmt_script reads it.
fn shebang(buf: &[u8]) -> Option<Vec<u8>> {
    let rest = buf.strip_prefix(b"#!")?;
    let line = &rest[..rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len())];
    let start = line.iter().position(|&c| c != b' ' && c != b'\t')?;
    let word = &line[start..];
    let end = word
        .iter()
        .position(|&c| c == b' ' || c == b'\t' || c == 0)
        .unwrap_or(word.len());
    (end > 0).then(|| word[..end].to_vec())
}

/// When the exec'd `name` is a script (its identity is not the
/// executable's, `exe`): its attributes and the interpreter it names.
pub fn script(cwd: Option<&[u8]>, name: &[u8], exe: Option<&Inode>) -> Option<(Inode, Vec<u8>)> {
    let path = resolve(cwd, name);
    let inode = inode_of(&path, &std::fs::metadata(&path).ok()?);
    if exe.is_some_and(|e| e.ino == inode.ino && e.dev == inode.dev) {
        return None;
    }
    let mut buf = [0u8; BINPRM_BUF_SIZE];
    let mut f = std::fs::File::open(&path).ok()?;
    let n = f.read(&mut buf).ok()?;
    Some((inode, shebang(&buf[..n])?))
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The ELF interpreter a 64-bit little-endian executable names
/// (PT_INTERP), as binfmt_elf reads it: the header, the program headers
/// and the name are read, not the whole file.
pub fn elf_interp(exe: &[u8]) -> Option<Vec<u8>> {
    use std::os::unix::fs::FileExt as _;
    let f = std::fs::File::open(std::ffi::OsStr::from_bytes(exe)).ok()?;
    let read = |at: u64, len: usize| {
        let mut b = vec![0u8; len];
        f.read_exact_at(&mut b, at).ok().map(|_| b)
    };
    let head = read(0, 64)?;
    if !head.starts_with(b"\x7fELF\x02\x01") {
        return None;
    }
    let phoff = u64_at(&head, 0x20)?;
    let phentsize = u16_at(&head, 0x36)? as usize;
    let phnum = u16_at(&head, 0x38)? as usize;
    if phentsize < 0x28 || phnum > 256 {
        return None;
    }
    let phdrs = read(phoff, phentsize * phnum)?;
    let ph = phdrs
        .chunks(phentsize)
        .find(|ph| ph.get(..4) == Some(&3u32.to_le_bytes()[..]))?;
    let (off, size) = (u64_at(ph, 8)?, u64_at(ph, 0x20)? as usize);
    // PATH_MAX, as binfmt_elf bounds it.
    let name = read(off, size.min(4096))?;
    Some(name[..name.iter().position(|&c| c == 0).unwrap_or(name.len())].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shebang_lines() {
        assert_eq!(shebang(b"#!/bin/sh\ntrue\n"), Some(b"/bin/sh".to_vec()));
        assert_eq!(
            shebang(b"#! \t/usr/bin/env python3 -u\n"),
            Some(b"/usr/bin/env".to_vec())
        );
        assert_eq!(shebang(b"#!\n"), None);
        assert_eq!(shebang(b"\x7fELF"), None);
    }

    #[test]
    fn this_test_binary_names_its_interpreter() {
        let me = std::env::current_exe().unwrap();
        let interp = elf_interp(me.as_os_str().as_bytes());
        // Dynamically linked test binaries name the loader.
        assert!(interp.is_some_and(|i| i.starts_with(b"/")));
    }
}
