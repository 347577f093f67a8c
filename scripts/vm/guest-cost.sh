#!/usr/bin/env bash
# Guest side: the cost of the inode-change kprobes (kernels without the
# timestamp tracepoints). A file on tmpfs read 64 bytes at a time (every
# read checks atime: current_time()), with no fastaudit, with
# rules/default.rules (read is not audited: the kprobe stops at the span
# test), and with a rule on read (the kprobe runs on_ctime). Prints the
# dd times and, from kernel.bpf_stats_enabled, each program's runs and
# average ns per run. Run by run-in-guest.sh (changes the kernel audit).
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
FASTAUDIT=${FASTAUDIT:-$ROOT/target/release/fastaudit}
f=/tmp/cost.file; head -c $((16 << 20)) /dev/zero > $f
reads=$(( (16 << 20) / 64 ))
sysctl -qw kernel.bpf_stats_enabled=1
run_dd() { local t0 t1; t0=$(date +%s%N); dd if=$f of=/dev/null bs=64 status=none; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
best() { local b=999999 t; for _ in 1 2 3; do t=$(run_dd); [ "$t" -lt "$b" ] && b=$t; done; echo "$b"; }
stats() {
  bpftool prog show 2>/dev/null | awk '/name fa_/{name=$4; for(i=1;i<=NF;i++){if($i=="run_time_ns")rt=$(i+1); if($i=="run_cnt")rc=$(i+1)}; if(rc>0) printf "  %s: %d runs, %d ns/run\n", name, rc, rt/rc; rt=0; rc=0}'
}
with_rules() {
  local rules=$1 log; log=$(mktemp -d)
  "$FASTAUDIT" run --no-config --rules "$rules" --log "$log/audit.log" > "$log/out" 2>&1 &
  local pid=$!
  for _ in $(seq 1 600); do grep -q '^fastaudit: ready' "$log/out" && break; sleep 0.1; done
  echo "$2: $(best) ms for $reads reads of 64 bytes"
  stats
  kill -INT $pid; wait $pid
  auditctl -D >/dev/null 2>&1; auditctl -e 0 >/dev/null 2>&1; rm -rf "$log"
}
echo "kernel $(uname -r)"
echo "no fastaudit: $(best) ms for $reads reads of 64 bytes"
with_rules "$ROOT/rules/default.rules" "default.rules (read not audited)"
printf -- '-a always,exit -F arch=b64 -S read -F uid=4242 -k r\n-a always,exit -F arch=b64 -S chmod -F dir=/tmp -k c\n' > /tmp/cost.rules
with_rules /tmp/cost.rules "a rule on read (uid=4242, never true) and a dir= rule"
rm -f $f
