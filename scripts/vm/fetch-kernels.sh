#!/usr/bin/env bash
# Fetch Debian's stock amd64 kernels for booting fastaudit in VM guests, and
# the tools that boot them (virtme-ng, qemu-system-x86). Every amd64 kernel
# Debian ships: 11 bullseye 5.10, 12 bookworm 6.1, bookworm-backports,
# 13 trixie 6.12, trixie-backports, and sid (unstable); each release's
# newest, as its linux-image-amd64 metapackage names it. Idempotent and
# cached:
#   /var/cache/fastaudit-kernels/<release>/     the unpacked kernel packages
#   /var/cache/fastaudit-kernels/<release>.path the line printed below
#   /lib/modules/<version>/                     its modules (depmod'ed)
# The host's apt state is untouched: a private sources list and lists dir
# under the cache dir, pointing at the Debian mirror the host's apt uses;
# the lists are refreshed at most once a day (FASTAUDIT_KERNEL_REFRESH=1
# forces it, and fetches each release's newest kernel again).
#
# Since Linux 7.x Debian splits the image package: linux-image-VER only
# depends on linux-binary-VER (vmlinuz, under usr/lib/modules/VER/),
# linux-modules-VER and linux-base-VER; all of them are fetched.
#
# Usage: fetch-kernels.sh [KERNEL ...]   (default: all releases)
#   KERNEL: a release (bullseye, bookworm, bookworm-backports, trixie,
#   trixie-backports, sid), its number (11, 12, 12-backports, 13,
#   13-backports) or alias (bpo12, bpo13, unstable), a kernel series
#   (5.10, 6.1 and 6.12 name bullseye, bookworm and trixie; another, e.g.
#   7.3, the release that ships it), `newest` (the release with the highest
#   kernel version), or `all`.
# Prints "<release><TAB><kernel version><TAB><vmlinuz path><TAB><Debian
# version>" per kernel (the last field may be missing for a kernel fetched
# by an older copy of this script).
set -euo pipefail
if [ "$(id -u)" != 0 ]; then echo "fetch-kernels.sh: run as root" >&2; exit 1; fi
CACHE=${FASTAUDIT_KERNEL_CACHE:-/var/cache/fastaudit-kernels}
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$CACHE"
RELEASES=(bullseye bookworm bookworm-backports trixie trixie-backports sid)

# A release name for an argument; a kernel series that is not one of the
# three fixed ones is looked up in the releases' packages (resolve_series).
release_of() {
  case "$1" in
    bullseye|11|5.10) echo bullseye ;;
    bookworm|12|6.1) echo bookworm ;;
    bookworm-backports|12-backports|bpo12) echo bookworm-backports ;;
    trixie|13|6.12) echo trixie ;;
    trixie-backports|13-backports|bpo13) echo trixie-backports ;;
    sid|unstable) echo sid ;;
    newest) newest_release ;;
    [0-9]*.[0-9]*) resolve_series "$1" ;;
    *) echo "fetch-kernels.sh: unknown kernel '$1' (${RELEASES[*]}, newest, all, or a series such as 6.1 or 7.3)" >&2; return 1 ;;
  esac
}

# --- tools --------------------------------------------------------------
need_apt=()
command -v qemu-system-x86_64 >/dev/null 2>&1 || need_apt+=(qemu-system-x86)
# virtme-ng's guest needs these from the host root (busybox: its fallback
# initramfs needs a static one; udev is optional).
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q "ok installed" || need_apt+=(busybox-static)
command -v depmod >/dev/null 2>&1 || [ -x /usr/sbin/depmod ] || [ -x /sbin/depmod ] || need_apt+=(kmod)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi
if ! command -v vng >/dev/null 2>&1; then
  python3 -m pip install -q virtme-ng >&2
  hash -r
fi
command -v vng >/dev/null || { echo "fetch-kernels.sh: vng not on PATH after install" >&2; exit 1; }

# --- the host's Debian mirror ------------------------------------------
# shellcheck source=scripts/vm/debian-mirror.sh
. "$(dirname "$0")/debian-mirror.sh"
mirror() {
  debian_mirror && return
  echo "fetch-kernels.sh: no Debian mirror found in /etc/apt/sources.list*" >&2
  return 1
}

APT_DIR=$CACHE/apt
APT_OPTS=(-o "Dir::Etc::sourcelist=$APT_DIR/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache=$APT_DIR/cache"
  -o "Dir::State::status=$APT_DIR/status" -o "APT::Get::List-Cleanup=0"
  -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")

apt_setup() {
  [ -n "${APT_READY:-}" ] && return
  local m; m=$(mirror)
  mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
  : > "$APT_DIR/status"
  {
    for r in "${RELEASES[@]}"; do
      echo "deb [arch=amd64] $m $r main"
      # Stable releases' point updates; backports and sid have none.
      case $r in *-backports|sid) ;; *) echo "deb [arch=amd64] $m $r-updates main" ;; esac
    done
  } > "$APT_DIR/sources.list.new"
  # Refresh the lists at most once a day (or when the sources changed).
  if [ "${FASTAUDIT_KERNEL_REFRESH:-0}" = 1 ] ||
     ! cmp -s "$APT_DIR/sources.list.new" "$APT_DIR/sources.list" 2>/dev/null ||
     [ -z "$(find "$APT_DIR/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n1)" ]; then
    mv "$APT_DIR/sources.list.new" "$APT_DIR/sources.list"
    # A release gone from the mirror (an old one moved to the archive)
    # must not stop the others: its kernel is then reported missing.
    apt-get "${APT_OPTS[@]}" update -qq >&2 ||
      echo "fetch-kernels.sh: apt-get update reported errors (see above); going on with the lists it got" >&2
  else
    rm -f "$APT_DIR/sources.list.new"
  fi
  APT_READY=1
}

# The version of a release's linux-image-amd64 metapackage (its kernel's
# Debian version, e.g. 7.3.4-1~bpo13+1), empty when the release has none.
meta_version() {
  apt-cache "${APT_OPTS[@]}" show "linux-image-amd64/$1" 2>/dev/null |
    awk '/^Version:/{print $2}' | sort -V | tail -n1
}

# The newest linux-image-<abi>-amd64 package of a release: the one its
# linux-image-amd64 metapackage depends on (signed image: boots the same).
image_package() {
  local rel=$1 v
  v=$(meta_version "$rel")
  [ -n "$v" ] || { echo "fetch-kernels.sh: no linux-image-amd64 in $rel" >&2; return 1; }
  apt-cache "${APT_OPTS[@]}" show "linux-image-amd64=$v" 2>/dev/null |
    awk -F': ' '/^Depends:/{print $2; exit}' | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
    grep -E '^linux-image-[0-9].*-amd64(-unsigned)?$' | head -n1
}

# The release whose kernel is series $1 (e.g. 7.3): a kernel already
# fetched first (no network), else the releases' current packages.
resolve_series() {
  local series=$1 re f r v
  re="^${series//./\\.}[.+-]"
  for r in "${RELEASES[@]}"; do
    f=$CACHE/$r.path
    [ -f "$f" ] && cut -f2 "$f" | grep -qE "$re" && { echo "$r"; return; }
  done
  apt_setup
  for r in "${RELEASES[@]}"; do
    v=$(meta_version "$r")
    [ -n "$v" ] && grep -qE "$re" <<<"$v" && { echo "$r"; return; }
  done
  echo "fetch-kernels.sh: no release ships kernel $series (${RELEASES[*]})" >&2
  return 1
}

# The release with the highest kernel version.
newest_release() {
  apt_setup
  local r v
  for r in "${RELEASES[@]}"; do
    v=$(meta_version "$r"); [ -n "$v" ] && printf '%s %s\n' "$v" "$r"
  done | sort -V -k1,1 | tail -n1 | cut -d' ' -f2
}

# Download package $1 (version $2, or the candidate of release $3) into
# $deb_dir unless a .deb of it is there; prints the .deb's path.
download() {
  local pkg=$1 ver=$2 rel=$3 f
  f=$(ls "$deb_dir/${pkg}_"*.deb 2>/dev/null | sort -V | tail -n1 || true)
  if [ -z "$f" ]; then
    if [ -n "$ver" ]; then
      (cd "$deb_dir" && apt-get "${APT_OPTS[@]}" download "$pkg=$ver" >&2)
    else
      (cd "$deb_dir" && { apt-get "${APT_OPTS[@]}" download "$pkg/$rel" >&2 2>/dev/null ||
                          apt-get "${APT_OPTS[@]}" download "$pkg" >&2; })
    fi
    f=$(ls "$deb_dir/${pkg}_"*.deb | sort -V | tail -n1)
  fi
  echo "$f"
}

fetch() {
  local rel=$1 dir=$CACHE/$1
  if [ "${FASTAUDIT_KERNEL_REFRESH:-0}" != 1 ] && [ -f "$CACHE/$rel.path" ] &&
     [ -f "$(cut -f3 "$CACHE/$rel.path")" ] &&
     [ -d "/lib/modules/$(cut -f2 "$CACHE/$rel.path")/kernel" ]; then
    cat "$CACHE/$rel.path"; return
  fi
  apt_setup
  local pkg; pkg=$(image_package "$rel")
  [ -n "$pkg" ] || { echo "fetch-kernels.sh: no kernel image package in $rel" >&2; return 1; }
  local ver=${pkg#linux-image-}; ver=${ver%-unsigned}
  deb_dir=$CACHE/debs; mkdir -p "$deb_dir"
  local debs=() deb dep dver
  deb=$(download "$pkg" "" "$rel"); debs+=("$deb")
  # 7.x's split image: the packages that hold this very kernel's files
  # (linux-binary-VER: vmlinuz; linux-modules-VER; linux-base-VER), at
  # the version the image depends on. Older images depend on none of these.
  while read -r dep dver; do
    [ -n "$dep" ] || continue
    debs+=("$(download "$dep" "$dver" "$rel")")
  done < <(dpkg-deb -f "$deb" Depends | tr ',' '\n' |
           sed -nE "s/^ *(linux-(binary|modules|base)-${ver//+/\\+}) \(= ([^)]+)\).*/\1 \3/p")
  rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
  for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$dir.tmp"; done
  rm -rf "$dir"; mv "$dir.tmp" "$dir"
  local src=$dir/lib/modules/$ver
  [ -d "$src" ] || src=$dir/usr/lib/modules/$ver   # merged-/usr packages (trixie on)
  [ -d "$src/kernel" ] || { echo "fetch-kernels.sh: no modules for $ver in ${debs[*]}" >&2; return 1; }
  if [ ! -d "/lib/modules/$ver/kernel" ]; then
    mkdir -p "/lib/modules/$ver"
    # The modules and depmod's inputs; not the kernel image itself.
    (cd "$src" && tar --exclude=./vmlinuz -cf - .) | tar -C "/lib/modules/$ver" -xf -
  fi
  depmod "$ver"
  local vmlinuz=$dir/boot/vmlinuz-$ver
  [ -f "$vmlinuz" ] || vmlinuz=$dir/usr/lib/modules/$ver/vmlinuz
  [ -f "$vmlinuz" ] || { echo "fetch-kernels.sh: no vmlinuz in ${debs[*]}" >&2; return 1; }
  # The Debian version of the kernel package (e.g. 6.1.176-1: its upstream
  # version, which the ABI name 6.1.0-50-amd64 does not tell).
  local debver; debver=$(dpkg-deb -f "${debs[0]}" Version)
  printf '%s\t%s\t%s\t%s\n' "$rel" "$ver" "$vmlinuz" "$debver" > "$CACHE/$rel.path"
  cat "$CACHE/$rel.path"
}

args=("$@"); [ ${#args[@]} -gt 0 ] || args=(all)
for a in "${args[@]}"; do
  if [ "$a" = all ]; then
    for r in "${RELEASES[@]}"; do fetch "$r"; done
  else
    fetch "$(release_of "$a")"
  fi
done
