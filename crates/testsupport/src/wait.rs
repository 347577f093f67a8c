//! Waiting for a condition instead of sleeping a fixed time: polled every
//! 50 ms until it holds or the time is up, which fails the test naming
//! what was waited for.

use std::time::{Duration, Instant};

/// Wait up to `secs` seconds for `ok`, failing the test with `what` otherwise.
pub fn wait_until(secs: u64, what: &str, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "timed out after {secs} s waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether the file at `path` holds `text` (a missing file holds nothing).
pub fn file_holds(path: &std::path::Path, text: &str) -> bool {
    String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).contains(text)
}
