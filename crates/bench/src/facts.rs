//! Facts about the machine a run was made on, kept with its samples.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// What the numbers depend on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Facts {
    /// `uname -r`.
    pub kernel: String,
    /// `uname -m`.
    pub machine: String,
    /// CPUs online.
    pub cpus: usize,
    /// The CPU model.
    pub cpu_model: String,
    /// Memory, in MiB.
    pub memory_mib: u64,
    /// The audit userspace (`auditctl -v`).
    pub audit_userspace: String,
    /// Hook kinds the kernel offers BPF, as far as files under /sys tell.
    pub hooks: Hooks,
    /// Seconds since the epoch when the run started.
    pub started: u64,
}

/// Hook kinds seen on the machine.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Hooks {
    /// /sys/kernel/btf/vmlinux: tp_btf and CO-RE work.
    pub btf: bool,
    /// syscalls:sys_enter_*/sys_exit_* tracepoints.
    pub syscall_tracepoints: bool,
    /// raw_syscalls:sys_enter/sys_exit.
    pub raw_syscall_tracepoints: bool,
    /// io_uring:* tracepoints.
    pub io_uring_tracepoints: bool,
    /// kprobe_events in tracefs (kprobes built in).
    pub kprobes: bool,
    /// What `fastaudit run` found when it loaded and attached a program of
    /// each hook kind (one line per kind, from `--explain`).
    #[serde(default)]
    pub probed: Vec<String>,
}

const TRACEFS: &str = "/sys/kernel/tracing";

impl Facts {
    /// Read them off this machine.
    pub fn read() -> Facts {
        let uts = nix::sys::utsname::uname().ok();
        let field = |f: fn(&nix::sys::utsname::UtsName) -> &std::ffi::OsStr| {
            uts.as_ref()
                .map(|u| f(u).to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let events = Path::new(TRACEFS).join("events");
        Facts {
            kernel: field(|u| u.release()),
            machine: field(|u| u.machine()),
            cpus: std::thread::available_parallelism().map_or(1, usize::from),
            cpu_model: cpuinfo
                .lines()
                .find_map(|l| l.strip_prefix("model name")?.split(':').nth(1))
                .unwrap_or("unknown")
                .trim()
                .to_string(),
            memory_mib: meminfo
                .lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
                .map_or(0, |kib| kib / 1024),
            audit_userspace: std::process::Command::new("auditctl")
                .arg("-v")
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_else(|_| "not installed".into()),
            hooks: Hooks {
                btf: Path::new("/sys/kernel/btf/vmlinux").exists(),
                syscall_tracepoints: events.join("syscalls/sys_enter_getpid").exists(),
                raw_syscall_tracepoints: events.join("raw_syscalls/sys_enter").exists(),
                io_uring_tracepoints: events.join("io_uring").exists(),
                kprobes: Path::new(TRACEFS).join("kprobe_events").exists(),
                probed: Vec::new(),
            },
            started: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        }
    }
}
