//! The measured workloads. Each runs in a fresh process (`fastaudit-bench
//! bench-worker`) started after the mode is set up, because the kernel
//! decides whether to audit a task when the task is created.
//!
//! The operations are written with raw libc calls on purpose: the point is
//! to time one system call (or one fork, one exec) as lmbench and sysbench
//! do, with no library layer that could add calls of its own.

use io_uring::{opcode, types, IoUring};
use nix::libc;
use serde::{Deserialize, Serialize};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The first argument that makes the bench binary run one job (given as
/// JSON in the second) instead of a benchmark.
pub const COMMAND: &str = "bench-worker";

/// Batches each per-operation measurement is split into (their median is the value).
const BATCHES: usize = 9;

/// What a worker process does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// The workload.
    pub work: Work,
    /// The CPU to pin to, for single-threaded workloads.
    pub pin: Option<usize>,
}

/// The workloads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "work", rename_all = "kebab-case")]
pub enum Work {
    /// getpid() in a loop.
    Getpid {
        /// Time to spend measuring.
        seconds: f64,
    },
    /// fchmodat() on one file, as fast as the mode allows.
    Audited {
        /// The file.
        file: PathBuf,
        /// Time to spend.
        seconds: f64,
    },
    /// The lmbench operations, each for `seconds`.
    Lmbench {
        /// A scratch directory.
        dir: PathBuf,
        /// Time per operation.
        seconds: f64,
    },
    /// sysbench threads: lock, sched_yield, unlock, with each thread count.
    Threads {
        /// Thread counts to run, one after the other.
        counts: Vec<usize>,
        /// Time per thread count.
        seconds: f64,
    },
    /// io_uring NOP and openat+close.
    IoUring {
        /// A scratch directory.
        dir: PathBuf,
        /// Time per operation.
        seconds: f64,
    },
    /// A generated C project built with make -jN.
    Compile {
        /// Where to generate it.
        dir: PathBuf,
        /// Source files.
        files: usize,
        /// make -j.
        jobs: usize,
    },
}

/// One measured quantity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// What was measured (`getpid`, `stat`, `4 threads`, ...).
    pub metric: String,
    /// Unit of `value` (`ns/op`, `s`, ...): lower is better for all of them.
    pub unit: String,
    /// The value: the median of the batches.
    pub value: f64,
    /// Every batch's value.
    pub batches: Vec<f64>,
    /// Operations done while measuring.
    pub ops: u64,
    /// Wall time spent measuring.
    pub seconds: f64,
}

/// What a worker reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The worker's pid (its events are found by it in the logs).
    pub pid: u32,
    /// Where it ran.
    pub cpu: Option<usize>,
    /// Its measurements.
    pub measured: Vec<Measured>,
}

/// Run a job in this process.
pub fn run(job: &Job) -> Result<Report, String> {
    if let Some(cpu) = job.pin {
        let mut set = nix::sched::CpuSet::new();
        set.set(cpu).map_err(|e| format!("cpu {cpu}: {e}"))?;
        nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)
            .map_err(|e| format!("pinning to cpu {cpu}: {e}"))?;
    }
    let measured = match &job.work {
        Work::Getpid { seconds } => vec![per_op("getpid", *seconds, 1.0, || {
            // SAFETY: getpid takes no arguments and cannot fail.
            unsafe { libc::syscall(libc::SYS_getpid) };
            Ok(())
        })?],
        Work::Audited { file, seconds } => vec![audited(file, *seconds)?],
        Work::Lmbench { dir, seconds } => lmbench(dir, *seconds)?,
        Work::Threads { counts, seconds } => counts
            .iter()
            .map(|&n| threads(n, *seconds))
            .collect::<Result<_, _>>()?,
        Work::IoUring { dir, seconds } => io_uring_ops(dir, *seconds)?,
        Work::Compile { dir, files, jobs } => vec![compile(dir, *files, *jobs)?],
    };
    Ok(Report {
        pid: std::process::id(),
        cpu: job.pin,
        measured,
    })
}

/// Time `op` for about `seconds`: a warm-up sizes the batches, then the
/// median of BATCHES batches, in ns per operation (`per` operations per call).
fn per_op(
    metric: &str,
    seconds: f64,
    per: f64,
    mut op: impl FnMut() -> Result<(), String>,
) -> Result<Measured, String> {
    let warm = Duration::from_secs_f64((seconds * 0.1).max(0.01));
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < warm {
        op()?;
        n += 1;
    }
    let each = start.elapsed().as_secs_f64() / n as f64;
    let per_batch = ((seconds / BATCHES as f64) / each).max(1.0) as u64;
    let mut batches = Vec::with_capacity(BATCHES);
    let all = Instant::now();
    for _ in 0..BATCHES {
        let t = Instant::now();
        for _ in 0..per_batch {
            op()?;
        }
        batches.push(t.elapsed().as_nanos() as f64 / (per_batch as f64 * per));
    }
    Ok(Measured {
        metric: metric.into(),
        unit: "ns/op".into(),
        value: crate::stats::median(&batches),
        batches,
        ops: ((per_batch * BATCHES as u64) as f64 * per) as u64,
        seconds: all.elapsed().as_secs_f64(),
    })
}

fn cstring(p: &Path) -> Result<CString, String> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| format!("{}: NUL in path", p.display()))
}

fn errno(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

/// The audited call: every one is selected by a rule. Counts every call
/// made, so generated = logged + lost can be checked against the logs.
fn audited(file: &Path, seconds: f64) -> Result<Measured, String> {
    let c = cstring(file)?;
    let mut batches = Vec::new();
    let mut ops = 0u64;
    let start = Instant::now();
    let end = Duration::from_secs_f64(seconds);
    while start.elapsed() < end {
        let t = Instant::now();
        for _ in 0..1000 {
            // SAFETY: a valid NUL-terminated path.
            if unsafe { libc::fchmodat(libc::AT_FDCWD, c.as_ptr(), 0o644, 0) } != 0 {
                return Err(errno("fchmodat"));
            }
        }
        ops += 1000;
        batches.push(t.elapsed().as_nanos() as f64 / 1000.0);
    }
    let secs = start.elapsed().as_secs_f64();
    Ok(Measured {
        metric: "fchmodat".into(),
        unit: "ns/op".into(),
        value: crate::stats::median(&batches),
        batches,
        ops,
        seconds: secs,
    })
}

extern "C" fn on_signal(_: libc::c_int) {
    SIGNALS.fetch_add(1, Ordering::Relaxed);
}

static SIGNALS: AtomicU64 = AtomicU64::new(0);

/// The lmbench operations (lat_syscall, lat_select, lat_sig, lat_proc).
fn lmbench(dir: &Path, seconds: f64) -> Result<Vec<Measured>, String> {
    let file = dir.join("lmbench-file");
    std::fs::write(&file, b"lmbench").map_err(|e| format!("{}: {e}", file.display()))?;
    let cfile = cstring(&file)?;
    let open = |p: &CString, flags| {
        // SAFETY: a valid NUL-terminated path.
        let fd = unsafe { libc::open(p.as_ptr(), flags) };
        if fd < 0 {
            Err(errno("open"))
        } else {
            Ok(fd)
        }
    };
    let zero = open(
        &CString::new("/dev/zero").unwrap_or_default(),
        libc::O_RDONLY,
    )?;
    let null = open(
        &CString::new("/dev/null").unwrap_or_default(),
        libc::O_WRONLY,
    )?;
    let mut out = Vec::new();
    let mut buf = [0u8; 1];
    out.push(per_op("null call", seconds, 1.0, || {
        // SAFETY: no arguments.
        unsafe { libc::syscall(libc::SYS_getppid) };
        Ok(())
    })?);
    // lmbench's "null I/O" is the mean of a 1-byte read and a 1-byte write.
    out.push(per_op("null I/O", seconds, 2.0, || {
        // SAFETY: valid fds and a 1-byte buffer.
        let ok = unsafe {
            libc::read(zero, buf.as_mut_ptr().cast(), 1) == 1
                && libc::write(null, buf.as_ptr().cast(), 1) == 1
        };
        ok.then_some(()).ok_or_else(|| errno("null I/O"))
    })?);
    out.push(per_op("stat", seconds, 1.0, || {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: valid path and out-pointer.
        let rc = unsafe { libc::stat(cfile.as_ptr(), st.as_mut_ptr()) };
        (rc == 0).then_some(()).ok_or_else(|| errno("stat"))
    })?);
    out.push(per_op("open/close", seconds, 1.0, || {
        let fd = open(&cfile, libc::O_RDONLY)?;
        // SAFETY: fd was just opened.
        unsafe { libc::close(fd) };
        Ok(())
    })?);
    let fds: Vec<i32> = (0..100)
        .map(|_| open(&cfile, libc::O_RDONLY))
        .collect::<Result<_, _>>()?;
    let maxfd = fds.iter().copied().max().unwrap_or(0);
    out.push(per_op("select 100 fds", seconds, 1.0, || {
        // SAFETY: fd_set filled with open fds below FD_SETSIZE; zero timeout.
        let rc = unsafe {
            let mut set = std::mem::zeroed::<libc::fd_set>();
            libc::FD_ZERO(&mut set);
            for &fd in &fds {
                libc::FD_SET(fd, &mut set);
            }
            let mut tv = libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            };
            libc::select(
                maxfd + 1,
                &mut set,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut tv,
            )
        };
        (rc >= 0).then_some(()).ok_or_else(|| errno("select"))
    })?);
    for fd in fds {
        // SAFETY: opened above.
        unsafe { libc::close(fd) };
    }
    // SAFETY: a plain sigaction with a handler that only bumps an atomic.
    let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
    sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
    out.push(per_op("signal install", seconds, 1.0, || {
        // SAFETY: sa is a valid sigaction.
        let rc = unsafe { libc::sigaction(libc::SIGUSR1, &sa, std::ptr::null_mut()) };
        (rc == 0).then_some(()).ok_or_else(|| errno("sigaction"))
    })?);
    out.push(per_op("signal handle", seconds, 1.0, || {
        // SAFETY: SIGUSR1 has the handler installed above.
        let rc = unsafe { libc::kill(libc::getpid(), libc::SIGUSR1) };
        (rc == 0).then_some(()).ok_or_else(|| errno("kill"))
    })?);
    if SIGNALS.load(Ordering::Relaxed) == 0 {
        return Err("signal handle: no signal was delivered".into());
    }
    let sh = CString::new("/bin/sh").unwrap_or_default();
    let truebin = CString::new("/bin/true").unwrap_or_default();
    let dash_c = CString::new("-c").unwrap_or_default();
    out.push(per_op("fork+exit", seconds, 1.0, || spawn_wait(None))?);
    out.push(per_op("fork+exec", seconds, 1.0, || {
        spawn_wait(Some(&[&truebin]))
    })?);
    out.push(per_op("sh -c", seconds, 1.0, || {
        spawn_wait(Some(&[&sh, &dash_c, &truebin]))
    })?);
    // SAFETY: opened above.
    unsafe {
        libc::close(zero);
        libc::close(null);
    }
    Ok(out)
}

/// fork(); the child exits at once or execs `argv`; the parent waits.
fn spawn_wait(argv: Option<&[&CString]>) -> Result<(), String> {
    let mut ptrs: Vec<*const libc::c_char> = argv
        .unwrap_or_default()
        .iter()
        .map(|a| a.as_ptr())
        .collect();
    ptrs.push(std::ptr::null());
    // SAFETY: the worker is single-threaded here; the child only calls
    // async-signal-safe functions (execv, _exit).
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(errno("fork"));
    }
    if pid == 0 {
        // SAFETY: see above.
        unsafe {
            if argv.is_some() {
                libc::execv(ptrs[0], ptrs.as_ptr());
                libc::_exit(127);
            }
            libc::_exit(0);
        }
    }
    let mut status = 0;
    // SAFETY: waiting for our own child.
    if unsafe { libc::waitpid(pid, &mut status, 0) } != pid {
        return Err(errno("waitpid"));
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!("child exited with status {status:#x}"));
    }
    Ok(())
}

/// sysbench threads: each thread repeats lock(mutex[id % 8]), sched_yield,
/// unlock. The value is wall time per iteration per thread.
fn threads(n: usize, seconds: f64) -> Result<Measured, String> {
    let locks: Arc<Vec<Mutex<u64>>> = Arc::new((0..8).map(|_| Mutex::new(0)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let handles: Vec<_> = (0..n)
        .map(|id| {
            let (locks, stop) = (Arc::clone(&locks), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut iters = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let mut g = locks[id % locks.len()]
                        .lock()
                        .unwrap_or_else(|e| e.into_inner());
                    // SAFETY: no arguments.
                    unsafe { libc::sched_yield() };
                    *g += 1;
                    drop(g);
                    iters += 1;
                }
                iters
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    let per_thread: Vec<u64> = handles
        .into_iter()
        .map(|h| {
            h.join()
                .map_err(|_| "a benchmark thread panicked".to_string())
        })
        .collect::<Result<_, _>>()?;
    let wall = start.elapsed().as_secs_f64();
    let total: u64 = per_thread.iter().sum();
    let batches: Vec<f64> = per_thread
        .iter()
        .map(|&i| wall * 1e9 / i.max(1) as f64)
        .collect();
    Ok(Measured {
        metric: format!("{n} threads"),
        unit: "ns/op".into(),
        value: wall * 1e9 * n as f64 / total.max(1) as f64,
        batches,
        ops: total,
        seconds: wall,
    })
}

/// io_uring: NOPs, and openat + close pairs, 32 / 16 per submission.
fn io_uring_ops(dir: &Path, seconds: f64) -> Result<Vec<Measured>, String> {
    let mut ring = IoUring::new(64).map_err(|e| format!("io_uring_setup: {e}"))?;
    let file = dir.join("uring-file");
    std::fs::write(&file, b"x").map_err(|e| format!("{}: {e}", file.display()))?;
    let cfile = cstring(&file)?;
    let mut out = Vec::new();
    out.push(per_op("NOP", seconds, 32.0, || {
        for i in 0..32u64 {
            let e = opcode::Nop::new().build().user_data(i);
            // SAFETY: a NOP refers to no memory.
            unsafe { ring.submission().push(&e) }.map_err(|_| "submission queue full")?;
        }
        ring.submit_and_wait(32)
            .map_err(|e| format!("io_uring_enter: {e}"))?;
        let done = ring.completion().count();
        (done == 32)
            .then_some(())
            .ok_or_else(|| format!("{done} of 32 NOPs completed"))
    })?);
    out.push(per_op("openat+close", seconds, 16.0, || {
        for i in 0..16u64 {
            let e = opcode::OpenAt::new(types::Fd(libc::AT_FDCWD), cfile.as_ptr())
                .flags(libc::O_RDONLY)
                .build()
                .user_data(i);
            // SAFETY: cfile outlives the completion, waited for below.
            unsafe { ring.submission().push(&e) }.map_err(|_| "submission queue full")?;
        }
        ring.submit_and_wait(16)
            .map_err(|e| format!("io_uring_enter: {e}"))?;
        let fds: Vec<i32> = ring.completion().map(|c| c.result()).collect();
        if let Some(bad) = fds.iter().find(|&&r| r < 0) {
            return Err(format!(
                "io_uring openat: {}",
                std::io::Error::from_raw_os_error(-bad)
            ));
        }
        for &fd in &fds {
            let e = opcode::Close::new(types::Fd(fd)).build();
            // SAFETY: close refers to no memory.
            unsafe { ring.submission().push(&e) }.map_err(|_| "submission queue full")?;
        }
        ring.submit_and_wait(fds.len())
            .map_err(|e| format!("io_uring_enter: {e}"))?;
        ring.completion().for_each(drop);
        Ok(())
    })?);
    Ok(out)
}

/// Generate a C project of `files` sources and time `make -jJOBS` on it.
fn compile(dir: &Path, files: usize, jobs: usize) -> Result<Measured, String> {
    generate_project(dir, files).map_err(|e| format!("{}: {e}", dir.display()))?;
    let start = Instant::now();
    let out = std::process::Command::new("make")
        .arg(format!("-j{jobs}"))
        .arg("-s")
        .current_dir(dir)
        .output()
        .map_err(|e| format!("running make: {e}"))?;
    let secs = start.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!(
            "make failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(Measured {
        metric: format!("make -j{jobs}"),
        unit: "s".into(),
        value: secs,
        batches: vec![secs],
        ops: files as u64,
        seconds: secs,
    })
}

/// A small C project: a header, `files` sources with enough code to keep
/// the compiler busy, a main, a Makefile. Generated, so nothing is fetched.
pub fn generate_project(dir: &Path, files: usize) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        dir.join("common.h"),
        "#include <stddef.h>\n#include <string.h>\n#include <stdio.h>\n\
         struct rec { int id; double w; char name[32]; struct rec *next; };\n\
         unsigned long mix(unsigned long a, unsigned long b);\n",
    )?;
    let mut objs = Vec::new();
    let mut calls = String::new();
    for f in 0..files {
        let mut src = String::from("#include \"common.h\"\n");
        for g in 0..24 {
            src.push_str(&format!(
                "static int cmp_{f}_{g}(const void *a, const void *b) {{\n\
                   const struct rec *x = a, *y = b;\n\
                   if (x->w != y->w) return x->w < y->w ? -1 : 1;\n\
                   return strcmp(x->name, y->name);\n}}\n\
                 unsigned long work_{f}_{g}(struct rec *r, size_t n, unsigned long seed) {{\n\
                   unsigned long h = seed ^ {g}u;\n\
                   for (size_t i = 0; i < n; i++) {{\n\
                     switch ((r[i].id + {g}) % 5) {{\n\
                       case 0: h = mix(h, (unsigned long)r[i].id); break;\n\
                       case 1: h += (unsigned long)(r[i].w * {g}.5); break;\n\
                       case 2: snprintf(r[i].name, sizeof r[i].name, \"%lu-%d\", h, {f}); break;\n\
                       case 3: h ^= strlen(r[i].name) << ({g} % 7); break;\n\
                       default: r[i].w = r[i].w * 0.5 + (double)(h & 0xff);\n\
                     }}\n\
                   }}\n\
                   qsort(r, n, sizeof *r, cmp_{f}_{g});\n\
                   return h;\n}}\n"
            ));
        }
        std::fs::write(dir.join(format!("unit{f}.c")), src)?;
        objs.push(format!("unit{f}.o"));
        calls.push_str(&format!("  h = work_{f}_0(r, 64, h);\n"));
    }
    let mut main = String::from("#include \"common.h\"\n#include <stdlib.h>\n");
    main.push_str(
        "unsigned long mix(unsigned long a, unsigned long b) { return (a * 31) ^ (b + 0x9e3779b97f4a7c15ul); }\n",
    );
    for f in 0..files {
        main.push_str(&format!(
            "unsigned long work_{f}_0(struct rec *, size_t, unsigned long);\n"
        ));
    }
    main.push_str(&format!(
        "int main(void) {{\n  static struct rec r[64];\n  unsigned long h = 1;\n{calls}  printf(\"%lu\\n\", h);\n  return 0;\n}}\n"
    ));
    std::fs::write(dir.join("main.c"), main)?;
    std::fs::write(
        dir.join("Makefile"),
        format!(
            "CFLAGS = -O2 -Wall\nOBJS = main.o {}\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%.o: %.c common.h\n\t$(CC) $(CFLAGS) -c -o $@ $<\n",
            objs.join(" ")
        ),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_round_trip_through_json() {
        let job = Job {
            work: Work::Threads {
                counts: vec![1, 4],
                seconds: 0.5,
            },
            pin: None,
        };
        let text = serde_json::to_string(&job).unwrap();
        assert_eq!(serde_json::from_str::<Job>(&text).unwrap(), job);
    }

    #[test]
    fn getpid_is_measured_in_batches() {
        let r = run(&Job {
            work: Work::Getpid { seconds: 0.05 },
            pin: None,
        })
        .unwrap();
        assert_eq!(r.measured.len(), 1);
        assert_eq!(r.measured[0].batches.len(), BATCHES);
        assert!(r.measured[0].value > 0.0 && r.measured[0].ops > 0);
    }

    #[test]
    fn audited_reports_an_error_for_a_missing_file() {
        let e = run(&Job {
            work: Work::Audited {
                file: PathBuf::from("/nonexistent/fastaudit/file"),
                seconds: 0.01,
            },
            pin: None,
        })
        .unwrap_err();
        assert!(e.contains("fchmodat"), "{e}");
    }

    #[test]
    fn the_generated_project_builds() {
        let dir = std::env::temp_dir().join(format!("fa-bench-cc-{}", std::process::id()));
        let m = compile(&dir, 2, 2).unwrap();
        assert!(dir.join("prog").is_file());
        assert_eq!(m.unit, "s");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
