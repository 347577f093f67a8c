#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit, property and integration
# tests (the kernel-audit oracle tests need root and take a lock so they
# run one at a time; each leaves no rules, audit off, -a never,task).
# Every test binary runs (--no-fail-fast); every failure is listed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
# What the tests need (the oracle auditd, bpftool, the plugins and Laurel,
# jq, ...; the list and the reasons are in setup.sh): installed when
# missing, each named, so this command passes on a fresh machine after the
# README's first one. It also leaves the kernel audit as the tests expect.
bash scripts/setup.sh --tests --no-build
# rustup's toolchain (setup.sh may have just installed it), where a
# non-login shell has not put it on PATH.
if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings

# A kernel whose audit was locked (`auditctl -e 2`, only a reboot clears it)
# refuses every rule change, so the tests that compare with the kernel's own
# audit cannot run: they skip themselves and are listed at the end, with
# the tests of another machine's compat ABI (the arm ones on x86_64, the
# ia32 ones on arm64), each with its reason.
# FASTAUDIT_REQUIRE_ORACLE=1 makes the kernel-oracle skips fail instead.
skipped=$(mktemp)
log=$(mktemp)
trap 'rm -f "$skipped" "$log"' EXIT
export FASTAUDIT_SKIPPED_LOG="$skipped"
status=0
# One test at a time: the integration tests of all topics share one
# process per crate, and besides the kernel audit (which they take a lock
# for) they share the machine's /run/fastaudit, its CPUs and its timing;
# tests of different topics side by side made each other fail.
cargo test --workspace --locked --no-fail-fast -- --test-threads=1 2>&1 | tee "$log" || status=$?
if [ -s "$skipped" ]; then
    echo
    echo "NOTE: $(cut -f1 "$skipped" | sort -u | wc -l) tests cannot run on this machine and were skipped:"
    sort -u "$skipped" | awk -F'\t' '{ printf "  %s: %s\n", $1, $2 }'
fi
if [ "$status" -ne 0 ]; then
    echo
    echo "FAILED tests (every test binary ran):"
    grep -E '^test .* \.\.\. FAILED$' "$log" | sed 's/^test /  /; s/ \.\.\. FAILED$//' || true
    grep -E '^error: (test failed|[0-9]+ targets? failed)' "$log" | sed 's/^/  /' || true
fi
exit "$status"
