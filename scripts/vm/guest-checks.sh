#!/usr/bin/env bash
# Guest side of scripts/kernel-matrix.sh (run by run-in-guest.sh as root
# in a VM guest; also runs on any root shell where changing the kernel
# audit state is allowed -- NOT on a shared host).
#
# Usage: guest-checks.sh CHECK...
# Prints one line per check:  CHECK<TAB>pass|fail|skip<TAB>reason
# and keeps each check's full output in $OUT/checks/CHECK.log.
#
# Checks:
#   start:NAME     fastaudit run on a rule set reaches "fastaudit: ready",
#                  then stops cleanly on SIGINT (exit 0). NAME: default,
#                  stig, ospp, pci (auditd's examples: the corpus's copy,
#                  else the auditd package's), cis, neo23x0, or a rules
#                  file path.
#                  Lines `fastaudit rules check` refuses on this root file
#                  system (missing dirs/users, syscalls unknown to the audit
#                  tables) are left out first, and counted in the reason.
#                  CHECK_START_TRACE=log: each program's full verifier log
#                  in the check's log (default 1: the verifier's statistics).
#   explain        fastaudit run --explain on rules/default.rules; reason:
#                  the probed hook kinds
#   progs          every BPF program of the object loaded alone and attached
#                  (progprobe); reason: which fail
#   test:BIN:NAME  a cargo test binary's one test (BIN: the crate's test
#                  target name, found as target/debug/deps/BIN-<hash>, the
#                  newest that lists NAME, e.g. integration:differential::basic;
#                  NAME: exact test name), run with --exact --test-threads=1;
#                  TEST_DEPS: where to look instead (a cross build's
#                  target/aarch64-unknown-linux-gnu/debug/deps)
#   listing[:FILE] each rules file of the corpus (or FILE), line by line
#                  through this kernel's `auditctl -R`, then `auditctl -l`;
#                  pass when `fastaudit rules check` refuses the same lines
#                  and `fastaudit rules list` of the accepted ones equals
#                  that listing (testsupport's rules::differential, in
#                  shell). The kernel's verdicts and listing of each file
#                  are kept in $OUT/oracle/NAME.{verdicts,listing}; without
#                  $FASTAUDIT, the check only writes those (skip)
#   deb            dpkg -i of $FASTAUDIT_DEB, then the installed
#                  /usr/sbin/fastaudit started (as start:) on the
#                  package's default.rules: ready and a clean stop
#   cmd:NAME       run the shell command in env CHECK_CMD_NAME (NAME
#                  upper-cased, - and . as _); pass on exit 0, skip on 77
# To add a check: a function check_NAME (args after the first colon), that
# writes its log to stdout/stderr and ends with `result pass|fail|skip REASON`.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$PWD}
FASTAUDIT=${FASTAUDIT:-$ROOT/target/release/fastaudit}
CORPUS=${CORPUS:-/work/shared/corpus/rules}
VM_SHARE=${VM_SHARE:-/tmp/vm-matrix}
BPF_OBJ=${BPF_OBJ:-$VM_SHARE/fastaudit.bpf.o}
PROGPROBE=${PROGPROBE:-$VM_SHARE/progprobe}
READY_TIMEOUT=${READY_TIMEOUT:-90}
TEST_DEPS=${TEST_DEPS:-$ROOT/target/debug/deps}
mkdir -p "$OUT/checks"
# CHECK_PLAIN_TMP=1: a plain tmpfs on /var/tmp first. The arm64 guests'
# root is an overlay, and the kernel names an overlay's upper directory
# in PATH records as (null) PARENT items the tests' scenarios do not make.
if [ "${CHECK_PLAIN_TMP:-0}" = 1 ]; then mount -t tmpfs -o mode=1777 tmpfs /var/tmp; fi
SCRATCH=$(mktemp -d /var/tmp/guest-checks.XXXXXX)   # guest-private (tmpfs)

result() { echo "$1	${*:2}" > "$SCRATCH/result"; }

# An example rules file of auditd's: the corpus's copy, else the one the
# auditd package installs (gzipped by some), unpacked into SCRATCH.
auditd_example() {
  local f=$CORPUS/audit-userspace/$1 d=/usr/share/doc/auditd/examples/rules/$1
  if [ -f "$f" ]; then echo "$f"
  elif [ -f "$d" ]; then echo "$d"
  elif [ -f "$d.gz" ]; then zcat "$d.gz" > "$SCRATCH/$1" && echo "$SCRATCH/$1"
  else echo "$f"
  fi
}

ruleset_path() {
  case "$1" in
    default) echo "$ROOT/rules/default.rules" ;;
    # The corpus's copy of auditd's example, else the one Debian's
    # auditd package installs.
    stig) auditd_example 30-stig.rules ;;
    ospp) auditd_example 30-ospp-v42.rules ;;
    pci) auditd_example 30-pci-dss-v31.rules ;;
    cis) echo "$ROOT/rules/bench/cis.rules" ;;
    neo23x0) echo "$CORPUS/community/neo23x0-audit.rules" ;;
    *) echo "$1" ;;
  esac
}

# A copy of rules file $1 without the lines `fastaudit rules check` refuses
# here, nor -e 2 / --loginuid-immutable (never sent to a kernel from here
# anyway: fastaudit needs --apply-irreversible). Prints the copy's path;
# the count of lines left out goes to $SCRATCH/dropped.
prepare_rules() {
  local src=$1 dst=$SCRATCH/$(basename "$1").checked dropped=0 bad
  grep -vE '^\s*(-e\s+2|--loginuid-immutable)\b' "$src" > "$dst"
  for _ in 1 2 3 4; do
    bad=$("$FASTAUDIT" rules check "$dst" 2>&1 | sed -nE "s|^$dst:([0-9]+): .*|\1|p" | sort -un)
    [ -z "$bad" ] && break
    echo "left out of $(basename "$src"):"; "$FASTAUDIT" rules check "$dst" 2>&1 | sed "s|^$dst|  line|"
    for n in $bad; do sed -i "${n}s/^/#guest-checks: left out# /" "$dst"; dropped=$((dropped + 1)); done
  done
  echo "$dropped" > "$SCRATCH/dropped"
  echo "$dst" > "$SCRATCH/prepared"
}

check_start() {
  local name=$1 src; src=$(ruleset_path "$name")
  [ -f "$src" ] || { result skip "no rules file $src"; return; }
  prepare_rules "$src"
  local rules; rules=$(cat "$SCRATCH/prepared"); local dropped; dropped=$(cat "$SCRATCH/dropped")
  local log; log=$(mktemp -d); chmod 700 "$log"
  local out=$SCRATCH/run.out t0; t0=$(date +%s.%N)
  FASTAUDIT_START_TRACE=${CHECK_START_TRACE:-1} timeout $((READY_TIMEOUT + 30)) "$FASTAUDIT" run --no-config --rules "$rules" \
    --log "$log/audit.log" > "$out" 2>&1 &
  local pid=$! ready=0
  for _ in $(seq 1 $((READY_TIMEOUT * 10))); do
    grep -q '^fastaudit: ready' "$out" && { ready=1; break; }
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
  done
  local secs; secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
  if [ $ready = 1 ]; then
    # A little traffic, then stop.
    chmod 0644 /etc/hostname 2>/dev/null; id >/dev/null; sleep 1
    kill -INT $pid
  fi
  wait $pid; local rc=$?
  cat "$out"
  echo "--- exit $rc; audit.log: $( (wc -l < "$log/audit.log") 2>/dev/null || echo none) lines"
  [ -f "$log/audit.log" ] && tail -n 5 "$log/audit.log"
  # Leave the guest's kernel audit clean for the next check.
  auditctl -D >/dev/null 2>&1; auditctl -e 0 >/dev/null 2>&1
  rm -rf "$log"
  local extra=""; [ "$dropped" != 0 ] && extra=" ($dropped refused rule lines left out)"
  if [ $ready = 1 ] && [ $rc = 0 ]; then
    result pass "ready in ${secs}s, clean stop$extra"
  elif [ $ready = 1 ]; then
    result fail "ready in ${secs}s but exit $rc at stop$extra"
  elif grep -q 'fastaudit needs Linux [0-9.]* or later' "$out"; then
    # A kernel below the minimum, refused by name: the expected answer.
    result skip "refused as expected: $(grep -o 'lacks BPF features.*' "$out" | head -n1 | cut -c1-250)$extra"
  else
    local why; why=$(grep -E '^(fastaudit: (running|this kernel|error)|libbpf: .*(failed|error|ESRCH|not found))' "$out" | grep -v 'failed to create BPF token' | head -n 2 | tr '\n' ' ' | cut -c1-300)
    [ $rc = 124 ] && why="no ready within ${READY_TIMEOUT}s; $why"
    result fail "exit $rc: ${why:-see log}$extra"
  fi
}

check_explain() {
  "$FASTAUDIT" run --no-config --rules "$ROOT/rules/default.rules" --explain 2>&1; local rc=$?
  local kinds; kinds=$("$FASTAUDIT" run --no-config --rules "$ROOT/rules/default.rules" --explain 2>&1 |
    sed -nE 's/^  (fexit|tracepoint|tp_btf|raw_tp): (works|refused|not probed).*/\1=\2/p' | tr '\n' ' ')
  [ $rc = 0 ] && result pass "$kinds" || result fail "exit $rc; $kinds"
}

check_progs() {
  [ -x "$PROGPROBE" ] && [ -f "$BPF_OBJ" ] || { result skip "no $PROGPROBE or $BPF_OBJ (kernel-matrix.sh builds them)"; return; }
  "$PROGPROBE" -a -v "$BPF_OBJ" > "$OUT/checks/progs-libbpf.log" 2>&1
  grep '^PROG' "$OUT/checks/progs-libbpf.log"
  local total; total=$(grep -c '^PROG' "$OUT/checks/progs-libbpf.log")
  # A program whose tracepoint or function this kernel does not have is
  # left out by the engine here: absent, not a failure.
  local bad="" absent=""
  while IFS=$'\t' read -r _ prog sec _; do
    local target=${sec#*/}
    case $sec in
      tp_btf/*|raw_tp/*) ls -d /sys/kernel/tracing/events/*/"$target" >/dev/null 2>&1 && bad+="$prog " || absent+="$prog " ;;
      kprobe/*|fentry/*|fexit/*) grep -qE " $target\$" /proc/kallsyms && bad+="$prog " || absent+="$prog " ;;
      *) bad+="$prog " ;;
    esac
  done < <(grep '^PROG' "$OUT/checks/progs-libbpf.log" | grep FAIL)
  local note=""; [ -n "$absent" ] && note="; target absent here: $absent"
  if [ -z "$bad" ]; then result pass "$total programs load and attach where their target exists$note"
  else result fail "fail: $bad$note"; fi
}

check_test() {
  local bin=${1%%:*} name=${1#*:}
  # Several crates have a binary of that name (each crate's tests are one
  # `integration` binary): the newest one that lists the test.
  local exe="" cand
  for cand in $(ls -t "$TEST_DEPS"/"$bin"-* 2>/dev/null | grep -vE '\.(d|rlib|rmeta|o)$'); do
    # grep reads the whole list: with pipefail, a grep -q that stops at
    # the match can fail the test binary's next write (EPIPE, exit 101).
    [ -x "$cand" ] && "$cand" --list --exact "$name" 2>/dev/null | grep "^$name: test" >/dev/null && { exe=$cand; break; }
  done
  [ -n "$exe" ] || { result skip "no test binary $TEST_DEPS/$bin-* with $name"; return; }
  # Tests write scratch files under TMPDIR (guest-private here) and run
  # from their crate's dir, as cargo test would (read-only in the guest):
  # the crate whose tests/BIN/ holds the test's module.
  local crate_dir; crate_dir=$(dirname "$(dirname "$(dirname "$(ls "$ROOT"/crates/*/tests/"$bin"/"${name%%::*}".rs 2>/dev/null | head -n1)")")" 2>/dev/null)
  # Nothing can be built here: the tests use the binaries built beforehand
  # (fastaudit-bench too: kernel-matrix.sh builds it).
  (cd "${crate_dir:-$ROOT}" && FASTAUDIT_TEST_PREBUILT=1 TMPDIR=/var/tmp RUST_BACKTRACE=1 timeout "${TEST_TIMEOUT:-600}" "$exe" --exact "$name" --test-threads=1 --nocapture) > "$SCRATCH/test.out" 2>&1
  local rc=$?
  cat "$SCRATCH/test.out"
  # A test that cannot run on this machine says SKIPPED and passes: a skip,
  # not a pass.
  local skipped; skipped=$(grep -m1 -o "SKIPPED [^ ]*$name: .*" "$SCRATCH/test.out" | sed "s/^SKIPPED [^ ]*$name: //" | cut -c1-250)
  if [ $rc = 0 ] && [ -n "$skipped" ]; then result skip "$skipped"; return; fi
  [ $rc = 0 ] && result pass "$(basename "$exe") $name" || result fail "exit $rc ($(basename "$exe") $name)"
}

# Whether a rules line only adds or deletes rules (testsupport's
# safe_to_send): a control option anywhere (-e 2 above all) keeps it from
# the kernel. Short options are read as getopt clusters them.
safe_to_send() {
  local control=ebfrmtqslvichRU takes_value=CefrbaAdSFmRwWkpqU w c i skip=0
  local -a words; read -r -a words <<<"$1"
  [[ ${words[0]:-} == \#* ]] && return 0
  for w in "${words[@]}"; do
    if [ $skip = 1 ]; then skip=0; continue; fi
    [ "$w" = -- ] && break
    [[ $w == --* ]] && return 1
    [[ ${#w} -lt 2 || $w != -* ]] && continue
    for ((i = 1; i < ${#w}; i++)); do
      c=${w:i:1}
      [[ $control == *"$c"* || $c != [A-Za-z] ]] && return 1
      if [[ $takes_value == *"$c"* ]]; then [ $((i + 1)) = ${#w} ] && skip=1; break; fi
    done
  done
  return 0
}

# One rules file against this kernel: verdicts and listing into
# $OUT/oracle; with fastaudit, the differences into $SCRATCH/diffs.
listing_file() {
  local file=$1 name; name=$(basename "$file")
  local dir=$OUT/oracle one=$SCRATCH/one.rules kept=$SCRATCH/kept/$name n=0 line v
  mkdir -p "$dir" "$SCRATCH/kept"
  auditctl -D >/dev/null 2>&1
  : > "$dir/$name.verdicts"; : > "$kept"
  local -a lines=() verdicts=()
  while IFS= read -r line || [ -n "$line" ]; do lines+=("$line"); done < "$file"
  for line in "${lines[@]}"; do
    n=$((n + 1))
    if safe_to_send "$line"; then
      printf '%s\n' "$line" > "$one"
      if auditctl -R "$one" >/dev/null 2>&1; then v=accepts; else v=refuses; fi
    else
      v=control
    fi
    verdicts+=("$v")
    printf '%s\t%s\t%s\n' "$n" "$v" "$line" >> "$dir/$name.verdicts"
    # The accepted lines, the refused ones blanked (line numbers kept).
    if [ $v = refuses ]; then echo; else printf '%s\n' "$line"; fi >> "$kept"
  done
  auditctl -l > "$dir/$name.listing" 2>&1
  auditctl -D >/dev/null 2>&1
  [ -x "$FASTAUDIT" ] || return 0
  # As testsupport writes them: joined with newlines, no final one.
  local all=$SCRATCH/all.rules
  printf '%s\n' "${lines[@]}" | head -c -1 > "$all"
  local refused; refused=$("$FASTAUDIT" rules check --max-messages 0 "$all" 2>&1 >/dev/null |
    grep -v -e ': warning: ' -e ': note: ' | sed -nE "s|^$all:([0-9]+):.*|\1|p" | sort -un | tr '\n' ' ')
  for ((n = 1; n <= ${#lines[@]}; n++)); do
    v=${verdicts[n - 1]}
    case "$v $refused" in
      "accepts "*" $n "*|"accepts $n "*) echo "$name:$n: kernel accepts but fastaudit refuses: ${lines[n - 1]}" ;;
      "refuses "*" $n "*|"refuses $n "*) ;;
      "refuses "*) echo "$name:$n: kernel refuses but fastaudit accepts: ${lines[n - 1]}" ;;
      "control "*" $n "*|"control $n "*) echo "$name:$n: control line refused by fastaudit: ${lines[n - 1]}" ;;
    esac
  done >> "$SCRATCH/diffs"
  head -c -1 "$kept" > "$kept.t" && mv "$kept.t" "$kept"
  "$FASTAUDIT" rules list "$kept" > "$dir/$name.fastaudit" 2> "$SCRATCH/list.err"
  if ! cmp -s "$dir/$name.listing" "$dir/$name.fastaudit"; then
    echo "$name: listing differs (< auditctl -l, > fastaudit rules list):"
    diff "$dir/$name.listing" "$dir/$name.fastaudit" | head -n 6
    [ -s "$SCRATCH/list.err" ] && sed 's/^/  fastaudit: /' "$SCRATCH/list.err" | head -n 3
  fi >> "$SCRATCH/diffs"
}

check_listing() {
  local files=()
  if [ -n "$1" ]; then files=("$1")
  else
    local d; for d in audit-userspace community; do
      while IFS= read -r f; do files+=("$f"); done < <(ls "$CORPUS/$d"/*.rules 2>/dev/null | LC_ALL=C sort)
    done
  fi
  [ ${#files[@]} -gt 0 ] || { result skip "no rules files under $CORPUS"; return; }
  : > "$SCRATCH/diffs"
  local f; for f in "${files[@]}"; do listing_file "$f"; done
  cat "$SCRATCH/diffs"
  # This check's files only (another listing check may share OUT/oracle).
  local kernel_ok=0 n
  for f in "${files[@]}"; do
    n=$(awk -F'\t' '$2=="accepts"' "$OUT/oracle/$(basename "$f").verdicts" | wc -l); kernel_ok=$((kernel_ok + n))
  done
  if [ ! -x "$FASTAUDIT" ]; then
    result skip "no $FASTAUDIT: only the kernel's side, ${#files[@]} files ($kernel_ok lines accepted) in $OUT/oracle"
  elif [ -s "$SCRATCH/diffs" ]; then
    local nf; nf=$(grep -c . "$SCRATCH/diffs")
    result fail "${#files[@]} files: $nf difference lines; first: $(grep -m1 -v '^[<>-]' "$SCRATCH/diffs" | cut -c1-200)"
  else
    result pass "${#files[@]} files, $kernel_ok accepted lines: same verdicts, same listing"
  fi
}

# The Debian package as it installs: dpkg -i (the guest's root is an
# overlay: nothing stays), then the installed binary on the installed
# rules, as the unit starts it.
check_deb() {
  local deb=${FASTAUDIT_DEB:-}
  [ -f "$deb" ] || { result skip "no package (FASTAUDIT_DEB=$deb)"; return; }
  dpkg-deb -f "$deb" Package Version Architecture Depends
  # Nothing may start a service here: no init system in the guest.
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod 755 /usr/sbin/policy-rc.d
  if ! dpkg -i "$deb"; then result fail "dpkg -i $(basename "$deb") failed"; return; fi
  dpkg -s fastaudit | grep -E '^(Status|Version|Architecture)'
  local bin=/usr/sbin/fastaudit; [ -x "$bin" ] || { result fail "no $bin after install"; return; }
  "$bin" --version
  local rules=/usr/share/fastaudit/rules/default.rules
  [ -f "$rules" ] || { result fail "no $rules after install"; return; }
  FASTAUDIT=$bin check_start "$rules"
  local r; r=$(cat "$SCRATCH/result")
  result "${r%%	*}" "installed $(dpkg-query -W -f='${Version} ${Architecture}' fastaudit); on its default.rules: ${r#*	}"
}

check_cmd() {
  local var="CHECK_CMD_$(echo "$1" | tr 'a-z.-' 'A-Z__')"
  local cmd=${!var:-}
  [ -n "$cmd" ] || { result skip "no command in \$$var"; return; }
  bash -c "$cmd" 2>&1; local rc=$?
  case $rc in 0) result pass "$cmd" ;; 77) result skip "$cmd: exit 77" ;; *) result fail "exit $rc: $cmd" ;; esac
}

status=0
for c in "$@"; do
  fn=check_${c%%:*}; arg=""; [[ $c == *:* ]] && arg=${c#*:}
  rm -f "$SCRATCH/result"
  safe=$(echo "$c" | tr '/: ' '___')
  if declare -F "$fn" >/dev/null; then
    "$fn" "$arg" > "$OUT/checks/$safe.log" 2>&1 < /dev/null
  else
    result skip "unknown check"
  fi
  [ -f "$SCRATCH/result" ] || result fail "the check gave no result"
  r=$(cat "$SCRATCH/result")
  printf '%s\t%s\n' "$c" "$r" | tee -a "$OUT/checks/results.tsv"
  [ "${r%%	*}" = fail ] && status=1
done
rm -rf "$SCRATCH"
exit $status
