#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit, property and integration
# tests (the kernel-audit oracle tests need root and take a lock so they
# run one at a time; each leaves no rules, audit off, -a never,task).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
