#!/usr/bin/env bash
# Boot a Debian stock kernel in a VM guest over this machine's root file
# system (virtme-ng, emulated: no KVM) and run a script in it as root.
#
# Usage: run-in-guest.sh KERNEL SCRIPT [ARG...]
#   KERNEL  a release or kernel series fetch-kernels.sh knows (bookworm,
#           trixie-backports, sid, 6.1, 7.3, newest, ...), or a vmlinuz path
#   SCRIPT  run in the guest as root with ARGs, in $OUT; its stdout and
#           stderr go to $OUT/guest.log, its exit status to $OUT/rc.
# Environment:
#   OUT          results dir (default /tmp/vm-matrix/run-KERNEL-DATE); it is
#                shared with the guest read-write, so what the script writes
#                there is on the host when the guest stops. Must be under
#                VM_SHARE.
#   VM_SHARE     the host dir shared read-write (default /tmp/vm-matrix).
#                The rest of the guest's file system is the host's root,
#                read-only, with tmpfs overlays on /etc /usr /var /home /tmp
#                /var/tmp (writes there vanish with the guest).
#   VM_TIMEOUT   seconds before the guest is killed (default 900)
#   VM_MEMORY    guest memory (default 3G); VM_CPUS (default 2)
#   VM_APPEND    extra kernel command line (e.g. apparmor=0)
#   VM_QEMU_OPTS extra qemu options (default: -accel tcg,thread=single;
#                empty for qemu's multi-threaded TCG). QEMU 7.2's
#                multi-threaded TCG lets a vCPU run code another vCPU is
#                patching with int3 (text_poke_bp: static keys, so any
#                tracepoint attached or detached) after the kernel's
#                patch protocol ended: "Oops: int3" and a panic in the
#                guest, on 6.12 and 7.3 alike, within a few hundred
#                tracepoint toggles without fastaudit (a CI smoke died of
#                it). One TCG thread runs both vCPUs in turn: no such race.
#   VM_VERBOSE=1 show the guest console on stderr as well (it is always
#                kept in $OUT/vng.log, and its end is printed when the guest
#                dies before the script finished: a panic, an oops, an OOM)
#   VM_PASS_ENV  extended regex of environment variable names passed to the
#                guest script (default: fastaudit's and the checks' own:
#                ^(CHECK_|FASTAUDIT|LIBBPF_|RUST_|ROOT$|CORPUS$|BPF_OBJ$|
#                PROGPROBE$|READY_TIMEOUT$|TEST_TIMEOUT$|VM_SHARE$))
# Exit status: the script's (from $OUT/rc), 124 on timeout, 125 when the
# guest died before the script finished. One guest at a time on this
# machine (a lock under VM_SHARE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ]; then sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; fi
if [ "$(id -u)" != 0 ]; then echo "run-in-guest.sh: run as root" >&2; exit 2; fi
kernel=$1; script=$2; shift 2
script=$(readlink -f "$script")
[ -f "$script" ] || { echo "run-in-guest.sh: no script $script" >&2; exit 2; }

if [ -f "$kernel" ]; then
  vmlinuz=$(readlink -f "$kernel"); kname=$(basename "$vmlinuz" | sed 's/^vmlinuz-//')
  # 7.x packages: usr/lib/modules/VERSION/vmlinuz
  [ "$kname" = vmlinuz ] && kname=$(basename "$(dirname "$vmlinuz")")
else
  line=$("$here/fetch-kernels.sh" "$kernel" | tail -n1)
  kname=$(cut -f1 <<<"$line"); vmlinuz=$(cut -f3 <<<"$line")
fi

VM_SHARE=${VM_SHARE:-/tmp/vm-matrix}
mkdir -p "$VM_SHARE"
OUT=${OUT:-$VM_SHARE/run-$kname-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
case "$OUT/" in "$(cd "$VM_SHARE" && pwd)/"*) ;; *) echo "run-in-guest.sh: OUT ($OUT) must be under VM_SHARE ($VM_SHARE)" >&2; exit 2 ;; esac
rm -f "$OUT/rc" "$OUT/guest.log"

# The guest's side: run the script, keep its status.
# shellcheck source=scripts/vm/guest-handoff.sh
. "$here/guest-handoff.sh"
guest_handoff "$OUT" '^(CHECK_|FASTAUDIT|LIBBPF_|RUST_|ROOT$|CORPUS$|BPF_OBJ$|PROGPROBE$|READY_TIMEOUT$|TEST_TIMEOUT$|VM_SHARE$)' "$script" "$@"
cat > "$OUT/.guest-init.sh" <<GUEST
#!/bin/bash
cd "$OUT"
export OUT="$OUT" GUEST_KERNEL="$kname" HOME=/root
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:\$PATH
. "$OUT/.env"
{ echo "== guest \$(uname -r) \$(date -u +%FT%TZ)"; } > "$OUT/guest.log"
bash -c "\$(cat "$OUT/.cmd")" >> "$OUT/guest.log" 2>&1 </dev/null
echo \$? > "$OUT/rc.tmp" && mv "$OUT/rc.tmp" "$OUT/rc"
sync
GUEST
chmod +x "$OUT/.guest-init.sh"

vng_args=(-r "$vmlinuz" --disable-kvm --force-9p --memory "${VM_MEMORY:-3G}" --cpus "${VM_CPUS:-2}"
  --rwdir "$VM_SHARE" --exec "$OUT/.guest-init.sh")
qemu_opts=${VM_QEMU_OPTS-"-accel tcg,thread=single"}
[ -n "$qemu_opts" ] && vng_args+=("--qemu-opts=$qemu_opts")
# The console (vng -v) always goes to vng.log: a guest that dies is
# otherwise a bare exit status, and CI cannot be rerun with VM_VERBOSE.
vng_args=(-v "${vng_args[@]}")
[ -n "${VM_APPEND:-}" ] && vng_args+=(--append "$VM_APPEND")

start=$(date +%s.%N)
set +e
(
  # One guest at a time: 2 CPUs, shared.
  flock 9
  cd "$OUT" || exit 1
  if [ "${VM_VERBOSE:-0}" = 1 ]; then
    timeout --kill-after=10 "${VM_TIMEOUT:-900}" vng "${vng_args[@]}" </dev/null 2>&1 | tee "$OUT/vng.log" >&2
    exit "${PIPESTATUS[0]}"
  fi
  timeout --kill-after=10 "${VM_TIMEOUT:-900}" vng "${vng_args[@]}" </dev/null > "$OUT/vng.log" 2>&1
) 9>"$VM_SHARE/.vm.lock"
vng_rc=$?
set -e
secs=$(echo "$(date +%s.%N) - $start" | bc)
printf 'run-in-guest: kernel %s, %.1f s, vng exit %s, out %s\n' "$kname" "$secs" "$vng_rc" "$OUT" >&2
if [ -f "$OUT/rc" ]; then exit "$(cat "$OUT/rc")"; fi
if [ "$vng_rc" = 124 ] || [ "$vng_rc" = 137 ]; then echo "run-in-guest: timed out after ${VM_TIMEOUT:-900} s" >&2; exit 124; fi
echo "run-in-guest: the guest stopped before the script finished; the end of its console ($OUT/vng.log):" >&2
tail -n 60 "$OUT/vng.log" | sed 's/^/  | /' >&2
exit 125
