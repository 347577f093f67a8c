//! Running a plan: load the BPF object, fill its rule tables, attach the
//! hooks, and turn ring-buffer events into audit events until told to stop.
//! Every hook is detached when [`run`] returns, on every path.

use crate::kinds::Kind;
use crate::plan::{Hook, Plan};
use crate::watches::{self, WatchTable};
use fastaudit_bpf::types::{fa_event, fa_event_flag, fa_exe, fa_rule, fa_span, fa_test};
use fastaudit_bpf::FastauditSkelBuilder;
use fastaudit_records::Syscall;
use fastaudit_rules::abi::field;
use libbpf_rs::skel::{OpenSkel, Skel, SkelBuilder};
use libbpf_rs::{Link, MapCore, MapFlags, RingBufferBuilder, TracepointCategory};
use std::cell::RefCell;
use std::mem::MaybeUninit;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use thiserror::Error;

/// Bits in a rule bitmap: native syscalls first, compat ones after.
const NR_SYSCALLS: u32 = 2048;
const MAX_TESTS: usize = 64;
/// Spans index of the task-list rules (FA_TASK_SPAN).
const TASK_SPAN: u32 = 2 * NR_SYSCALLS;
const TRACEFS: &str = "/sys/kernel/tracing";

/// Why the engine could not start or keep running.
#[derive(Debug, Error)]
pub enum EngineError {
    /// Loading or attaching BPF failed (not root, BPF unavailable, ...).
    #[error("{what}: {source}")]
    Bpf {
        what: String,
        source: libbpf_rs::Error,
    },
    /// The plan does not fit the kernel tables.
    #[error("{0}")]
    Plan(String),
}

fn bpf(what: impl Into<String>) -> impl FnOnce(libbpf_rs::Error) -> EngineError {
    let what = what.into();
    move |source| EngineError::Bpf { what, source }
}

/// One audited syscall, ready to be formatted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditEvent {
    /// Wall-clock time of the syscall exit: seconds and milliseconds.
    pub sec: u64,
    /// Milliseconds part.
    pub msec: u32,
    /// The SYSCALL record's content.
    pub syscall: Syscall,
    /// The command line (argv joined by NULs), as PROCTITLE wants it.
    pub cmdline: Vec<u8>,
}

/// Counters of a run: generated = delivered + lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Events the kernel side put into the ring buffer.
    pub emitted: u64,
    /// Events the kernel side could not queue (ring buffer full).
    pub lost: u64,
    /// Events handed to the caller.
    pub delivered: u64,
}

/// What was attached, for `--explain` and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attached {
    /// Hook descriptions, one per attached link.
    pub hooks: Vec<String>,
}

/// Tunables of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Ring buffer size in bytes (a power of two, at least one page).
    pub ring_buffer_bytes: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ring_buffer_bytes: 16 << 20,
        }
    }
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
    mut on_event: impl FnMut(AuditEvent),
    mut on_batch: impl FnMut(),
) -> Result<Stats, EngineError> {
    if plan.hooks.is_empty() {
        ready(&Attached::default());
        while !stop.load(Ordering::Relaxed) {
            on_batch();
            std::thread::sleep(Duration::from_millis(20));
        }
        return Ok(Stats::default());
    }
    // Per-syscall tracepoint names: exit hooks, entry hooks.
    let (mut per_syscall, mut enters): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for h in &plan.hooks {
        match h {
            Hook::SyscallExit { name, .. } => per_syscall.push(name),
            Hook::SyscallEnter { name, .. } => enters.push(name),
            _ => {}
        }
    }
    // A tracepoint name that does not exist (the syscall table and the
    // kernel's SYSCALL_DEFINE names can differ) sends everything to the raw hooks.
    let raw = plan.hooks.contains(&Hook::RawSyscalls)
        || !per_syscall
            .iter()
            .chain(&enters)
            .all(|n| tracepoint_exists(n));
    let needs_raw_kind =
        raw || plan.hooks.contains(&Hook::TaskNew) || plan.hooks.contains(&Hook::InodeChanges);
    // Programs that exist as tp_btf and raw_tp: the prefix of the kind used.
    let prefix = match plan.kinds.raw_kind() {
        Some(Kind::RawTp) => "fa_rtp_",
        Some(_) => "fa_",
        None if needs_raw_kind => {
            return Err(EngineError::Plan(plan.hook_kind_problem().unwrap_or_else(
                || "no hook kind for the raw syscall, task and inode hooks".into(),
            )))
        }
        None => "fa_",
    };
    // (program, tracepoint) pairs to attach, besides the per-syscall ones.
    let mut hooked: Vec<(String, &str)> = Vec::new();
    if raw {
        hooked.push((format!("{prefix}raw_exit"), "sys_exit"));
        if plan.hooks.contains(&Hook::RawSyscallsEnter) || !enters.is_empty() {
            hooked.push((format!("{prefix}raw_enter"), "sys_enter"));
        }
    }
    if plan.hooks.contains(&Hook::TaskNew) {
        hooked.push((format!("{prefix}task_new"), "task_newtask"));
        hooked.push((format!("{prefix}task_exit"), "sched_process_exit"));
    }
    if plan.hooks.contains(&Hook::InodeChanges) {
        hooked.push((format!("{prefix}ctime_xchg"), "ctime_ns_xchg"));
        hooked.push((format!("{prefix}ctime_skip"), "ctime_xchg_skip"));
        hooked.push((format!("{prefix}ctime_set"), "inode_set_ctime_to_ts"));
    }
    let mut wanted: Vec<String> = hooked.iter().map(|(p, _)| p.clone()).collect();
    if !raw {
        if !per_syscall.is_empty() {
            wanted.push("fa_syscall_exit".into());
        }
        if !enters.is_empty() {
            wanted.push("fa_syscall_enter".into());
        }
    }

    let mut storage = MaybeUninit::uninit();
    let mut open = FastauditSkelBuilder::default()
        .open(&mut storage)
        .map_err(bpf("opening the BPF object"))?;
    // Only the programs the plan attaches are loaded (and verified).
    for mut p in open.open_object_mut().progs_mut() {
        let load = wanted.iter().any(|w| p.name() == w.as_str());
        p.set_autoload(load);
    }
    if let Some(ro) = open.maps.rodata_data.as_deref_mut() {
        ro.self_tgid = std::process::id();
        ro.have_watches = u32::from(!plan.watches.is_empty());
        ro.have_dirs = u32::from(plan.watches.iter().any(|w| w.tree));
        ro.have_recorded = u32::from(plan.records_tasks());
        ro.have_perm = u32::from(
            plan.exit_rules
                .iter()
                .flat_map(|r| &r.tests)
                .any(|t| t.field == field::PERM),
        );
    }
    let size = options.ring_buffer_bytes;
    if !size.is_power_of_two() || size < 4096 {
        return Err(EngineError::Plan(format!(
            "ring buffer size {size} must be a power of two of at least 4096 bytes"
        )));
    }
    open.maps
        .events
        .set_max_entries(size)
        .map_err(bpf("sizing the ring buffer"))?;
    let skel = open.load().map_err(bpf(
        "loading the BPF programs (root and BPF support needed)",
    ))?;
    let watches = WatchTable::resolve(&plan.watches);
    fill_tables(plan, &skel, &watches)?;

    let mut links: Vec<Link> = Vec::new();
    let mut attached = Attached::default();
    let kind = if prefix == "fa_rtp_" {
        "raw_tp"
    } else {
        "tp_btf"
    };
    for (name, tp) in &hooked {
        let prog = skel
            .object()
            .progs_mut()
            .find(|p| p.name() == name.as_str())
            .ok_or_else(|| EngineError::Plan(format!("no program {name} in the BPF object")))?;
        let hint = if tp.contains("ctime") {
            " (file watches need the inode timestamp tracepoints of Linux 6.13 or later)"
        } else {
            ""
        };
        links.push(
            prog.attach()
                .map_err(bpf(format!("attaching {kind}/{tp}{hint}")))?,
        );
        attached.hooks.push(format!("{kind}/{tp}"));
    }
    if !raw {
        for (prog, dir, names) in [
            (&skel.progs.fa_syscall_exit, "exit", &per_syscall),
            (&skel.progs.fa_syscall_enter, "enter", &enters),
        ] {
            for name in names.iter() {
                let tp = format!("sys_{dir}_{name}");
                let link = prog
                    .attach_tracepoint(TracepointCategory::Syscalls, &tp)
                    .map_err(bpf(format!("attaching syscalls:{tp}")))?;
                links.push(link);
                attached.hooks.push(format!("syscalls:{tp}"));
            }
        }
    }
    let watched_map = libbpf_rs::MapHandle::try_from(&skel.maps.watched)
        .map_err(bpf("opening the watch table"))?;

    let clock = Clock::now();
    let pending: RefCell<Vec<fa_event>> = RefCell::new(Vec::new());
    let mut rbb = RingBufferBuilder::new();
    rbb.add(&skel.maps.events, |data: &[u8]| {
        if data.len() >= std::mem::size_of::<fa_event>() {
            // SAFETY: the kernel side writes exactly one fa_event (a plain
            // repr(C) struct of integers and byte arrays) per record.
            let ev = unsafe { std::ptr::read_unaligned(data.as_ptr().cast::<fa_event>()) };
            pending.borrow_mut().push(ev);
        }
        0
    })
    .map_err(bpf("setting up the ring buffer"))?;
    let rb = rbb.build().map_err(bpf("setting up the ring buffer"))?;
    ready(&attached);

    let mut stats = Stats::default();
    // Returns whether there was anything to deliver.
    let mut deliver = |stats: &mut Stats| {
        let before = stats.delivered;
        for ev in pending.borrow_mut().drain(..) {
            stats.delivered += 1;
            on_event(assemble(plan, &ev, &clock));
        }
        // Idle too: the caller may have queued output of its own.
        on_batch();
        stats.delivered > before
    };
    let quit = AtomicBool::new(false);
    let followed = std::thread::scope(|scope| {
        let follower = scope.spawn(|| watches::follow(watches, &watched_map, &quit));
        let mut result = Ok(());
        while !stop.load(Ordering::Relaxed) {
            // Events are queued without waking us (BPF_RB_NO_WAKEUP), so poll
            // on a short period rather than waiting for a wakeup.
            if let Err(e) = rb.consume() {
                result = Err(e);
                break;
            }
            // Under load, go straight back to the ring buffer; idle, wait.
            if !deliver(&mut stats) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        // Whatever ended the loop ends the follower too.
        quit.store(true, Ordering::Relaxed);
        result.and_then(|()| follower.join().unwrap_or(Ok(())))
    });
    followed.map_err(bpf("reading the ring buffer or following watched paths"))?;
    drop(links);
    rb.consume().map_err(bpf("draining the ring buffer"))?;
    deliver(&mut stats);
    let (emitted, lost) = read_stats(&skel)?;
    stats.emitted = emitted;
    stats.lost = lost;
    Ok(stats)
}

fn as_bytes<T>(v: &T) -> &[u8] {
    // SAFETY: only used on the skeleton's plain repr(C) types and u32.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
}

/// Write one map entry.
fn put<K, V>(map: &impl MapCore, k: &K, v: &V, what: &str) -> Result<(), EngineError> {
    map.update(as_bytes(k), as_bytes(v), MapFlags::ANY)
        .map_err(bpf(what))
}

fn fill_tables(
    plan: &Plan,
    skel: &fastaudit_bpf::FastauditSkel,
    watches: &WatchTable,
) -> Result<(), EngineError> {
    // Exit rules first, then the task rules (ids continue).
    for (i, r) in plan.exit_rules.iter().chain(&plan.task_rules).enumerate() {
        if r.tests.len() > MAX_TESTS {
            return Err(EngineError::Plan(format!(
                "{}: more than {MAX_TESTS} fields",
                r.origin
            )));
        }
        let mut rule = fa_rule {
            always: u32::from(r.always),
            ntests: r.tests.len() as u32,
            ..fa_rule::default()
        };
        for (slot, t) in rule.tests.iter_mut().zip(&r.tests) {
            let value = match t.field {
                field::WATCH | field::DIR => watches.id(t.value),
                _ => t.value,
            };
            *slot = fa_test {
                field: t.field,
                op: t.op,
                value,
            };
        }
        put(
            &skel.maps.rules,
            &(i as u32),
            &rule,
            "filling the rule table",
        )?;
    }
    let mut next = 0u32;
    for &nr in plan.by_syscall.keys() {
        for compat in [false, true] {
            // Each ABI gets only the rules that can match there.
            let ids = plan.candidates(nr, compat);
            if !ids.iter().any(|&i| plan.exit_rules[i as usize].always) {
                continue;
            }
            let names_perm = plan.names_perm(&ids);
            let span = fa_span {
                start: next,
                count: ids.len() as u32,
                flags: u32::from(names_perm.is_some()),
                names_perm: names_perm.unwrap_or(0),
            };
            for id in &ids {
                put(
                    &skel.maps.candidates,
                    &next,
                    id,
                    "filling the candidate table",
                )?;
                next += 1;
            }
            let key = nr + if compat { NR_SYSCALLS } else { 0 };
            put(&skel.maps.spans, &key, &span, "filling the syscall index")?;
        }
    }
    if !plan.task_rules.is_empty() {
        let first = plan.exit_rules.len() as u32;
        let span = fa_span {
            start: next,
            count: plan.task_rules.len() as u32,
            flags: 0,
            names_perm: 0,
        };
        for id in first..first + span.count {
            put(&skel.maps.candidates, &next, &id, "filling the task rules")?;
            next += 1;
        }
        put(
            &skel.maps.spans,
            &TASK_SPAN,
            &span,
            "filling the task rules",
        )?;
    }
    for (k, v) in watches.entries() {
        put(&skel.maps.watched, &k, &v, "filling the watch table")?;
    }
    for (k, id) in watches.names() {
        put(&skel.maps.watch_names, &k, &id, "filling the watched names")?;
    }
    for (k, id) in watches.paths() {
        put(&skel.maps.watch_paths, &k, &id, "filling the watched paths")?;
    }
    for (k, id) in watches.tree_paths() {
        put(&skel.maps.tree_paths, &k, &id, "filling the watched trees")?;
    }
    if !plan.watches.is_empty() {
        for (nr, a) in watches::path_args() {
            put(
                &skel.maps.path_args,
                &nr,
                &a,
                "filling the path argument table",
            )?;
        }
    }
    let perm_tests = plan
        .exit_rules
        .iter()
        .flat_map(|r| &r.tests)
        .any(|t| t.field == field::PERM);
    if perm_tests {
        for compat in [false, true] {
            for nr in 0..NR_SYSCALLS {
                let v = crate::perm::sysclass(nr, compat);
                if v != 0 {
                    let k = nr + if compat { NR_SYSCALLS } else { 0 };
                    put(&skel.maps.sysclass, &k, &v, "filling the syscall classes")?;
                }
            }
        }
    }
    for (i, path) in plan.exes.iter().enumerate() {
        let exe = exe_identity(path);
        put(&skel.maps.exes, &(i as u32), &exe, "filling the exe table")?;
    }
    Ok(())
}

/// The inode and kernel device number of an executable path; a missing
/// file matches nothing.
fn exe_identity(path: &[u8]) -> fa_exe {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(std::ffi::OsStr::from_bytes(path)) {
        Ok(m) => fa_exe {
            ino: m.ino(),
            dev: watches::kernel_dev(m.dev()),
            pad: 0,
        },
        Err(_) => fa_exe {
            ino: 0,
            dev: u32::MAX,
            pad: 0,
        },
    }
}

fn tracepoint_exists(name: &str) -> bool {
    crate::kinds::syscall_tracepoints()
        && Path::new(TRACEFS)
            .join(format!("events/syscalls/sys_exit_{name}"))
            .exists()
}

fn read_stats(skel: &fastaudit_bpf::FastauditSkel) -> Result<(u64, u64), EngineError> {
    let sum = |idx: u32| -> Result<u64, EngineError> {
        let per_cpu = skel
            .maps
            .stats
            .lookup_percpu(as_bytes(&idx), MapFlags::ANY)
            .map_err(bpf("reading counters"))?;
        Ok(per_cpu
            .unwrap_or_default()
            .iter()
            .filter_map(|v| {
                v.get(..8)
                    .and_then(|b| b.try_into().ok())
                    .map(u64::from_ne_bytes)
            })
            .sum())
    };
    Ok((sum(0)?, sum(1)?))
}

/// Converts the kernel's monotonic clock to wall-clock time.
struct Clock {
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

fn cstr(b: &[u8]) -> Vec<u8> {
    b.iter().take_while(|&&c| c != 0).copied().collect()
}

fn assemble(plan: &Plan, ev: &fa_event, clock: &Clock) -> AuditEvent {
    let (sec, msec) = clock.wall(ev.time_ns);
    let bytes = |v: &[std::ffi::c_char]| cstr(&v.iter().map(|&c| c as u8).collect::<Vec<u8>>());
    let exe = (ev.exe_depth > 0).then(|| {
        let mut path = Vec::new();
        for name in ev.exe_names.iter().take(ev.exe_depth as usize).rev() {
            path.push(b'/');
            path.extend(bytes(name));
        }
        if ev.flags & fa_event_flag::FA_EV_EXE_DELETED.0 != 0 {
            path.extend(b" (deleted)");
        }
        path
    });
    let cmdline: Vec<u8> = ev
        .proctitle
        .iter()
        .take(ev.proctitle_len as usize)
        .map(|&c| c as u8)
        .collect();
    let tty = bytes(&ev.tty);
    let key = plan
        .exit_rules
        .iter()
        .chain(&plan.task_rules)
        .nth(ev.rule as usize)
        .and_then(|r| r.key.clone());
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
            subj: None,
            key,
        },
        cmdline,
    }
}
