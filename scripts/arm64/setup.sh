#!/usr/bin/env bash
# Prepare this Debian x86_64 machine to build fastaudit for arm64 and test
# it in emulated arm64 guests (no arm64 hardware, no KVM). Idempotent: each
# step is skipped when its result is already there.
#
# Usage: scripts/arm64/setup.sh [STEP...]
#   STEP: host, rust, apt, sysroot, busybox, kernels, root (default: all,
#   in that order)
# Environment:
#   ARM64_DIR   where everything goes (default /var/cache/fastaudit-arm64):
#                 apt/        private arm64 apt (lists, cache, sources.list)
#                 sysroot/    arm64 libelf, zlib, zstd (-dev) for the linker
#                 busybox     static arm64 busybox (virtme-ng's initramfs)
#                 kernels/NAME/  unpacked linux-image of bookworm (6.1) and
#                             trixie (6.12): boot/vmlinuz-*, VERSION
#                 root/       Debian 12 arm64 root with auditd; the guests
#                             boot over it read-only; both kernels' modules
#                             in root/lib/modules
#   ARM64_SUITE root's Debian release (default bookworm, as the amd64 hosts)
#   ARM64_REFRESH=1  refresh the apt lists even if less than a day old
# The host's apt state (architectures, lists) and binfmt_misc are left
# alone: arm64 packages come from a private apt, and the root's second
# stage runs arm64 code through a private binfmt_misc (userns-chroot.py).
# Needs root and Linux 6.7 or later on the host (private binfmt_misc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export ARM64_DIR=${ARM64_DIR:-/var/cache/fastaudit-arm64}
SUITE=${ARM64_SUITE:-bookworm}
[ "$(id -u)" = 0 ] || { echo "setup.sh: run as root" >&2; exit 2; }
mkdir -p "$ARM64_DIR"
log() { echo "arm64-setup: $*" >&2; }
apt64() { "$here/apt64.sh" "$@"; }

# The host's Debian mirror (scripts/vm/debian-mirror.sh), else Debian's own.
# shellcheck source=scripts/vm/debian-mirror.sh
. "$here/../vm/debian-mirror.sh"
mirror() { debian_mirror || echo http://deb.debian.org/debian; }

step_host() {
  local need=() p
  for p in qemu-system-arm qemu-user-static debootstrap gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
           cpio kmod xz-utils zstd bc python3 debian-archive-keyring; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    log "installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
  if ! command -v vng >/dev/null 2>&1; then
    log "installing virtme-ng"
    python3 -m pip install -q virtme-ng >&2
    hash -r
  fi
}

step_rust() {
  # rustup's, where a non-login shell has not put it on PATH (as setup.sh).
  if [ -x "$HOME/.cargo/bin/rustup" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
  command -v rustup >/dev/null || { log "no rustup: install Rust with rustup first"; return 1; }
  rustup target list --installed | grep -qx aarch64-unknown-linux-gnu || rustup target add aarch64-unknown-linux-gnu
}

step_apt() {
  local d=$ARM64_DIR/apt m; m=$(mirror)
  mkdir -p "$d/etc/apt.conf.d" "$d/etc/preferences.d" "$d/lists/partial" "$d/cache/archives/partial"
  [ -f "$d/status" ] || : > "$d/status"
  local key=/usr/share/keyrings/debian-archive-keyring.gpg sec=${m%/debian}/debian-security
  # deb.debian.org's security archive is not under the main one.
  case $m in *deb.debian.org*) sec=http://deb.debian.org/debian-security ;; esac
  cat > "$d/etc/sources.list.new" <<EOF
deb [arch=arm64 signed-by=$key] $m bookworm main
deb [arch=arm64 signed-by=$key] $sec bookworm-security main
deb [arch=arm64 signed-by=$key] $m trixie main
EOF
  if [ "${ARM64_REFRESH:-0}" = 1 ] || ! cmp -s "$d/etc/sources.list.new" "$d/etc/sources.list" ||
     [ -z "$(find "$d/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n1)" ]; then
    mv "$d/etc/sources.list.new" "$d/etc/sources.list"
    log "apt update (arm64, private lists in $d)"
    apt64 update -qq >/dev/null
  else
    rm -f "$d/etc/sources.list.new"
  fi
}

# Download arm64 packages (PKG or PKG/SUITE) into $ARM64_DIR/apt/debs;
# prints each .deb's path.
download() {
  local dir=$ARM64_DIR/apt/debs; mkdir -p "$dir"
  (cd "$dir" && apt64 download -qq "$@" >/dev/null)
  local p f
  for p in "$@"; do
    # The newest file of that package (an older one may still be there).
    f=$(ls -t "$dir/${p%%/*}"_*.deb 2>/dev/null | head -n1 || true)
    [ -n "$f" ] || { log "download of $p gave no .deb"; return 1; }
    echo "$f"
  done
}

step_sysroot() {
  local sr=$ARM64_DIR/sysroot
  if [ -f "$sr/.done" ]; then return; fi
  log "sysroot $sr"
  mkdir -p "$sr"
  local f
  for f in $(download libelf-dev/bookworm libelf1/bookworm zlib1g-dev/bookworm zlib1g/bookworm libzstd-dev/bookworm libzstd1/bookworm); do
    dpkg-deb -x "$f" "$sr"
  done
  # The -dev packages' .so links are absolute (/lib/...): relative, so
  # that they resolve inside the sysroot.
  local l t
  for l in "$sr"/usr/lib/aarch64-linux-gnu/*.so; do
    t=$(readlink "$l" || true)
    case $t in /*) ln -sfn "../../..$t" "$l" ;; esac
  done
  touch "$sr/.done"
}

step_busybox() {
  [ -x "$ARM64_DIR/busybox" ] && return
  local t; t=$(mktemp -d)
  dpkg-deb -x "$(download busybox-static/bookworm)" "$t"
  install -m 0755 "$t/bin/busybox" "$ARM64_DIR/busybox"
  rm -rf "$t"
}

# Kernel NAME (bookworm, trixie): the linux-image-arm64 metapackage of that
# release names the current image; the image, unpacked, under kernels/NAME.
fetch_kernel() {
  local rel=$1 kd=$ARM64_DIR/kernels/$1
  if [ -f "$kd/VERSION" ] && [ "${ARM64_REFRESH:-0}" != 1 ]; then return; fi
  local meta img pkg ver t
  meta=$(download "linux-image-arm64/$rel")
  # Depends: linux-image-6.1.0-41-arm64 (= 6.1.158-1)
  pkg=$(dpkg-deb -f "$meta" Depends | tr ',' '\n' | sed -nE 's/^ *(linux-image-[0-9][^ ]*-arm64)( .*)?$/\1/p' | head -n1)
  [ -n "$pkg" ] || { log "no image named by $meta"; return 1; }
  log "kernel $rel: $pkg"
  img=$(download "$pkg")
  t=$kd.new; rm -rf "$t"; mkdir -p "$t"
  dpkg-deb -x "$img" "$t"
  ver=${pkg#linux-image-}
  # trixie's packages ship /usr/lib/modules, bookworm's /lib/modules.
  [ -d "$t/usr/lib/modules/$ver" ] && { mkdir -p "$t/lib/modules"; mv "$t/usr/lib/modules/$ver" "$t/lib/modules/"; }
  [ -f "$t/boot/vmlinuz-$ver" ] || { log "no vmlinuz-$ver in $img"; return 1; }
  printf '%s\t%s\n' "$ver" "$(dpkg-deb -f "$img" Version)" > "$t/VERSION"
  rm -rf "$kd"; mv "$t" "$kd"
}

step_kernels() {
  fetch_kernel bookworm
  fetch_kernel trixie
}

# Copy each kernel's modules into the root (virtme-ng's initramfs takes
# the virtio/9p modules from ROOT/lib/modules/VER, and the tests load
# modules there) and index them.
root_modules() {
  local root=$1 rel ver
  for rel in bookworm trixie; do
    [ -f "$ARM64_DIR/kernels/$rel/VERSION" ] || continue
    ver=$(cut -f1 "$ARM64_DIR/kernels/$rel/VERSION")
    if [ ! -f "$root/lib/modules/$ver/modules.dep" ]; then
      mkdir -p "$root/lib/modules"
      rm -rf "$root/lib/modules/$ver"
      cp -a "$ARM64_DIR/kernels/$rel/lib/modules/$ver" "$root/lib/modules/"
      depmod -b "$root" "$ver"
    fi
  done
}

# A Debian arm64 root: what the guest checks run (bash, coreutils, bc, awk,
# timeout), auditd (the guest kernel's oracle: auditctl, auditd, ausearch),
# and what the integration tests call (setpriv, unshare, prlimit, pgrep,
# python3, perl, bpftool, jq, modinfo, su, flock, dmesg).
ROOT_PACKAGES=auditd,bash,bc,procps,psmisc,python3,kmod,iproute2,jq,bpftool,libelf1,zlib1g,libzstd1,libgcc-s1,login,less
step_root() {
  local root=$ARM64_DIR/root m; m=$(mirror)
  if [ ! -f "$root/.done" ]; then
    local new=$ARM64_DIR/root.new
    if [ ! -x "$new/debootstrap/debootstrap" ] && [ ! -f "$new/.stage2" ]; then
      rm -rf "$new"
      log "debootstrap --foreign $SUITE arm64 into $new"
      debootstrap --foreign --arch=arm64 --variant=minbase --include="$ROOT_PACKAGES" \
        "$SUITE" "$new" "$m" >&2
    fi
    if [ ! -f "$new/.stage2" ]; then
      log "second stage under qemu-aarch64 (a few minutes)"
      python3 "$here/userns-chroot.py" "$new" /debootstrap/debootstrap --second-stage >&2
      touch "$new/.stage2"
    fi
    # The guests share /work (the checkout, the corpus) and the results
    # dir: their mount points must exist in the read-only root.
    mkdir -p "$new/work" "$new/tmp/vm-matrix"
    echo fastaudit-arm64 > "$new/etc/hostname"
    rm -rf "$root"; mv "$new" "$root"; rm -f "$root/.stage2"
    touch "$root/.done"
  fi
  root_modules "$root"
}

steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(host rust apt sysroot busybox kernels root)
for s in "${steps[@]}"; do
  declare -F "step_$s" >/dev/null || { echo "setup.sh: unknown step $s" >&2; exit 2; }
  t0=$(date +%s)
  "step_$s"
  log "$s done ($(( $(date +%s) - t0 )) s)"
done
