#!/bin/bash
# floorbench.sh ROUNDS: bench worker io-uring (1 s per metric, pinned) with nothing,
# with empty tp_btf programs on io_uring_submit_req + io_uring_complete, and with
# programs that only load the opcode and look it up in an array; interleaved.
cd /tmp/uc/floor
for r in $(seq $1); do
  for mode in off empty oplookup; do
    if [ $mode != off ]; then
      coproc L { ./loader $mode.o; }
      read -u ${L[0]} line
    fi
    /tmp/uc/rel-new/fastaudit-bench bench-worker '{"work":{"work":"io-uring","dir":"/tmp/uc/w","seconds":1.0},"pin":0}' |
      python3 -c "import json,sys; print('$mode', ' '.join('%s=%.1f' % (m['metric'].replace(' ','_'), m['value']) for m in json.load(sys.stdin)['measured']))"
    if [ $mode != off ]; then eval "exec ${L[1]}>&-"; wait $L_PID; fi
  done
done
