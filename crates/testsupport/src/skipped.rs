//! Tests that cannot run on this machine say so: printed, and appended
//! with the reason to `$FASTAUDIT_SKIPPED_LOG`, which scripts/test.sh
//! lists at the end, so that a skip is never mistaken for a pass.

/// Print that `test` is skipped and why, and append `test<TAB>why` to
/// `$FASTAUDIT_SKIPPED_LOG`.
pub fn say_skipped(test: &str, why: &str) {
    eprintln!("SKIPPED {test}: {why}");
    if let Some(log) = std::env::var_os("FASTAUDIT_SKIPPED_LOG") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(log)
        {
            let _ = writeln!(f, "{test}\t{why}");
        }
    }
}
