#!/bin/bash
# Guest side of scripts/vm/service-check.sh: runs inside a virtme-ng guest
# booted with systemd as PID 1 (vng --systemd, see service-check.sh), from
# the share directory service-check.sh copied it and the package to.
# Installs the fastaudit .deb and drives fastaudit.service with systemctl.
# Writes SHARE/result-$(uname -r).txt (the share is under the host's /tmp,
# shared r/w); everything else it changes is in the guest's throw-away
# overlays.
#
# Kernel command line: fastaudit.bisect=1 to bisect the hardening even when
# the start works (service-check.sh passes it for FA_BISECT=1).

SHARE=$(cd "$(dirname "$0")" && pwd)
DEB=$SHARE/fastaudit.deb
BISECT=0
grep -qw 'fastaudit.bisect=1' /proc/cmdline && BISECT=1
KREL=$(uname -r)
OUT=$SHARE/result-$KREL.txt
LOG=/var/log/audit/audit.log      # auditd.conf's log_file (checked below)
T0=$(date +%s)
FAILS=0
PASSES=0

exec >"$OUT.partial" 2>&1
export SYSTEMD_PAGER= SYSTEMD_COLORS=0 LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

say() { printf '%s\n' "$*"; }
pass() { PASSES=$((PASSES + 1)); say "PASS: $*"; }
fail() { FAILS=$((FAILS + 1)); say "FAIL: $*"; }
check() { # check DESCRIPTION CMD...: PASS/FAIL on the command's exit status
	local d=$1; shift
	if "$@"; then pass "$d"; else fail "$d"; fi
}
run() { # run CMD...: show the command, its output and exit status
	say ""
	say "\$ $*"
	"$@" 2>&1
	local rc=$?
	say "[rc=$rc, t+$(($(date +%s) - T0))s]"
	return $rc
}
section() { say ""; say "======== $* ========"; }
# wait_for SECONDS CMD...: poll until CMD succeeds
wait_for() {
	local n=$1; shift
	local i
	for ((i = 0; i < n * 2; i++)); do
		"$@" && return 0
		sleep 0.5
	done
	return 1
}
main_pid() { systemctl show -p MainPID --value fastaudit; }
kernel_audit_pid() { auditctl -s 2>/dev/null | awk '$1 == "pid" { print $2 }'; }

section "guest"
run uname -a
say "PID 1: $(cat /proc/1/comm)   virtualization: $(systemd-detect-virt)"
run cat /proc/cmdline
run systemctl --version
run systemctl is-system-running --wait
run systemd-analyze time
run sh -c 'systemd-analyze blame --no-pager | head -8'
check "systemd is PID 1" test "$(cat /proc/1/comm)" = systemd
check "systemd sees a VM, not a container" test "$(systemd-detect-virt --container)" = none
run systemctl is-active auditd
run auditctl -s
say "kernel audit pid before: $(kernel_audit_pid)"

# vng artifacts undone (the guest only): virtme-ng-init mounts empty tmpfs on
# /var/log (hides auditd's /var/log/audit, which the auditd package ships),
# /var/lib/apt and /var/cache (apt's lists and archives). Unmounted, the root
# overlay's own directories show again (writes stay in the guest overlay).
section "undo virtme-ng-init's tmpfs on /var/log, /var/lib/apt, /var/cache"
for d in /var/log /var/lib/apt /var/cache; do
	if [ "$(findmnt -n -o FSTYPE --mountpoint "$d")" = tmpfs ]; then
		umount "$d" 2>/dev/null || umount -l "$d"
	fi
done
run ls -ld /var/log/audit /var/lib/apt/lists
[ -d /var/log/audit ] || install -d -m 0750 -g adm /var/log/audit

section "1. install the package"
run ls -l "$DEB"
# (apt-get --no-download fails on a .deb path: "E: Internal Error, Pathname
# to install is not absolute"; the guest has no network anyway.)
if run apt-get install -y "$DEB"; then
	pass "apt-get install $DEB"
	INSTALLED_BY=apt
else
	fail "apt-get install $DEB (falling back to dpkg -i)"
	if run dpkg -i "$DEB"; then
		pass "dpkg -i $DEB"
		INSTALLED_BY=dpkg
	else
		fail "dpkg -i $DEB"
	fi
fi
say "installed by: ${INSTALLED_BY:-nothing}"
run dpkg -s fastaudit
run systemctl cat fastaudit
check "unit loaded (postinst daemon-reload)" test "$(systemctl show -p LoadState --value fastaudit)" = loaded
run systemctl is-enabled fastaudit
check "unit installed but not enabled" test "$(systemctl is-enabled fastaudit)" = disabled
check "unit not started by the install" test "$(systemctl is-active fastaudit)" = inactive

section "2. rules for the workload, fastaudit rules check"
run grep -E '^(log_file|log_format|write_logs|log_group)' /etc/audit/auditd.conf
LOG=$(awk -F' *= *' '$1 == "log_file" { print $2 }' /etc/audit/auditd.conf 2>/dev/null)
LOG=${LOG:-/var/log/fastaudit/audit.log}
say "log file: $LOG"
run ls /etc/audit/rules.d
cat >/etc/audit/rules.d/90-fastaudit-vm-test.rules <<'EOF'
## fastaudit VM service test (guest only)
-a always,exit -F arch=b64 -S chmod,fchmod,fchmodat -k fa_chmod
-w /var/tmp/fa-test/ -p wa -k fa_watch
EOF
run cat /etc/audit/rules.d/90-fastaudit-vm-test.rules
mkdir -p /var/tmp/fa-test
check "fastaudit rules check" run /usr/sbin/fastaudit rules check
run /usr/sbin/fastaudit run --explain

section "3. switch from auditd, as the README says"
LINES_BEFORE=$(wc -l <"$LOG" 2>/dev/null || echo 0)
run timeout 120 systemctl disable --now auditd
check "systemctl disable --now auditd" test $? = 0
TS=$(date +%s%N)
run timeout 180 systemctl enable --now fastaudit
START_RC=$?
say "systemctl enable --now fastaudit took $((($(date +%s%N) - TS) / 1000000)) ms"
run systemctl show -p Type,NotifyAccess,ActiveState,SubState,Result,MainPID,NRestarts,ExecMainStatus,StatusText fastaudit
run systemctl status fastaudit --no-pager -l
if [ "$START_RC" = 0 ] && [ "$(systemctl is-active fastaudit)" = active ]; then
	pass "systemctl enable --now fastaudit: active (Type=notify: READY=1 received)"
	STARTED=1
else
	fail "systemctl enable --now fastaudit (rc=$START_RC, $(systemctl is-active fastaudit))"
	STARTED=0
fi
check "fastaudit enabled, auditd disabled" test "$(systemctl is-enabled fastaudit)/$(systemctl is-enabled auditd)" = enabled/disabled
run journalctl -u fastaudit --no-pager -o short-monotonic
if [ "$STARTED" = 1 ]; then
	sleep 2
	check "still active 2 s later (no restart)" test "$(systemctl is-active fastaudit)/$(systemctl show -p NRestarts --value fastaudit)" = active/0
	run systemctl is-active auditd
	check "auditd stopped (Conflicts=auditd.service)" test "$(systemctl is-active auditd)" != active
	run auditctl -s
	check "kernel audit pid is fastaudit's MainPID ($(main_pid))" test "$(kernel_audit_pid)" = "$(main_pid)"
	run /usr/sbin/fastaudit status
	say "--- the main process runs confined (seccomp filter, no_new_privs, bounding set):"
	grep -E '^(NoNewPrivs|Seccomp|Seccomp_filters|CapBnd|CapEff):' "/proc/$(main_pid)/status"
	say "--- systemd's warnings about the unit file (none expected):"
	journalctl -b --no-pager -o cat | grep -E 'fastaudit\.service:[0-9]+:' | sort -u
	run ls -la "$(dirname "$LOG")" /run/fastaudit /var/log/fastaudit

	section "4. workload -> $LOG"
	run touch /var/tmp/fa-test/file
	run chmod 0600 /var/tmp/fa-test/file
	run sh -c 'echo data >> /var/tmp/fa-test/file'
	check "key fa_chmod in $LOG" wait_for 20 grep -q 'key="fa_chmod"' "$LOG"
	check "key fa_watch in $LOG" wait_for 20 grep -q 'key="fa_watch"' "$LOG"
	run grep -c . "$LOG"
	say "lines appended since start: $(($(wc -l <"$LOG") - LINES_BEFORE))"
	say "--- DAEMON_START and the workload's records:"
	grep -E 'type=DAEMON_START' "$LOG" | tail -2
	grep -E 'fa_chmod|fa_watch' "$LOG" | tail -6
	if command -v ausearch >/dev/null; then
		run ausearch -if "$LOG" -k fa_chmod -i
		check "ausearch -if $LOG -k fa_chmod" sh -c "ausearch -if '$LOG' -k fa_chmod >/dev/null 2>&1"
		run ausearch -if "$LOG" -k fa_watch -i
		check "ausearch -if $LOG -k fa_watch" sh -c "ausearch -if '$LOG' -k fa_watch >/dev/null 2>&1"
	else
		say "ausearch: not installed"
	fi

	section "5. systemctl reload fastaudit (with a new rule, then a refused one)"
	echo '-w /var/tmp/fa-reload/ -p wa -k fa_reload' >/etc/audit/rules.d/91-fastaudit-vm-reload.rules
	mkdir -p /var/tmp/fa-reload
	PID_BEFORE=$(main_pid)
	run timeout 60 systemctl reload fastaudit
	check "systemctl reload fastaudit" test $? = 0
	# No wait: the reload returns once the new rules run.
	run touch /var/tmp/fa-reload/file
	check "new rule live as soon as the reload returned: key fa_reload in $LOG" wait_for 20 grep -q 'key="fa_reload"' "$LOG"
	check "same MainPID after reload, still active" test "$(main_pid)/$(systemctl is-active fastaudit)" = "$PID_BEFORE/active"
	echo '-a always,exit -F arch=b64 -S chmod -F bogus=1' >/etc/audit/rules.d/92-fastaudit-vm-bad.rules
	run timeout 60 systemctl reload fastaudit
	RELOAD_RC=$?
	check "a reload of refused rules fails (rc=$RELOAD_RC)" test "$RELOAD_RC" != 0
	check "the refused line is named in the journal" wait_for 10 sh -c "journalctl -u fastaudit --no-pager -o cat | grep -q '92-fastaudit-vm-bad.rules:1:'"
	check "still active with the running rules (same MainPID)" test "$(main_pid)/$(systemctl is-active fastaudit)" = "$PID_BEFORE/active"
	rm -f /etc/audit/rules.d/92-fastaudit-vm-bad.rules
	run touch /var/tmp/fa-reload/file2
	check "the running rules still record: fa_reload for file2" wait_for 20 grep -q 'name="/var/tmp/fa-reload/file2"\|name="file2"' "$LOG"
	grep -E 'CONFIG_CHANGE|DAEMON_CONFIG' "$LOG" | tail -3
	run journalctl -u fastaudit --no-pager -o short-monotonic

	section "6. back to auditd, as the README says"
	# An inactive unit nobody references is unloaded right after the stop,
	# and systemctl show then gives defaults (ExecMainCode=0). A transient
	# unit that Wants= it keeps it loaded, so the real exit status shows.
	systemd-run --quiet --unit=fa-pin -p Wants=fastaudit.service -p After=fastaudit.service sleep 600
	run timeout 60 systemctl disable --now fastaudit
	STOP_RC=$?
	run systemctl show -p ActiveState,Result,ExecMainCode,ExecMainStatus fastaudit
	check "systemctl disable --now fastaudit (rc=$STOP_RC)" test "$STOP_RC" = 0
	MAIN_EXIT="$(systemctl show -p ExecMainCode --value fastaudit)/$(systemctl show -p ExecMainStatus --value fastaudit)/$(systemctl show -p Result --value fastaudit)"
	check "main process exited 0 on SIGTERM (ExecMainCode/Status/Result=$MAIN_EXIT)" test "$MAIN_EXIT" = 1/0/success
	systemctl stop fa-pin
	check "DAEMON_END in $LOG" grep -q 'type=DAEMON_END' "$LOG"
	grep -E 'type=DAEMON_END' "$LOG" | tail -1
	run auditctl -s
	check "kernel audit no longer points at fastaudit" test "$(kernel_audit_pid)" != "$PID_BEFORE"
	run timeout 120 systemctl enable --now auditd
	check "systemctl enable --now auditd" test $? = 0
	check "auditd active, the kernel's audit daemon again" wait_for 20 sh -c 'test "$(systemctl show -p MainPID --value auditd)" = "$(auditctl -s | awk '"'"'$1 == "pid" { print $2 }'"'"')"'
	run journalctl -u fastaudit --no-pager -o short-monotonic -n 15
fi

section "7. man page, completions"
run sh -c 'man -P cat fastaudit 2>&1 | head -20'
check "man fastaudit" sh -c 'man -P cat fastaudit 2>/dev/null | grep -q .'
run ls -l /usr/share/bash-completion/completions/fastaudit /usr/share/zsh/vendor-completions/_fastaudit /usr/share/fish/vendor_completions.d/fastaudit.fish
check "bash completion file present" test -s /usr/share/bash-completion/completions/fastaudit
run bash -c '. /usr/share/bash-completion/completions/fastaudit && complete -p fastaudit'
check "bash completion loads (complete -p fastaudit)" bash -c '. /usr/share/bash-completion/completions/fastaudit && complete -p fastaudit >/dev/null'
check "fish completion file present" test -s /usr/share/fish/vendor_completions.d/fastaudit.fish
check "zsh completion file present" test -s /usr/share/zsh/vendor-completions/_fastaudit

section "systemd-analyze security fastaudit"
run systemd-analyze security fastaudit --no-pager

# Hardening bisection: only when the start failed (or FA_BISECT=1). First
# without any of the unit's hardening, then one setting taken away at a time.
if [ "$STARTED" != 1 ] || [ "$BISECT" = 1 ]; then
	section "8. which hardening setting blocks the start"
	DROPIN=/run/systemd/system/fastaudit.service.d
	mkdir -p "$DROPIN"
	try_start() { # try_start LABEL DROPIN-LINES...
		local label=$1; shift
		systemctl stop fastaudit >/dev/null 2>&1
		systemctl reset-failed fastaudit >/dev/null 2>&1
		{ echo "[Service]"; echo "Restart=no"; printf '%s\n' "$@"; } >"$DROPIN/zz-bisect.conf"
		systemctl daemon-reload
		local since
		since=$(date '+%Y-%m-%d %H:%M:%S')
		timeout 120 systemctl start fastaudit >/dev/null 2>&1
		local rc=$? state
		state=$(systemctl is-active fastaudit)
		say "--- [$label] rc=$rc $state: $*"
		if [ "$state" != active ]; then
			journalctl -u fastaudit --no-pager -o cat --since "$since" | grep -v '^$' | tail -6 | sed 's/^/    /'
		fi
		systemctl stop fastaudit >/dev/null 2>&1
		[ "$state" = active ]
	}
	ALL=(
		"CapabilityBoundingSet=~"
		"NoNewPrivileges=no"
		"SystemCallFilter="
		"SystemCallArchitectures="
		"ProtectSystem=no"
		"ProtectHome=no"
		"PrivateMounts=no"
		"DevicePolicy=auto"
		"ProtectKernelModules=no"
		"InaccessiblePaths="
		"ProtectControlGroups=no"
		"ProtectClock=no"
		"ProtectHostname=no"
		"RestrictAddressFamilies="
		"RestrictNamespaces=no"
		"RestrictRealtime=no"
		"RestrictSUIDSGID=no"
		"LockPersonality=no"
		"MemoryDenyWriteExecute=no"
		"KeyringMode=shared"
	)
	try_start "unit as shipped" ""
	try_start "all hardening off" "${ALL[@]}"
	for s in "${ALL[@]}"; do
		try_start "only this off" "$s"
	done
	rm -f "$DROPIN/zz-bisect.conf"
	systemctl daemon-reload
fi

section "summary ($KREL)"
say "installed by: ${INSTALLED_BY:-nothing}"
say "PASS: $PASSES  FAIL: $FAILS  guest time: $(($(date +%s) - T0)) s"
grep -E '^(PASS|FAIL):' "$OUT.partial" | grep -v '^PASS: [0-9]'
[ "$FAILS" = 0 ] && say "RESULT: PASS" || say "RESULT: FAIL"
exec >/dev/null 2>&1
mv -f "$OUT.partial" "$OUT"
sync
exit 0
