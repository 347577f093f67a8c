#!/usr/bin/env bash
# Guest side of the kernel diagnosis (run by run-in-guest.sh): what this
# kernel supports for fastaudit, and how fastaudit's start fails. Writes
# into $OUT (default: the current dir):
#   kernel.txt    uname, LSMs, kernel config items, BTF types, tracepoints, bpftool feature probe
#   progs.txt     progprobe: each BPF program loaded alone and attached, libbpf debug output
#   explain.txt   fastaudit run --explain on rules/default.rules
#   start-<set>.txt  fastaudit run (START_TRACE) per rule set, until ready or exit, then SIGINT
# Host side: copy the kernel's config to $OUT/config first (the package's
# boot/config-VERSION; /var/cache is not visible in the guest).
# Env: FASTAUDIT (binary), RULESETS (space-separated NAME=PATH), BPF_OBJ, PROGPROBE.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$PWD}
FASTAUDIT=${FASTAUDIT:-$ROOT/target/release/fastaudit}
BPF_OBJ=${BPF_OBJ:-/tmp/vm-matrix/fastaudit.bpf.o}
PROGPROBE=${PROGPROBE:-/tmp/vm-matrix/progprobe}
CORPUS=${CORPUS:-/work/shared/corpus/rules}
RULESETS=${RULESETS:-"default=$ROOT/rules/default.rules stig=$CORPUS/audit-userspace/30-stig.rules ospp=$CORPUS/audit-userspace/30-ospp-v42.rules pci=$CORPUS/audit-userspace/30-pci-dss-v31.rules cis=$ROOT/rules/bench/cis.rules neo23x0=$CORPUS/community/neo23x0-audit.rules"}
rel=$(uname -r)

{
  echo "== uname"; uname -a
  echo "== lsm"; cat /sys/kernel/security/lsm; echo
  echo "== kernel config"
  # /var/cache is a tmpfs in the guest: the host side copies the config to $OUT/config.
  cfg=$OUT/config; [ -f "$cfg" ] || cfg=/boot/config-$rel
  echo "(from $cfg)"
  grep -E '^(# )?CONFIG_(BPF_LSM|LSM|DEBUG_INFO_BTF|DEBUG_INFO_BTF_MODULES|FUNCTION_TRACER|DYNAMIC_FTRACE|DYNAMIC_FTRACE_WITH_DIRECT_CALLS|FTRACE_SYSCALLS|BPF_JIT|BPF_SYSCALL|BPF_EVENTS|AUDIT|AUDITSYSCALL|IA32_EMULATION|IO_URING|KPROBES|HAVE_DYNAMIC_FTRACE_WITH_DIRECT_CALLS|BPF_JIT_ALWAYS_ON)[= ]' "$cfg"
  echo "== BTF types (vmlinux)"
  bpftool btf dump file /sys/kernel/btf/vmlinux > /tmp/btf.txt 2>&1
  for t in btf_trace_sys_enter btf_trace_sys_exit btf_trace_task_newtask btf_trace_sched_process_exit \
           btf_trace_sched_prepare_exec btf_trace_ctime_ns_xchg btf_trace_ctime_xchg_skip btf_trace_inode_set_ctime_to_ts \
           btf_trace_io_uring_submit_req btf_trace_io_uring_queue_async_work btf_trace_io_uring_poll_arm btf_trace_io_uring_complete \
           bpf_task_from_pid bpf_task_release bpf_dynptr bpf_ringbuf_reserve_dynptr __x64_sys_chmod inode_set_ctime_current; do
    if grep -qE "(FUNC|TYPEDEF|STRUCT) '$t'" /tmp/btf.txt; then echo "btf $t: yes"; else echo "btf $t: NO"; fi
  done
  echo "-- struct io_kiocb / io_uring tracepoint fields"
  awk "/STRUCT 'trace_event_raw_io_uring_(submit_req|queue_async_work|poll_arm|complete)'/{p=1; print; next} p&&/^\[/{p=0} p" /tmp/btf.txt | head -80
  echo "-- btf_trace_io_uring_* prototypes"
  for t in io_uring_submit_req io_uring_queue_async_work io_uring_poll_arm io_uring_complete; do
    id=$(grep -E "TYPEDEF 'btf_trace_$t'" /tmp/btf.txt | sed -E 's/.*type_id=([0-9]+).*/\1/')
    echo "btf_trace_$t -> type $id"
  done
  echo "== tracepoints (tracefs)"
  T=/sys/kernel/tracing; [ -d $T/events ] || mount -t tracefs nodev $T
  for e in raw_syscalls/sys_enter raw_syscalls/sys_exit task/task_newtask sched/sched_process_exit sched/sched_prepare_exec \
           timestamp/ctime_ns_xchg timestamp/ctime_xchg_skip timestamp/inode_set_ctime_to_ts \
           io_uring/io_uring_submit_req io_uring/io_uring_queue_async_work io_uring/io_uring_poll_arm io_uring/io_uring_complete \
           syscalls/sys_exit_chmod syscalls/sys_enter_execve; do
    [ -d $T/events/$e ] && echo "tp $e: yes" || echo "tp $e: NO"
  done
  echo "-- io_uring tracepoint formats"
  for e in io_uring_submit_req io_uring_queue_async_work io_uring_poll_arm io_uring_complete; do
    echo "- $e"; grep -E 'field:' $T/events/io_uring/$e/format 2>/dev/null | sed 's/^\s*//' | grep -v common_
  done
  echo "== bpftool feature probe (selected)"
  bpftool feature probe kernel 2>/dev/null | grep -E "program_type (tracing|lsm|raw_tracepoint|tracepoint)|map_type (ringbuf|task_storage|inode_storage|lru_hash)|bpf_loop|bpf_ringbuf_reserve_dynptr|bpf_dynptr_data|bpf_dynptr_write|bpf_task_pt_regs|bpf_get_current_task_btf|bpf_task_storage_get|bpf_d_path|bpf_probe_read_kernel\b|JIT|unprivileged" | sort -u
} > "$OUT/kernel.txt" 2>&1

# Each program alone: load, attach, libbpf's debug output and verifier logs.
if [ -x "$PROGPROBE" ] && [ -f "$BPF_OBJ" ]; then
  "$PROGPROBE" -a -v "$BPF_OBJ" > "$OUT/progs-verbose.txt" 2>&1
  grep -E '^PROG' "$OUT/progs-verbose.txt" > "$OUT/progs.txt"
fi

"$FASTAUDIT" run --no-config --rules "$ROOT/rules/default.rules" --explain > "$OUT/explain.txt" 2>&1
echo "exit $?" >> "$OUT/explain.txt"

# Start fastaudit on a rule set; wait for "fastaudit: ready" or its exit; SIGINT.
start_one() {
  local name=$1 rules=$2 log f="$OUT/start-$1.txt"
  log=$(mktemp -d); chmod 700 "$log"
  echo "== $name: $rules" > "$f"
  local t0; t0=$(date +%s.%N)
  FASTAUDIT_START_TRACE=1 LIBBPF_LOG_LEVEL=debug timeout 120 "$FASTAUDIT" run --no-config --rules "$rules" \
      --log "$log/audit.log" >> "$f" 2>&1 &
  local pid=$! ready=0
  for _ in $(seq 1 1200); do
    grep -q '^fastaudit: ready' "$f" && { ready=1; break; }
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
  done
  local t1; t1=$(date +%s.%N)
  if [ $ready = 1 ]; then sleep 1; kill -INT $pid; fi
  wait $pid; local rc=$?
  echo "== ready=$ready exit=$rc secs_to_ready_or_exit=$(echo "$t1 - $t0" | bc)" >> "$f"
  echo "== audit.log lines: $( (wc -l < "$log/audit.log") 2>/dev/null || echo none)" >> "$f"
  auditctl -D >/dev/null 2>&1; auditctl -e 0 >/dev/null 2>&1
  rm -rf "$log"
}
for rs in $RULESETS; do start_one "${rs%%=*}" "${rs#*=}"; done
echo done > "$OUT/diag.done"
