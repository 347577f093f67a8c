//! The `fastaudit-bench` binary beside `fastaudit`: the benchmark harness
//! and its workers (the io_uring tests run its scripted workload).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

/// `fastaudit bench` execs `fastaudit-bench` from beside `fastaudit`; that
/// binary belongs to another package, which `cargo test -p fastaudit` does
/// not build: build it, with the same profile, into the same directory
/// as `bin` (the fastaudit binary).
/// Returns its path.
pub fn build_bench_binary(bin: &str) -> PathBuf {
    static BUILT: Once = Once::new();
    let dir = Path::new(bin).parent().expect("fastaudit's directory");
    let bench = dir.join("fastaudit-bench");
    // Built beforehand where cargo cannot run (a VM guest over a read-only
    // checkout: scripts/vm/guest-checks.sh sets this).
    if std::env::var_os("FASTAUDIT_TEST_PREBUILT").is_some() && bench.is_file() {
        return bench;
    }
    BUILT.call_once(|| {
        let profile = match dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => "dev",
            Some(other) => other,
        };
        // A cross build's binaries are in target/TRIPLE/PROFILE: the bench
        // is built for that target too.
        let triple = dir
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .filter(|n| n.contains("-linux-"));
        let mut cargo = Command::new(env!("CARGO"));
        cargo
            .args(["build", "--locked", "-p", "fastaudit-bench", "--bin"])
            .args(["fastaudit-bench", "--profile", profile]);
        if let Some(triple) = triple {
            cargo.args(["--target", triple]);
        }
        let out = cargo
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run cargo");
        assert!(
            out.status.success(),
            "building fastaudit-bench: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(bench.is_file(), "{} not built", bench.display());
    });
    bench
}
