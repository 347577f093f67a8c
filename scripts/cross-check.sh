#!/usr/bin/env bash
# The aarch64 build from an x86_64 machine, for CI: the whole workspace
# cross-compiled (`--target aarch64-unknown-linux-gnu`, which builds the
# arm64 BPF object and compiles every BPF header for both architectures
# in its test), then the unit tests that depend on the architecture run as
# aarch64 programs under qemu-user: rules (syscall tables, targets),
# records, engine (plans, decoding, the programs and sections the object
# has, the corpus planned for both targets), bpf and daemon.
#
# Usage: scripts/cross-check.sh [--build-only]
# Needs: rustup's aarch64-unknown-linux-gnu target, gcc-aarch64-linux-gnu
# and libc6-dev-arm64-cross (the linker, arm64 libc), qemu-user-static,
# and an arm64 sysroot with libelf, zlib and libzstd (their -dev packages
# and libraries unpacked from Debian's arm64 .debs), as
# `scripts/arm64/setup.sh host rust apt sysroot` makes them under
# $ARM64_DIR (or ARM64_SYSROOT=$ARM64_DIR/sysroot). The arm64 libc comes
# from /usr/aarch64-linux-gnu, or from $ARM64_DIR/root when setup.sh made
# that root too.
# Environment: CARGO_TARGET_DIR as cargo reads it (default target/).
# Exit status: 0 when everything built and passed, 1 when something
# failed, 2 when the tools or the sysroot are missing.
# Time on 2 CPUs: about 11 min from an empty target directory (7 min the
# build, 4 min the test builds and runs), 2.5 min after a change to the
# BPF source.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
triple=aarch64-unknown-linux-gnu
build_only=0
case "${1:-}" in
    --build-only) build_only=1 ;;
    "") ;;
    *) echo "usage: scripts/cross-check.sh [--build-only]" >&2; exit 2 ;;
esac

# rustup's toolchain (it has the aarch64 target), where a non-login shell
# has not put it on PATH, first: as scripts/test.sh.
if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
sysroot=${ARM64_SYSROOT:-${ARM64_DIR:+$ARM64_DIR/sysroot}}
if [ -z "$sysroot" ] || [ ! -d "$sysroot/usr/lib/aarch64-linux-gnu" ]; then
    echo "cross-check.sh: no arm64 sysroot (set ARM64_SYSROOT or ARM64_DIR)" >&2
    exit 2
fi
for tool in aarch64-linux-gnu-gcc qemu-aarch64-static clang; do
    command -v "$tool" >/dev/null || { echo "cross-check.sh: $tool missing" >&2; exit 2; }
done
if ! rustup target list --installed 2>/dev/null | grep -qx "$triple"; then
    echo "cross-check.sh: rustup target $triple missing (rustup target add $triple)" >&2
    exit 2
fi

# The linker, the C parts (libbpf-sys builds libbpf for the target) and
# the qemu-user runner of the test binaries: scripts/arm64/cross-env.sh,
# on the sysroot found above.
ARM64_DIR=${ARM64_DIR:-$(dirname "$sysroot")}
if [ "$sysroot" != "$ARM64_DIR/sysroot" ]; then
    echo "cross-check.sh: ARM64_SYSROOT must be \$ARM64_DIR/sysroot (scripts/arm64/cross-env.sh reads it there)" >&2
    exit 2
fi
# shellcheck source=scripts/arm64/cross-env.sh
. "$root/scripts/arm64/cross-env.sh"

t0=$(date +%s)
echo "== cargo build --release --target $triple (the whole workspace)"
cargo build --release --locked --target "$triple"
t1=$(date +%s)
echo "== built in $((t1 - t0)) s"
[ "$build_only" = 1 ] && exit 0

echo "== unit tests under qemu-user: rules, records, engine, bpf, daemon"
cargo test --locked --target "$triple" \
    -p fastaudit-rules -p fastaudit-records -p fastaudit-engine -p fastaudit-bpf \
    -p fastaudit-daemon --lib
# The corpus's STIG and Neo23x0 planned for both targets, as aarch64 runs them.
cargo test --locked --target "$triple" -p fastaudit-engine --test targets
t2=$(date +%s)
echo "== tested in $((t2 - t1)) s; $((t2 - t0)) s in all"
