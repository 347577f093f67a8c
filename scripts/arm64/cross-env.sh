# shellcheck shell=bash
# Source me: the environment for `cargo build --target aarch64-unknown-linux-gnu`
# on an x86_64 Debian machine that scripts/arm64/setup.sh prepared.
#
#   . scripts/arm64/cross-env.sh
#   cargo build --release --locked --target aarch64-unknown-linux-gnu
#   cargo test --no-run --locked --target aarch64-unknown-linux-gnu -p fastaudit --test integration
#
# No `dpkg --add-architecture arm64`: the C libraries libbpf-sys links
# (libelf, zlib, libzstd) come from arm64 packages unpacked into
# $ARM64_DIR/sysroot; the C compiler and linker are Debian's
# gcc-aarch64-linux-gnu, whose own sysroot (libc6-dev-arm64-cross) has
# libc.
#
# Target dir: cargo's default, the checkout's target/. Cargo keeps each
# target's output apart (target/aarch64-unknown-linux-gnu/{release,debug}),
# the host's target/release stays as it was, and the build scripts and
# proc-macros (built for the host) are shared with the native build
# instead of being compiled twice. The arm64 scripts look there:
# target/aarch64-unknown-linux-gnu/release/fastaudit and
# target/aarch64-unknown-linux-gnu/debug/deps/integration-*. Set
# CARGO_TARGET_DIR before sourcing to build elsewhere (the scripts then
# need FASTAUDIT= and ARM64_TARGET_DIR=).
#
# Unit tests run under qemu-user, with the arm64 root as the dynamic
# loader's prefix: `cargo test --target aarch64-unknown-linux-gnu -p CRATE`.
ARM64_DIR=${ARM64_DIR:-/var/cache/fastaudit-arm64}
export ARM64_DIR
_fa_sr=$ARM64_DIR/sysroot
if [ ! -d "$_fa_sr/usr/include" ]; then
  echo "cross-env.sh: no sysroot in $_fa_sr (run scripts/arm64/setup.sh)" >&2
fi
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
# libbpf-sys compiles libbpf with the target's CC: libelf's and zlib's
# headers from the sysroot, and links against the sysroot's libraries.
export LIBBPF_SYS_EXTRA_CFLAGS="-I$_fa_sr/usr/include"
export LIBBPF_SYS_LIBRARY_PATH_aarch64_unknown_linux_gnu="$_fa_sr/usr/lib/aarch64-linux-gnu:$_fa_sr/lib/aarch64-linux-gnu"
# libelf.so needs libzstd/libz at link time: let the linker find them too.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-L native=$_fa_sr/usr/lib/aarch64-linux-gnu -C link-arg=-Wl,-rpath-link,$_fa_sr/usr/lib/aarch64-linux-gnu -C link-arg=-Wl,-rpath-link,$_fa_sr/lib/aarch64-linux-gnu"
export PKG_CONFIG_ALLOW_CROSS=1
export PKG_CONFIG_SYSROOT_DIR_aarch64_unknown_linux_gnu=$_fa_sr
export PKG_CONFIG_PATH_aarch64_unknown_linux_gnu=$_fa_sr/usr/lib/aarch64-linux-gnu/pkgconfig:$_fa_sr/usr/share/pkgconfig
# Test and unit-test binaries run under qemu-user (binfmt not needed).
if [ -d "$ARM64_DIR/root/lib" ]; then
  export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64-static -L $ARM64_DIR/root"
else
  # Without the root: the cross libc's loader, and libelf, zlib, libzstd
  # from the sysroot (the cross libc has none of them).
  export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64-static -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=$_fa_sr/usr/lib/aarch64-linux-gnu:$_fa_sr/lib/aarch64-linux-gnu"
fi
unset _fa_sr
