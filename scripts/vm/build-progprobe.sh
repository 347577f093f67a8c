#!/usr/bin/env bash
# Build progprobe (progprobe.c) against the libbpf fastaudit links (the
# libbpf-sys crate's static libbpf under target/), into $1 (default
# /tmp/vm-matrix/progprobe). Needs a cargo build of fastaudit first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
out=${1:-/tmp/vm-matrix/progprobe}
lib=""
for profile in release debug; do
  lib=$(ls -t "$root"/target/$profile/build/libbpf-sys-*/out/libbpf.a 2>/dev/null | head -n1 || true)
  [ -n "$lib" ] && break
done
[ -n "$lib" ] || { echo "build-progprobe.sh: no libbpf.a under target/ (cargo build first)" >&2; exit 1; }
inc=$(dirname "$lib")/include
if [ -x "$out" ] && [ "$out" -nt "$here/progprobe.c" ] && [ "$out" -nt "$lib" ]; then echo "$out"; exit 0; fi
mkdir -p "$(dirname "$out")"
cc -O1 -Wall -I"$inc" -o "$out" "$here/progprobe.c" "$lib" -lelf -lz
echo "$out"
