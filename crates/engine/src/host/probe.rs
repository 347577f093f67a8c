//! Probing this kernel (root needed): which BPF hook kinds it loads and
//! attaches, which tracepoints and functions it has, so the plan can use
//! the cheapest hooks that work here. The facts found are plain data
//! ([`crate::plan::kinds`], [`Environment`]); only this module and the runtime
//! load BPF.

use crate::plan::hook::NOTED_FUNCTIONS;
use crate::plan::kinds::{
    Features, HookKinds, InodeSource, KernelFunctions, Kind, LsmLabels, Probe, UringSubmit,
};
use crate::plan::Environment;
use fastaudit_bpf::FastauditSkelBuilder;
use libbpf_rs::skel::{OpenSkel, Skel, SkelBuilder};
use std::collections::BTreeSet;
use std::mem::MaybeUninit;
use std::path::Path;

const TRACEFS: &str = "/sys/kernel/tracing";

impl HookKinds {
    /// Probe each allowed kind by loading and attaching a program that does
    /// nothing (detached at once); kinds not in `allowed` are excluded.
    /// Needs root: without it every kind is refused.
    pub fn probe(allowed: &[Kind]) -> HookKinds {
        // A refusal is an answer, not a problem: libbpf's warnings are not
        // printed but kept, and a refusal carries them.
        let print = libbpf_rs::set_print(Some((libbpf_rs::PrintLevel::Warn, keep_warning)));
        let kinds = HookKinds::probe_quietly(allowed);
        libbpf_rs::set_print(print);
        take_warnings();
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

/// libbpf's warnings during a probe, kept for the refusal they explain.
static WARNINGS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn keep_warning(_level: libbpf_rs::PrintLevel, msg: String) {
    if let Ok(mut w) = WARNINGS.lock() {
        w.push(msg);
    }
}

/// libbpf's own lines among the warnings kept since the last call (the
/// verifier's log, which can be long, left out), at most a few.
fn take_warnings() -> Vec<String> {
    let all = WARNINGS
        .lock()
        .map(|mut w| std::mem::take(&mut *w))
        .unwrap_or_default();
    all.iter()
        .flat_map(|m| m.lines())
        .filter(|l| {
            l.starts_with("libbpf:")
                && ![
                    "BPF token",
                    "failed to load object",
                    "failed to load BPF skeleton",
                ]
                .iter()
                .any(|n| l.contains(n))
        })
        .map(|l| l.trim_end().chars().take(300).collect::<String>())
        .take(6)
        .collect()
}

/// Load only programs `names` of the BPF object in one load, attach each
/// and detach it: what attaching each found. Err: the load itself was
/// refused (or the object could not be opened), with why (and libbpf's
/// warnings about it).
fn load_and_attach(names: &[&str]) -> Result<Vec<Probe>, String> {
    take_warnings();
    load_and_attach_once(names).map_err(|why| {
        let warnings = take_warnings();
        if warnings.is_empty() {
            why
        } else {
            format!("{why} ({})", warnings.join("; "))
        }
    })
}

fn load_and_attach_once(names: &[&str]) -> Result<Vec<Probe>, String> {
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

/// The BPF features every plan with hooks needs, with the Linux version
/// that brought each (the kernel's own probes, as bpftool's).
fn missing_bpf_features() -> Vec<String> {
    use libbpf_rs::libbpf_sys as sys;
    use libbpf_rs::{MapType, ProgramType};
    let mut missing = Vec::new();
    if !MapType::TaskStorage.is_supported().unwrap_or(true) {
        missing.push("task storage maps (Linux 5.11)".to_string());
    }
    for (helper, what) in [
        (sys::BPF_FUNC_task_pt_regs, "bpf_task_pt_regs (Linux 5.15)"),
        (sys::BPF_FUNC_loop, "bpf_loop (Linux 5.17)"),
        (
            sys::BPF_FUNC_ringbuf_reserve_dynptr,
            "ring buffer dynptrs (Linux 5.19)",
        ),
    ] {
        if !ProgramType::Tracepoint
            .is_helper_supported(helper)
            .unwrap_or(true)
        {
            missing.push(what.to_string());
        }
    }
    missing
}

/// The running kernel's BTF (/sys/kernel/btf/vmlinux), for the functions
/// and tracepoint prototypes it has.
struct KernelBtf(std::ptr::NonNull<libbpf_rs::libbpf_sys::btf>);

impl KernelBtf {
    fn load() -> Option<KernelBtf> {
        // SAFETY: a plain libbpf call; NULL (or an error pointer, which
        // libbpf 1.x does not return) is checked.
        let p = unsafe { libbpf_rs::libbpf_sys::btf__load_vmlinux_btf() };
        if (p as isize) < 0 {
            return None;
        }
        std::ptr::NonNull::new(p).map(KernelBtf)
    }

    fn find(&self, name: &str, kind: u32) -> Option<u32> {
        let c = std::ffi::CString::new(name).ok()?;
        // SAFETY: valid BTF and C string.
        let id = unsafe {
            libbpf_rs::libbpf_sys::btf__find_by_name_kind(self.0.as_ptr(), c.as_ptr(), kind)
        };
        u32::try_from(id).ok()
    }

    fn has_func(&self, name: &str) -> bool {
        self.find(name, libbpf_rs::libbpf_sys::BTF_KIND_FUNC)
            .is_some()
    }

    fn ty(&self, id: u32) -> Option<&libbpf_rs::libbpf_sys::btf_type> {
        // SAFETY: libbpf returns NULL or a type inside the BTF, which lives as long as self.
        unsafe { libbpf_rs::libbpf_sys::btf__type_by_id(self.0.as_ptr(), id).as_ref() }
    }

    fn name(&self, off: u32) -> String {
        // SAFETY: libbpf returns NULL or a NUL-terminated string inside the BTF.
        let p = unsafe { libbpf_rs::libbpf_sys::btf__name_by_offset(self.0.as_ptr(), off) };
        if p.is_null() {
            return String::new();
        }
        // SAFETY: see above.
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned()
    }

    /// Tracepoint `tp`'s arguments (after the leading `void *` of its
    /// `btf_trace_` typedef), each as its type's name, a pointer as the
    /// pointee's name with `*`.
    fn trace_args(&self, tp: &str) -> Option<Vec<String>> {
        use libbpf_rs::libbpf_sys as sys;
        let kind = |t: &sys::btf_type| (t.info >> 24) & 0x1f;
        let vlen = |t: &sys::btf_type| (t.info & 0xffff) as usize;
        // SAFETY: typedef and pointer types (the unions below) carry a type id.
        let target = |t: &sys::btf_type| unsafe { t.__bindgen_anon_1.type_ };
        let typedef = self.ty(self.find(&format!("btf_trace_{tp}"), sys::BTF_KIND_TYPEDEF)?)?;
        let ptr = self.ty(target(typedef))?;
        let proto = self.ty(target(ptr))?;
        if kind(ptr) != sys::BTF_KIND_PTR || kind(proto) != sys::BTF_KIND_FUNC_PROTO {
            return None;
        }
        // SAFETY: a FUNC_PROTO is followed by vlen btf_param entries.
        let params = unsafe {
            std::slice::from_raw_parts(
                (proto as *const sys::btf_type)
                    .add(1)
                    .cast::<sys::btf_param>(),
                vlen(proto),
            )
        };
        let describe = |mut id: u32| {
            let mut stars = "";
            // Modifiers and typedefs are kept by name; one pointer level.
            while let Some(t) = self.ty(id) {
                if kind(t) == sys::BTF_KIND_PTR && stars.is_empty() {
                    stars = "*";
                    id = target(t);
                    continue;
                }
                if matches!(kind(t), k if k == sys::BTF_KIND_CONST || k == sys::BTF_KIND_VOLATILE) {
                    id = target(t);
                    continue;
                }
                return format!("{}{stars}", self.name(t.name_off));
            }
            format!("void{stars}")
        };
        Some(params.iter().skip(1).map(|p| describe(p.type_)).collect())
    }
}

impl Drop for KernelBtf {
    fn drop(&mut self) {
        // SAFETY: loaded by btf__load_vmlinux_btf, freed once.
        unsafe { libbpf_rs::libbpf_sys::btf__free(self.0.as_ptr()) }
    }
}

impl Features {
    /// This kernel's features (root needed for the BPF probes). The
    /// kernel's BTF is read only where a tracepoint the object prefers is
    /// missing.
    pub fn probe() -> Features {
        let cell = std::cell::OnceCell::new();
        let btf = || cell.get_or_init(KernelBtf::load).as_ref();
        let inode = if inode_tracepoints() {
            InodeSource::Tracepoints
        } else if !Path::new("/sys/bus/event_source/devices/kprobe/type").exists() {
            InodeSource::Missing(
                "no timestamp tracepoints (Linux 6.13+), and no kprobes (CONFIG_KPROBES)".into(),
            )
        } else {
            match btf() {
                Some(b) if b.has_func("current_time") => InodeSource::Kprobes {
                    ctime_current: b.has_func("inode_set_ctime_current"),
                    atime_caller: kernel_function_range("atime_needs_update"),
                },
                _ => InodeSource::Missing(
                    "no timestamp tracepoints (Linux 6.13+), and no current_time() in the kernel's BTF for a kprobe".into(),
                ),
            }
        };
        let uring_submit = if tracepoint_exists("io_uring", "io_uring_submit_req") {
            UringSubmit::SubmitReq
        } else if !tracepoint_exists("io_uring", "io_uring_submit_sqe") {
            UringSubmit::Missing("no io_uring_submit_req or io_uring_submit_sqe tracepoint".into())
        } else {
            let args = btf().and_then(|b| b.trace_args("io_uring_submit_sqe"));
            match args.as_deref() {
                Some([req, _]) if req == "io_kiocb*" => UringSubmit::SubmitSqe,
                other => UringSubmit::Missing(format!(
                    "io_uring_submit_sqe does not pass the request first ({})",
                    other.map_or("no prototype in the kernel's BTF".into(), |a| a.join(", "))
                )),
            }
        };
        // Kernels with io_uring_submit_sqe pass io_uring_complete's result
        // as an argument; later ones are told apart at load, from the BTF,
        // only when io_uring ops are audited.
        let uring_complete_res_arg = (uring_submit != UringSubmit::SubmitReq).then_some(true);
        Features {
            missing_bpf: missing_bpf_features(),
            inode,
            uring_submit,
            uring_complete_res_arg,
            functions: KernelFunctions::Assumed,
            release: kernel_release(),
            labels: lsm_labels(),
            fmode_backing: fmode_backing(),
        }
    }
}

/// Who gives the tasks' LSM labels. The kernel's audit takes the first
/// LSM with task contexts; Debian and Ubuntu run AppArmor, whose label
/// fastaudit reads (its blob offset from `apparmor_blob_sizes`, which
/// root sees in /proc/kallsyms).
fn lsm_labels() -> LsmLabels {
    let lsms = active_lsms();
    let apparmor = match lsms {
        Some(l) => l.iter().any(|m| m == "apparmor"),
        // securityfs not mounted: AppArmor's own switch and attribute.
        None => {
            std::fs::read_to_string("/sys/module/apparmor/parameters/enabled")
                .is_ok_and(|v| v.trim() == "Y")
                && Path::new("/proc/self/attr/apparmor/current").exists()
        }
    };
    let other = ["selinux", "smack"].into_iter().find(|m| match lsms {
        Some(l) => l.iter().any(|x| x == m),
        None => *m == "selinux" && Path::new("/sys/fs/selinux/enforce").exists(),
    });
    match (other, apparmor) {
        (Some(m), _) => LsmLabels::Unread(format!("{m} labels are not read")),
        (None, false) => LsmLabels::None,
        (None, true) => match kernel_symbol("apparmor_blob_sizes") {
            Some(a) => LsmLabels::AppArmor(a),
            None => LsmLabels::Unread(
                "AppArmor runs, but /proc/kallsyms does not show apparmor_blob_sizes (kptr_restrict?)"
                    .into(),
            ),
        },
    }
}

/// The LSMs this kernel runs, in order (securityfs' `lsm`, mounted if
/// it is not, as systemd does at boot); `None` when unreadable.
pub(crate) fn active_lsms() -> Option<&'static [String]> {
    static LSMS: std::sync::OnceLock<Option<Vec<String>>> = std::sync::OnceLock::new();
    LSMS.get_or_init(|| {
        const LIST: &str = "/sys/kernel/security/lsm";
        if !Path::new(LIST).exists() {
            let _ = nix::mount::mount(
                Some("securityfs"),
                "/sys/kernel/security",
                Some("securityfs"),
                nix::mount::MsFlags::empty(),
                None::<&str>,
            );
        }
        let list = std::fs::read_to_string(LIST).ok()?;
        Some(list.split(',').map(|m| m.trim().to_string()).collect())
    })
    .as_deref()
}

/// FMODE_BACKING on this kernel: bit 25 from Linux 6.6 (backing files),
/// bit 24 from 6.14 (the fsnotify mode bits took 25 and 26).
fn fmode_backing() -> u32 {
    match kernel_version() {
        v if v >= (6, 14) => 1 << 24,
        v if v >= (6, 6) => 1 << 25,
        _ => 0,
    }
}

/// This kernel's (major, minor) version, from its release ((0, 0) when
/// unreadable). For behaviour no BTF type or symbol tells apart.
pub(crate) fn kernel_version() -> (u32, u32) {
    static VERSION: std::sync::OnceLock<(u32, u32)> = std::sync::OnceLock::new();
    *VERSION.get_or_init(|| {
        let release = nix::sys::utsname::uname()
            .map(|u| u.release().to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut v = release
            .split(|c: char| !c.is_ascii_digit())
            .map(|n| n.parse::<u32>().unwrap_or(0));
        (v.next().unwrap_or(0), v.next().unwrap_or(0))
    })
}

/// The address of kernel data symbol `name` in /proc/kallsyms (0 or
/// absent: hidden from this user, or no such symbol).
fn kernel_symbol(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/kallsyms").ok()?;
    let found = kallsyms(&text)
        .find(|&(_, _, sym)| sym == name)
        .map(|(a, _, _)| a);
    found.filter(|&a| a != 0)
}

/// The kernel's own symbols in /proc/kallsyms text, as (address, kind,
/// name); module symbols (which carry a `[module]` field) are left out.
fn kallsyms(text: &str) -> impl Iterator<Item = (u64, &str, &str)> {
    text.lines().filter_map(|line| {
        let mut f = line.split_whitespace();
        let (a, kind, sym) = (f.next()?, f.next()?, f.next()?);
        if f.next().is_some() {
            return None;
        }
        Some((u64::from_str_radix(a, 16).ok()?, kind, sym))
    })
}

/// The order a kernel takes the two names of link, symlink and rename in
/// ([`name_order`]); each name's PATH item comes in that
/// order. Default: the new name first, as 6.18 and before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct NameOrder {
    /// link/linkat take the old name first.
    pub link_old_first: bool,
    /// symlink/symlinkat take the target first.
    pub symlink_target_first: bool,
    /// rename/renameat/renameat2 take the old name first.
    pub rename_old_first: bool,
}

/// The order this kernel's link, symlink and rename syscalls take their
/// two names in, so that their PATH items come in it. Since the VFS's
/// `filename_*at` rework (Debian's 7.2 and 7.3 have it; 6.18 does not)
/// each syscall takes its names in two statements, old first, then calls
/// `filename_linkat`, `filename_symlinkat`, `filename_renameat2`; before,
/// both names were arguments of one call (`do_linkat`, ...), which x86_64
/// builds evaluated last first: the new name's directory was item 0. Told
/// from those functions in the kernel's BTF (none: the older order).
pub(crate) fn name_order() -> NameOrder {
    static ORDER: std::sync::OnceLock<NameOrder> = std::sync::OnceLock::new();
    *ORDER.get_or_init(|| match KernelBtf::load() {
        Some(b) => NameOrder {
            link_old_first: b.has_func("filename_linkat"),
            symlink_target_first: b.has_func("filename_symlinkat"),
            rename_old_first: b.has_func("filename_renameat2"),
        },
        None => NameOrder::default(),
    })
}

/// Whether this kernel's `io_uring_complete` passes the result as an
/// argument (ctx, req, user_data, res, ...) rather than a CQE pointer,
/// from its BTF prototype (the CQE pointer when unknown).
pub(crate) fn uring_complete_res_arg() -> bool {
    KernelBtf::load()
        .and_then(|b| b.trace_args("io_uring_complete"))
        .is_some_and(|a| a.len() > 3)
}

/// Whether this kernel has the inode timestamp tracepoints (Linux 6.13+);
/// without them the inode hooks are kprobes.
pub fn inode_tracepoints() -> bool {
    tracepoint_exists("timestamp", "inode_set_ctime_to_ts")
}

/// Where kernel function `name` lies in the kernel's text: its address and
/// the next symbol's, from /proc/kallsyms (root sees the addresses).
fn kernel_function_range(name: &str) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/kallsyms").ok()?;
    let text_syms = || kallsyms(&text).filter(|&(_, kind, _)| matches!(kind, "t" | "T"));
    let start = text_syms()
        .find(|&(_, _, sym)| sym == name)
        .map(|(a, _, _)| a)
        .filter(|&a| a != 0)?;
    let end = text_syms()
        .map(|(a, _, _)| a)
        .filter(|&a| a > start)
        .min()?;
    Some((start, end))
}

/// Which of the noted hooks' functions ([`NOTED_FUNCTIONS`]) this kernel
/// lacks, from its BTF (all of them without one).
fn kernel_functions() -> KernelFunctions {
    let btf = KernelBtf::load();
    KernelFunctions::Missing(
        NOTED_FUNCTIONS
            .into_iter()
            .filter(|f| !btf.as_ref().is_some_and(|b| b.has_func(f)))
            .map(String::from)
            .collect(),
    )
}

/// The kernel's release, as `uname -r` prints it ("?" unread).
fn kernel_release() -> String {
    nix::sys::utsname::uname()
        .map(|u| u.release().to_string_lossy().into_owned())
        .unwrap_or_else(|_| "?".into())
}

impl Environment {
    /// This host's facts, probed (root needed): the usable hook kinds among
    /// `allowed` and the syscall tracepoints.
    pub fn probe(allowed: &[crate::plan::kinds::Kind]) -> Environment {
        let kinds = HookKinds::probe(allowed);
        let features = Features::probe();
        // Read (and tracefs mounted) only where per-syscall tracepoints may be used.
        let syscall_tracepoints = kinds.tracepoint.usable().then(syscall_tracepoint_names);
        let mut env = Environment {
            kinds,
            syscall_tracepoints,
            ia32_disabled: !ia32_syscalls_run(),
            no_prepare_exec: !tracepoint_exists("sched", "sched_prepare_exec"),
            features,
            ..Environment::default()
        };
        env.look_up_functions();
        env
    }

    /// Probe the fexit kind as well (root needed), the rest as probed.
    pub fn probe_fexit(&mut self) {
        self.kinds.fexit = HookKinds::probe(&[crate::plan::kinds::Kind::Fexit]).fexit;
        self.look_up_functions();
    }

    /// The noted hooks' functions, looked up where fexit programs load
    /// (only there can anything attach to them; the BTF is read then).
    fn look_up_functions(&mut self) {
        if self.kinds.fexit.usable() {
            self.features.functions = kernel_functions();
        }
    }
}

#[cfg(test)]
mod kallsyms_tests {
    use super::*;

    #[test]
    fn kallsyms_lines_give_the_kernels_own_symbols() {
        let text = "ffffffff81000000 T _text\nffffffff81001000 t vfs_read\nffffffff81002000 T vfs_write\nffffffffc0001000 t mod_fn\t[kvm]\n";
        let syms: Vec<_> = kallsyms(text).collect();
        assert_eq!(syms.len(), 3, "the module's symbol is left out");
        assert_eq!(syms[1], (0xffffffff81001000, "t", "vfs_read"));
    }
}
