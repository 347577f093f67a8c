#!/bin/bash
# progops.sh FASTAUDIT RULESFILE NAME [extra]: per-program ns/run of fa_* programs
# for NOP-only, openat+close and async openat+close script workloads.
fa=$1; rules=$2; name=$3; shift 3
d=/tmp/uc/po-$name; rm -rf $d; mkdir -p $d/logs
$fa run --no-config --rules $rules --log $d/logs/audit.log --bpf-only "$@" 2>$d/err &
fapid=$!
for i in $(seq 150); do grep -q "fastaudit: ready" $d/err && break; sleep 0.2; done
old=$(cat /proc/sys/kernel/bpf_stats_enabled)
echo 1 > /proc/sys/kernel/bpf_stats_enabled
for w in nop openclose asyncopen; do
  case $w in
    nop) steps=$(python3 -c 'import json; print(json.dumps(["nop"]*8000))');;
    openclose) steps=$(python3 -c 'import json; print(json.dumps(["openat /etc/passwd","close"]*2500))');;
    asyncopen) steps=$(python3 -c 'import json; print(json.dumps(["async openat /etc/passwd","close"]*1500))');;
  esac
  before=$(bpftool -j prog show)
  /tmp/uc/fastaudit-bench bench-worker "{\"work\":{\"work\":\"uring-script\",\"sqpoll\":false,\"steps\":$steps},\"pin\":0}" > /dev/null
  after=$(bpftool -j prog show)
  echo "== $w"
  python3 - "$before" "$after" <<'PY'
import json,sys
b={p['id']:p for p in json.loads(sys.argv[1])}; a=json.loads(sys.argv[2])
for p in a:
    n=p.get('name','')
    if not n.startswith('fa_'): continue
    q=b.get(p['id'],{})
    cnt=p.get('run_cnt',0)-q.get('run_cnt',0); t=p.get('run_time_ns',0)-q.get('run_time_ns',0)
    if cnt: print(f"  {n:24s} runs {cnt:>8d}  ns/run {t/cnt:7.1f}")
PY
done
echo $old > /proc/sys/kernel/bpf_stats_enabled
kill -TERM $fapid; wait $fapid
