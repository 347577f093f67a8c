//! One loaded rule set ("generation"): its BPF object with exactly its
//! plan's programs, its map images, its attachments and its watch
//! follower. Generation 0 owns the maps every later one shares (the ring
//! buffer, counters, task lists, arguments saved at entry and the
//! handover state: handover.bpf.h), so a later generation can be attached
//! beside the running one and take over with one map update.

use crate::hooks::AttachPoint;
use crate::plan::Plan;
use crate::resolve::Resolved;
use crate::runtime::{bpf, put, Attached, EngineError, Options};
use crate::watches::{self, WatchTable};
use fastaudit_bpf::types::{fa_handover, fa_limit};
use fastaudit_bpf::{FastauditSkel, FastauditSkelBuilder};
use libbpf_rs::skel::{OpenSkel, Skel, SkelBuilder};
use libbpf_rs::{Link, MapCore, MapHandle, TracepointCategory};
use std::mem::MaybeUninit;
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A loaded and attached rule set.
pub(crate) struct Generation {
    /// Its number (the BPF side's `generation`).
    pub number: u32,
    /// The plan it runs (events it judged are assembled with it).
    pub plan: Plan,
    pub skel: FastauditSkel<'static>,
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
        // Each generation's object lives as long as the run; a reload
        // keeps one small open-object record for good.
        let storage = Box::leak(Box::new(MaybeUninit::uninit()));
        let mut open = FastauditSkelBuilder::default()
            .open(storage)
            .map_err(bpf("opening the BPF object"))?;
        // Only the programs the plan attaches are loaded (and verified).
        for mut p in open.open_object_mut().progs_mut() {
            let load = plan.attachments.iter().any(|a| p.name() == a.program);
            p.set_autoload(load);
        }
        crate::start_trace::ask_verifier_stats(open.open_object_mut());
        crate::start_trace::mark("BPF object opened");
        if let Some(ro) = open.maps.rodata_data.as_deref_mut() {
            let r = plan.rodata();
            ro.self_tgid = std::process::id();
            ro.have_watches = u32::from(r.have_watches);
            ro.have_dirs = u32::from(r.have_dirs);
            // The BPF side calls the tasks an always,task rule selected `recorded`.
            ro.have_always_task = u32::from(r.have_always_task);
            ro.have_perm = u32::from(r.have_perm);
            ro.have_objs = u32::from(r.have_objs);
            ro.companion_with_context = u32::from(options.companion_with_context);
            ro.have_uring = u32::from(r.have_uring);
            ro.have_uring_objs = u32::from(r.have_uring);
            ro.uring_enter_rules = u32::from(r.uring_enter_rules);
            // Read from the kernel's BTF only for io_uring plans.
            ro.uring_complete_res_arg = u32::from(
                r.have_uring
                    && plan
                        .features
                        .uring_complete_res_arg
                        .unwrap_or_else(crate::kinds::uring_complete_res_arg),
            );
            ro.have_signal_rules = u32::from(r.have_signal_rules);
            // raw_tp programs may not call the task lookup kfunc.
            ro.task_lookup = u32::from(
                !plan
                    .attachments
                    .iter()
                    .any(|a| a.program.starts_with("fa_rtp_")),
            );
            if let crate::kinds::InodeSource::Kprobes {
                atime_caller: Some((start, end)),
                ..
            } = plan.features.inode
            {
                ro.atime_fn_start = start;
                ro.atime_fn_end = end;
            }
            ro.generation = number;
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
        let skel = open.load().map_err(bpf(
            "loading the BPF programs (root and BPF support needed)",
        ))?;
        crate::start_trace::mark("BPF programs loaded (verified)");
        let resolved = Resolved::on_this_host(&plan);
        let images = plan.map_images(&resolved)?;
        crate::start_trace::mark("paths resolved, map images made");
        crate::runtime::write_maps(&skel, &images)?;
        crate::start_trace::mark("maps written");
        let mut g = Generation {
            number,
            plan,
            skel,
            links: std::cell::RefCell::new(Vec::new()),
            attached: Attached::default(),
            watches: Some(resolved.watches),
            quit: Arc::new(AtomicBool::new(false)),
        };
        g.attach()?;
        crate::start_trace::mark("attached");
        Ok(g)
    }

    fn attach(&mut self) -> Result<(), EngineError> {
        let mut links = Vec::new();
        for a in &self.plan.attachments {
            let prog = self
                .skel
                .object()
                .progs_mut()
                .find(|p| p.name() == a.program)
                .ok_or_else(|| {
                    EngineError::Plan(format!("no program {} in the BPF object", a.program))
                })?;
            let link = match &a.point {
                AttachPoint::Raw { category, .. } => {
                    let hint = if *category == "timestamp" {
                        " (the inode timestamp tracepoints of Linux 6.13 or later)"
                    } else {
                        ""
                    };
                    prog.attach()
                        .map_err(bpf(format!("attaching {}{hint}", a.point)))?
                }
                AttachPoint::Kprobe { .. } | AttachPoint::Function { .. } => prog
                    .attach()
                    .map_err(bpf(format!("attaching {}", a.point)))?,
                AttachPoint::Syscall { tracepoint } => {
                    // libbpf finds tracepoint ids in tracefs: mount it if absent.
                    crate::kinds::syscall_tracepoints();
                    prog.attach_tracepoint(TracepointCategory::Syscalls, tracepoint)
                        .map_err(bpf(format!("attaching {}", a.point)))?
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
    pub fn detach(&self) {
        self.links.borrow_mut().clear();
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

/// Run a generation's watch follower (returns at once when it has none).
pub(crate) fn follow(
    table: WatchTable,
    map: &MapHandle,
    quit: &AtomicBool,
) -> Result<(), libbpf_rs::Error> {
    watches::follow(table, map, quit)
}
