//! Being the kernel's audit daemon: save the state found, register, set
//! the kernel up so it audits no syscall itself (`-a never,task` only), read
//! every record it sends on a thread of its own, and put everything back.
//!
//! The reader thread never blocks on anything but the socket: records go
//! into a bounded queue drained by the log side, and a full queue drops
//! (and counts) instead of waiting, because a daemon that stops reading
//! makes kauditd sleep and then every task that emits a record wait up to
//! backlog_wait_time.

use crate::proto::{self, mask, Record, Status};
use crate::socket::{AuditSocket, SignalInfo, RECV_BUF};
use crate::state::SavedState;
use crate::NetlinkError;
use nix::errno::Errno;
use nix::sys::socket::{setsockopt, sockopt, MsgFlags};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How fastaudit becomes the daemon.
#[derive(Clone, Debug)]
pub struct DaemonOptions {
    /// Stop a registered audit daemon (SIGTERM) and take its place.
    pub take_over: bool,
    /// Where the state found at start is kept (`/run/fastaudit/kernel-state`).
    pub state_file: PathBuf,
    /// Records the queue between the reader thread and the log holds.
    pub queue: usize,
    /// The socket's receive buffer (SO_RCVBUFFORCE), in bytes.
    pub rcvbuf: usize,
}

impl Default for DaemonOptions {
    fn default() -> Self {
        DaemonOptions {
            take_over: false,
            state_file: PathBuf::from("/run/fastaudit/kernel-state"),
            queue: 65536,
            rcvbuf: 32 << 20,
        }
    }
}

/// Counters of the reader thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReaderStats {
    /// Records read from the kernel.
    pub received: u64,
    /// Records dropped because the queue to the log was full.
    pub dropped: u64,
    /// Times the socket buffer overflowed (ENOBUFS; records lost, count unknown).
    pub overruns: u64,
    /// Other read errors (the reader reads on after each).
    pub errors: u64,
}

#[derive(Default)]
struct Counters {
    /// Records in the queue now (bounded by `DaemonOptions::queue`).
    queued: AtomicUsize,
    received: AtomicU64,
    dropped: AtomicU64,
    overruns: AtomicU64,
    errors: AtomicU64,
}

/// fastaudit registered as the kernel's audit daemon. Dropping it without
/// [`KernelDaemon::stop`] still puts the kernel back (best effort).
pub struct KernelDaemon {
    ctl: AuditSocket,
    saved: SavedState,
    state_file: PathBuf,
    rx: Receiver<Record>,
    quit: Arc<AtomicBool>,
    counters: Arc<Counters>,
    reader: Option<JoinHandle<Result<(), NetlinkError>>>,
    stopped: bool,
    locked: bool,
    /// Notes for the operator about what was found at start.
    pub notes: Vec<String>,
}

fn alive(pid: u32) -> bool {
    pid != 0 && std::path::Path::new(&format!("/proc/{pid}")).exists()
}

fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|s| s.trim_end().to_string())
        .unwrap_or_else(|_| "?".into())
}

impl KernelDaemon {
    /// Register as the audit daemon: refuse while another daemon is
    /// registered (unless `take_over`), save the state found, clear the
    /// kernel's rules down to `-a never,task` and start reading. Audit is
    /// not enabled yet: see [`KernelDaemon::enable`].
    pub fn start(opts: &DaemonOptions) -> Result<KernelDaemon, NetlinkError> {
        let me = std::process::id();
        let mut ctl = AuditSocket::open(Duration::from_secs(1))?;
        let mut status = ctl.status()?;
        // Locked (-e 2) until reboot: settings and rules cannot change, but
        // a daemon can still register. Only a kernel an earlier fastaudit
        // locked (never,task alone) is one it can work with.
        let locked = status.enabled == 2;
        if locked && ctl.rules()? != [proto::never_task_rule()] {
            return Err(NetlinkError::Locked);
        }
        let mut notes = Vec::new();
        if let Some(after) = other_daemon(&mut ctl, &status, opts, me, &mut notes)? {
            status = after;
        }
        let saved = saved_state(&mut ctl, &status, opts, me, locked, &mut notes)?;
        // Saved before anything is changed, so a crash from here on can be
        // undone by the next start.
        saved.store(&opts.state_file)?;

        let records = records_socket(opts)?;
        // Bounded by a count rather than by a sync_channel, which allocates
        // and writes every slot at creation (4.5 MB resident while idle).
        let (tx, rx) = channel();
        let mut daemon = KernelDaemon {
            ctl,
            saved,
            state_file: opts.state_file.clone(),
            rx,
            quit: Arc::new(AtomicBool::new(false)),
            counters: Arc::new(Counters::default()),
            reader: None,
            stopped: false,
            locked,
            notes,
        };
        daemon.start_reading(records, me, tx, opts.queue.max(1))?;
        if locked {
            daemon.notes.push(
                "the kernel audit is locked (-e 2) until reboot: its settings stay as they are"
                    .into(),
            );
            return Ok(daemon);
        }
        // Only -a never,task: no task created from now on gets an audit
        // context, so the kernel audits no syscall itself.
        for r in daemon.ctl.rules()? {
            daemon.ctl.del_rule(&r)?;
        }
        daemon.ctl.add_rule(&proto::never_task_rule())?;
        Ok(daemon)
    }

    /// Registers on `records` and starts the thread reading it into `tx`,
    /// at most `limit` records queued (the records the registration's
    /// answer brought first). A registration refused leaves nothing to
    /// undo but the state file, removed.
    fn start_reading(
        &mut self,
        mut records: AuditSocket,
        me: u32,
        tx: Sender<Record>,
        limit: usize,
    ) -> Result<(), NetlinkError> {
        let counters = Arc::clone(&self.counters);
        let early = register(&mut records, me).map_err(|e| match e {
            NetlinkError::Refused {
                errno: Errno::EEXIST,
                ..
            } => {
                let pid = self.ctl.status().map(|s| s.pid).unwrap_or(0);
                NetlinkError::OtherDaemon {
                    pid,
                    comm: comm(pid),
                }
            }
            e => e,
        });
        let early = match early {
            Ok(e) => e,
            Err(e) => {
                // Nothing registered: only the state file to take back.
                self.stopped = true;
                let _ = std::fs::remove_file(&self.state_file);
                return Err(e);
            }
        };
        for r in early {
            push(&tx, &counters, limit, r);
        }
        let quit = Arc::clone(&self.quit);
        self.reader = Some(
            std::thread::Builder::new()
                .name("fa-kernel-rx".into())
                .spawn(move || read_records(records, tx, limit, quit, counters))
                .map_err(|e| NetlinkError::State {
                    path: "starting the kernel record reader".into(),
                    source: e,
                })?,
        );
        Ok(())
    }

    /// Whether the kernel audit is locked (`-e 2`): nothing can be set.
    pub fn locked(&self) -> bool {
        self.locked
    }

    /// The state found at start (put back at stop).
    pub fn saved(&self) -> &SavedState {
        &self.saved
    }

    /// The kernel's audit status now.
    pub fn status(&mut self) -> Result<Status, NetlinkError> {
        self.ctl.status()
    }

    /// Set one kernel setting (`mask::*`).
    pub fn set(&mut self, field: u32, value: u32) -> Result<(), NetlinkError> {
        self.ctl.set(field, value)
    }

    /// Turn the kernel audit on (after the BPF side is loaded, so its own
    /// program loads are not logged as BPF records).
    pub fn enable(&mut self) -> Result<(), NetlinkError> {
        self.ctl.set(mask::ENABLED, 1)
    }

    /// Put `-a never,task` back if someone removed it (a rule change seen
    /// in a CONFIG_CHANGE record); returns whether it had to.
    pub fn keep_never_task(&mut self) -> Result<bool, NetlinkError> {
        if self.locked {
            return Ok(false);
        }
        let rules = self.ctl.rules()?;
        if rules.first().is_some_and(|r| proto::is_never_task(r)) {
            return Ok(false);
        }
        // Deleted, or another task rule put before it: never,task first.
        for r in rules.iter().filter(|r| proto::is_never_task(r)) {
            self.ctl.del_rule(r)?;
        }
        // The kernel appends task rules; re-adding the others keeps ours first.
        let others: Vec<&Vec<u8>> = rules
            .iter()
            .filter(|r| !proto::is_never_task(r) && r.first().map(|b| b & 7) == Some(1))
            .collect();
        for r in &others {
            self.ctl.del_rule(r)?;
        }
        self.ctl.add_rule(&proto::never_task_rule())?;
        for r in others {
            self.ctl.add_rule(r)?;
        }
        Ok(true)
    }

    /// Make loginuid immutable, irreversibly (`--loginuid-immutable`).
    pub fn set_loginuid_immutable(&mut self) -> Result<(), NetlinkError> {
        self.ctl.set_loginuid_immutable()
    }

    /// Who last sent TERM/HUP/USR1/USR2 to the daemon.
    pub fn signal_info(&mut self) -> Result<SignalInfo, NetlinkError> {
        self.ctl.signal_info()
    }

    /// Records read so far, without waiting.
    pub fn drain(&mut self, mut each: impl FnMut(Record)) {
        loop {
            match self.rx.try_recv() {
                Ok(r) => {
                    self.counters.queued.fetch_sub(1, Ordering::Relaxed);
                    each(r)
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return,
            }
        }
    }

    /// The reader thread's counters.
    pub fn stats(&self) -> ReaderStats {
        ReaderStats {
            received: self.counters.received.load(Ordering::Relaxed),
            dropped: self.counters.dropped.load(Ordering::Relaxed),
            overruns: self.counters.overruns.load(Ordering::Relaxed),
            errors: self.counters.errors.load(Ordering::Relaxed),
        }
    }

    /// Put back the state found at start (settings, rules, enabled flag),
    /// wait for the kernel's queue to empty, unregister and stop the reader.
    /// Records still queued are left for [`KernelDaemon::drain`]. Every step
    /// is tried; the first error is returned.
    pub fn stop(&mut self) -> Result<(), NetlinkError> {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        let mut first: Option<NetlinkError> = None;
        let mut note = |r: Result<(), NetlinkError>| {
            if let Err(e) = r {
                first.get_or_insert(e);
            }
        };
        if !self.locked {
            note(self.restore());
        }
        // What the restore logged (CONFIG_CHANGE) reaches us before we go.
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline && self.ctl.status().is_ok_and(|s| s.backlog > 0) {
            std::thread::sleep(Duration::from_millis(10));
        }
        note(self.ctl.set(mask::PID, 0));
        self.quit.store(true, Ordering::Release);
        if let Some(t) = self.reader.take() {
            note(t.join().unwrap_or_else(|_| {
                Err(NetlinkError::Protocol("the record reader panicked".into()))
            }));
        }
        if first.is_none() {
            let _ = std::fs::remove_file(&self.state_file);
        }
        first.map_or(Ok(()), Err)
    }

    fn restore(&mut self) -> Result<(), NetlinkError> {
        let s = self.saved.clone();
        let now = self.ctl.status()?;
        for (m, want, have) in [
            (mask::FAILURE, s.failure, now.failure),
            (mask::RATE_LIMIT, s.rate_limit, now.rate_limit),
            (mask::BACKLOG_LIMIT, s.backlog_limit, now.backlog_limit),
            (
                mask::BACKLOG_WAIT_TIME,
                s.backlog_wait_time,
                now.backlog_wait_time,
            ),
        ] {
            if want != have {
                self.ctl.set(m, want)?;
            }
        }
        let rules = self.ctl.rules()?;
        if rules != s.rules {
            for r in &rules {
                self.ctl.del_rule(r)?;
            }
            // Byte for byte as listed at start, in the same order.
            for r in &s.rules {
                self.ctl.add_rule(r)?;
            }
        }
        if now.enabled != s.enabled {
            self.ctl.set(mask::ENABLED, s.enabled)?;
        }
        Ok(())
    }
}

impl Drop for KernelDaemon {
    fn drop(&mut self) {
        // An error path of the caller: put the kernel back all the same.
        let _ = self.stop();
    }
}

/// Another audit daemon registered and alive: an error, or with
/// `take_over` stopped (noted) and the kernel's status after it. A pid
/// whose process is gone is a crashed daemon the kernel has not noticed
/// yet (it notices at the next record): registering resets it.
fn other_daemon(
    ctl: &mut AuditSocket,
    status: &Status,
    opts: &DaemonOptions,
    me: u32,
    notes: &mut Vec<String>,
) -> Result<Option<Status>, NetlinkError> {
    if status.pid == 0 || status.pid == me || !alive(status.pid) {
        return Ok(None);
    }
    let pid = status.pid;
    if !opts.take_over {
        return Err(NetlinkError::OtherDaemon {
            pid,
            comm: comm(pid),
        });
    }
    notes.push(format!(
        "took over from the audit daemon pid {pid} ({}), stopped with SIGTERM",
        comm(pid)
    ));
    take_over(ctl, pid).map(Some)
}

/// The state to put back at stop: the kernel's now, or the one a run that
/// did not stop cleanly saved (noted); an error while another live
/// fastaudit owns the state file.
fn saved_state(
    ctl: &mut AuditSocket,
    status: &Status,
    opts: &DaemonOptions,
    me: u32,
    locked: bool,
    notes: &mut Vec<String>,
) -> Result<SavedState, NetlinkError> {
    Ok(match SavedState::load(&opts.state_file)? {
        // Nothing can be changed, so nothing is put back.
        _ if locked => SavedState::of(me, status, vec![proto::never_task_rule()]),
        // Left by a run that did not stop cleanly: the kernel now holds
        // that run's settings, the file the ones to go back to.
        Some(s) if s.owner != me && !(alive(s.owner) && comm(s.owner) == "fastaudit") => {
            notes.push(format!(
                "{}: a previous run (pid {}) did not stop cleanly; the state it found is put back at stop",
                opts.state_file.display(),
                s.owner
            ));
            SavedState { owner: me, ..s }
        }
        Some(s) if s.owner != me => {
            return Err(NetlinkError::OtherDaemon {
                pid: s.owner,
                comm: comm(s.owner),
            })
        }
        _ => SavedState::of(me, status, ctl.rules()?),
    })
}

/// The socket the kernel's records come on, its buffer sized.
fn records_socket(opts: &DaemonOptions) -> Result<AuditSocket, NetlinkError> {
    let records = AuditSocket::open(Duration::from_millis(100))?;
    // Room for bursts while the reader is descheduled: when the buffer is
    // full, kauditd sleeps and record writers queue up behind it.
    let rcvbuf = opts.rcvbuf;
    if setsockopt(&records.fd, sockopt::RcvBufForce, &rcvbuf).is_err() {
        setsockopt(&records.fd, sockopt::RcvBuf, &rcvbuf)
            .map_err(NetlinkError::sys("sizing the records socket's buffer"))?;
    }
    Ok(records)
}

/// SIGTERM the registered daemon and wait (10 s at most) until the kernel
/// has no daemon; returns the status then.
fn take_over(ctl: &mut AuditSocket, pid: u32) -> Result<Status, NetlinkError> {
    let target = nix::unistd::Pid::from_raw(pid as i32);
    nix::sys::signal::kill(target, nix::sys::signal::SIGTERM)
        .map_err(NetlinkError::sys("signalling the audit daemon to stop"))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let s = ctl.status()?;
        if s.pid == 0 || !alive(s.pid) {
            return Ok(s);
        }
        if Instant::now() > deadline {
            return Err(NetlinkError::OtherDaemon {
                pid,
                comm: format!("{}, still registered 10 s after SIGTERM", comm(pid)),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `AUDIT_SET pid` from the records socket (records go to the socket that
/// registers). Records the kernel sends before the ACK are returned.
fn register(sock: &mut AuditSocket, me: u32) -> Result<Vec<Record>, NetlinkError> {
    let s = Status {
        mask: mask::PID,
        pid: me,
        ..Status::default()
    };
    let seq = sock.send(proto::AUDIT_SET, &s.to_bytes(), true)?;
    let mut early = Vec::new();
    let mut buf = vec![0u8; RECV_BUF];
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        let Some(n) = sock
            .recv(&mut buf, MsgFlags::empty())
            .map_err(NetlinkError::sys("reading the registration's answer"))?
        else {
            continue;
        };
        let Some((ty, mseq, payload)) = proto::record_message(&buf[..n]) else {
            continue;
        };
        if ty == proto::NLMSG_ERROR && mseq == seq {
            let code = proto::error_code(payload);
            if code < 0 {
                return Err(NetlinkError::Refused {
                    what: "AUDIT_SET pid".into(),
                    errno: Errno::from_raw(-code),
                });
            }
            return Ok(early);
        }
        if is_record(ty) {
            early.push(Record::parse(ty, payload));
        }
    }
    Err(NetlinkError::Timeout {
        what: "AUDIT_SET pid".into(),
    })
}

/// Whether a message type is a record to log (auditd's netlink_handler
/// drops the same ones: replies, daemon types, the REPLACE probe).
fn is_record(ty: u16) -> bool {
    !matches!(ty,
        0..=15
        | proto::AUDIT_GET
        | proto::AUDIT_LIST_RULES
        | proto::AUDIT_SIGNAL_INFO
        | 1200..=1299
        | proto::AUDIT_REPLACE)
}

/// Queue `r` unless `limit` records wait already (then it is dropped and
/// counted); false once the receiving side is gone.
fn push(tx: &Sender<Record>, c: &Counters, limit: usize, r: Record) -> bool {
    c.received.fetch_add(1, Ordering::Relaxed);
    // The reader is the only sender: the count cannot pass the limit.
    if c.queued.load(Ordering::Relaxed) >= limit {
        c.dropped.fetch_add(1, Ordering::Relaxed);
        return true;
    }
    c.queued.fetch_add(1, Ordering::Relaxed);
    tx.send(r).is_ok()
}

/// The reader thread: socket → queue, until told to quit; then what is
/// left in the socket is read without waiting. It never stops on an error.
fn read_records(
    sock: AuditSocket,
    tx: Sender<Record>,
    limit: usize,
    quit: Arc<AtomicBool>,
    c: Arc<Counters>,
) -> Result<(), NetlinkError> {
    let mut buf = vec![0u8; RECV_BUF];
    loop {
        let quitting = quit.load(Ordering::Acquire);
        let flags = if quitting {
            MsgFlags::MSG_DONTWAIT
        } else {
            MsgFlags::empty()
        };
        match sock.recv(&mut buf, flags) {
            Ok(Some(n)) => {
                if let Some((ty, _, payload)) = proto::record_message(&buf[..n]) {
                    if is_record(ty) && !push(&tx, &c, limit, Record::parse(ty, payload)) {
                        return Ok(());
                    }
                }
            }
            Ok(None) if quitting => return Ok(()),
            Ok(None) => {}
            // The socket buffer overflowed: records were lost in the kernel.
            Err(Errno::ENOBUFS) => {
                c.overruns.fetch_add(1, Ordering::Relaxed);
            }
            // A reader that gave up would leave the kernel waiting on a live
            // socket nobody reads (writers stalled): count and read on.
            Err(_) => {
                c.errors.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}
