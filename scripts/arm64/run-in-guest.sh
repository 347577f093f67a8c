#!/usr/bin/env bash
# Boot one of Debian's arm64 kernels in an emulated arm64 guest
# (qemu-system-aarch64 -M virt, no KVM) over the Debian arm64 root that
# scripts/arm64/setup.sh made, and run a script in it as root.
#
# Usage: scripts/arm64/run-in-guest.sh KERNEL SCRIPT [ARG...]
#   KERNEL  bookworm (also 12, 6.1) or trixie (also 13, 6.12): the kernel
#           setup.sh unpacked under $ARM64_DIR/kernels/; or a vmlinuz path
#           whose modules are in $ARM64_DIR/root/lib/modules/VERSION
#   SCRIPT  run in the guest as root with ARGs, in $OUT; its stdout and
#           stderr go to $OUT/guest.log, its exit status to $OUT/rc.
# Environment (as scripts/vm/run-in-guest.sh):
#   ARM64_DIR    setup.sh's dir (default /var/cache/fastaudit-arm64)
#   OUT          results dir (default $VM_SHARE/arm64-run-KERNEL-DATE), under
#                VM_SHARE
#   VM_SHARE     the host dir shared read-write (default /tmp/vm-matrix)
#   VM_RODIRS    host dirs the guest sees read-only at the same path
#                (default: the top-level dir of this checkout, e.g. /work,
#                so the checkout, its target/ and ../shared/corpus are
#                there under the paths the test binaries were built with)
#   VM_TIMEOUT   seconds before the guest is killed (default 1500: emulated)
#   VM_MEMORY    guest memory (default 3G); VM_CPUS (default 2)
#   VM_APPEND    extra kernel command line
#   VM_VERBOSE=1 show the guest console on stderr
#   VM_PASS_ENV  extended regex of environment variable names passed to the
#                guest script (default as scripts/vm/run-in-guest.sh's, and
#                TEST_DEPS)
# Exit status: the script's (from $OUT/rc), 124 on timeout, 125 when the
# guest died before the script finished. One guest at a time (the lock
# under VM_SHARE that scripts/vm/run-in-guest.sh takes too).
#
# Why virtme-ng (`vng --arch arm64 --root`) and not a hand-made qemu
# command line: the guest is then the one the amd64 checks already run in
# -- virtme's init mounts the root read-only over 9p with tmpfs overlays on
# /etc, /var, /tmp ... (every run starts from the same clean root; writes
# vanish with the guest), shares VM_SHARE read-write, and marks the
# command line with `virtme`, which the test harness takes as "in a VM
# guest, the guest-only actions are allowed" -- and it builds the
# initramfs with the kernel's own virtio/9p modules from the root. What
# differs from amd64 is only passed in: the arm64 root and busybox, and
# `-cpu max,pauth-impdef=on` (QEMU's default pointer-authentication
# algorithm makes TCG about three times slower).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(cd "$here/../.." && pwd)
if [ $# -lt 2 ]; then sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; fi
if [ "$(id -u)" != 0 ]; then echo "arm64/run-in-guest.sh: run as root" >&2; exit 2; fi
ARM64_DIR=${ARM64_DIR:-/var/cache/fastaudit-arm64}
kernel=$1; script=$2; shift 2
script=$(readlink -f "$script")
[ -f "$script" ] || { echo "arm64/run-in-guest.sh: no script $script" >&2; exit 2; }
root=$ARM64_DIR/root
[ -f "$root/.done" ] || { echo "arm64/run-in-guest.sh: no arm64 root in $root (scripts/arm64/setup.sh)" >&2; exit 2; }

# KERNEL -> release name, version, vmlinuz.
case $kernel in
  bookworm|12|6.1) rel=bookworm ;;
  trixie|13|6.12) rel=trixie ;;
  *) rel="" ;;
esac
if [ -n "$rel" ]; then
  kd=$ARM64_DIR/kernels/$rel
  [ -f "$kd/VERSION" ] || { echo "arm64/run-in-guest.sh: kernel $rel not fetched (scripts/arm64/setup.sh kernels)" >&2; exit 2; }
  kver=$(cut -f1 "$kd/VERSION"); vmlinuz=$kd/boot/vmlinuz-$kver
elif [ -f "$kernel" ]; then
  vmlinuz=$(readlink -f "$kernel"); kver=$(basename "$vmlinuz" | sed 's/^vmlinuz-//')
else
  echo "arm64/run-in-guest.sh: unknown kernel $kernel (bookworm, trixie, 6.1, 6.12 or a vmlinuz)" >&2; exit 2
fi
[ -f "$root/lib/modules/$kver/modules.dep" ] ||
  { echo "arm64/run-in-guest.sh: no modules for $kver in $root/lib/modules (scripts/arm64/setup.sh root)" >&2; exit 2; }

VM_SHARE=${VM_SHARE:-/tmp/vm-matrix}
mkdir -p "$VM_SHARE"
OUT=${OUT:-$VM_SHARE/arm64-run-$kver-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
case "$OUT/" in "$(cd "$VM_SHARE" && pwd)/"*) ;; *) echo "arm64/run-in-guest.sh: OUT ($OUT) must be under VM_SHARE ($VM_SHARE)" >&2; exit 2 ;; esac
rm -f "$OUT/rc" "$OUT/guest.log"
# Read-only shares, at their host paths; their mount points must exist in
# the read-only root (setup.sh makes /work).
top=/$(echo "$checkout" | cut -d/ -f2)
read -r -a rodirs <<<"${VM_RODIRS:-$top}"
for d in "${rodirs[@]}" "$VM_SHARE"; do
  [ -d "$root$d" ] || [ -d "$root$(dirname "$d")" ] || case $d in /tmp/*) ;; *)
    echo "arm64/run-in-guest.sh: $d has no mount point in $root: mkdir -p $root$d" >&2; exit 2 ;; esac
done

# The script runs where it is when the guest sees that place (a shared
# dir), else from a copy in OUT.
shared=0
for d in "${rodirs[@]}" "$VM_SHARE"; do case $script in "$(readlink -f "$d")"/*) shared=1 ;; esac; done
if [ $shared = 0 ]; then cp -f "$script" "$OUT/.script"; [ -x "$script" ] && chmod +x "$OUT/.script"; script=$OUT/.script; fi

# The guest's side, as in scripts/vm/run-in-guest.sh: the script and its
# environment handed over in files, the status into $OUT/rc.
# shellcheck source=scripts/vm/guest-handoff.sh
. "$here/../vm/guest-handoff.sh"
guest_handoff "$OUT" '^(CHECK_|FASTAUDIT|LIBBPF_|RUST_|ROOT$|CORPUS$|BPF_OBJ$|PROGPROBE$|READY_TIMEOUT$|TEST_TIMEOUT$|VM_SHARE$|TEST_DEPS$)' "$script" "$@"
cat > "$OUT/.guest-init.sh" <<GUEST
#!/bin/bash
cd "$OUT"
export OUT="$OUT" GUEST_KERNEL="$kver" GUEST_ARCH=arm64 HOME=/root FASTAUDIT_VM_GUEST=1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
. "$OUT/.env"
# bpffs, tracefs and debugfs, where libbpf and the checks look.
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ip link set lo up 2>/dev/null
{ echo "== guest \$(uname -rm) \$(date -u +%FT%TZ)"; } > "$OUT/guest.log"
bash -c "\$(cat "$OUT/.cmd")" >> "$OUT/guest.log" 2>&1 </dev/null
echo \$? > "$OUT/rc.tmp" && mv "$OUT/rc.tmp" "$OUT/rc"
sync
GUEST
chmod +x "$OUT/.guest-init.sh"

vng_args=(--arch arm64 --root "$root" --busybox "$ARM64_DIR/busybox" -r "$vmlinuz"
  --disable-kvm --force-9p --memory "${VM_MEMORY:-3G}" --cpus "${VM_CPUS:-2}"
  --rwdir "$VM_SHARE=$VM_SHARE" --qemu-opts="-cpu max,pauth-impdef=on" --exec "$OUT/.guest-init.sh")
for d in "${rodirs[@]}"; do vng_args+=(--rodir "$d=$d"); done
[ -n "${VM_APPEND:-}" ] && vng_args+=(--append "$VM_APPEND")
[ "${VM_VERBOSE:-0}" = 1 ] && vng_args=(-v "${vng_args[@]}")

set +e
(
  # One guest at a time: 2 CPUs, shared (the amd64 harness's lock). The
  # time reported is the guest's, from when the lock is ours.
  flock 9
  date +%s.%N > "$OUT/.start"
  cd "$OUT" && timeout --kill-after=10 "${VM_TIMEOUT:-1500}" nice -n 10 vng "${vng_args[@]}" </dev/null > "$OUT/vng.log" 2>&1
) 9>"$VM_SHARE/.vm.lock"
vng_rc=$?
set -e
secs=$(echo "$(date +%s.%N) - $(cat "$OUT/.start" 2>/dev/null || date +%s.%N)" | bc)
printf 'arm64/run-in-guest: kernel %s, %.1f s, vng exit %s, out %s\n' "$kver" "$secs" "$vng_rc" "$OUT" >&2
if [ -f "$OUT/rc" ]; then exit "$(cat "$OUT/rc")"; fi
if [ "$vng_rc" = 124 ] || [ "$vng_rc" = 137 ]; then echo "arm64/run-in-guest: timed out after ${VM_TIMEOUT:-1500} s" >&2; exit 124; fi
echo "arm64/run-in-guest: the guest stopped before the script finished (see $OUT/vng.log; VM_VERBOSE=1 shows the console)" >&2
exit 125
