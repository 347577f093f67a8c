//! The lmbench operations (lat_syscall, lat_select, lat_sig, lat_proc),
//! and a loopback UDP connect (the cost of an audited SOCKADDR).

use super::measure::{cstring, errno, per_op, Measured};
use nix::libc;
use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

extern "C" fn on_signal(_: libc::c_int) {
    SIGNALS.fetch_add(1, Ordering::Relaxed);
}

static SIGNALS: AtomicU64 = AtomicU64::new(0);

/// Each lmbench operation for `seconds`.
pub(super) fn lmbench(dir: &Path, seconds: f64) -> Result<Vec<Measured>, String> {
    let file = dir.join("lmbench-file");
    std::fs::write(&file, b"lmbench").map_err(|e| format!("{}: {e}", file.display()))?;
    let cfile = cstring(&file)?;
    let zero = open(
        &CString::new("/dev/zero").unwrap_or_default(),
        libc::O_RDONLY,
    )?;
    let null = open(
        &CString::new("/dev/null").unwrap_or_default(),
        libc::O_WRONLY,
    )?;
    let mut out = Vec::new();
    file_ops(seconds, &cfile, zero, null, &mut out)?;
    out.push(select_100(seconds, &cfile)?);
    signal_ops(seconds, &mut out)?;
    out.push(udp_connect(seconds)?);
    process_ops(seconds, &mut out)?;
    // SAFETY: opened above.
    unsafe {
        libc::close(zero);
        libc::close(null);
    }
    Ok(out)
}

/// open(2) of `p` with `flags`: the fd, or the errno as an error.
fn open(p: &CString, flags: libc::c_int) -> Result<i32, String> {
    // SAFETY: a valid NUL-terminated path.
    let fd = unsafe { libc::open(p.as_ptr(), flags) };
    if fd < 0 {
        Err(errno("open"))
    } else {
        Ok(fd)
    }
}

/// lat_syscall: null call, null I/O (on `zero` and `null`), stat and
/// open/close of `cfile`.
fn file_ops(
    seconds: f64,
    cfile: &CString,
    zero: i32,
    null: i32,
    out: &mut Vec<Measured>,
) -> Result<(), String> {
    let mut buf = [0u8; 1];
    out.push(per_op("null call", seconds, 1.0, || {
        // SAFETY: no arguments.
        unsafe { libc::syscall(libc::SYS_getppid) };
        Ok(())
    })?);
    // lmbench's "null I/O" is the mean of a 1-byte read and a 1-byte write.
    out.push(per_op("null I/O", seconds, 2.0, || {
        // SAFETY: valid fds and a 1-byte buffer.
        let ok = unsafe {
            libc::read(zero, buf.as_mut_ptr().cast(), 1) == 1
                && libc::write(null, buf.as_ptr().cast(), 1) == 1
        };
        ok.then_some(()).ok_or_else(|| errno("null I/O"))
    })?);
    out.push(per_op("stat", seconds, 1.0, || {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: valid path and out-pointer.
        let rc = unsafe { libc::stat(cfile.as_ptr(), st.as_mut_ptr()) };
        (rc == 0).then_some(()).ok_or_else(|| errno("stat"))
    })?);
    out.push(per_op("open/close", seconds, 1.0, || {
        let fd = open(cfile, libc::O_RDONLY)?;
        // SAFETY: fd was just opened.
        unsafe { libc::close(fd) };
        Ok(())
    })?);
    Ok(())
}

/// lat_select: select(2) on 100 open fds of `cfile`.
fn select_100(seconds: f64, cfile: &CString) -> Result<Measured, String> {
    let fds: Vec<i32> = (0..100)
        .map(|_| open(cfile, libc::O_RDONLY))
        .collect::<Result<_, _>>()?;
    let maxfd = fds.iter().copied().max().unwrap_or(0);
    let measured = per_op("select 100 fds", seconds, 1.0, || {
        // SAFETY: fd_set filled with open fds below FD_SETSIZE; zero timeout.
        let rc = unsafe {
            let mut set = std::mem::zeroed::<libc::fd_set>();
            libc::FD_ZERO(&mut set);
            for &fd in &fds {
                libc::FD_SET(fd, &mut set);
            }
            let mut tv = libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            };
            libc::select(
                maxfd + 1,
                &mut set,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut tv,
            )
        };
        (rc >= 0).then_some(()).ok_or_else(|| errno("select"))
    })?;
    for fd in fds {
        // SAFETY: opened above.
        unsafe { libc::close(fd) };
    }
    Ok(measured)
}

/// lat_sig: installing a handler, and a signal sent to itself and handled.
fn signal_ops(seconds: f64, out: &mut Vec<Measured>) -> Result<(), String> {
    // SAFETY: a plain sigaction with a handler that only bumps an atomic.
    let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
    sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
    out.push(per_op("signal install", seconds, 1.0, || {
        // SAFETY: sa is a valid sigaction.
        let rc = unsafe { libc::sigaction(libc::SIGUSR1, &sa, std::ptr::null_mut()) };
        (rc == 0).then_some(()).ok_or_else(|| errno("sigaction"))
    })?);
    out.push(per_op("signal handle", seconds, 1.0, || {
        // SAFETY: SIGUSR1 has the handler installed above.
        let rc = unsafe { libc::kill(libc::getpid(), libc::SIGUSR1) };
        (rc == 0).then_some(()).ok_or_else(|| errno("kill"))
    })?);
    if SIGNALS.load(Ordering::Relaxed) == 0 {
        return Err("signal handle: no signal was delivered".into());
    }
    Ok(())
}

/// A loopback UDP connect (no packet is sent): with a connect rule the
/// audited call carries a SOCKADDR record.
fn udp_connect(seconds: f64) -> Result<Measured, String> {
    let addr = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: 9u16.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_be_bytes([127, 0, 0, 1]).to_be(),
        },
        sin_zero: [0; 8],
    };
    per_op("udp connect", seconds, 1.0, || {
        // SAFETY: a fresh socket, a valid sockaddr_in and its size.
        let rc = unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0);
            if fd < 0 {
                return Err(errno("socket"));
            }
            let rc = libc::connect(
                fd,
                (&addr as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            );
            libc::close(fd);
            rc
        };
        (rc == 0).then_some(()).ok_or_else(|| errno("connect"))
    })
}

/// lat_proc: fork+exit, fork+exec and sh -c.
fn process_ops(seconds: f64, out: &mut Vec<Measured>) -> Result<(), String> {
    let sh = CString::new("/bin/sh").unwrap_or_default();
    let truebin = CString::new("/bin/true").unwrap_or_default();
    let dash_c = CString::new("-c").unwrap_or_default();
    out.push(per_op("fork+exit", seconds, 1.0, || spawn_wait(None))?);
    out.push(per_op("fork+exec", seconds, 1.0, || {
        spawn_wait(Some(&[&truebin]))
    })?);
    out.push(per_op("sh -c", seconds, 1.0, || {
        spawn_wait(Some(&[&sh, &dash_c, &truebin]))
    })?);
    Ok(())
}

/// fork(); the child exits at once or execs `argv`; the parent waits.
fn spawn_wait(argv: Option<&[&CString]>) -> Result<(), String> {
    let mut ptrs: Vec<*const libc::c_char> = argv
        .unwrap_or_default()
        .iter()
        .map(|a| a.as_ptr())
        .collect();
    ptrs.push(std::ptr::null());
    // SAFETY: the worker is single-threaded here; the child only calls
    // async-signal-safe functions (execv, _exit).
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(errno("fork"));
    }
    if pid == 0 {
        // SAFETY: see above.
        unsafe {
            if argv.is_some() {
                libc::execv(ptrs[0], ptrs.as_ptr());
                libc::_exit(127);
            }
            libc::_exit(0);
        }
    }
    let mut status = 0;
    // SAFETY: waiting for our own child.
    if unsafe { libc::waitpid(pid, &mut status, 0) } != pid {
        return Err(errno("waitpid"));
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!("child exited with status {status:#x}"));
    }
    Ok(())
}
