//! One `type = always` plugin: its process, the socket on its stdin, and
//! the thread that feeds it, so a slow or dead plugin never holds up the
//! log or the other plugins.
//!
//! fastaudit keeps its own copy of the plugin's end of the socket. Then
//! the plugin's death does not throw away what it had not read yet, and
//! `FIONREAD` on that end tells exactly how much of what was written the
//! plugin has read. When it dies, every record it had not read in full is
//! sent again to its next instance; what it had read counts as delivered
//! (auditd 3.0.9 loses whatever is still in the socket).

use super::conf::PluginConf;
use super::sys::{self, Priority};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use std::collections::VecDeque;
use std::io::{IoSlice, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a plugin may take to read what is left and exit at stop after
/// its stdin is closed, before SIGTERM; and after SIGTERM, before SIGKILL.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Counters and state shared between the feeder thread and the dispatcher.
#[derive(Default)]
pub struct Counters {
    /// Records the plugin has read.
    pub delivered: AtomicU64,
    /// Records never read by the plugin: queue full, suspended, the plugin
    /// given up, or still unread at stop.
    pub dropped: AtomicU64,
    /// Times the plugin was started again after it died.
    pub restarts: AtomicU64,
    /// The running instance's pid (0: none).
    pub pid: AtomicU32,
    /// No more restarts: what comes is dropped.
    pub gave_up: AtomicBool,
    /// Records queued or written and not yet read (bounded by q_depth).
    pub in_flight: AtomicUsize,
    /// Restarts allowed after it dies (max_restarts; a reconfiguration
    /// changes it for the running plugin too).
    pub max_restarts: AtomicU32,
}

/// What the dispatcher hands the thread.
#[derive(Default)]
struct Inbox {
    events: VecDeque<Arc<[u8]>>,
    /// Set at stop: deliver what is queued by then, then close.
    stop_by: Option<Instant>,
}

/// The dispatcher's handle on one plugin.
pub struct Feeder {
    /// The plugin's configuration.
    pub conf: PluginConf,
    /// Its counters.
    pub counters: Arc<Counters>,
    inbox: Arc<Mutex<Inbox>>,
    wake: Arc<OwnedFd>,
    sleeping: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Newlines in `b`: the records it holds.
pub fn records(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count()
}

impl Feeder {
    /// Start the plugin and its thread.
    pub fn start(conf: PluginConf, max_restarts: u32) -> std::io::Result<Feeder> {
        let counters = Arc::new(Counters {
            max_restarts: AtomicU32::new(max_restarts),
            ..Counters::default()
        });
        let inbox = Arc::new(Mutex::new(Inbox::default()));
        let wake = Arc::new(sys::eventfd()?);
        let sleeping = Arc::new(AtomicBool::new(false));
        let mut worker = Worker {
            conf: conf.clone(),
            counters: Arc::clone(&counters),
            inbox: Arc::clone(&inbox),
            wake: Arc::clone(&wake),
            sleeping: Arc::clone(&sleeping),
            deaths: 0,
            pending: VecDeque::new(),
            written: 0,
            proc: None,
        };
        // Started here, so a program that cannot run is reported at once.
        worker.spawn();
        let thread = std::thread::Builder::new()
            .name(format!("plugin {}", conf.name))
            .spawn(move || worker.run())?;
        Ok(Feeder {
            conf,
            counters,
            inbox,
            wake,
            sleeping,
            thread: Some(thread),
        })
    }

    /// Queue one event (`records` lines); never blocks.
    pub fn push(&self, event: Arc<[u8]>, records: usize) {
        self.counters.in_flight.fetch_add(records, Ordering::SeqCst);
        self.inbox
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .events
            .push_back(event);
        if self.sleeping.swap(false, Ordering::SeqCst) {
            sys::signal(&*self.wake);
        }
    }

    /// Ask the thread to deliver what is queued by `by`, close the
    /// plugin's stdin and end it.
    pub fn request_stop(&self, by: Instant) {
        self.inbox.lock().unwrap_or_else(|p| p.into_inner()).stop_by = Some(by);
        sys::signal(&*self.wake);
    }

    /// Wait for the thread (after [`Feeder::request_stop`]).
    pub fn join(&mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A bit of an event still to be read by the plugin: `data[from..]`.
struct Piece {
    data: Arc<[u8]>,
    from: usize,
}

impl Piece {
    fn rest(&self) -> &[u8] {
        &self.data[self.from..]
    }
}

/// The running instance.
struct Proc {
    child: Child,
    pidfd: OwnedFd,
    /// fastaudit's end, non-blocking.
    sock: UnixStream,
    /// A copy of the plugin's end (its stdin), kept so that unread data
    /// survives the plugin and can be measured.
    peer: UnixStream,
}

/// The feeder thread's state.
struct Worker {
    conf: PluginConf,
    counters: Arc<Counters>,
    inbox: Arc<Mutex<Inbox>>,
    wake: Arc<OwnedFd>,
    sleeping: Arc<AtomicBool>,
    deaths: u32,
    /// Everything not yet read by the plugin, oldest first.
    pending: VecDeque<Piece>,
    /// Bytes at the front of `pending` written to the current socket.
    written: usize,
    proc: Option<Proc>,
}

fn say(p: Priority, msg: String) {
    eprintln!("fastaudit: {msg}");
    sys::syslog(p, &msg);
}

impl Worker {
    fn run(mut self) {
        let stop_by = loop {
            let stop_by = self.take_inbox();
            if self.proc.is_some() {
                self.write_some();
                self.trim();
            } else if self.counters.gave_up.load(Ordering::SeqCst) {
                self.drop_pending();
            }
            if let Some(by) = stop_by {
                // Closed only once the plugin has read everything: a plugin
                // that sees the end of its input together with the last
                // records may exit without handling them (audisp-remote
                // does, on a socket).
                if self.pending.is_empty() || self.proc.is_none() || Instant::now() >= by {
                    break by;
                }
            }
            self.wait(stop_by);
        };
        self.finish(stop_by);
    }

    fn pending_bytes(&self) -> usize {
        self.pending.iter().map(|p| p.rest().len()).sum()
    }

    /// Move what the dispatcher queued into `pending`; the stop deadline.
    fn take_inbox(&mut self) -> Option<Instant> {
        let mut inbox = self.inbox.lock().unwrap_or_else(|p| p.into_inner());
        self.pending
            .extend(inbox.events.drain(..).map(|data| Piece { data, from: 0 }));
        inbox.stop_by
    }

    /// Sleep until there is something to do: a new event, the plugin's
    /// exit, room in its socket, or (while stopping) the deadline.
    fn wait(&mut self, stop_by: Option<Instant>) {
        self.sleeping.store(true, Ordering::SeqCst);
        {
            let inbox = self.inbox.lock().unwrap_or_else(|p| p.into_inner());
            if !inbox.events.is_empty() || inbox.stop_by != stop_by {
                self.sleeping.store(false, Ordering::SeqCst);
                return;
            }
        }
        let want_out = self.written < self.pending_bytes();
        let mut fds = vec![PollFd::new(self.wake.as_fd(), PollFlags::POLLIN)];
        if let Some(p) = &self.proc {
            fds.push(PollFd::new(p.pidfd.as_fd(), PollFlags::POLLIN));
            if want_out {
                fds.push(PollFd::new(p.sock.as_fd(), PollFlags::POLLOUT));
            }
        }
        // A period, so what the plugin reads is counted as delivered (and
        // its memory freed) even when nothing new comes.
        let ms: u16 = match stop_by {
            Some(by) => by
                .saturating_duration_since(Instant::now())
                .as_millis()
                .clamp(1, 200) as u16,
            None => 200,
        };
        let _ = poll(&mut fds, PollTimeout::from(ms));
        let exited = fds
            .get(1)
            .and_then(|f| f.revents())
            .is_some_and(|r| !r.is_empty());
        drop(fds);
        self.sleeping.store(false, Ordering::SeqCst);
        sys::drain(&*self.wake);
        if exited {
            self.died();
        }
    }

    /// Start (or restart) the plugin.
    fn spawn(&mut self) {
        match self.try_spawn() {
            Ok(p) => {
                self.counters.pid.store(p.child.id(), Ordering::SeqCst);
                self.proc = Some(p);
                self.written = 0;
            }
            Err(e) => {
                say(
                    Priority::Err,
                    format!(
                        "Error running {} ({e}) continuing without it",
                        self.conf.path
                    ),
                );
                self.give_up();
            }
        }
    }

    fn try_spawn(&self) -> std::io::Result<Proc> {
        let (sock, theirs) = UnixStream::pair()?;
        let peer = theirs.try_clone()?;
        let mut cmd = Command::new(&self.conf.path);
        cmd.args(&self.conf.args)
            // auditd execs plugins with an empty environment.
            .env_clear()
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            // Its own process group: a Ctrl-C meant for fastaudit must not
            // kill the plugin before it has read the last events.
            .process_group(0);
        // SAFETY: the closure only makes a system call (async-signal-safe).
        unsafe {
            cmd.pre_exec(sys::cloexec_from_3);
        }
        let child = cmd.spawn()?;
        let pidfd = sys::pidfd_open(child.id())?;
        sock.set_nonblocking(true)?;
        Ok(Proc {
            child,
            pidfd,
            sock,
            peer,
        })
    }

    /// Write as much of `pending` as the socket takes now.
    fn write_some(&mut self) {
        let Some(p) = self.proc.as_mut() else { return };
        loop {
            let mut skip = self.written;
            let mut slices = Vec::new();
            for piece in &self.pending {
                let r = piece.rest();
                if skip >= r.len() {
                    skip -= r.len();
                    continue;
                }
                slices.push(IoSlice::new(&r[skip..]));
                skip = 0;
                if slices.len() == 64 {
                    break;
                }
            }
            if slices.is_empty() {
                return;
            }
            match p.sock.write_vectored(&slices) {
                Ok(0) => return,
                Ok(n) => self.written += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // WouldBlock: full; any other error: the plugin's exit
                // (seen on its pidfd) decides what happens.
                Err(_) => return,
            }
        }
    }

    /// Drop from `pending` what the plugin has read in full.
    fn trim(&mut self) {
        let Some(p) = self.proc.as_ref() else { return };
        let Ok(unread) = sys::unread(&p.peer) else {
            return;
        };
        let mut read = self.written.saturating_sub(unread);
        while let Some(front) = self.pending.front() {
            let len = front.rest().len();
            if len > read {
                break;
            }
            let n = records(front.rest());
            self.pending.pop_front();
            read -= len;
            self.written -= len;
            self.delivered(n);
        }
    }

    fn delivered(&self, n: usize) {
        self.counters
            .delivered
            .fetch_add(n as u64, Ordering::SeqCst);
        self.counters.in_flight.fetch_sub(n, Ordering::SeqCst);
    }

    fn dropped(&self, n: usize) {
        self.counters.dropped.fetch_add(n as u64, Ordering::SeqCst);
        self.counters.in_flight.fetch_sub(n, Ordering::SeqCst);
    }

    fn drop_pending(&mut self) {
        let n: usize = self.pending.iter().map(|p| records(p.rest())).sum();
        self.pending.clear();
        self.written = 0;
        self.dropped(n);
    }

    /// The plugin exited: count what it read, keep the rest from the first
    /// record it did not read in full, and start it again (up to
    /// max_restarts times, as auditd).
    fn died(&mut self) {
        self.trim();
        let Some(mut p) = self.proc.take() else {
            return;
        };
        let unread = sys::unread(&p.peer).unwrap_or(0);
        let partly = self.written.saturating_sub(unread);
        if let Some(front) = self.pending.front_mut() {
            let read = &front.data[front.from..front.from + partly.min(front.rest().len())];
            if let Some(nl) = read.iter().rposition(|&c| c == b'\n') {
                let n = records(&read[..=nl]);
                front.from += nl + 1;
                self.counters
                    .delivered
                    .fetch_add(n as u64, Ordering::SeqCst);
                self.counters.in_flight.fetch_sub(n, Ordering::SeqCst);
            }
        }
        self.written = 0;
        let status = p.child.wait().map(|s| describe(&s)).unwrap_or_default();
        self.counters.pid.store(0, Ordering::SeqCst);
        drop(p);
        self.deaths += 1;
        if self.inbox_stopping() {
            return;
        }
        say(
            Priority::Err,
            format!(
                "plugin {} terminated unexpectedly ({status})",
                self.conf.path
            ),
        );
        if self.deaths > self.counters.max_restarts.load(Ordering::SeqCst) {
            say(
                Priority::Err,
                format!("plugin {} has exceeded max_restarts", self.conf.path),
            );
            self.give_up();
            return;
        }
        self.spawn();
        if self.proc.is_some() {
            self.counters.restarts.fetch_add(1, Ordering::SeqCst);
            say(
                Priority::Notice,
                format!("plugin {} was restarted", self.conf.path),
            );
        }
    }

    fn inbox_stopping(&self) -> bool {
        self.inbox
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .stop_by
            .is_some()
    }

    fn give_up(&mut self) {
        self.counters.gave_up.store(true, Ordering::SeqCst);
        self.drop_pending();
    }

    /// At stop: close the plugin's stdin so it reads the rest and exits;
    /// SIGTERM if it has not by `by` (at least [`EXIT_GRACE`] after the
    /// close), SIGKILL [`EXIT_GRACE`] later. What it never read is dropped.
    fn finish(mut self, by: Instant) {
        if let Some(p) = self.proc.as_ref() {
            let _ = p.sock.shutdown(std::net::Shutdown::Write);
            let term_at = by.max(Instant::now() + EXIT_GRACE);
            let mut signalled = false;
            loop {
                self.trim();
                let Some(p) = self.proc.as_mut() else { break };
                if let Ok(Some(_)) = p.child.try_wait() {
                    break;
                }
                let now = Instant::now();
                if now >= term_at + EXIT_GRACE {
                    let _ = p.child.kill();
                    let _ = p.child.wait();
                    break;
                }
                if now >= term_at && !signalled {
                    signalled = true;
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(p.child.id() as i32),
                        nix::sys::signal::SIGTERM,
                    );
                }
                let mut fds = [PollFd::new(p.pidfd.as_fd(), PollFlags::POLLIN)];
                let _ = poll(&mut fds, PollTimeout::from(50u16));
            }
            self.trim();
        }
        self.proc = None;
        self.counters.pid.store(0, Ordering::SeqCst);
        self.take_inbox();
        self.drop_pending();
    }
}

/// "exit 1", "signal 9" for the messages.
fn describe(s: &std::process::ExitStatus) -> String {
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(sig)) => format!("signal {sig}"),
        _ => s.to_string(),
    }
}
