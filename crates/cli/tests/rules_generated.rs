//! Generated rules (lists × fields × operators × values) compared against
//! the real kernel audit: the same lines refused, the same listing.

mod common;
#[path = "common/generate.rs"]
mod generate;
use common::*;
use generate::generated;

fn run(seed: &str, count: usize) {
    let ka = KernelAudit::acquire();
    let lines = generated(seed, count);
    if std::env::var_os("FASTAUDIT_DUMP").is_some() {
        std::fs::write(format!("/tmp/{seed}.rules"), lines.join(&b"\n"[..])).unwrap();
    }
    let diffs = differential(&ka, seed, &lines);
    assert_agrees(&diffs);
}

#[test]
fn generated_rules_match_auditctl_batch_a() {
    if common::skip_without_kernel_oracle("rules_generated::generated_rules_match_auditctl_batch_a")
    {
        return;
    }
    run("fastaudit-generated-a", 400);
}

#[test]
fn generated_rules_match_auditctl_batch_b() {
    if common::skip_without_kernel_oracle("rules_generated::generated_rules_match_auditctl_batch_b")
    {
        return;
    }
    run("fastaudit-generated-b", 400);
}

#[test]
fn generated_rules_match_auditctl_batch_c() {
    if common::skip_without_kernel_oracle("rules_generated::generated_rules_match_auditctl_batch_c")
    {
        return;
    }
    run("fastaudit-generated-c", 600);
}

/// Deeper local runs: `FASTAUDIT_SEEDS=20 cargo test --test rules_generated extra`.
#[test]
fn generated_rules_match_auditctl_extra_seeds() {
    if common::skip_without_kernel_oracle(
        "rules_generated::generated_rules_match_auditctl_extra_seeds",
    ) {
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
