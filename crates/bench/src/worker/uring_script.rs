//! A scripted io_uring workload: one operation at a time through one ring,
//! each waited for, so the operations the audit sees come in a known
//! order. The differential tests drive it (the kernel audit and fastaudit
//! must log the same URINGOP records for it).
//!
//! A step is words: `[async] OP ARGS...`; `async` sets IOSQE_ASYNC (the op
//! goes to an io-wq worker without an inline attempt). Ops: `nop`,
//! `openat PATH` (read-only), `create PATH` (O_CREAT|O_WRONLY, 0644),
//! `close` (the last fd an open returned), `mkdir PATH`, `rename OLD NEW`,
//! `unlink PATH`, `rmdir PATH`, `connect IP:PORT` (a fresh TCP socket),
//! `socket`, `read PATH` (4 KiB at 0), `statx PATH`.

use io_uring::{opcode, squeue, types, IoUring};
use nix::libc;
use std::ffi::CString;
use std::net::SocketAddrV4;

/// Run the steps; returns each step's CQE result.
pub(super) fn run(sqpoll: bool, steps: &[String]) -> Result<Vec<i32>, String> {
    let mut builder = IoUring::<squeue::Entry>::builder();
    if sqpoll {
        builder.setup_sqpoll(2000);
    }
    let mut ring = builder
        .build(8)
        .map_err(|e| format!("io_uring_setup: {e}"))?;
    let mut results = Vec::new();
    let mut last_fd = -1;
    // Kept alive until their operation completed.
    let mut buf = vec![0u8; 4096];
    // SAFETY: statx is plain data; all zero is a valid value.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    for step in steps {
        let words: Vec<&str> = step.split_whitespace().collect();
        let (force_async, words) = match words.split_first() {
            Some((&"async", rest)) => (true, rest),
            _ => (false, &words[..]),
        };
        let arg = |i: usize| -> Result<CString, String> {
            let w = words
                .get(i)
                .ok_or_else(|| format!("{step}: missing argument"))?;
            CString::new(*w).map_err(|_| format!("{step}: NUL in argument"))
        };
        let cwd = types::Fd(libc::AT_FDCWD);
        let (a, b) = (arg(1).ok(), arg(2).ok());
        let p = |c: &Option<CString>| c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        let mut sock = -1;
        let mut addr: Option<(libc::sockaddr_in, libc::socklen_t)> = None;
        let entry = match words.first().copied().unwrap_or("") {
            "nop" => opcode::Nop::new().build(),
            "openat" => opcode::OpenAt::new(cwd, p(&a))
                .flags(libc::O_RDONLY)
                .build(),
            "create" => opcode::OpenAt::new(cwd, p(&a))
                .flags(libc::O_CREAT | libc::O_WRONLY)
                .mode(0o644)
                .build(),
            "close" => opcode::Close::new(types::Fd(last_fd)).build(),
            "mkdir" => opcode::MkDirAt::new(cwd, p(&a)).mode(0o755).build(),
            "rename" => opcode::RenameAt::new(cwd, p(&a), cwd, p(&b)).build(),
            "unlink" => opcode::UnlinkAt::new(cwd, p(&a)).build(),
            "rmdir" => opcode::UnlinkAt::new(cwd, p(&a))
                .flags(libc::AT_REMOVEDIR)
                .build(),
            "socket" => opcode::Socket::new(libc::AF_INET, libc::SOCK_STREAM, 0).build(),
            "connect" => {
                let target: SocketAddrV4 = words
                    .get(1)
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| format!("{step}: connect IP:PORT"))?;
                // SAFETY: socket takes no pointers.
                sock = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) };
                if sock < 0 {
                    return Err(super::errno("socket"));
                }
                let sin = libc::sockaddr_in {
                    sin_family: libc::AF_INET as libc::sa_family_t,
                    sin_port: target.port().to_be(),
                    sin_addr: libc::in_addr {
                        s_addr: u32::from(*target.ip()).to_be(),
                    },
                    sin_zero: [0; 8],
                };
                let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
                let sa: *const libc::sockaddr_in = &addr.insert((sin, len)).0;
                opcode::Connect::new(types::Fd(sock), sa.cast(), len).build()
            }
            "read" => {
                let fd = a.as_ref().map_or(-1, |c| {
                    // SAFETY: a valid NUL-terminated path.
                    unsafe { libc::open(c.as_ptr(), libc::O_RDONLY) }
                });
                sock = fd;
                opcode::Read::new(types::Fd(fd), buf.as_mut_ptr(), buf.len() as u32).build()
            }
            "statx" => opcode::Statx::new(cwd, p(&a), (&mut st as *mut libc::statx).cast())
                .mask(libc::STATX_BASIC_STATS)
                .build(),
            other => return Err(format!("{step}: unknown io_uring step {other:?}")),
        };
        let entry = if force_async {
            entry.flags(squeue::Flags::ASYNC)
        } else {
            entry
        };
        // SAFETY: every pointer the entry holds (paths, address, buffer)
        // lives until its completion, waited for below.
        unsafe { ring.submission().push(&entry) }.map_err(|_| "submission queue full")?;
        ring.submit_and_wait(1)
            .map_err(|e| format!("io_uring_enter: {e}"))?;
        let res = loop {
            if let Some(c) = ring.completion().next() {
                break c.result();
            }
            ring.submit_and_wait(1)
                .map_err(|e| format!("io_uring_enter: {e}"))?;
        };
        if sock >= 0 {
            // SAFETY: closing the socket or file this step opened.
            unsafe { libc::close(sock) };
        }
        if words
            .first()
            .is_some_and(|w| *w == "openat" || *w == "create")
            && res >= 0
        {
            last_fd = res;
        }
        results.push(res);
    }
    Ok(results)
}
