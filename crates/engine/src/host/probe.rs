//! Probing this kernel once at start (root needed): the hook kinds it
//! loads and attaches (`kinds`), its tracepoints (`tracefs`), functions
//! and layouts (`btf`, `kallsyms`), LSMs and version, gathered into the
//! plain data a plan is made for ([`crate::plan::kinds`], [`Environment`]).

use crate::host::btf::{kernel_functions, syscall_functions, KernelBtf};
use crate::host::kallsyms::kernel_function_range;
use crate::host::tracefs::{inode_tracepoints, syscall_tracepoint_names, tracepoint_exists};
use crate::plan::kinds::{Features, HookKinds, InodeSource, KernelFunctions, Probe, UringSubmit};
use crate::plan::Environment;
use std::path::Path;

/// Whether this kernel runs the machine's compat (32-bit) syscalls: a
/// child tries (`compat_syscall_works`) and exits 0 if it could. Where
/// it cannot, compat hooks would watch for nothing.
pub(crate) fn compat_syscalls_run() -> bool {
    use nix::sys::wait::{waitpid, WaitStatus};
    use nix::unistd::{fork, ForkResult};
    // SAFETY: the child makes at most two syscalls and exits, all
    // async-signal-safe.
    match unsafe { fork() } {
        Ok(ForkResult::Child) => {
            let ok = compat_syscall_works();
            // SAFETY: _exit ends the forked child without running anything else.
            unsafe { nix::libc::_exit(if ok { 0 } else { 1 }) }
        }
        Ok(ForkResult::Parent { child }) => {
            matches!(waitpid(child, None), Ok(WaitStatus::Exited(_, 0)))
        }
        // Unknown: keep the compat hooks (a missed compat syscall is the
        // failure that matters).
        Err(_) => true,
    }
}

/// x86_64: make an ia32 syscall (`int 0x80`, i386 getpid) and check it
/// returned the pid. Without ia32 emulation (not built, or
/// `ia32_emulation=false` on Linux 6.7+) the process is killed or gets
/// an error. Only for a forked child: it may die.
#[cfg(target_arch = "x86_64")]
fn compat_syscall_works() -> bool {
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
    ret == nix::unistd::getpid().as_raw() as u64
}

/// arm64: AArch32 tasks run only where the CPU has 32-bit EL0 and the
/// kernel has CONFIG_COMPAT; elsewhere (e.g. Neoverse V2/N3, Apple M)
/// arm64's personality() refuses PER_LINUX32 with EINVAL
/// (arch/arm64/kernel/sys.c, system_supports_32bit_el0). The persona
/// changes in the calling process only: for a forked child.
#[cfg(target_arch = "aarch64")]
fn compat_syscall_works() -> bool {
    const PER_LINUX32: nix::libc::c_ulong = 0x0008;
    // SAFETY: personality() takes a number and changes only this
    // process's execution domain (uname's machine, a later exec's ABI).
    unsafe { nix::libc::personality(PER_LINUX32) != -1 }
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
        let release = kernel_release();
        Features {
            missing_bpf: missing_bpf_features(),
            inode,
            uring_submit,
            uring_complete_res_arg,
            functions: KernelFunctions::Assumed,
            syscall_functions: Default::default(),
            preemption: crate::host::preemption::preempting_mode(&release),
            preempt_guard: Probe::Assumed,
            release,
            labels: crate::host::lsm::lsm_labels(),
            fmode_backing: fmode_backing(),
            cgroups: crate::host::cgroups::cgroup_view(btf()),
        }
    }
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
            ia32_disabled: !compat_syscalls_run(),
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

    /// Hook the audited syscalls' own functions where fexit loads
    /// (`--syscall-function-hooks`): they are looked up then.
    pub fn want_syscall_functions(&mut self, yes: bool) {
        self.syscall_function_hooks = yes;
        self.look_up_functions();
    }

    /// The noted hooks' functions, and the syscalls' own when asked for,
    /// looked up where fexit programs load (only there can anything
    /// attach to them; the BTF is read then: a pass over it each).
    fn look_up_functions(&mut self) {
        if self.kinds.fexit.usable() {
            self.features.functions = kernel_functions();
            if self.syscall_function_hooks && !self.features.syscall_functions.read() {
                self.features.syscall_functions = syscall_functions(self.target);
            }
            // Where the kernel preempts, the bodies need preemption off.
            let preempts = self.features.preemption.is_some();
            if self.syscall_function_hooks
                && preempts
                && self.features.preempt_guard == Probe::Assumed
            {
                self.features.preempt_guard = crate::host::kinds::probe_preempt_guard();
            }
        }
    }
}
