//! One measured quantity, and the timing and error helpers every workload
//! shares (a file of its own: the workloads and the dispatcher in mod.rs
//! both use it, so none of them depends on another).

use serde::{Deserialize, Serialize};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// Batches each per-operation measurement is split into (their median is the value).
pub(super) const BATCHES: usize = 9;

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

/// Time `op` for about `seconds`: a warm-up sizes the batches, then the
/// median of BATCHES batches, in ns per operation (`per` operations per call).
pub(super) fn per_op(
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

pub(super) fn cstring(p: &Path) -> Result<CString, String> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| format!("{}: NUL in path", p.display()))
}

pub(super) fn errno(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}
