//! Running a plan: load the BPF object with exactly the plan's programs,
//! write the plan's map images, attach the plan's attachment list, and
//! turn ring-buffer events into audit events (assembled by `read`,
//! decoded by `decode`, on the reading thread) until told to stop. Nothing
//! is decided here; every hook is detached when [`run`] returns, on every
//! path.

use crate::decode::event::decode;
use crate::error::{bpf, EngineError};
use crate::event::AuditEvent;
use crate::host::facts::Facts;
use crate::load::generation::{self, read_stats, Attached, Generation};
use crate::load::watches::WatchTable;
use crate::options::Options;
use crate::plan::Plan;
use crate::read::ring::Ring;
use crate::read::samples::{Ready, Samples};
use crate::read::uring_groups::Groups;
use fastaudit_bpf::types::{fa_event, fa_event_flag};
use fastaudit_records::Syscall;
use libbpf_rs::MapHandle;
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Counters of a run: generated = delivered + lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Events the kernel side put into the ring buffer.
    pub emitted: u64,
    /// Events the kernel side could not queue (ring buffer full).
    pub lost: u64,
    /// Events handed to the caller.
    pub delivered: u64,
    /// Auxiliary records the kernel side could not queue (their events
    /// are marked `aux_lost`).
    pub aux_lost: u64,
}

/// Run `plan` until `stop` is set. `ready` is called once every hook is
/// attached (or at once when the plan needs none); `on_event` gets each
/// audited syscall in order, and `on_batch` is called after each batch of
/// them (the moment to write them out) and, while idle, every idle period
/// (about 20 ms), so the caller can also write out what it queued itself.
pub fn run(
    plan: &Plan,
    options: Options,
    stop: &AtomicBool,
    ready: impl FnOnce(&Attached),
    on_event: impl FnMut(AuditEvent),
    on_batch: impl FnMut(),
) -> Result<Stats, EngineError> {
    let mut calls = Calls {
        ready: Some(ready),
        on_event,
        on_batch,
    };
    run_live(plan.clone(), options, stop, &mut calls)
}

/// Load and attach the first generation; where the kernel refuses some of
/// its programs, again with the plan the handler makes without them,
/// until it loads or nothing can be audited without them.
fn load_first<H: Handler>(
    mut plan: Plan,
    options: Options,
    handler: &mut H,
) -> Result<Generation, EngineError> {
    let mut refused: Vec<crate::plan::refusal::Refusal> = plan.refused.clone();
    loop {
        match Generation::load(plan, options, 0, None) {
            Err(EngineError::Refused(now)) => {
                let before = refused.len();
                for r in now {
                    if !refused.iter().any(|k| k.program == r.program) {
                        refused.push(r);
                    }
                }
                // The same program refused again: the plan cannot do without it.
                if refused.len() == before {
                    return Err(EngineError::Refused(refused));
                }
                let Some(next) = handler.replan(&refused) else {
                    return Err(EngineError::Refused(refused));
                };
                if let Some(why) = next.hook_kind_problem() {
                    return Err(EngineError::Plan(why));
                }
                if next.attachments.is_empty() {
                    return Err(EngineError::Plan(format!(
                        "nothing can be audited: every hook the rules need was refused:\n{}",
                        next.degraded.join("\n")
                    )));
                }
                crate::load::start_trace::mark("plan made again without the refused programs");
                plan = next;
            }
            other => return other,
        }
    }
}

/// What [`run_live`] tells its caller, and asks it, as it runs.
pub trait Handler {
    /// Every hook of the first plan is attached (or it needs none).
    fn ready(&mut self, attached: &Attached);
    /// The kernel refused programs of the plan (at load or attach): the
    /// plan made again without them (every refusal so far in
    /// [`crate::Environment::refused`]), or `None` to give up.
    fn replan(&mut self, _refused: &[crate::plan::refusal::Refusal]) -> Option<Plan> {
        None
    }
    /// Asked between batches: a new plan to switch to, if one is wanted.
    fn reload(&mut self) -> Option<Plan> {
        None
    }
    /// The outcome of the switch to the plan [`Handler::reload`] gave: its
    /// attachments once it judges every syscall, or why it could not be
    /// loaded or attached (then the running rule set goes on).
    fn swapped(&mut self, _outcome: Result<&Attached, &EngineError>) {}
    /// One audited syscall, in order.
    fn event(&mut self, event: AuditEvent);
    /// After each batch of events (the moment to write them out) and,
    /// while idle, every idle period (about 20 ms), so the caller can also
    /// write out what it queued itself.
    fn batch(&mut self);
    /// The run's counters so far, read from the BPF side about every
    /// [`STATS_EVERY`] between batches: losses are known while they
    /// happen, not only at the stop (the final counts are [`run_live`]'s
    /// result).
    fn stats(&mut self, _stats: &Stats) {}
}

/// [`run`]'s closures as a [`Handler`] that never switches.
struct Calls<R, E, B> {
    ready: Option<R>,
    on_event: E,
    on_batch: B,
}

impl<R: FnOnce(&Attached), E: FnMut(AuditEvent), B: FnMut()> Handler for Calls<R, E, B> {
    fn ready(&mut self, attached: &Attached) {
        if let Some(f) = self.ready.take() {
            f(attached);
        }
    }

    fn event(&mut self, event: AuditEvent) {
        (self.on_event)(event);
    }

    fn batch(&mut self) {
        (self.on_batch)();
    }
}

/// Ring-buffer samples read before they are delivered: a few hundred
/// events, whose lines are written with one write(2).
const CHUNK: usize = 1024;

/// The reader's wait when the ring buffer was found empty: the first after
/// events came, then doubled each time it is empty again, up to the
/// longest (events are queued without a wakeup).
const BUSY_WAIT: Duration = Duration::from_millis(1);
const IDLE_WAIT: Duration = Duration::from_millis(20);

/// How often the BPF side's counters are read while running: often
/// enough for `ctl -s` and a loss record to be current, rare enough that
/// the per-CPU lookup costs nothing under load.
pub const STATS_EVERY: Duration = Duration::from_millis(100);

/// How long each step of a switch lets syscalls in flight finish.
const HANDOVER_GRACE: Duration = Duration::from_millis(50);

/// As [`run`], with `handler` told of each step, and switching rule sets
/// without a gap when [`Handler::reload`] hands a new plan: the new one is loaded and attached beside the running one,
/// sharing its ring buffer, task lists and saved exec arguments; one map
/// update makes it the one whose judgment counts (handover.bpf.h: a
/// syscall ending during the switch is judged by exactly one of the two);
/// then the old one is detached. Every event is assembled with the plan
/// of the rule set that judged it.
pub fn run_live<H: Handler>(
    plan: Plan,
    options: Options,
    stop: &AtomicBool,
    handler: &mut H,
) -> Result<Stats, EngineError> {
    if plan.attachments.is_empty() {
        if let Some(why) = plan.hook_kind_problem() {
            return Err(EngineError::Plan(why));
        }
        return Ok(run_without_hooks(stop, handler));
    }
    let size = ring_size(&options)?;
    let mut owner = load_first(plan, options, handler)?;
    // Plans by generation: events still queued from a replaced rule set
    // are assembled with its plan.
    let mut plans: Vec<Plan> = vec![owner.plan.clone()];
    let first_follower = owner.follower()?;
    let clock = Clock::now();
    let ring =
        Ring::new(owner.skel.maps.events.as_fd(), size as usize).map_err(|e| EngineError::Bpf {
            what: "setting up the ring buffer".into(),
            source: libbpf_rs::Error::from(e),
        })?;
    crate::load::start_trace::mark("ring buffer mapped");
    handler.ready(&owner.attached);
    // The kernel's facts are probed now, with every hook in (not delaying
    // them; events wait in the ring meanwhile).
    let mut reader = Reader::new(ring, clock, Facts::probe());

    // The generation running now, when it is not the owner.
    let mut current: Option<Generation> = None;
    let followed = std::thread::scope(|scope| {
        let mut followers = Vec::new();
        let mut spawn = |f: Option<(WatchTable, MapHandle)>, quit: Arc<AtomicBool>| {
            if let Some((table, map)) = f {
                followers.push(scope.spawn(move || generation::follow(table, &map, &quit)));
            }
        };
        spawn(first_follower, Arc::clone(&owner.quit));
        let mut nap = IDLE_WAIT;
        let mut stats_read = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            if let Some(next) = handler.reload() {
                let number = plans.len() as u32;
                match Generation::load(next, options, number, Some(&owner.skel)) {
                    Err(e) => handler.swapped(Err(&e)),
                    Ok(mut g) => {
                        plans.push(g.plan.clone());
                        spawn(g.follower().unwrap_or(None), Arc::clone(&g.quit));
                        switch(&owner, &mut current, g, &plans, &mut reader, handler);
                    }
                }
            }
            let idle = reader.read_chunks(&plans, handler, stop);
            if stats_read.elapsed() >= STATS_EVERY {
                stats_read = Instant::now();
                // Best effort: a failed read leaves the last counts.
                if let Ok((emitted, lost, aux_lost)) = read_stats(&owner.skel) {
                    let live = Stats {
                        emitted,
                        lost,
                        aux_lost,
                        ..reader.stats
                    };
                    handler.stats(&live);
                }
            }
            // Idle, wait: briefly right after a busy spell (at full rate
            // a 20 ms wait let ~10k events pile up and the ring overflow
            // while the reader slept), longer and longer while it stays
            // idle, up to IDLE_WAIT; a ring more than half full wakes it
            // at once (maps.bpf.h: event_wakeup).
            if idle {
                reader.ring.wait(nap);
                nap = (nap * 2).min(IDLE_WAIT);
            } else {
                nap = BUSY_WAIT;
            }
        }
        // Whatever ended the loop ends the followers too.
        owner.quit.store(true, Ordering::Relaxed);
        if let Some(c) = current.as_ref() {
            c.quit.store(true, Ordering::Relaxed);
        }
        let mut result = Ok(());
        for f in followers {
            let r = f.join().unwrap_or(Ok(()));
            if result.is_ok() {
                result = r;
            }
        }
        result
    });
    followed.map_err(bpf("reading the ring buffer or following watched paths"))?;
    owner.detach();
    if let Some(c) = current.as_ref() {
        c.detach();
    }
    reader.consume(usize::MAX);
    reader.deliver(&plans, handler);
    let (emitted, lost, aux_lost) = read_stats(&owner.skel)?;
    let mut stats = reader.stats;
    stats.emitted = emitted;
    stats.lost = lost;
    stats.aux_lost = aux_lost;
    let mut ids = owner.program_ids();
    ids.extend(
        current
            .as_ref()
            .map(Generation::program_ids)
            .unwrap_or_default(),
    );
    drop(current);
    drop(owner);
    wait_unloaded(&ids);
    Ok(stats)
}

/// The ring buffer's size in bytes, if the kernel takes it: a power of
/// two of at least a page.
fn ring_size(options: &Options) -> Result<u32, EngineError> {
    let size = options.ring_buffer_bytes;
    if !size.is_power_of_two() || size < 4096 {
        return Err(EngineError::Plan(format!(
            "ring buffer size {size} must be a power of two of at least 4096 bytes"
        )));
    }
    Ok(size)
}

/// How long the stop waits for the kernel to free the programs.
const UNLOAD_WAIT: Duration = Duration::from_secs(2);

/// Wait until the kernel has freed the programs `ids` (closing their fds
/// frees them later: a link's last reference goes after an RCU grace
/// period, from a work queue). The kernel writes a program's BPF
/// `op=UNLOAD` record just before freeing its id, so once no id opens,
/// every UNLOAD record is queued for the audit daemon, which logs them
/// before its DAEMON_END. Bounded: a program another process holds (a
/// pinned one, bpftool's open fd) may outlive the stop.
fn wait_unloaded(ids: &[u32]) {
    let deadline = Instant::now() + UNLOAD_WAIT;
    let mut nap = Duration::from_millis(1);
    while ids
        .iter()
        .any(|&id| libbpf_rs::Program::fd_from_id(id).is_ok())
    {
        if Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(50));
    }
}

/// A plan with nothing to attach: ready at once, then only the caller's
/// batches until `stop`.
fn run_without_hooks(stop: &AtomicBool, handler: &mut impl Handler) -> Stats {
    handler.ready(&Attached::default());
    while !stop.load(Ordering::Relaxed) {
        handler.batch();
        std::thread::sleep(Duration::from_millis(20));
    }
    Stats::default()
}

/// The ring buffer's reader: samples read, assembled into audit events
/// with the plan of the generation that judged them, and delivered.
struct Reader {
    ring: Ring,
    pending: Samples,
    uring_groups: Groups,
    /// The last chunk's room, reused for the next.
    spare: Vec<Ready>,
    clock: Clock,
    stats: Stats,
    /// How this kernel writes the records decoding fills in.
    kernel: Facts,
}

impl Reader {
    fn new(ring: Ring, clock: Clock, kernel: Facts) -> Reader {
        Reader {
            ring,
            pending: Samples::default(),
            uring_groups: Groups::default(),
            spare: Vec::new(),
            clock,
            stats: Stats::default(),
            kernel,
        }
    }

    /// Read up to `max` samples; returns how many.
    fn consume(&mut self, max: usize) -> usize {
        let pending = &mut self.pending;
        self.ring.consume(max, |data| pending.push(data))
    }

    /// Deliver the events read so far, then let the caller write them
    /// out (idle too: it may have queued output of its own). Returns
    /// whether there was anything to deliver.
    fn deliver(&mut self, plans: &[Plan], handler: &mut impl Handler) -> bool {
        let before = self.stats.delivered;
        let mut ready = self.pending.take(std::mem::take(&mut self.spare));
        for (ev, exe, subj, aux) in ready.drain(..) {
            self.stats.delivered += 1;
            let plan = plans
                .get(ev.generation as usize)
                .or_else(|| plans.last())
                .expect("at least one plan");
            let clock = &self.clock;
            if let Some(mut out) = self
                .uring_groups
                .take(plan, &ev, &subj, |e| assemble(plan, e, exe, &subj, clock))
            {
                // Decoded here, on this thread, before the handler formats it.
                decode(&mut out, &aux, &self.kernel);
                handler.event(out);
            }
        }
        self.spare = ready;
        handler.batch();
        self.stats.delivered > before
    }

    /// Events are queued without waking us (BPF_RB_NO_WAKEUP) until the
    /// ring is half full, so the ring is read on a short period rather
    /// than at every event's wakeup.
    /// Under load, a chunk at a time, each delivered (and written) before
    /// the next is read: what is read stays in the cache, and no batch
    /// grows with the ring's size. Returns whether it was idle.
    fn read_chunks(
        &mut self,
        plans: &[Plan],
        handler: &mut impl Handler,
        stop: &AtomicBool,
    ) -> bool {
        let mut idle = true;
        loop {
            let n = self.consume(CHUNK);
            idle &= !self.deliver(plans, handler);
            if n < CHUNK || stop.load(Ordering::Relaxed) {
                return idle;
            }
        }
    }
}

/// Hand over from the running generation to `next`, loaded and attached
/// (its plan last in `plans`), reading on while syscalls in flight
/// finish; on failure the running one goes on. The handler is told
/// either way.
fn switch(
    owner: &Generation,
    current: &mut Option<Generation>,
    next: Generation,
    plans: &[Plan],
    reader: &mut Reader,
    handler: &mut impl Handler,
) {
    let r = handover(owner, current.as_ref(), next.number, |d| {
        let until = Instant::now() + d;
        loop {
            reader.consume(usize::MAX);
            reader.deliver(plans, handler);
            if Instant::now() >= until {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    });
    match r {
        Ok(()) => {
            handler.swapped(Ok(&next.attached));
            // The old one's maps go with it; the owner's stay.
            *current = Some(next);
        }
        Err(e) => {
            next.detach();
            // Back to the running one (the switch may have stopped half way).
            let _ = owner.set_handover(current.as_ref().map_or(owner.number, |c| c.number), false);
            handler.swapped(Err(&e));
        }
    }
}

/// Switch from the running generation (`current`, else the owner) to
/// `next`, already attached: overlap on, the switch, the old one detached,
/// overlap off. `wait` keeps events flowing while syscalls in flight
/// finish each step.
fn handover(
    owner: &Generation,
    current: Option<&Generation>,
    next: u32,
    mut wait: impl FnMut(Duration) -> Result<(), libbpf_rs::Error>,
) -> Result<(), EngineError> {
    let reading = bpf("reading the ring buffer during a rule change");
    let old = current.map_or(owner.number, |c| c.number);
    owner.set_handover(old, true)?;
    wait(HANDOVER_GRACE).map_err(reading)?;
    // Decisions taken before both were attached may be stale; any taken
    // now is for the old one, as every one so far.
    owner.clear_decisions();
    owner.set_handover(next, true)?;
    wait(HANDOVER_GRACE).map_err(bpf("reading the ring buffer during a rule change"))?;
    // The owner's maps stay; only its hooks go.
    current.unwrap_or(owner).detach();
    owner.set_handover(next, false)?;
    owner.clear_decisions();
    Ok(())
}

/// Converts the kernel's monotonic clock to wall-clock time.
pub(crate) struct Clock {
    offset_ns: i128,
}

impl Clock {
    fn now() -> Clock {
        use nix::time::{clock_gettime, ClockId};
        let ns = |c| {
            clock_gettime(c)
                .map(|t| t.tv_sec() as i128 * 1_000_000_000 + t.tv_nsec() as i128)
                .unwrap_or(0)
        };
        Clock {
            offset_ns: ns(ClockId::CLOCK_REALTIME) - ns(ClockId::CLOCK_MONOTONIC),
        }
    }

    fn wall(&self, mono_ns: u64) -> (u64, u32) {
        let t = (mono_ns as i128 + self.offset_ns).max(0) as u128;
        (
            (t / 1_000_000_000) as u64,
            ((t % 1_000_000_000) / 1_000_000) as u32,
        )
    }
}

/// exe= for a path the kernel's d_path cannot give (too long), as the
/// kernel writes it: never a shorter path that could pass for another.
const EXE_TOO_LONG: &[u8] = b"<too_long>";

pub(crate) fn assemble(
    plan: &Plan,
    ev: &fa_event,
    exe: Vec<u8>,
    subj: &[u8],
    clock: &Clock,
) -> AuditEvent {
    let (sec, msec) = clock.wall(ev.msg.stamp);
    // The skeleton's char arrays are i8 on every target (BPF's char is
    // signed), not the host's c_char (u8 on aarch64).
    let bytes =
        |v: &[i8]| -> Vec<u8> { v.iter().map(|&c| c as u8).take_while(|&c| c != 0).collect() };
    let exe = if ev.flags & fa_event_flag::FA_EV_EXE_TOO_LONG.0 != 0 {
        Some(EXE_TOO_LONG.to_vec())
    } else {
        (!exe.is_empty()).then(|| {
            let mut path = exe;
            if ev.flags & fa_event_flag::FA_EV_EXE_DELETED.0 != 0 {
                path.extend(b" (deleted)");
            }
            path
        })
    };
    let cmdline: Vec<u8> = ev
        .proctitle
        .iter()
        .take(ev.proctitle_len as usize)
        .map(|&c| c as u8)
        .collect();
    let tty = bytes(&ev.tty);
    // FA_NO_RULE (a companion no rule selected) is past every rule: no key.
    let key = plan.rule_key(ev.rule);
    AuditEvent {
        sec,
        msec,
        syscall: Syscall {
            arch: ev.arch,
            syscall: ev.syscall,
            personality: ev.pers,
            exit: (ev.flags & fa_event_flag::FA_EV_NO_RETURN.0 == 0).then_some(ev.ret),
            args: ev.args,
            items: 0,
            ppid: ev.ppid as i32,
            pid: ev.pid as i32,
            auid: ev.auid,
            ids: ev.ids,
            tty: (!tty.is_empty()).then_some(tty),
            ses: ev.ses,
            comm: bytes(&ev.comm),
            exe,
            subj: (!subj.is_empty()).then(|| subj.to_vec()),
            key,
        },
        cmdline,
        companion: ev.flags & fa_event_flag::FA_EV_COMPANION.0 != 0,
        aux_lost: ev.flags & fa_event_flag::FA_EV_AUX_LOST.0 != 0,
        cgroup: ev.cgroup,
        // Filled in by decode; no URINGOP unless grouped with some.
        ..AuditEvent::default()
    }
}
