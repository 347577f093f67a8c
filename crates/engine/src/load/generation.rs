//! One loaded rule set ("generation"): its BPF object with exactly its
//! plan's programs, its map images, its attachments and its watch
//! follower. Generation 0 owns the maps every later one shares (the ring
//! buffer, counters, task lists, arguments saved at entry and the
//! handover state: handover.bpf.h), so a later generation can be attached
//! beside the running one and take over with one map update.

use crate::error::{bpf, EngineError};
use crate::load::bytes::as_bytes;
use crate::load::object::{Loaded, Storage};
use crate::load::resolve::Resolved;
use crate::load::watch_follow;
use crate::load::watches::WatchTable;
use crate::options::Options;
use crate::plan::hook::AttachPoint;
use crate::plan::image::{MapImages, Rodata};
use crate::plan::Plan;
use fastaudit_bpf::types::{self, fa_stat};
use fastaudit_bpf::types::{fa_handover, fa_limit};
use fastaudit_bpf::{FastauditSkel, FastauditSkelBuilder};
use libbpf_rs::skel::{OpenSkel, Skel, SkelBuilder};
use libbpf_rs::{Link, MapCore, MapFlags, MapHandle, TracepointCategory};
use std::os::fd::{AsFd, AsRawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What was attached, for the caller and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attached {
    /// One per attached link, the plan's attachments as `--explain` shows
    /// them ("tp_btf/raw_syscalls:sys_exit by fa_raw_exit").
    pub hooks: Vec<String>,
    /// What the plan does without the programs this kernel refused
    /// ([`crate::Plan::degraded`]), one line each.
    pub degraded: Vec<String>,
}

/// A loaded and attached rule set.
pub(crate) struct Generation {
    /// Its number (the BPF side's `generation`).
    pub number: u32,
    /// The plan it runs (events it judged are assembled with it).
    pub plan: Plan,
    pub skel: Loaded,
    links: std::cell::RefCell<Vec<Link>>,
    /// What was attached.
    pub attached: Attached,
    watches: Option<WatchTable>,
    /// Tells its watch follower to stop.
    pub quit: Arc<AtomicBool>,
}

impl Generation {
    /// Load `plan` as generation `number`, sharing `owner`'s maps (none for
    /// generation 0), write its maps and attach it.
    pub fn load(
        plan: Plan,
        options: Options,
        number: u32,
        owner: Option<&FastauditSkel<'static>>,
    ) -> Result<Generation, EngineError> {
        let skel = open_and_load(&plan, options, number, owner)?;
        crate::load::start_trace::mark("BPF programs loaded (verified)");
        let resolved = Resolved::on_this_host(&plan);
        let images = plan.map_images(&resolved.live_paths())?;
        crate::load::start_trace::mark("paths resolved, map images made");
        write_maps(&skel, &images)?;
        stub_bodies(&skel, &plan)?;
        crate::load::start_trace::mark("maps written");
        let attached = Attached {
            hooks: Vec::new(),
            degraded: plan.degraded.clone(),
        };
        let mut g = Generation {
            number,
            plan,
            skel,
            links: std::cell::RefCell::new(Vec::new()),
            attached,
            watches: Some(resolved.watches),
            quit: Arc::new(AtomicBool::new(false)),
        };
        g.attach()?;
        crate::load::start_trace::mark("attached");
        Ok(g)
    }

    fn attach(&mut self) -> Result<(), EngineError> {
        let mut links = Vec::new();
        let missing = crate::load::refused::test_missing_points();
        for a in &self.plan.attachments {
            let prog = self
                .skel
                .object()
                .progs_mut()
                .find(|p| p.name() == a.program)
                .ok_or_else(|| {
                    EngineError::Plan(format!("no program {} in the BPF object", a.program))
                })?;
            // What --explain printed is what attaches: the program's
            // section is the attach point the plan names.
            if let Some(why) = crate::load::programs::mismatch(a, &prog.section().to_string_lossy())
            {
                return Err(EngineError::Plan(why));
            }
            let link = match &a.point {
                AttachPoint::Raw { category, .. } => {
                    let hint = if *category == "timestamp" {
                        " (the inode timestamp tracepoints of Linux 6.13 or later)"
                    } else {
                        ""
                    };
                    prog.attach()
                        .map_err(refused(a, format!("attaching {}{hint}", a.point)))?
                }
                AttachPoint::Kprobe { .. }
                | AttachPoint::Function { .. }
                | AttachPoint::Stub { .. } => prog
                    .attach()
                    .map_err(refused(a, format!("attaching {}", a.point)))?,
                // Tail-called by its group's stubs (in its map since the load).
                AttachPoint::StubBody { .. } => continue,
                AttachPoint::Syscall { tracepoint } => {
                    // libbpf finds tracepoint ids in tracefs: mount it if absent.
                    crate::host::tracefs::syscall_tracepoints();
                    // The test switch's `attach:PROGRAM`: a tracepoint this
                    // kernel does not have, as a kernel that lacks the point.
                    let tracepoint = if missing.iter().any(|m| m == a.program) {
                        "sys_exit_fastaudit_test_missing"
                    } else {
                        tracepoint.as_str()
                    };
                    prog.attach_tracepoint(TracepointCategory::Syscalls, tracepoint)
                        .map_err(refused(a, format!("attaching {}", a.point)))?
                }
            };
            links.push(link);
            self.attached.hooks.push(a.to_string());
        }
        *self.links.borrow_mut() = links;
        Ok(())
    }

    /// Its watch table and a handle on its `watched` map, for its follower
    /// thread (taken once).
    pub fn follower(&mut self) -> Result<Option<(WatchTable, MapHandle)>, EngineError> {
        let Some(w) = self.watches.take() else {
            return Ok(None);
        };
        let map =
            MapHandle::try_from(&self.skel.maps.watched).map_err(bpf("opening the watch table"))?;
        Ok(Some((w, map)))
    }

    /// Detach every hook (its maps stay while the object lives).
    /// The kernel's ids of its loaded programs (each one's BPF UNLOAD
    /// record names it). A program not loaded (autoload off) has none.
    pub fn program_ids(&self) -> Vec<u32> {
        self.skel
            .object()
            .progs()
            .filter_map(|p| libbpf_rs::Program::id_from_fd(p.as_fd()).ok())
            .collect()
    }

    pub fn detach(&self) {
        drop_concurrently(std::mem::take(&mut *self.links.borrow_mut()));
        self.quit.store(true, Ordering::Relaxed);
    }

    /// Write the shared handover state.
    pub fn set_handover(&self, active: u32, overlap: bool) -> Result<(), EngineError> {
        let h = fa_handover {
            active,
            overlap: u32::from(overlap),
        };
        put(&self.skel.maps.handover, &0u32, &h, "switching rule sets")
    }

    /// Forget every thread's recorded decision (safe while the active
    /// generation does not change: any decision then is the same).
    pub fn clear_decisions(&self) {
        let keys: Vec<Vec<u8>> = self.skel.maps.decisions.keys().collect();
        for k in keys {
            let _ = self.skel.maps.decisions.delete(&k);
        }
    }
}

/// Detach `links` on several threads at once, all gone on return: a
/// trampoline's detach waits for the kernel's grace periods (STIG's ~100
/// syscall function hooks took 17 s one after another in an emulated
/// guest), and waits on several threads overlap.
fn drop_concurrently(mut links: Vec<Link>) {
    const THREADS: usize = 16;
    if links.len() < 2 {
        return;
    }
    let chunk = links.len().div_ceil(THREADS);
    std::thread::scope(|s| {
        while !links.is_empty() {
            let part: Vec<Link> = links.drain(..chunk.min(links.len())).collect();
            s.spawn(move || drop(part));
        }
    });
}

/// Open the BPF object with `plan`'s programs, configure it for the plan
/// (its constants, map sizes, `owner`'s shared maps) and load it.
fn open_and_load(
    plan: &Plan,
    options: Options,
    number: u32,
    owner: Option<&FastauditSkel<'static>>,
) -> Result<Loaded, EngineError> {
    // Declared before the open object, so dropped after it on every return.
    let mut storage = Storage::new();
    let mut open = FastauditSkelBuilder::default()
        .open(storage.slot())
        .map_err(bpf("opening the BPF object"))?;
    // Only the programs the plan attaches are loaded (and verified).
    let test_refused = crate::load::refused::test_refused();
    for mut p in open.open_object_mut().progs_mut() {
        let attachment = plan.attachments.iter().find(|a| p.name() == a.program);
        let load = attachment.is_some();
        p.set_autoload(load);
        // A syscall function's stub or body is loaded for its function.
        if let Some(function) = attachment.and_then(|a| a.point.load_target()) {
            p.set_attach_target(0, Some(function.to_string()))
                .map_err(bpf("setting a syscall function hook's function"))?;
        }
        if load && test_refused.iter().any(|t| p.name() == t.as_str()) {
            // The test switch: as a socket filter its context reads
            // and helpers are invalid, so the kernel's verifier
            // refuses it, as a kernel that cannot run it would.
            p.set_prog_type(libbpf_rs::ProgramType::SocketFilter);
        }
    }
    crate::load::start_trace::ask_verifier_stats(open.open_object_mut());
    crate::load::start_trace::mark("BPF object opened");
    if let Some(ro) = open.maps.rodata_data.as_deref_mut() {
        write_rodata(ro, &plan.rodata(), options, number);
    }
    // Maps only the loader writes, at most one entry per watch: sized
    // to the plan. Preallocated at their full size, the two path maps
    // alone took ~40 MB of kernel memory and ms to create with no watch.
    let watches = (plan.watches.len() as u32).clamp(1, fa_limit::FA_MAX_WATCHED.0);
    let m = &mut open.maps;
    for map in [
        &mut m.watch_paths,
        &mut m.tree_paths,
        &mut m.watch_by_parent_name,
    ] {
        map.set_max_entries(watches)
            .map_err(bpf("sizing the watch tables"))?;
    }
    match owner {
        None => open
            .maps
            .events
            .set_max_entries(options.ring_buffer_bytes)
            .map_err(bpf("sizing the ring buffer"))?,
        Some(o) => {
            let m = &mut open.maps;
            let reuse = "sharing the running rule set's maps";
            m.events
                .reuse_fd(o.maps.events.as_fd())
                .map_err(bpf(reuse))?;
            m.stats.reuse_fd(o.maps.stats.as_fd()).map_err(bpf(reuse))?;
            m.never_task
                .reuse_fd(o.maps.never_task.as_fd())
                .map_err(bpf(reuse))?;
            m.always_task
                .reuse_fd(o.maps.always_task.as_fd())
                .map_err(bpf(reuse))?;
            m.entry_args
                .reuse_fd(o.maps.entry_args.as_fd())
                .map_err(bpf(reuse))?;
            m.mq_entry
                .reuse_fd(o.maps.mq_entry.as_fd())
                .map_err(bpf(reuse))?;
            m.ipc_entries
                .reuse_fd(o.maps.ipc_entries.as_fd())
                .map_err(bpf(reuse))?;
            m.handover
                .reuse_fd(o.maps.handover.as_fd())
                .map_err(bpf(reuse))?;
            m.decisions
                .reuse_fd(o.maps.decisions.as_fd())
                .map_err(bpf(reuse))?;
        }
    }
    // libbpf names a refused program and the verifier's reason only
    // in its messages: kept while loading, so the plan can be made
    // again without that program.
    let capture = crate::load::refused::Capture::start();
    let loaded = open.load();
    let refusals = capture.refusals();
    drop(capture);
    match loaded {
        Ok(skel) => Ok(Loaded::new(skel, storage)),
        Err(_) if !refusals.is_empty() => Err(EngineError::Refused(refusals)),
        Err(e) => Err(bpf(
            "loading the BPF programs (root and BPF support needed)",
        )(e)),
    }
}

/// Each syscall function body the plan loads, in its group's map: its
/// stubs tail-call it (before this, they do nothing).
fn stub_bodies(skel: &FastauditSkel<'static>, plan: &Plan) -> Result<(), EngineError> {
    for a in &plan.attachments {
        let AttachPoint::StubBody { family, group, .. } = a.point else {
            continue;
        };
        let map_name = format!("{family}_body{group}");
        let map = skel
            .object()
            .maps()
            .find(|m| m.name() == map_name.as_str())
            .ok_or_else(|| EngineError::Plan(format!("no map {map_name} in the BPF object")))?;
        let prog = skel
            .object()
            .progs()
            .find(|p| p.name() == a.program)
            .ok_or_else(|| {
                EngineError::Plan(format!("no program {} in the BPF object", a.program))
            })?;
        let fd = prog.as_fd().as_raw_fd() as u32;
        put(
            &map,
            &0u32,
            &fd,
            "putting a syscall function body in its map",
        )?;
    }
    Ok(())
}

/// The plan's read-only data into the object's, verbatim, with the run's
/// own values (its pid, the ring's size, the generation's number).
fn write_rodata(ro: &mut types::rodata, r: &Rodata, options: Options, number: u32) {
    ro.self_tgid = std::process::id();
    ro.have_watches = u32::from(r.have_watches);
    ro.have_dirs = u32::from(r.have_dirs);
    // The BPF side calls the tasks an always,task rule selected `recorded`.
    ro.have_always_task = u32::from(r.have_always_task);
    ro.have_perm = u32::from(r.have_perm);
    ro.have_objs = u32::from(r.have_objs);
    ro.companion_with_context = u32::from(options.companion_with_context);
    ro.ring_half_bytes = u64::from(options.ring_buffer_bytes / 2);
    ro.have_uring = u32::from(r.have_uring);
    ro.have_uring_objs = u32::from(r.have_uring);
    ro.uring_enter_rules = u32::from(r.uring_enter_rules);
    // The one fact the plan leaves to the load: read from the kernel's BTF
    // only for io_uring plans.
    ro.uring_complete_res_arg = u32::from(
        r.uring_complete_res_arg
            .unwrap_or_else(crate::host::btf::uring_complete_res_arg),
    );
    ro.have_signal_rules = u32::from(r.have_signal_rules);
    ro.task_lookup = u32::from(r.task_lookup);
    if let Some((start, end)) = r.atime_fn {
        ro.atime_fn_start = start;
        ro.atime_fn_end = end;
    }
    ro.apparmor_blob_sizes_addr = r.apparmor_blob_sizes_addr;
    ro.apparmor_cred_offset = r.apparmor_cred_offset;
    ro.fmode_backing = r.fmode_backing;
    ro.fn_preempt_guard = u32::from(r.fn_preempt_guard);
    ro.cgroup_subsys = r.cgroup_subsys;
    ro.generation = number;
}

/// The programs of `plan` this kernel refuses at load (the verifier),
/// found by loading them as `run` would, attaching nothing: for
/// `--explain` as root. Empty when all load.
pub fn refused_at_load(
    plan: &Plan,
    options: Options,
) -> Result<Vec<crate::plan::refusal::Refusal>, EngineError> {
    if plan.attachments.is_empty() {
        return Ok(Vec::new());
    }
    match open_and_load(plan, options, 0, None) {
        Ok(_) => Ok(Vec::new()),
        Err(EngineError::Refused(r)) => Ok(r),
        Err(e) => Err(e),
    }
}

/// An attach point this kernel refused, as a refusal of its program: the
/// plan is made again without it.
fn refused(
    a: &crate::plan::hook::Attachment,
    what: String,
) -> impl FnOnce(libbpf_rs::Error) -> EngineError + '_ {
    move |e| {
        EngineError::Refused(vec![crate::plan::refusal::Refusal {
            program: a.program.to_string(),
            why: format!("{what}: {e}"),
        }])
    }
}

/// Run a generation's watch follower (returns at once when it has none).
pub(crate) fn follow(
    table: WatchTable,
    map: &MapHandle,
    quit: &AtomicBool,
) -> Result<(), libbpf_rs::Error> {
    watch_follow::follow(table, map, quit)
}

/// Write one map entry.
pub(crate) fn put<K, V>(map: &impl MapCore, k: &K, v: &V, what: &str) -> Result<(), EngineError> {
    map.update(as_bytes(k), as_bytes(v), MapFlags::ANY)
        .map_err(bpf(what))
}

/// Write the plan's map images, verbatim.
pub(crate) fn write_maps(
    skel: &fastaudit_bpf::FastauditSkel,
    images: &MapImages,
) -> Result<(), EngineError> {
    let m = &skel.maps;
    for (i, rule) in images.rules.iter().enumerate() {
        put(&m.rules, &(i as u32), rule, "filling the rule table")?;
    }
    for (i, id) in images.candidates.iter().enumerate() {
        put(
            &m.candidates,
            &(i as u32),
            id,
            "filling the candidate table",
        )?;
    }
    for (i, gate) in images.gates.iter().enumerate() {
        put(&m.gates, &(i as u32), gate, "filling the gates")?;
    }
    for (k, span) in &images.spans {
        put(&m.spans, k, span, "filling the syscall index")?;
    }
    for (k, span) in &images.uring_spans {
        put(&m.uring_spans, k, span, "filling the io_uring op index")?;
    }
    for (id, prio) in &images.rule_prio {
        put(&m.rule_prio, id, prio, "filling the rule priorities")?;
    }
    for (k, v) in &images.watched {
        put(&m.watched, k, v, "filling the watch table")?;
    }
    for (k, id) in &images.watch_by_parent_name {
        put(&m.watch_by_parent_name, k, id, "filling the watched names")?;
    }
    for (k, id) in &images.watch_paths {
        put(&m.watch_paths, k, id, "filling the watched paths")?;
    }
    for (k, id) in &images.tree_paths {
        put(&m.tree_paths, k, id, "filling the watched trees")?;
    }
    for (nr, a) in &images.path_args {
        put(&m.path_args, nr, a, "filling the path argument table")?;
    }
    for (k, v) in &images.sysclass {
        put(&m.sysclass, k, v, "filling the syscall classes")?;
    }
    for (i, exe) in images.exes.iter().enumerate() {
        put(&m.exes, &(i as u32), exe, "filling the exe table")?;
    }
    Ok(())
}

/// The kernel side's counters: emitted, lost, aux records lost.
pub(crate) fn read_stats(
    skel: &fastaudit_bpf::FastauditSkel,
) -> Result<(u64, u64, u64), EngineError> {
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
    Ok((
        sum(fa_stat::FA_STAT_EMITTED.0)?,
        sum(fa_stat::FA_STAT_LOST.0)?,
        sum(fa_stat::FA_STAT_AUX_LOST.0)?,
    ))
}
