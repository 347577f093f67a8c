//! The few system calls the plugin feeder needs that std and nix do not
//! wrap: a process's pidfd, the unread byte count of a socket, an eventfd
//! for wake-ups, and syslog.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// A pidfd for `pid` (readable once the process has exited).
pub fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us; nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Bytes queued on a socket and not yet read by whoever reads it (FIONREAD).
pub fn unread(fd: &impl AsRawFd) -> io::Result<usize> {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, which is valid.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut n) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(usize::try_from(n).unwrap_or(0))
}

/// A non-blocking, close-on-exec eventfd.
pub fn eventfd() -> io::Result<OwnedFd> {
    // SAFETY: eventfd takes plain integers and returns a new fd or -1.
    let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just returned by the kernel, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Add one to an eventfd (wakes a poll on it).
pub fn signal(fd: &impl AsRawFd) {
    let one: u64 = 1;
    // SAFETY: writes 8 bytes from a valid u64; a full counter (EAGAIN) still wakes.
    let _ = unsafe { libc::write(fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
}

/// Reset an eventfd to zero.
pub fn drain(fd: &impl AsRawFd) {
    let mut v: u64 = 0;
    // SAFETY: reads 8 bytes into a valid u64; EAGAIN when already zero.
    let _ = unsafe { libc::read(fd.as_raw_fd(), (&mut v as *mut u64).cast(), 8) };
}

/// Mark every descriptor from 3 up close-on-exec: run in a plugin's child
/// between fork and exec, so the plugin inherits only stdin, stdout and
/// stderr (auditd closes its descriptors before exec'ing a plugin; marking
/// them instead keeps std's exec-error pipe working).
pub fn cloexec_from_3() -> io::Result<()> {
    // SAFETY: close_range only changes descriptor flags; async-signal-safe.
    let r = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

pub use fastaudit_log::syslog::{syslog, Priority};
