//! Generated rules (lists × fields × operators × values) compared against
//! the real kernel audit: the same lines refused, the same listing.

use fastaudit_testsupport as support;
use fastaudit_testsupport::generate;
use generate::generated;
use support::*;

/// The binary under test (cargo gives its path to integration tests only).
const FASTAUDIT: &str = env!("CARGO_BIN_EXE_fastaudit");

fn run(seed: &str, count: usize) {
    let ka = KernelAudit::acquire();
    let lines = generated(seed, count);
    if std::env::var_os("FASTAUDIT_DUMP").is_some() {
        std::fs::write(format!("/tmp/{seed}.rules"), lines.join(&b"\n"[..])).unwrap();
    }
    let diffs = differential(FASTAUDIT, &ka, seed, &lines);
    assert_agrees(&diffs);
}

#[test]
fn generated_rules_match_auditctl_batch_a() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    run("fastaudit-generated-a", 400);
}

#[test]
fn generated_rules_match_auditctl_batch_b() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    run("fastaudit-generated-b", 400);
}

#[test]
fn generated_rules_match_auditctl_batch_c() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    run("fastaudit-generated-c", 600);
}

/// Deeper local runs: `FASTAUDIT_SEEDS=20 cargo test -p fastaudit --test integration rules_generated::generated_rules_match_auditctl_extra`.
#[test]
fn generated_rules_match_auditctl_extra_seeds() {
    if support::skip_without_kernel_oracle!() {
        return;
    }
    let n: usize = std::env::var("FASTAUDIT_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    for i in 0..n {
        run(&format!("fastaudit-extra-{i}"), 500);
    }
}
