//! Waiting for a condition instead of sleeping a fixed time: polled every
//! 50 ms until it holds or the time is up, which fails the test naming
//! what was waited for.

use std::time::{Duration, Instant};

/// Wait up to `secs` seconds for `ok`, failing the test with `what` otherwise.
pub fn wait_until(secs: u64, what: &str, ok: impl FnMut() -> bool) {
    assert!(
        wait_for(secs, ok),
        "timed out after {secs} s waiting for {what}"
    );
}

/// Wait up to `secs` seconds for `ok`; whether it held in time (for a
/// test that has more to say, or to clean up, when it did not).
pub fn wait_for(secs: u64, mut ok: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if ok() {
            return true;
        }
        if start.elapsed() >= Duration::from_secs(secs) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether the file at `path` holds `text` (a missing file holds nothing).
pub fn file_holds(path: &std::path::Path, text: &str) -> bool {
    String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).contains(text)
}
