//! Which BPF hook kinds this kernel loads and attaches, probed at start,
//! so the plan can use the cheapest that works here.

use fastaudit_bpf::FastauditSkelBuilder;
use libbpf_rs::skel::{OpenSkel, Skel, SkelBuilder};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::mem::MaybeUninit;
use std::path::Path;

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
    /// fexit (probed on `__x64_sys_chmod`).
    pub fexit: Probe,
    /// tp_btf (probed on `raw_syscalls:sys_enter`).
    pub tp_btf: Probe,
    /// raw_tp (probed on `raw_syscalls:sys_enter`).
    pub raw_tp: Probe,
    /// Per-syscall tracepoints (present in tracefs).
    pub tracepoint: Probe,
}

const TRACEFS: &str = "/sys/kernel/tracing";

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

    /// Probe each allowed kind by loading and attaching a program that does
    /// nothing (detached at once); kinds not in `allowed` are excluded.
    /// Needs root: without it every kind is refused.
    pub fn probe(allowed: &[Kind]) -> HookKinds {
        // A refusal is an answer, not a problem: keep libbpf quiet about it.
        let print = libbpf_rs::set_print(None);
        let kinds = HookKinds::probe_quietly(allowed);
        libbpf_rs::set_print(print);
        kinds
    }

    fn probe_quietly(allowed: &[Kind]) -> HookKinds {
        let programs: Vec<(Kind, &str)> = [
            (Kind::Fexit, "fa_probe_fexit"),
            (Kind::TpBtf, "fa_probe_tp_btf"),
            (Kind::RawTp, "fa_probe_raw_tp"),
        ]
        .into_iter()
        .filter(|(k, _)| allowed.contains(k))
        .collect();
        // tp_btf and raw_tp in one load (each BPF object open and kernel
        // BTF parse costs tens of ms); fexit, which kernels refuse more
        // often, alone. Only when the kernel refuses a load of several is
        // each loaded alone, to tell which it refuses.
        let (together, alone): (Vec<&str>, Vec<&str>) = programs
            .iter()
            .map(|(_, n)| *n)
            .partition(|n| *n != "fa_probe_fexit");
        let mut results: Vec<(&str, Probe)> = Vec::new();
        for group in [together, alone] {
            match load_and_attach(&group) {
                Ok(found) => results.extend(group.iter().copied().zip(found)),
                Err(why) => {
                    let single = group.len() == 1;
                    for n in group {
                        let p = if single {
                            Probe::Refused(why.clone())
                        } else {
                            match load_and_attach(&[n]) {
                                Ok(mut one) => one
                                    .pop()
                                    .unwrap_or(Probe::Refused(format!("{n}: no answer"))),
                                Err(why) => Probe::Refused(why),
                            }
                        };
                        results.push((n, p));
                    }
                }
            }
        }
        let probe = |kind: Kind| {
            programs
                .iter()
                .find(|(k, _)| *k == kind)
                .and_then(|(_, n)| results.iter().find(|(r, _)| r == n))
                .map_or(Probe::Excluded, |(_, p)| p.clone())
        };
        HookKinds {
            fexit: probe(Kind::Fexit),
            tp_btf: probe(Kind::TpBtf),
            raw_tp: probe(Kind::RawTp),
            tracepoint: if !allowed.contains(&Kind::Tracepoint) {
                Probe::Excluded
            } else if syscall_tracepoints() {
                Probe::Works
            } else {
                Probe::Refused(format!(
                    "no syscall tracepoints under {TRACEFS}/events/syscalls"
                ))
            },
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
                // Why it is not used even where it works: one program
                // instance (and one verification) per audited syscall
                // function is needed, and it cannot be tested on the
                // machines this version was built on, which refuse it.
                Kind::Fexit => " (zero cost for unaudited syscalls; not used by this version)",
                Kind::Tracepoint => " (native syscalls named by rules)",
                Kind::TpBtf => " (raw syscall, task and inode hooks)",
                Kind::RawTp => " (raw syscall, task and inode hooks, when tp_btf is refused)",
            };
            let _ = writeln!(s, "  {}: {state}{role}", kind.name());
        }
        s
    }
}

/// Whether this kernel has per-syscall tracepoints (mounting tracefs,
/// where libbpf finds tracepoint ids, if it is absent).
pub(crate) fn syscall_tracepoints() -> bool {
    let dir = Path::new(TRACEFS).join("events/syscalls");
    if !dir.exists() {
        let _ = nix::mount::mount(
            Some("nodev"),
            TRACEFS,
            Some("tracefs"),
            nix::mount::MsFlags::empty(),
            None::<&str>,
        );
    }
    dir.exists()
}

/// Syscalls NAME with a `syscalls:sys_exit_NAME` tracepoint on this
/// kernel (none when there are no syscall tracepoints or tracefs cannot be
/// read).
pub(crate) fn syscall_tracepoint_names() -> BTreeSet<String> {
    if !syscall_tracepoints() {
        return BTreeSet::new();
    }
    let Ok(dir) = std::fs::read_dir(Path::new(TRACEFS).join("events/syscalls")) else {
        return BTreeSet::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_prefix("sys_exit_"))
                .map(str::to_string)
        })
        .collect()
}

/// Load only programs `names` of the BPF object in one load, attach each
/// and detach it: what attaching each found. Err: the load itself was
/// refused (or the object could not be opened), with why.
fn load_and_attach(names: &[&str]) -> Result<Vec<Probe>, String> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut storage = MaybeUninit::uninit();
    let mut open = FastauditSkelBuilder::default()
        .open(&mut storage)
        .map_err(|e| e.to_string())?;
    for mut p in open.open_object_mut().progs_mut() {
        let wanted = names.iter().any(|n| p.name() == *n);
        p.set_autoload(wanted);
    }
    // The probe programs use no map: create none.
    for mut m in open.open_object_mut().maps_mut() {
        m.set_autocreate(false)
            .map_err(|_| "cannot leave the maps out".to_string())?;
    }
    let skel = open.load().map_err(|e| e.to_string())?;
    Ok(names
        .iter()
        .map(|name| {
            let prog = skel
                .object()
                .progs_mut()
                .find(|p| p.name() == *name)
                .map(|p| p.attach());
            match prog {
                Some(Ok(_link)) => Probe::Works,
                Some(Err(e)) => Probe::Refused(e.to_string()),
                None => Probe::Refused(format!("{name} is not in the BPF object")),
            }
        })
        .collect())
}

/// Whether tracepoint `category:name` exists (tracefs, mounted if needed).
pub(crate) fn tracepoint_exists(category: &str, name: &str) -> bool {
    syscall_tracepoints();
    Path::new(TRACEFS)
        .join("events")
        .join(category)
        .join(name)
        .exists()
}

/// Whether this kernel runs ia32 syscalls: a child makes one (`int 0x80`,
/// i386 getpid) and exits 0 if it got its pid. Without ia32 emulation
/// (not built, or `ia32_emulation=false` on Linux 6.7+) the child is
/// killed or gets an error, and compat hooks would watch for nothing.
pub(crate) fn ia32_syscalls_run() -> bool {
    use nix::sys::wait::{waitpid, WaitStatus};
    use nix::unistd::{fork, ForkResult};
    // SAFETY: the child makes two syscalls and exits, all async-signal-safe.
    match unsafe { fork() } {
        Ok(ForkResult::Child) => {
            // i386 getpid; int 0x80 returns in rax (and may clear r8-r11).
            let mut ret: u64 = 20;
            // SAFETY: the asm touches only the registers it declares.
            unsafe {
                std::arch::asm!(
                    "int 0x80",
                    inout("rax") ret,
                    out("r8") _, out("r9") _, out("r10") _, out("r11") _,
                    options(nostack)
                );
            }
            let pid = nix::unistd::getpid().as_raw() as u64;
            // SAFETY: _exit ends the forked child without running anything else.
            unsafe { nix::libc::_exit(if ret == pid { 0 } else { 1 }) }
        }
        Ok(ForkResult::Parent { child }) => {
            matches!(waitpid(child, None), Ok(WaitStatus::Exited(_, 0)))
        }
        // Unknown: keep the compat hooks (a missed compat syscall is the
        // failure that matters).
        Err(_) => true,
    }
}
