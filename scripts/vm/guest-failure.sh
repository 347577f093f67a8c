#!/usr/bin/env bash
# Guest side of the failure flag's demonstration: `-f` applied to the
# events fastaudit loses in its ring buffer, as the kernel applies it to
# the records it loses. Runs ONLY inside a virtme-ng guest booted by
# run-in-guest.sh: its last step panics the kernel it runs on.
#
# Host side (the guest's console, with the panic, lands in $OUT/vng.log):
#   VM_VERBOSE=1 VM_TIMEOUT=600 OUT=/tmp/vm-matrix/failure \
#     scripts/vm/run-in-guest.sh trixie scripts/vm/guest-failure.sh
# Expected: exit 125 (the guest stopped before the script finished: it
# panicked), guest.log ending with "FAILURE-CHECK panic: bursting", and in
# vng.log fastaudit's "audit: panic: BPF ring buffer full" line followed by
# the kernel's "Kernel panic - not syncing". Exit 0 would mean the burst
# lost nothing or -f 2 did not panic (a failure); 1 a step before failed.
#
# Steps (each prints FAILURE-CHECK STEP: pass|fail REASON):
#   held     -f 2 without --apply-irreversible: `run` starts, the kernel
#            gets -f 1 (auditctl -s), a note says -f 2 is not applied
#   printk   -f 1: a burst larger than a 16 KiB ring buffer; the losses
#            reach the log (DAEMON_ERR op=lost-events), `ctl -s` and the
#            kernel log (fastaudit[PID]: audit_lost=...), fastaudit goes on
#   panic    -f 2 with --apply-irreversible: the same burst panics the guest
# Environment: FASTAUDIT (default $ROOT/target/release/fastaudit).
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
FASTAUDIT=${FASTAUDIT:-$ROOT/target/release/fastaudit}

# Never on a real machine: the virtme kernel command line and the marker
# run-in-guest.sh's init sets, both.
if ! grep -q virtme /proc/cmdline || [ -z "${GUEST_KERNEL:-}" ]; then
  echo "guest-failure.sh: not in a run-in-guest.sh VM guest; refusing (it panics the kernel)" >&2
  exit 2
fi

dir=$(mktemp -d /var/tmp/guest-failure.XXXXXX)   # guest-private tmpfs, 0700
echo x > "$dir/target"
fails=0
say() { echo "FAILURE-CHECK $*"; }

rules() {   # rules() FLAG: a burst rule under -f FLAG
  printf -- '-f %s\n-a always,exit -F arch=b64 -S chmod -F a1=0x381 -k burst\n' "$1" > "$dir/f$1.rules"
  echo "$dir/f$1.rules"
}

burst() {   # chmod(target, 01601) N times, as fast as python goes
  python3 -c "import os
for _ in range($1): os.chmod('$dir/target', 0o1601)"
}

start() {   # start LOG RULES ARGS...: fastaudit in the background, until ready
  local log=$1 r=$2; shift 2
  "$FASTAUDIT" run --no-config --rules "$r" --log "$log" --ring-buffer-kib 16 "$@" 2> "$log.err" &
  FA=$!
  for _ in $(seq 300); do
    grep -q '^fastaudit: ready$' "$log.err" && return 0
    kill -0 "$FA" 2>/dev/null || break
    sleep 0.2
  done
  cat "$log.err"
  return 1
}

echo "== $(uname -r): fastaudit $("$FASTAUDIT" --version 2>&1)"

# 1. -f 2 without --apply-irreversible: runs, as -f 1 on the kernel.
if start "$dir/held.log" "$(rules 2)"; then
  failure=$(auditctl -s | sed -n 's/^failure //p')
  kill -TERM "$FA"; wait "$FA"; rc=$?
  if [ "$failure" = 1 ] && [ "$rc" = 0 ] && grep -q -- '-f 2: not applied' "$dir/held.log.err"; then
    say "held: pass"
  else
    say "held: fail (kernel failure ${failure:-?}, stop exit $rc: $(cat "$dir/held.log.err"))"; fails=$((fails + 1))
  fi
else
  say "held: fail (did not start)"; fails=$((fails + 1))
fi

# 2. -f 1: the losses are logged, counted and in the kernel log.
if start "$dir/printk.log" "$(rules 1)"; then
  burst 200000
  for _ in $(seq 50); do
    grep -q 'op=lost-events' "$dir/printk.log" && break
    sleep 0.2
  done
  lost=$("$FASTAUDIT" ctl -s | sed -n 's/^lost //p')
  record=$(grep -m1 'op=lost-events' "$dir/printk.log")
  kmsg=$(dmesg | grep -m1 "fastaudit\[$FA\]: audit_lost=")
  kill -TERM "$FA"; wait "$FA"; rc=$?
  echo "   ctl -s lost: $lost"
  echo "   log: $record"
  echo "   kernel log: $kmsg"
  if [ -n "$record" ] && [ "${lost:-0}" -gt 0 ] && [ -n "$kmsg" ] && [ "$rc" = 0 ]; then
    say "printk: pass"
  else
    say "printk: fail (stop exit $rc)"; fails=$((fails + 1))
  fi
else
  say "printk: fail (did not start)"; fails=$((fails + 1))
fi

if [ "$fails" -gt 0 ]; then exit 1; fi

# 3. -f 2 let through: the first loss panics the kernel.
if ! start "$dir/panic.log" "$(rules 2)" --apply-irreversible; then
  say "panic: fail (did not start)"; exit 1
fi
echo "   auditctl -s: $(auditctl -s 2>/dev/null | tr '\n' ' ')"
say "panic: bursting; the guest should panic now"
sync
burst 200000
sleep 10
say "panic: fail (still running after a burst: $(grep -c op=lost-events "$dir/panic.log") loss records)"
cat "$dir/panic.log.err"
kill -TERM "$FA"; wait "$FA"
exit 0
