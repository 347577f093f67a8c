//! `fastaudit ctl`'s way into the running daemon: a unix stream socket,
//! RUN_DIR/control, mode 0600 and owned by root, on which each connection
//! carries one request (a JSON line: the ctl command's words) and gets one
//! reply (a JSON line: what to print and the exit code). The peer's
//! credentials (SO_PEERCRED) are checked as well as the file's mode: only
//! uid 0 may change or read the rules. A thread accepts connections and
//! hands each request to the engine's thread ([`Jobs`]), which judges it
//! between batches (control/mod.rs); rule changes then go through the
//! same switch as SIGHUP.

use crate::rules::change::Changer;
use crate::run_dir::{self, RUN_DIR};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

/// The socket's name under RUN_DIR.
pub const SOCKET: &str = "control";

/// The largest request read (a command line's words).
const MAX_REQUEST: u64 = 1 << 20;

/// How long a request may wait for the engine's thread (a switch loads
/// and attaches BPF programs: seconds at worst).
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// The first wait after accept(2) fails, doubled while it keeps failing
/// (a lack of descriptors, EMFILE, lasts until some are closed), up to
/// [`ACCEPT_BACKOFF_MAX`].
const ACCEPT_BACKOFF: Duration = Duration::from_millis(10);
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// The wait before the next accept(2) after a failed one.
struct Backoff(Duration);

impl Backoff {
    /// The wait now; the next one is twice as long, up to the longest.
    fn next(&mut self) -> Duration {
        let now = self.0;
        self.0 = (self.0 * 2).min(ACCEPT_BACKOFF_MAX);
        now
    }

    /// A connection came: the next failure waits the shortest again.
    fn reset(&mut self) {
        self.0 = ACCEPT_BACKOFF;
    }
}

/// auditctl's words for a caller without the right to control audit.
pub const NOT_ROOT: &str = "You must be root to run this program.";

/// The exit code auditctl gives a caller without that right.
pub const NOT_ROOT_CODE: u8 = 4;

/// The socket's path.
pub fn socket_path() -> PathBuf {
    run_dir::file(SOCKET)
}

/// One `fastaudit ctl` command: its words, as auditctl's command line.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    /// The words after `ctl` (bytes: a key or path need not be UTF-8).
    pub words: Vec<Vec<u8>>,
}

/// What the command prints and its exit code.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Reply {
    /// For stdout.
    pub out: Vec<u8>,
    /// For stderr.
    pub err: Vec<u8>,
    /// The exit code.
    pub code: u8,
}

impl Reply {
    /// A refusal: `message` on stderr, exit `code`.
    pub fn refused(message: &str, code: u8) -> Reply {
        Reply {
            out: Vec::new(),
            err: format!("{message}\n").into_bytes(),
            code,
        }
    }
}

/// A request waiting for the engine's thread, with its caller and where
/// its reply goes.
pub struct Job {
    /// The command.
    pub request: Request,
    /// Who sent it (for CONFIG_CHANGE).
    pub caller: Changer,
    /// Its process (for DAEMON_CONFIG, as a signal's sender).
    pub pid: i32,
    /// Where the reply goes.
    pub reply: Sender<Reply>,
}

/// The requests received, for the engine's thread; the socket goes when
/// this is dropped.
pub struct Jobs {
    jobs: Receiver<Job>,
    /// The socket file and its inode (removed at the end if still ours).
    socket: Option<(PathBuf, u64)>,
}

impl Jobs {
    /// The next request, if one is waiting.
    pub fn next(&self) -> Option<Job> {
        self.jobs.try_recv().ok()
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        if let Some((path, ino)) = &self.socket {
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.ino() == *ino) {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// Listen on the control socket. A socket another running fastaudit
/// answers on is left to it (a note says so; this run then has no
/// control socket); a stale one is replaced.
pub fn listen(notes: &mut Vec<String>) -> std::io::Result<Jobs> {
    let (tx, rx) = channel();
    let path = socket_path();
    std::fs::create_dir_all(RUN_DIR)?;
    if path.exists() {
        if UnixStream::connect(&path).is_ok() {
            notes.push(format!(
                "another fastaudit answers on {}: `fastaudit ctl` goes to it, not to this run",
                path.display()
            ));
            return Ok(Jobs {
                jobs: rx,
                socket: None,
            });
        }
        std::fs::remove_file(&path)?;
    }
    // Created with the umask's mode (0755 at most: no one else may
    // connect), then 0600; the peer's uid is checked on every connection.
    let listener = UnixListener::bind(&path)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    let ino = std::fs::symlink_metadata(&path)?.ino();
    std::thread::Builder::new()
        .name("fa-control".into())
        .spawn(move || serve(&listener, &tx))?;
    Ok(Jobs {
        jobs: rx,
        socket: Some((path, ino)),
    })
}

/// Accept connections one at a time, for as long as the run lasts; after
/// a failed accept, wait before the next (longer while it keeps failing),
/// so that a lasting failure does not spin.
fn serve(listener: &UnixListener, jobs: &Sender<Job>) {
    let mut backoff = Backoff(ACCEPT_BACKOFF);
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => {
                backoff.reset();
                s
            }
            Err(_) => {
                std::thread::sleep(backoff.next());
                continue;
            }
        };
        // A client that stalls must not hold the socket for long.
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
        let reply = match answer(&stream, jobs) {
            Ok(r) => r,
            Err(e) => Reply::refused(&format!("fastaudit: control request: {e}"), 1),
        };
        let mut line = serde_json::to_vec(&reply).unwrap_or_default();
        line.push(b'\n');
        let _ = (&stream).write_all(&line);
    }
}

/// Check the peer, read its request, hand it on and wait for the reply.
fn answer(stream: &UnixStream, jobs: &Sender<Job>) -> Result<Reply, String> {
    // The request is read first whoever sent it (bounded, with a
    // timeout), so that a refused client reads its refusal instead of
    // finding the connection closed while it writes.
    let mut line = Vec::new();
    BufReader::new(stream)
        .take(MAX_REQUEST)
        .read_until(b'\n', &mut line)
        .map_err(|e| e.to_string())?;
    let (pid, uid) = peer(stream).map_err(|e| format!("reading the peer's credentials: {e}"))?;
    if uid != 0 {
        return Ok(Reply::refused(NOT_ROOT, NOT_ROOT_CODE));
    }
    // The caller as the kernel would log a netlink sender, read while it
    // waits for its reply.
    let caller = Changer::of(&pid.to_string());
    let request: Request = serde_json::from_slice(&line).map_err(|e| e.to_string())?;
    let (tx, rx) = channel();
    jobs.send(Job {
        request,
        caller,
        pid,
        reply: tx,
    })
    .map_err(|_| "the daemon is stopping".to_string())?;
    match rx.recv_timeout(ANSWER_WITHIN) {
        Ok(r) => Ok(r),
        Err(RecvTimeoutError::Timeout) => Err("no answer from the daemon in time".into()),
        Err(RecvTimeoutError::Disconnected) => Err("the daemon is stopping".into()),
    }
}

/// The peer's pid and uid (SO_PEERCRED: as they were at connect).
fn peer(stream: &UnixStream) -> std::io::Result<(i32, u32)> {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred {
        pid: 0,
        uid: u32::MAX,
        gid: u32::MAX,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for the call and sized as SO_PEERCRED writes.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((cred.pid, cred.uid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_accepts_wait_longer_and_longer_up_to_a_second() {
        let mut b = Backoff(ACCEPT_BACKOFF);
        let waits: Vec<u128> = (0..9).map(|_| b.next().as_millis()).collect();
        assert_eq!(waits, [10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        b.reset();
        assert_eq!(b.next(), ACCEPT_BACKOFF);
    }
}
