//! The kernel facts a plan is made for, as plain data: which BPF hook
//! kinds this kernel loads and attaches, where inode changes and io_uring
//! submits are seen, which functions it has ([`crate::host::probe`] finds them).

use std::fmt::Write as _;

/// A kind of BPF hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// fexit trampolines on syscall functions: no cost for other syscalls.
    Fexit,
    /// BTF-typed raw tracepoints.
    TpBtf,
    /// Untyped raw tracepoints (older kernels, or where tp_btf is refused).
    RawTp,
    /// `syscalls:sys_enter_X`/`sys_exit_X` tracepoints.
    Tracepoint,
}

impl Kind {
    /// Every kind, cheapest first.
    pub const ALL: [Kind; 4] = [Kind::Fexit, Kind::Tracepoint, Kind::TpBtf, Kind::RawTp];

    /// The name used on the command line and in `--explain`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Fexit => "fexit",
            Kind::TpBtf => "tp_btf",
            Kind::RawTp => "raw_tp",
            Kind::Tracepoint => "tracepoint",
        }
    }

    /// The kind named `s`.
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// What probing one kind found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Probe {
    /// Not probed (no root, or a plan compiled for display): taken as usable.
    #[default]
    Assumed,
    /// A program of this kind loaded and attached.
    Works,
    /// The kernel refused it; the error.
    Refused(String),
    /// Left out by the caller (`--hook-kinds`).
    Excluded,
}

impl Probe {
    /// Whether the engine may use this kind.
    pub fn usable(&self) -> bool {
        matches!(self, Probe::Assumed | Probe::Works)
    }
}

/// The hook kinds of this kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookKinds {
    /// fexit (probed on a native syscall wrapper, `__x64_sys_chmod` on
    /// x86_64).
    pub fexit: Probe,
    /// tp_btf (probed on `raw_syscalls:sys_enter`).
    pub tp_btf: Probe,
    /// raw_tp (probed on `raw_syscalls:sys_enter`).
    pub raw_tp: Probe,
    /// Per-syscall tracepoints (present in tracefs).
    pub tracepoint: Probe,
}

impl HookKinds {
    /// Kinds not probed (no root): `allowed` ones assumed to work, the
    /// others excluded.
    pub fn assumed(allowed: &[Kind]) -> HookKinds {
        let p = |k: Kind| {
            if allowed.contains(&k) {
                Probe::Assumed
            } else {
                Probe::Excluded
            }
        };
        HookKinds {
            fexit: p(Kind::Fexit),
            tp_btf: p(Kind::TpBtf),
            raw_tp: p(Kind::RawTp),
            tracepoint: p(Kind::Tracepoint),
        }
    }

    /// The kind for the raw syscall, task and inode hooks: tp_btf, else raw_tp.
    pub fn raw_kind(&self) -> Option<Kind> {
        if self.tp_btf.usable() {
            Some(Kind::TpBtf)
        } else if self.raw_tp.usable() {
            Some(Kind::RawTp)
        } else {
            None
        }
    }

    /// One line per kind, for `--explain`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for (kind, p) in [
            (Kind::Fexit, &self.fexit),
            (Kind::Tracepoint, &self.tracepoint),
            (Kind::TpBtf, &self.tp_btf),
            (Kind::RawTp, &self.raw_tp),
        ] {
            let state = match p {
                Probe::Assumed => "not probed (needs root), assumed to work".to_string(),
                Probe::Works => "works".to_string(),
                Probe::Refused(why) => format!("refused: {why}"),
                Probe::Excluded => "excluded by --hook-kinds".to_string(),
            };
            let role = match kind {
                // Not for syscalls (one program instance and verification
                // per audited syscall function): for the records only a
                // kernel function's arguments hold.
                Kind::Fexit => " (clock adjustment and module load records)",
                Kind::Tracepoint => " (native syscalls named by rules)",
                Kind::TpBtf => " (raw syscall, task and inode hooks)",
                Kind::RawTp => " (raw syscall, task and inode hooks, when tp_btf is refused)",
            };
            let _ = writeln!(s, "  {}: {state}{role}", kind.name());
        }
        s
    }
}

/// How this kernel shows the engine an inode whose ctime changes
/// ([`crate::plan::hook::Hook::InodeChanges`]: watches, PATH records).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum InodeSource {
    /// The `timestamp:` tracepoints (Linux 6.13+), tp_btf or raw_tp.
    #[default]
    Tracepoints,
    /// kprobes on `current_time()` (and on `inode_set_ctime_current()`
    /// where the kernel has it; fentry refuses both, which return a
    /// struct). chmod/chown's attributes are then seen before the change
    /// (notify_change reads the clock before ->setattr), as the kernel's
    /// PATH records have them.
    Kprobes {
        /// `inode_set_ctime_current()` exists (Linux 6.6+, and backports).
        ctime_current: bool,
        /// Where `atime_needs_update()` lies in the kernel's text (from
        /// /proc/kallsyms): its calls of current_time() only check atime.
        atime_caller: Option<(u64, u64)>,
    },
    /// Neither: why.
    Missing(String),
}

/// The io_uring tracepoint that tells a request was submitted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum UringSubmit {
    /// `io_uring:io_uring_submit_req` (Linux 6.5+).
    #[default]
    SubmitReq,
    /// `io_uring:io_uring_submit_sqe(req, force_nonblock)`, its name
    /// before (Linux 5.19 to 6.4): the same request, the same moment.
    SubmitSqe,
    /// Neither with the request as first argument: why.
    Missing(String),
}

/// Kernel functions the noted hooks attach to ([`crate::plan::hook::Noted`]):
/// whether this kernel has each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum KernelFunctions {
    /// Not looked up: every one assumed present (no root; tests; or no
    /// fexit programs load here, so nothing would attach to them).
    #[default]
    Assumed,
    /// Looked up in the kernel's BTF (by the host probe, where fexit
    /// programs load): those missing.
    Missing(Vec<String>),
}

impl KernelFunctions {
    /// Whether the kernel has function `name` (one of
    /// `crate::plan::hooks::noted::noted_functions`).
    pub fn has(&self, name: &str) -> bool {
        match self {
            KernelFunctions::Assumed => true,
            KernelFunctions::Missing(missing) => !missing.iter().any(|m| m == name),
        }
    }
}

/// Kernel facts beyond the hook kinds: what the BPF object needs of every
/// kernel, and which of its optional tracepoints and functions exist.
/// Default: everything assumed present (a 6.13+ kernel; no root).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// BPF features the BPF object needs that this kernel lacks (each with
    /// the Linux version that brought it); empty when all are there or
    /// not probed.
    pub missing_bpf: Vec<String>,
    /// Where inode changes are seen.
    pub inode: InodeSource,
    /// The io_uring submit tracepoint.
    pub uring_submit: UringSubmit,
    /// `io_uring_complete` passes the result as an argument (before the
    /// CQE pointer of later kernels); `None`: not known yet, read from the
    /// kernel's BTF at load (`probe::uring_complete_res_arg`).
    pub uring_complete_res_arg: Option<bool>,
    /// The kernel functions the noted hooks attach to.
    pub functions: KernelFunctions,
    /// The kernel function each syscall enters, where fexit programs load
    /// (read with the fexit probe).
    pub syscall_functions: crate::plan::syscall_functions::SyscallFunctions,
    /// The kernel's release (`uname -r`), for messages; empty: not probed.
    pub release: String,
    /// Who gives the tasks' LSM labels (`subj=`, `obj=`).
    pub labels: LsmLabels,
    /// `file->f_mode`'s FMODE_BACKING bit (0: no backing files, before
    /// Linux 6.6): overlayfs maps them in place of its own files.
    pub fmode_backing: u32,
    /// The preemption model, where the kernel preempts its own code
    /// ("lazy", "full", "rt", or why it is not known); `None`: it does
    /// not (none, voluntary), or not probed. A program run from a
    /// trampoline (fentry, fexit) can then be preempted half-way, and
    /// another's on the same CPU overwrite the per-CPU scratch space.
    pub preemption: Option<String>,
    /// Whether the syscall function bodies can run with preemption
    /// disabled (bpf_preempt_disable, Linux 6.11, with global function
    /// calls inside, which later verifiers allow): probed only where
    /// `preemption` says the kernel preempts and those hooks are wanted.
    pub preempt_guard: Probe,
    /// The cgroup hierarchy events name their task's cgroup in, for
    /// container identity (`None`: none mounted, or not probed; events
    /// then carry v2's id, which nothing resolves).
    pub cgroups: Option<CgroupView>,
}

/// Where events' cgroup ids are resolved to paths (`host::cgroups`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CgroupView {
    /// The hierarchy's mount (of its root): an id's path is under it.
    pub mount: std::path::PathBuf,
    /// The cgroup v1 controller whose hierarchy it is, with its index
    /// (`cgroup_subsys_id`) in this kernel; `None`: cgroup v2.
    pub controller: Option<(String, u32)>,
}

/// Where the kernel's audit records get a task's LSM label from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LsmLabels {
    /// No LSM with task contexts runs: the kernel writes no `subj=`.
    #[default]
    None,
    /// AppArmor, its credential blob found as said.
    AppArmor(AppArmorBlob),
    /// An LSM gives labels fastaudit cannot read (named), or AppArmor's
    /// blob offset could not be found: the kernel writes `subj=`,
    /// fastaudit does not.
    Unread(String),
}

/// Where AppArmor's label pointer lies in the credentials' LSM blob: at
/// an offset the kernel fixed at boot after the blobs of the LSMs before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppArmorBlob {
    /// Read by BPF from the kernel's `apparmor_blob_sizes`, at this
    /// address (/proc/kallsyms).
    SizesAt(u64),
    /// This offset, worked out from the LSM order and the earlier LSMs'
    /// blob sizes in BTF (kallsyms without data symbols).
    Offset(u32),
}

impl Features {
    /// What the kernel lacks that every plan with hooks needs, in words
    /// (`None`: nothing).
    pub fn missing_bpf_problem(&self) -> Option<String> {
        if self.missing_bpf.is_empty() {
            return None;
        }
        let release = match self.release.as_str() {
            "" => "?",
            r => r,
        };
        Some(format!(
            "this kernel (Linux {release}) lacks BPF features fastaudit needs: {}; fastaudit needs Linux 6.1 or later",
            self.missing_bpf.join(", ")
        ))
    }
}
