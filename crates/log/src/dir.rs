//! The log's directory and file, kept as auditd keeps them: the directory
//! is opened once (O_DIRECTORY|O_NOFOLLOW) and every later name lookup,
//! creation and rotation goes through that descriptor, so nothing can be
//! swapped in between; the file is opened O_WRONLY|O_APPEND|O_NOFOLLOW|
//! O_CLOEXEC (created O_EXCL), and both are checked on every open.
//!
//! What is refused, and why: a symbolic link as the log or its directory
//! (as root, following one planted by someone else appends audit records
//! to a file of theirs); a log or directory not owned by root (auditd
//! refuses a log not owned by root too); a directory writable by group or
//! others (they could swap the log), a log writable by group or others
//! (anyone could have written forged records into it; auditd only fixes
//! this mode, fastaudit refuses, since the records may already be
//! there); anything but a regular file or a directory. A log that is
//! merely readable by others is made 0600 (0640 with a log group), as
//! auditd does.

use crate::error::{LogError, Problem};
use nix::errno::Errno;
use nix::fcntl::{fcntl, open, openat, renameat, FcntlArg, OFlag};
use nix::sys::stat::{fchmod, fstat, fstatat, FileStat, Mode, SFlag};
use nix::unistd::{fchown, mkdir, Gid};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// The owner a log and its directory must have: the daemon's own uid
/// (root when it runs as the audit daemon).
fn owner() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// Check a directory's status: a directory of ours, writable by us alone.
fn check_dir(st: &FileStat) -> Result<(), Problem> {
    if SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT != SFlag::S_IFDIR {
        return Err(Problem::NotDirectory);
    }
    if st.st_uid != owner() {
        return Err(Problem::Owner(st.st_uid));
    }
    if st.st_mode & 0o022 != 0 {
        return Err(Problem::Writable(st.st_mode & 0o7777));
    }
    Ok(())
}

/// Check a log file's status: a regular file of ours, writable by us alone.
fn check_file(st: &FileStat) -> Result<(), Problem> {
    if SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT != SFlag::S_IFREG {
        return Err(Problem::NotRegular);
    }
    if st.st_uid != owner() {
        return Err(Problem::Owner(st.st_uid));
    }
    if st.st_mode & 0o022 != 0 {
        return Err(Problem::Writable(st.st_mode & 0o7777));
    }
    Ok(())
}

/// The log's directory, held open, and the log's name in it.
pub(crate) struct LogDir {
    dir: OwnedFd,
    name: OsString,
    path: PathBuf,
    group: Option<u32>,
}

impl LogDir {
    /// Open (creating it 0700, or 0750 with a group, if missing) and
    /// check the directory of `path`.
    pub(crate) fn open(
        path: &Path,
        group: Option<u32>,
        group_owns_dir: bool,
    ) -> Result<LogDir, LogError> {
        let io_err = |source: io::Error| LogError::Io {
            path: path.to_path_buf(),
            source,
        };
        let name = path
            .file_name()
            .ok_or_else(|| io_err(io::Error::other("not a file name")))?
            .to_os_string();
        let dir_path = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let dir_err = |e: Errno| match e {
            Errno::ELOOP | Errno::ENOTDIR => LogError::Unsafe {
                path: dir_path.clone(),
                problem: match std::fs::symlink_metadata(&dir_path) {
                    Ok(m) if m.file_type().is_symlink() => Problem::Symlink,
                    _ => Problem::NotDirectory,
                },
            },
            e => LogError::Io {
                path: dir_path.clone(),
                source: e.into(),
            },
        };
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let fd = match open(&dir_path, flags, Mode::empty()) {
            Err(Errno::ENOENT) => {
                if let Some(up) = dir_path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(up).map_err(|source| LogError::Io {
                        path: up.to_path_buf(),
                        source,
                    })?;
                }
                let mode = if group.is_some() { 0o750 } else { 0o700 };
                match mkdir(&dir_path, Mode::from_bits_truncate(mode)) {
                    Ok(()) | Err(Errno::EEXIST) => {}
                    Err(e) => return Err(dir_err(e)),
                }
                let fd = open(&dir_path, flags, Mode::empty()).map_err(dir_err)?;
                if let Some(g) = group {
                    // SAFETY: fd was just opened and is owned by nobody else.
                    fchown(fd, None, Some(Gid::from_raw(g))).map_err(dir_err)?;
                }
                fd
            }
            r => r.map_err(dir_err)?,
        };
        // SAFETY: `fd` was just returned by open(2) and is owned here only.
        let dir = unsafe { OwnedFd::from_raw_fd(fd) };
        let d = LogDir {
            dir,
            name,
            path: path.to_path_buf(),
            group,
        };
        d.check(&dir_path)?;
        if let Some(g) = group.filter(|_| group_owns_dir) {
            // As auditd's fix_disk_permissions: with log_group the
            // directory is root:GROUP 0750 (checked above: root's, and
            // writable by no one else), so the group can reach the log.
            let fix = fchown(d.dir.as_raw_fd(), None, Some(Gid::from_raw(g)))
                .and_then(|()| fchmod(d.dir.as_raw_fd(), Mode::from_bits_truncate(0o750)));
            fix.map_err(dir_err)?;
        }
        Ok(d)
    }

    /// Check the directory again (at every rotation).
    fn check(&self, shown: &Path) -> Result<(), LogError> {
        let st = fstat(self.dir.as_raw_fd()).map_err(|e| LogError::Io {
            path: shown.to_path_buf(),
            source: e.into(),
        })?;
        check_dir(&st).map_err(|problem| LogError::Unsafe {
            path: shown.to_path_buf(),
            problem,
        })
    }

    fn dir_path(&self) -> PathBuf {
        match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// The log's mode: 0600, 0640 with a group.
    fn mode(&self) -> u32 {
        if self.group.is_some() {
            0o640
        } else {
            0o600
        }
    }

    /// `NAME.N`, from the name's bytes.
    pub(crate) fn numbered(&self, n: u32) -> OsString {
        let mut v = self.name.as_bytes().to_vec();
        v.extend_from_slice(format!(".{n}").as_bytes());
        OsString::from_vec(v)
    }

    /// The path of `NAME.N`, for messages.
    pub(crate) fn numbered_path(&self, n: u32) -> PathBuf {
        self.path.with_file_name(self.numbered(n))
    }

    /// Open the log for appending, creating it if missing; checked, and
    /// its mode made 0600 (0640) when it was only more readable.
    pub(crate) fn open_log(&self) -> Result<File, LogError> {
        let io_err = |e: Errno| LogError::Io {
            path: self.path.clone(),
            source: e.into(),
        };
        let unsafe_err = |problem| LogError::Unsafe {
            path: self.path.clone(),
            problem,
        };
        // O_NONBLOCK: a FIFO planted as the log must not block the open.
        let flags = OFlag::O_WRONLY
            | OFlag::O_APPEND
            | OFlag::O_NOFOLLOW
            | OFlag::O_CLOEXEC
            | OFlag::O_NOCTTY
            | OFlag::O_NONBLOCK;
        self.check(&self.dir_path())?;
        let dirfd = Some(self.dir.as_raw_fd());
        let mut tries = 0;
        let fd = loop {
            tries += 1;
            match openat(dirfd, self.name.as_os_str(), flags, Mode::empty()) {
                Ok(fd) => break fd,
                Err(Errno::ENOENT) => {
                    let create = flags | OFlag::O_CREAT | OFlag::O_EXCL;
                    match openat(
                        dirfd,
                        self.name.as_os_str(),
                        create,
                        Mode::from_bits_truncate(self.mode()),
                    ) {
                        Ok(fd) => break fd,
                        // Created by someone else in between: open that one, checked.
                        Err(Errno::EEXIST) if tries < 3 => continue,
                        Err(e) => return Err(io_err(e)),
                    }
                }
                Err(Errno::ELOOP) => return Err(unsafe_err(Problem::Symlink)),
                // A FIFO without a reader, a directory.
                Err(Errno::ENXIO | Errno::EISDIR) => return Err(unsafe_err(Problem::NotRegular)),
                Err(e) => return Err(io_err(e)),
            }
        };
        // SAFETY: `fd` was just returned by openat(2) and is owned here only.
        let file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        let st = fstat(file.as_raw_fd()).map_err(io_err)?;
        check_file(&st).map_err(unsafe_err)?;
        if let Some(g) = self.group.filter(|&g| g != st.st_gid) {
            fchown(file.as_raw_fd(), None, Some(Gid::from_raw(g))).map_err(io_err)?;
        }
        if st.st_mode & 0o7777 != self.mode() {
            fchmod(file.as_raw_fd(), Mode::from_bits_truncate(self.mode())).map_err(io_err)?;
            if st.st_size > 0 {
                crate::action::say(
                    &format!(
                        "{}: mode {:04o} changed to {:04o}, as auditd does",
                        self.path.display(),
                        st.st_mode & 0o7777,
                        self.mode()
                    ),
                    false,
                );
            }
        }
        fcntl(file.as_raw_fd(), FcntlArg::F_SETFL(OFlag::O_APPEND)).map_err(io_err)?;
        Ok(file)
    }

    /// auditd's rotation: the live log made read-only, `NAME.N-1` →
    /// `NAME.N` ... `NAME` → `NAME.1`, then a fresh log. With `keep`, the
    /// oldest beyond `keep - 1` goes; without, every old log is kept. All
    /// through the directory's descriptor, checked first.
    /// On an error, whether the live log had been renamed already (then
    /// the old descriptor no longer is the log).
    pub(crate) fn rotate(&self, live: &File, keep: Option<u32>) -> Result<File, (LogError, bool)> {
        self.check(&self.dir_path()).map_err(|e| (e, false))?;
        let dirfd = Some(self.dir.as_raw_fd());
        let highest = match keep {
            Some(n) => n.saturating_sub(1).max(1),
            None => (1..u32::MAX)
                .find(|&n| {
                    fstatat(
                        dirfd,
                        self.numbered(n).as_os_str(),
                        nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
                    ) == Err(Errno::ENOENT)
                })
                .unwrap_or(1),
        };
        let ro = if self.group.is_some() { 0o440 } else { 0o400 };
        // Best effort, as auditd: the mode was set when the log was opened.
        let _ = fchmod(live.as_raw_fd(), Mode::from_bits_truncate(ro));
        let rename =
            |from: &OsStr, to: &OsStr, shown: PathBuf| match renameat(dirfd, from, dirfd, to) {
                Ok(()) | Err(Errno::ENOENT) => Ok(()),
                Err(e) => Err(LogError::Io {
                    path: shown,
                    source: e.into(),
                }),
            };
        for n in (1..highest).rev() {
            rename(
                &self.numbered(n),
                &self.numbered(n + 1),
                self.numbered_path(n),
            )
            .map_err(|e| (e, false))?;
        }
        if let Err(e) = rename(&self.name, &self.numbered(1), self.path.clone()) {
            // Still the live log: writable again, tried again next time.
            let _ = fchmod(live.as_raw_fd(), Mode::from_bits_truncate(self.mode()));
            return Err((e, false));
        }
        self.open_log().map_err(|e| (e, true))
    }

    /// The last `max` bytes of the live log, or of `NAME.1` when the live
    /// one is empty or missing (read through the directory, never a link);
    /// with `whole_lines`, without the first line when it is cut.
    pub(crate) fn tail(&self, max: u64, whole_lines: bool) -> io::Result<Vec<u8>> {
        for name in [self.name.clone(), self.numbered(1)] {
            let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
            let fd = match openat(
                Some(self.dir.as_raw_fd()),
                name.as_os_str(),
                flags,
                Mode::empty(),
            ) {
                Ok(fd) => fd,
                Err(Errno::ENOENT) => continue,
                Err(e) => return Err(e.into()),
            };
            // SAFETY: `fd` was just returned by openat(2) and is owned here only.
            let mut f = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
            let st = fstat(f.as_raw_fd())?;
            if check_file(&st).is_err() {
                continue;
            }
            let len = f.seek(SeekFrom::End(0))?;
            if len == 0 {
                continue;
            }
            let start = len.saturating_sub(max);
            f.seek(SeekFrom::Start(start))?;
            let mut v = Vec::new();
            f.take(max).read_to_end(&mut v)?;
            if whole_lines && start > 0 {
                let cut = v
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(v.len(), |i| i + 1);
                v.drain(..cut);
            }
            return Ok(v);
        }
        Ok(Vec::new())
    }
}
