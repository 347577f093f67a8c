#!/usr/bin/env bash
# Guest side of the runlevel actions (`single`, `halt`): run by
# run-in-guest.sh as root in a VM guest, NEVER on a host (it refuses to run
# outside a virtme guest). fastaudit asks init for runlevel 1 or 0 there as
# auditd does (`/sbin/init 1`, `/sbin/init 0`); a virtme guest has no init
# that could switch, so a recorder is bind-mounted over /sbin/init first and
# what it was asked is what is checked. /usr/lib/sendmail is a recorder too
# (the guest's /usr is a private tmpfs overlay).
#
# Usage: run-in-guest.sh KERNEL scripts/vm/guest-actions.sh
# Scenarios (each prints its stderr, what the recorders got, and a line
# `SCENARIO<TAB>pass|fail<TAB>what was shown`):
#   stig         OpenSCAP's STIG/CIS auditd.conf (space_left 25% email,
#                admin_space_left 5% single, disk_full_action halt,
#                disk_error_action halt, max_log_file_action keep_logs) on a
#                1 MiB log file system filled by a workload: root is mailed,
#                and init asked for runlevel 1 and for 0, each once
#   disk-error   disk_error_action = single, a write refused (file size
#                limit): init asked for runlevel 1 once
#   overflow     overflow_action = halt, a plugin that never reads: init
#                asked for runlevel 0 once (the dispatcher's code is the
#                log writer's)
# Environment: FASTAUDIT (default $ROOT/target/release/fastaudit).
# Exit status: 0 when every scenario passed.
set -uo pipefail
if ! grep -q virtme /proc/cmdline; then
  echo "guest-actions.sh: not a virtme guest: refused (it asks init for single user mode and halt)" >&2
  exit 2
fi
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$PWD}
FASTAUDIT=${FASTAUDIT:-$ROOT/target/release/fastaudit}
S=$(mktemp -d /var/tmp/guest-actions.XXXXXX)
chmod 755 "$S"

# The recorders: init appends its arguments; sendmail writes its arguments
# and what it read.
cat > "$S/init" <<EOF
#!/bin/sh
echo "init \$*" >> $S/init.rec
EOF
cat > /usr/lib/sendmail <<EOF
#!/bin/sh
{ echo "argv: \$*"; cat; } >> $S/mail.rec
EOF
chmod 755 "$S/init" /usr/lib/sendmail
set -e
mount --bind "$S/init" /sbin/init
set +e
# The real init can no longer be reached: /sbin/init is the recorder.
/sbin/init probe && grep -qx 'init probe' "$S/init.rec" || { echo "the init recorder is not in place" >&2; exit 1; }
: > "$S/init.rec"

printf -- '-a always,exit -F arch=b64 -S chmod -F a1=0x381 -k fill\n' > "$S/r.rules"
: > "$S/target"
chmods() { python3 -c "import os
for _ in range($1): os.chmod('$S/target', 0o1601)"; }
status=0
result() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" | tee -a "$OUT/actions.tsv"; [ "$2" = pass ] || status=1; }

# Start fastaudit with args "$@"; its pid in $pid, its stderr in $S/err.
start() {
  : > "$S/err"
  "$FASTAUDIT" run --bpf-only --rules "$S/r.rules" "$@" 2> "$S/err" &
  pid=$!
  for _ in $(seq 1 900); do
    grep -q '^fastaudit: ready' "$S/err" && return 0
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
  done
  echo "fastaudit did not start:"; cat "$S/err"; return 1
}
# Wait up to 60 s for the recorder to have $1 lines.
wait_init() { for _ in $(seq 1 600); do [ "$(wc -l < "$S/init.rec")" -ge "$1" ] && return 0; sleep 0.1; done; return 1; }
stop() { kill -TERM $pid; wait $pid; echo "--- fastaudit's stderr (exit $?):"; cat "$S/err"; }

echo "== stig: OpenSCAP's auditd.conf on a 1 MiB log file system"
mkdir -p "$S/fs" && mount -t tmpfs -o size=1m,mode=0700 tmpfs "$S/fs"
cat > "$S/stig.conf" <<EOF
local_events = yes
write_logs = yes
log_file = $S/fs/audit.log
log_group = root
log_format = ENRICHED
flush = INCREMENTAL_ASYNC
freq = 50
max_log_file = 8
num_logs = 5
name_format = NONE
max_log_file_action = keep_logs
space_left = 25%
space_left_action = email
verify_email = yes
action_mail_acct = root
admin_space_left = 5%
admin_space_left_action = single
disk_full_action = halt
disk_error_action = halt
plugin_dir = $S/no-plugins
EOF
: > "$S/init.rec"; : > "$S/mail.rec"
if start --config "$S/stig.conf"; then
  chmods 8000
  wait_init 2
  sleep 1   # a second request would have come by now (there must be none)
  stop
  echo "--- init was asked:"; cat "$S/init.rec"
  echo "--- sendmail got:"; cat "$S/mail.rec"
  echo "--- the log file system:"; df -k "$S/fs" | tail -n1
  # Which of admin_space_left and the full disk comes first depends on
  # when free space is looked at: each is asked for once, in either order.
  if [ "$(sort "$S/init.rec")" = "$(printf 'init 0\ninit 1')" ] &&
     grep -q '^argv: -t -froot$' "$S/mail.rec" && grep -q '^Subject: Audit Disk Space Alert$' "$S/mail.rec" &&
     grep -q 'below admin_space_left: changing the system to single user mode (/sbin/init 1)' "$S/err" &&
     grep -q 'no space left on the log.s file system: halting the system (/sbin/init 0)' "$S/err"; then
    result stig pass "root mailed (space_left); /sbin/init 1 (admin_space_left) and /sbin/init 0 (disk full), each once: $(tr '\n' ' ' < "$S/init.rec")"
  else
    result stig fail "init: $(tr '\n' ' ' < "$S/init.rec"); mail: $(head -n1 "$S/mail.rec")"
  fi
else
  result stig fail "did not start"
fi
umount "$S/fs"

echo "== disk-error: disk_error_action = single"
printf 'log_file = %s/de/audit.log\nspace_left = 2\nadmin_space_left = 1\ndisk_error_action = single\nmax_log_file = 0\nplugin_dir = %s/no-plugins\n' "$S" "$S" > "$S/de.conf"
mkdir -p -m 0700 "$S/de"
: > "$S/init.rec"
if start --config "$S/de.conf" --space-left 0 --admin-space-left 0; then
  prlimit --pid $pid --fsize=100000:unlimited
  chmods 3000
  wait_init 1
  sleep 1
  prlimit --pid $pid --fsize=unlimited:unlimited
  stop
  echo "--- init was asked:"; cat "$S/init.rec"
  if [ "$(cat "$S/init.rec")" = "init 1" ] &&
     grep -q 'error writing the log: EFBIG.*changing the system to single user mode (/sbin/init 1), as disk_error_action = single asks' "$S/err"; then
    result disk-error pass "a refused write (EFBIG): /sbin/init 1, once"
  else
    result disk-error fail "init: $(tr '\n' ' ' < "$S/init.rec")"
  fi
else
  result disk-error fail "did not start"
fi

echo "== overflow: overflow_action = halt"
mkdir -p "$S/plugins"
printf '#!/bin/sh\nexec sleep 1000\n' > "$S/sleeper"; chmod 750 "$S/sleeper"
printf 'active = yes\ndirection = out\npath = %s/sleeper\ntype = always\nformat = string\n' "$S" > "$S/plugins/sleeper.conf"
chmod 640 "$S/plugins/sleeper.conf"
mkdir -p -m 0700 "$S/ov"
: > "$S/init.rec"
if start --no-config --log "$S/ov/audit.log" --plugin-dir "$S/plugins" --q-depth 1 --overflow-action halt; then
  chmods 3000
  wait_init 1
  sleep 1
  stop
  echo "--- init was asked:"; cat "$S/init.rec"
  if [ "$(cat "$S/init.rec")" = "init 0" ] && grep -q 'halting the system (/sbin/init 0) due to overflowing a plugin queue' "$S/err"; then
    result overflow pass "a plugin queue overflowed: /sbin/init 0, once"
  else
    result overflow fail "init: $(tr '\n' ' ' < "$S/init.rec")"
  fi
else
  result overflow fail "did not start"
fi

umount /sbin/init
rm -rf "$S" /usr/lib/sendmail
exit $status
