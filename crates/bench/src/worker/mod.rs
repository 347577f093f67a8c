//! The measured workloads. Each runs in a fresh process (`fastaudit-bench
//! bench-worker`) started after the mode is set up, because the kernel
//! decides whether to audit a task when the task is created.
//!
//! The operations are written with raw libc calls on purpose: the point is
//! to time one system call (or one fork, one exec) as lmbench and sysbench
//! do, with no library layer that could add calls of its own.

mod compile;
mod lmbench;
mod measure;
mod redis;
mod threads;
mod uring;
mod uring_script;

pub use compile::generate_project;
pub use measure::Measured;

use measure::{cstring, errno, per_op};

use nix::libc;
use serde::{Deserialize, Serialize};
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The first argument that makes the bench binary run one job (given as
/// JSON in the second) instead of a benchmark.
pub const COMMAND: &str = "bench-worker";

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
    /// fchmodat() as fast as the mode allows, by `writers` threads at
    /// once, each on a file of its own (see [`writer_file`]).
    Audited {
        /// The first writer's file.
        file: PathBuf,
        /// Time to spend.
        seconds: f64,
        /// Threads making the calls (1: on the pinned CPU; more: unpinned).
        #[serde(default = "one_writer")]
        writers: usize,
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
    /// io_uring NOP, random reads, openat+close (inline and in io-wq).
    IoUring {
        /// A scratch directory.
        dir: PathBuf,
        /// Time per operation.
        seconds: f64,
    },
    /// io_uring operations one at a time, as a script says (see
    /// `uring_script`): a workload for the differential tests, not timed.
    UringScript {
        /// Set the ring up with SQPOLL (a kernel thread submits).
        sqpoll: bool,
        /// The steps.
        steps: Vec<String>,
    },
    /// redis-benchmark's SET and GET against a private redis-server.
    Redis {
        /// The server's directory.
        dir: PathBuf,
        /// Requests of each test per batch.
        requests: u64,
        /// Connections (redis-benchmark -c).
        clients: usize,
        /// Batches (their median is the value).
        batches: usize,
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

/// What a worker reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The worker's pid (its events are found by it in the logs).
    pub pid: u32,
    /// Where it ran.
    pub cpu: Option<usize>,
    /// Its measurements.
    pub measured: Vec<Measured>,
    /// What each step of a script returned (a CQE's result), in order.
    #[serde(default)]
    pub results: Vec<i32>,
}

/// Run a job in this process.
pub fn run(job: &Job) -> Result<Report, String> {
    if let Some(cpu) = job.pin {
        let mut set = nix::sched::CpuSet::new();
        set.set(cpu).map_err(|e| format!("cpu {cpu}: {e}"))?;
        nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)
            .map_err(|e| format!("pinning to cpu {cpu}: {e}"))?;
    }
    let mut results = Vec::new();
    let measured = match &job.work {
        Work::Getpid { seconds } => vec![per_op("getpid", *seconds, 1.0, || {
            // SAFETY: getpid takes no arguments and cannot fail.
            unsafe { libc::syscall(libc::SYS_getpid) };
            Ok(())
        })?],
        Work::Audited {
            file,
            seconds,
            writers,
        } => vec![audited(file, *seconds, *writers)?],
        Work::Lmbench { dir, seconds } => lmbench::lmbench(dir, *seconds)?,
        Work::Threads { counts, seconds } => counts
            .iter()
            .map(|&n| threads::threads(n, *seconds))
            .collect::<Result<_, _>>()?,
        Work::IoUring { dir, seconds } => uring::io_uring_ops(dir, *seconds)?,
        Work::Compile { dir, files, jobs } => vec![compile::compile(dir, *files, *jobs)?],
        Work::Redis {
            dir,
            requests,
            clients,
            batches,
        } => redis::redis(dir, *requests, *clients, *batches)?,
        Work::UringScript { sqpoll, steps } => {
            results = uring_script::run(*sqpoll, steps)?;
            Vec::new()
        }
    };
    Ok(Report {
        pid: std::process::id(),
        cpu: job.pin,
        measured,
        results,
    })
}

fn one_writer() -> usize {
    1
}

/// The file writer `i` of the audited workload changes: `file` itself for
/// the first, `file.i` for the others (one inode each, so that writers do
/// not wait for each other's inode lock).
pub fn writer_file(file: &Path, i: usize) -> PathBuf {
    if i == 0 {
        return file.to_path_buf();
    }
    let mut name = file.as_os_str().to_os_string();
    name.push(format!(".{i}"));
    PathBuf::from(name)
}

/// The audited call: every one is selected by a rule. `writers` threads
/// start together and stop after `seconds`; every call made is counted,
/// so generated = logged + lost can be checked against the logs. The
/// value is the median ns per call of every writer's batches.
fn audited(file: &Path, seconds: f64, writers: usize) -> Result<Measured, String> {
    let writers = writers.max(1);
    let files = (0..writers)
        .map(|i| cstring(&writer_file(file, i)))
        .collect::<Result<Vec<_>, _>>()?;
    let gate = std::sync::Barrier::new(writers);
    let end = Duration::from_secs_f64(seconds);
    let each: Vec<Result<Written, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .iter()
            .map(|c| scope.spawn(|| fchmodat_loop(c, &gate, end)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a writer panicked".into())))
            .collect()
    });
    let mut batches = Vec::new();
    let mut ops = 0u64;
    let mut secs = 0f64;
    for r in each {
        let (b, n, s) = r?;
        batches.extend(b);
        ops += n;
        secs = secs.max(s);
    }
    let metric = if writers == 1 {
        "fchmodat".to_string()
    } else {
        format!("fchmodat, {writers} writers")
    };
    Ok(Measured {
        metric,
        unit: "ns/op".into(),
        value: crate::stats::median(&batches),
        batches,
        ops,
        seconds: secs,
    })
}

/// What one writer did: its batches (ns per call), calls and seconds.
type Written = (Vec<f64>, u64, f64);

/// One writer: batches of 1000 fchmodat until `end` has passed since the
/// writers started; its batches (ns per call), calls and seconds. A failed
/// call ends it with an error (the calls before it are not reported).
fn fchmodat_loop(c: &CString, gate: &std::sync::Barrier, end: Duration) -> Result<Written, String> {
    gate.wait();
    let mut batches = Vec::new();
    let mut ops = 0u64;
    let start = Instant::now();
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
    Ok((batches, ops, start.elapsed().as_secs_f64()))
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
        assert_eq!(r.measured[0].batches.len(), measure::BATCHES);
        assert!(r.measured[0].value > 0.0 && r.measured[0].ops > 0);
    }

    #[test]
    fn audited_reports_an_error_for_a_missing_file() {
        let e = run(&Job {
            work: Work::Audited {
                file: PathBuf::from("/nonexistent/fastaudit/file"),
                seconds: 0.01,
                writers: 1,
            },
            pin: None,
        })
        .unwrap_err();
        assert!(e.contains("fchmodat"), "{e}");
    }

    #[test]
    fn audited_writers_each_count_their_calls() {
        let dir = std::env::temp_dir().join(format!("fa-bench-writers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        let job = |writers| Job {
            work: Work::Audited {
                file: file.clone(),
                seconds: 0.05,
                writers,
            },
            pin: None,
        };
        for i in 0..2 {
            std::fs::write(writer_file(&file, i), b"x").unwrap();
        }
        assert_eq!(writer_file(&file, 1), dir.join("f.1"));
        let r = run(&job(2)).unwrap();
        let m = &r.measured[0];
        assert_eq!(m.metric, "fchmodat, 2 writers");
        // Whole batches only, from both writers.
        assert_eq!(m.ops, 1000 * m.batches.len() as u64);
        assert!(m.batches.len() >= 2 && m.seconds >= 0.05, "{m:?}");
        assert_eq!(run(&job(1)).unwrap().measured[0].metric, "fchmodat");
        // A writer without its file fails the workload.
        let e = run(&job(3)).unwrap_err();
        assert!(e.contains("fchmodat"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
