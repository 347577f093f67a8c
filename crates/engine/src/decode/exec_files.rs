//! What an exec's records need that BPF cannot see at the exec's exit:
//! whether the named file was a script (the kernel names the script,
//! then its interpreter as the `#!` line spells it), the ELF
//! interpreter's name as the executable's PT_INTERP spells it, and file
//! capabilities (BPRM_FCAPS, PATH items' `cap_f*`: xattrs BPF cannot
//! read). All are read from the live file system right after the event,
//! so a file replaced in between (a race the kernel does not have) gives
//! what is there now.

use fastaudit_records::path::{Inode, PathItem};
use fastaudit_records::special::FileCaps;
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
    use nix::libc::{S_IFMT, S_IFREG};
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
        if let Some(caps) = file_caps(path.as_os_str().as_bytes()) {
            inode.caps = caps;
        }
    }
}

/// The capabilities of the file at `path` (`security.capability`, symlinks
/// followed), read now: BPF cannot read xattrs (the exec's file for
/// BPRM_FCAPS, PATH items' files). `None`: it has none (or they are
/// malformed, which the kernel treats alike).
pub(crate) fn file_caps(path: &[u8]) -> Option<FileCaps> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(std::ffi::OsStr::from_bytes(path).as_bytes()).ok()?;
    let name = c"security.capability";
    let mut buf = [0u8; 64];
    // SAFETY: valid NUL-terminated path and name, and a buffer of its size.
    let n = unsafe {
        nix::libc::getxattr(
            path.as_ptr(),
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    let n = usize::try_from(n).ok()?;
    FileCaps::from_xattr(&buf[..n.min(buf.len())])
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
pub(crate) fn script(
    cwd: Option<&[u8]>,
    name: &[u8],
    exe: Option<&Inode>,
) -> Option<(Inode, Vec<u8>)> {
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

/// The ELF interpreter a 64-bit little-endian executable names
/// (PT_INTERP), as binfmt_elf reads it: the header, the program headers
/// and the name are read, not the whole file. Read as libc's `Elf64_*`
/// structs: a parser crate (`object`, `goblin`; neither is in the tree)
/// would add a dependency for three fields, and parses a file held whole
/// (or through a read cache) where three bounded reads do. Only a
/// loader binfmt_elf mapped asks, so the headers passed its checks
/// (e_phentsize is its struct's size, at most 64 KiB of headers).
pub(crate) fn elf_interp(exe: &[u8]) -> Option<Vec<u8>> {
    use nix::libc::{
        Elf64_Ehdr, Elf64_Phdr, EI_CLASS, EI_DATA, ELFCLASS64, ELFDATA2LSB, PT_INTERP,
    };
    use std::mem::size_of;
    use std::os::unix::fs::FileExt as _;
    let f = std::fs::File::open(std::ffi::OsStr::from_bytes(exe)).ok()?;
    let read = |at: u64, len: usize| {
        let mut b = vec![0u8; len];
        f.read_exact_at(&mut b, at).ok().map(|_| b)
    };
    let head = read(0, size_of::<Elf64_Ehdr>())?;
    let ident = (&head[..4], head[EI_CLASS], head[EI_DATA]);
    if ident != (&b"\x7fELF"[..], ELFCLASS64, ELFDATA2LSB) {
        return None;
    }
    let eh: Elf64_Ehdr = crate::payload::read(&head)?;
    let (phentsize, phnum) = (usize::from(eh.e_phentsize), usize::from(eh.e_phnum));
    if phentsize != size_of::<Elf64_Phdr>() || phnum > 256 {
        return None;
    }
    let phdrs = read(eh.e_phoff, phentsize * phnum)?;
    let ph = phdrs
        .chunks(phentsize)
        .filter_map(crate::payload::read::<Elf64_Phdr>)
        .find(|ph| ph.p_type == PT_INTERP)?;
    // PATH_MAX, as binfmt_elf bounds it.
    let name = read(ph.p_offset, (ph.p_filesz as usize).min(4096))?;
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
