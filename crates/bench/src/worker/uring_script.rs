//! A scripted io_uring workload: one operation at a time through one ring,
//! each waited for, so the operations the audit sees come in a known
//! order. The differential tests drive it (the kernel audit and fastaudit
//! must log the same URINGOP records for it).
//!
//! A step is words: `[nowait] [async] [skip] [chain] OP ARGS...`;
//! `nowait` submits the step by an io_uring_enter that does not wait for
//! completions (as liburing's io_uring_submit), then reaps its completion,
//! calling io_uring_enter again only if it has not been posted; `async` sets
//! IOSQE_ASYNC (the op goes to an io-wq worker without an inline
//! attempt); `chain` sets IOSQE_IO_LINK and submits the step with the
//! next one, in one io_uring_enter; `skip` sets IOSQE_CQE_SKIP_SUCCESS
//! (no completion is posted if it succeeds) and also submits the step
//! with the next one: its result is its CQE's if one was posted by the
//! time the steps submitted with it completed, else 0. As its success
//! cannot be waited for, 100 ms pass after such steps (one an io-wq
//! worker runs ends in them, its records written before the next step).
//! Ops: `nop`, `openat PATH` (read-only), `openat2 PATH` (read-only),
//! `create PATH` (O_CREAT|O_WRONLY, 0644), `close` (the last fd an open
//! returned), `mkdir PATH`, `rename OLD NEW`, `unlink PATH`, `rmdir
//! PATH`, `symlink TARGET PATH`, `link OLD NEW`, `connect IP:PORT` and
//! `bind IP:PORT` (a fresh TCP socket), `accept IP:PORT` (on a fresh
//! listening TCP socket bound there, port 0 for any: a thread of the
//! workload connects to it 50 ms after the step is submitted, so the
//! accept's inline attempt finds nothing and waits for it in a poll),
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
    let mut held = Held {
        buf: vec![0u8; 4096],
        // SAFETY: statx is plain data; all zero is a valid value.
        st: unsafe { std::mem::zeroed() },
        how: types::OpenHow::new().flags(libc::O_RDONLY as u64),
    };
    // Steps pushed but not yet submitted (linked ones), and what they keep
    // alive until their completion: (step, skipped, CStrings, fd to close).
    let mut pending: Vec<Pending> = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let all: Vec<&str> = step.split_whitespace().collect();
        let (marks, words) = Marks::take(&all);
        let built = build(step, words, last_fd, &mut held)?;
        let entry = built.entry.flags(marks.flags()).user_data(index as u64);
        // SAFETY: every pointer the entry holds (paths, address, buffer)
        // lives until its completion, waited for below: the strings move
        // into `pending` (their heap buffers stay put), the rest lives
        // across the loop.
        unsafe { ring.submission().push(&entry) }.map_err(|_| "submission queue full")?;
        let opens = matches!(
            words.first().copied(),
            Some("openat" | "openat2" | "create")
        );
        pending.push(Pending {
            opens,
            skip: marks.skip,
            nowait: marks.nowait,
            fd: built.sock,
            _keep: built.keep,
        });
        // A step whose success posts nothing waits in the ring for the
        // next, with which it is submitted (unless it is the last).
        if marks.link || (marks.skip && index + 1 < steps.len()) {
            continue;
        }
        last_fd = complete(&mut ring, &mut pending, &mut results)?.unwrap_or(last_fd);
    }
    Ok(results)
}

/// What the entries point at across the steps: the read buffer, the statx
/// result, openat2's how.
struct Held {
    buf: Vec<u8>,
    st: libc::statx,
    how: types::OpenHow,
}

/// A step's leading words: `nowait`, `async`, `skip`, `chain`, in order.
struct Marks {
    nowait: bool,
    force_async: bool,
    skip: bool,
    link: bool,
}

impl Marks {
    /// The marks `all` starts with, and the op with its arguments after them.
    fn take<'a, 'w>(all: &'a [&'w str]) -> (Marks, &'a [&'w str]) {
        let mut words = all;
        let mut flag = |name: &str| match words.split_first() {
            Some((w, rest)) if *w == name => {
                words = rest;
                true
            }
            _ => false,
        };
        let nowait = flag("nowait");
        let force_async = flag("async");
        let skip = flag("skip");
        let link = flag("chain");
        let marks = Marks {
            nowait,
            force_async,
            skip,
            link,
        };
        (marks, words)
    }

    /// The submission flags they set.
    fn flags(&self) -> squeue::Flags {
        let mut flags = squeue::Flags::empty();
        if self.force_async {
            flags |= squeue::Flags::ASYNC;
        }
        if self.link {
            flags |= squeue::Flags::IO_LINK;
        }
        if self.skip {
            flags |= squeue::Flags::SKIP_SUCCESS;
        }
        flags
    }
}

/// A step's entry, the socket or file it opened for itself (-1 for none),
/// and what it points at until its completion.
struct Built {
    entry: squeue::Entry,
    sock: i32,
    keep: Keep,
}

/// A step's path strings and address, alive until its completion.
type Keep = (
    Option<CString>,
    Option<CString>,
    Option<Box<libc::sockaddr_in>>,
);

/// The entry of the op `words` (of `step`), the last opened fd `last_fd`.
fn build(step: &str, words: &[&str], last_fd: i32, held: &mut Held) -> Result<Built, String> {
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
    let mut addr: Option<Box<libc::sockaddr_in>> = None;
    let entry = match words.first().copied().unwrap_or("") {
        "nop" => opcode::Nop::new().build(),
        "openat" => opcode::OpenAt::new(cwd, p(&a))
            .flags(libc::O_RDONLY)
            .build(),
        "openat2" => opcode::OpenAt2::new(cwd, p(&a), &held.how).build(),
        "symlink" => opcode::SymlinkAt::new(cwd, p(&a), p(&b)).build(),
        "link" => opcode::LinkAt::new(cwd, p(&a), cwd, p(&b)).build(),
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
        op @ ("connect" | "bind") => {
            let (entry, fd) = address_op(step, op, words, &mut addr)?;
            sock = fd;
            entry
        }
        "accept" => {
            let (entry, fd) = accept_op(step, words)?;
            sock = fd;
            entry
        }
        "read" => {
            let fd = a.as_ref().map_or(-1, |c| {
                // SAFETY: a valid NUL-terminated path.
                unsafe { libc::open(c.as_ptr(), libc::O_RDONLY) }
            });
            sock = fd;
            opcode::Read::new(types::Fd(fd), held.buf.as_mut_ptr(), held.buf.len() as u32).build()
        }
        "statx" => opcode::Statx::new(cwd, p(&a), (&mut held.st as *mut libc::statx).cast())
            .mask(libc::STATX_BASIC_STATS)
            .build(),
        other => return Err(format!("{step}: unknown io_uring step {other:?}")),
    };
    Ok(Built {
        entry,
        sock,
        keep: (a, b, addr),
    })
}

/// `connect IP:PORT` or `bind IP:PORT` on a fresh TCP socket: the entry
/// and the socket; the address is kept in `addr`.
fn address_op(
    step: &str,
    op: &str,
    words: &[&str],
    addr: &mut Option<Box<libc::sockaddr_in>>,
) -> Result<(squeue::Entry, i32), String> {
    let target: SocketAddrV4 = words
        .get(1)
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| format!("{step}: {op} IP:PORT"))?;
    // SAFETY: socket takes no pointers.
    let sock = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) };
    if sock < 0 {
        return Err(super::measure::errno("socket"));
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
    // Boxed: it moves into `pending` and must not move in memory.
    let sa: *const libc::sockaddr_in = &**addr.insert(Box::new(sin));
    let entry = match op {
        "bind" => opcode::Bind::new(types::Fd(sock), sa.cast(), len).build(),
        _ => opcode::Connect::new(types::Fd(sock), sa.cast(), len).build(),
    };
    Ok((entry, sock))
}

/// `accept IP:PORT`: the entry and the listening socket, with a thread
/// that connects to it 50 ms later.
fn accept_op(step: &str, words: &[&str]) -> Result<(squeue::Entry, i32), String> {
    let at: std::net::SocketAddr = words
        .get(1)
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| format!("{step}: accept IP:PORT"))?;
    let listener = std::net::TcpListener::bind(at).map_err(|e| format!("{step}: listen: {e}"))?;
    let there = listener.local_addr().map_err(|e| format!("{step}: {e}"))?;
    // Its connection comes once the step waits (the accept
    // is submitted well within the 50 ms); the thread keeps
    // it open a while, then ends by itself.
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        if let Ok(c) = std::net::TcpStream::connect(there) {
            std::thread::sleep(std::time::Duration::from_millis(500));
            drop(c);
        }
    });
    let sock = std::os::fd::IntoRawFd::into_raw_fd(listener);
    let entry =
        opcode::Accept::new(types::Fd(sock), std::ptr::null_mut(), std::ptr::null_mut()).build();
    Ok((entry, sock))
}

/// Submit the pending steps and wait for every one's completion, its
/// result stored at its step's place in `results`; then close what they
/// opened for themselves. Returns the fd the last of them that opened a
/// file returned, if one did.
fn complete(
    ring: &mut IoUring,
    pending: &mut Vec<Pending>,
    results: &mut Vec<i32>,
) -> Result<Option<i32>, String> {
    let first = results.len();
    results.resize(first + pending.len(), 0);
    // Steps with IOSQE_CQE_SKIP_SUCCESS are not waited for: an inline
    // one's CQE, if it failed, is posted with those submitted after it.
    let mut waiting = pending.iter().filter(|p| !p.skip).count();
    let mut seen = vec![false; pending.len()];
    if waiting == 0 || pending.iter().any(|p| p.nowait) {
        ring.submit().map_err(|e| format!("io_uring_enter: {e}"))?;
        waiting -= reap(ring, pending, first, &mut results[first..], &mut seen);
    }
    while waiting > 0 {
        ring.submit_and_wait(1)
            .map_err(|e| format!("io_uring_enter: {e}"))?;
        waiting -= reap(ring, pending, first, &mut results[first..], &mut seen);
    }
    if pending.iter().any(|p| p.skip) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        reap(ring, pending, first, &mut results[first..], &mut seen);
    }
    let mut last_fd = None;
    for (i, p) in pending.drain(..).enumerate() {
        if p.fd >= 0 {
            // SAFETY: closing the socket or file this step opened.
            unsafe { libc::close(p.fd) };
        }
        // A skipped completion leaves no fd to know.
        if p.opens && seen[i] && results[first + i] >= 0 {
            last_fd = Some(results[first + i]);
        }
    }
    Ok(last_fd)
}

/// Take the posted CQEs of `pending`, the steps from number `first`
/// (`results` and `seen` by their index there); returns how many of
/// those waited for (no IOSQE_CQE_SKIP_SUCCESS) are newly seen.
fn reap(
    ring: &mut IoUring,
    pending: &[Pending],
    first: usize,
    results: &mut [i32],
    seen: &mut [bool],
) -> usize {
    let mut newly = 0;
    for c in ring.completion() {
        let i = (c.user_data() as usize).wrapping_sub(first);
        if let (Some(slot), Some(p)) = (results.get_mut(i), pending.get(i)) {
            *slot = c.result();
            if !seen[i] && !p.skip {
                newly += 1;
            }
            seen[i] = true;
        }
    }
    newly
}

/// A step pushed and not yet completed.
struct Pending {
    opens: bool,
    /// Submitted with IOSQE_CQE_SKIP_SUCCESS: no CQE when it succeeds.
    skip: bool,
    /// Submitted by an io_uring_enter that does not wait.
    nowait: bool,
    /// A socket or file the step opened for itself, closed after.
    fd: i32,
    /// Its path strings and address, alive until its completion.
    _keep: Keep,
}
