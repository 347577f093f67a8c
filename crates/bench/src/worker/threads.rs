//! sysbench's threads workload.

use super::measure::Measured;
use nix::libc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// sysbench threads: each thread repeats lock(mutex[id % 8]), sched_yield,
/// unlock. The value is wall time per iteration per thread.
pub(super) fn threads(n: usize, seconds: f64) -> Result<Measured, String> {
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
