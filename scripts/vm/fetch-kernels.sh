#!/usr/bin/env bash
# Fetch Debian's stock amd64 kernels (11 bullseye 5.10, 12 bookworm 6.1,
# 13 trixie 6.12) for booting fastaudit in VM guests, and the tools that
# boot them (virtme-ng, qemu-system-x86). Idempotent and cached:
#   /var/cache/fastaudit-kernels/<release>/     the unpacked kernel package
#   /var/cache/fastaudit-kernels/<release>.path the vmlinuz path
#   /lib/modules/<version>/                     its modules (depmod'ed)
# The host's apt state is untouched: a private sources list and lists dir
# under the cache dir, pointing at the Debian mirror the host's apt uses.
#
# Usage: fetch-kernels.sh [bullseye|bookworm|trixie|5.10|6.1|6.12 ...]
# Prints "<release><TAB><kernel version><TAB><vmlinuz path>" per kernel.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then echo "fetch-kernels.sh: run as root" >&2; exit 1; fi
CACHE=${FASTAUDIT_KERNEL_CACHE:-/var/cache/fastaudit-kernels}
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$CACHE"

release_of() {
  case "$1" in
    bullseye|11|5.10) echo bullseye ;;
    bookworm|12|6.1) echo bookworm ;;
    trixie|13|6.12) echo trixie ;;
    *) echo "fetch-kernels.sh: unknown kernel '$1' (bullseye|bookworm|trixie, 5.10|6.1|6.12)" >&2; return 1 ;;
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
# The first URI of a Debian main archive (not -security) in the host's
# apt sources, deb822 or one-line style.
mirror() {
  local f u
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    u=$(awk 'BEGIN{IGNORECASE=1} /^URIs:/{for(i=2;i<=NF;i++) print $i}' "$f" | grep -v -- '-security' | grep -E '/debian/?$' | head -n1 || true)
    [ -n "$u" ] && { echo "${u%/}"; return; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    u=$(awk '$1=="deb"{for(i=2;i<=NF;i++) if($i ~ /^[a-z]+:\/\//){print $i; break}}' "$f" | grep -v -- '-security' | grep -E '/debian/?$' | head -n1 || true)
    [ -n "$u" ] && { echo "${u%/}"; return; }
  done
  echo "fetch-kernels.sh: no Debian mirror found in /etc/apt/sources.list*" >&2
  return 1
}

APT_DIR=$CACHE/apt
APT_OPTS=(-o "Dir::Etc::sourcelist=$APT_DIR/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache=$APT_DIR/cache"
  -o "Dir::State::status=$APT_DIR/status" -o "APT::Get::List-Cleanup=0"
  -o "Debug::NoLocking=1")

apt_setup() {
  [ -n "${APT_READY:-}" ] && return
  local m; m=$(mirror)
  mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
  : > "$APT_DIR/status"
  {
    for r in bullseye bookworm trixie; do
      echo "deb [arch=amd64] $m $r main"
      echo "deb [arch=amd64] $m $r-updates main"
    done
  } > "$APT_DIR/sources.list.new"
  # Refresh the lists at most once a day (or when the mirror changed).
  if ! cmp -s "$APT_DIR/sources.list.new" "$APT_DIR/sources.list" 2>/dev/null ||
     [ -z "$(find "$APT_DIR/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n1)" ]; then
    mv "$APT_DIR/sources.list.new" "$APT_DIR/sources.list"
    apt-get "${APT_OPTS[@]}" update -qq >&2
  else
    rm -f "$APT_DIR/sources.list.new"
  fi
  APT_READY=1
}

# The newest linux-image-<abi>-amd64 package of a release: the one its
# linux-image-amd64 metapackage depends on (signed image: boots the same).
image_package() {
  local rel=$1 v
  v=$(apt-cache "${APT_OPTS[@]}" show "linux-image-amd64/$rel" 2>/dev/null |
      awk '/^Version:/{print $2}' | sort -V | tail -n1)
  [ -n "$v" ] || { echo "fetch-kernels.sh: no linux-image-amd64 in $rel" >&2; return 1; }
  apt-cache "${APT_OPTS[@]}" show "linux-image-amd64=$v" 2>/dev/null |
    awk -F': ' '/^Depends:/{print $2; exit}' | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
    grep -E '^linux-image-[0-9].*-amd64(-unsigned)?$' | head -n1
}

fetch() {
  local rel=$1 dir=$CACHE/$1
  if [ -f "$CACHE/$rel.path" ] && [ -f "$(cut -f3 "$CACHE/$rel.path")" ] &&
     [ -d "/lib/modules/$(cut -f2 "$CACHE/$rel.path")/kernel" ]; then
    cat "$CACHE/$rel.path"; return
  fi
  apt_setup
  local pkg; pkg=$(image_package "$rel")
  local ver=${pkg#linux-image-}; ver=${ver%-unsigned}
  local deb_dir=$CACHE/debs; mkdir -p "$deb_dir"
  if ! ls "$deb_dir/${pkg}_"*.deb >/dev/null 2>&1; then
    (cd "$deb_dir" && apt-get "${APT_OPTS[@]}" download "$pkg/$rel" >&2 2>/dev/null ||
                      apt-get "${APT_OPTS[@]}" download "$pkg" >&2)
  fi
  local deb; deb=$(ls "$deb_dir/${pkg}_"*.deb | sort -V | tail -n1)
  rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
  dpkg-deb -x "$deb" "$dir.tmp"
  rm -rf "$dir"; mv "$dir.tmp" "$dir"
  if [ ! -d "/lib/modules/$ver/kernel" ]; then
    mkdir -p "/lib/modules/$ver"
    local src=$dir/lib/modules/$ver
    [ -d "$src" ] || src=$dir/usr/lib/modules/$ver   # merged-/usr packages (trixie)
    cp -a "$src/." "/lib/modules/$ver/"
  fi
  depmod "$ver"
  local vmlinuz=$dir/boot/vmlinuz-$ver
  [ -f "$vmlinuz" ] || vmlinuz=$dir/usr/lib/modules/$ver/vmlinuz
  [ -f "$vmlinuz" ] || { echo "fetch-kernels.sh: no vmlinuz in $deb" >&2; return 1; }
  printf '%s\t%s\t%s\n' "$rel" "$ver" "$vmlinuz" > "$CACHE/$rel.path"
  cat "$CACHE/$rel.path"
}

args=("$@"); [ ${#args[@]} -gt 0 ] || args=(bullseye bookworm trixie)
for a in "${args[@]}"; do fetch "$(release_of "$a")"; done
