#!/bin/bash
# The Debian package as an administrator uses it, on Debian's own kernels:
# boots a virtme-ng guest with systemd as PID 1 (vng --systemd) on a Debian
# kernel, over this machine's root (read-only 9p, with a throw-away overlay
# inside the guest), and runs scripts/vm/guest-service.sh in it: apt install
# the .deb, then the README's switch from auditd and back (systemctl
# disable --now auditd; enable --now fastaudit), reload (live on return;
# refused rules fail it), a workload found by ausearch in auditd.conf's
# log_file, the man page, completions.
#
# Usage: scripts/vm/service-check.sh [bookworm|trixie|/path/to/vmlinuz] [-v]
#   (after `bash scripts/package.sh`; kernels from scripts/vm/fetch-kernels.sh)
#   Result: $SHARE/result-<guest uname -r>.txt (PASS/FAIL lines, RESULT:)
#   Console: $SHARE/console-<kernel>.log (-v: the guest's boot console too)
#   Env: SERVICE_SHARE (default /tmp/fastaudit-service: under /tmp, which
#        the guest shares), DEB (default target/debian/fastaudit_*_amd64.deb),
#        FA_TIMEOUT (s, default 600), FA_BISECT=1 (bisect the hardening even
#        when the start works)
# Exit status: 0 if the guest wrote RESULT: PASS. About 2 minutes a kernel.
#
# vng --systemd needs three fixes here; they are written below as
# $SHARE/qemu-wrap.sh (given to vng as --qemu) and $SHARE/guest-root.sh
# (sourced by the guest's early init shell): see the comments in them.
# Nothing on the host is changed outside $SHARE. Needs root; one guest at a
# time.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "service-check.sh: run as root" >&2; exit 2; }
# As kernel-matrix.sh: a guest once left the host's /dev/null a regular file.
trap '[ -c /dev/null ] || { echo "service-check.sh: /dev/null recreated" >&2; rm -f /dev/null; mknod -m 666 /dev/null c 1 3; }' EXIT
SVC=${SERVICE_SHARE:-/tmp/fastaudit-service}
case "$SVC" in /tmp/*) ;; *) echo "SERVICE_SHARE must be under /tmp (the guest shares /tmp)" >&2; exit 2 ;; esac
cache=/var/cache/fastaudit-kernels
case "${1:-bookworm}" in
bookworm | 6.1) KERNEL=$(ls "$cache"/bookworm/boot/vmlinuz-* 2>/dev/null | head -n1) ;;
trixie | 6.12) KERNEL=$(ls "$cache"/trixie/boot/vmlinuz-* 2>/dev/null | head -n1) ;;
*) KERNEL=$1 ;;
esac
DEB=${DEB:-$(ls -t "$root"/target/debian/fastaudit_*_amd64.deb 2>/dev/null | head -n1)}
[ -n "$DEB" ] && [ -r "$DEB" ] || { echo "no package: run bash scripts/package.sh first (or set DEB)" >&2; exit 2; }
mkdir -p "$SVC" && chmod 0755 "$SVC"
cp "$DEB" "$SVC/fastaudit.deb" && cp "$root/scripts/vm/guest-service.sh" "$SVC/guest-service.sh" || exit 2
chmod 0755 "$SVC/guest-service.sh"
VERBOSE=()
[ "${2:-}" = -v ] && VERBOSE=(-v)
TIMEOUT=${FA_TIMEOUT:-600}
KVER=$(basename "$KERNEL" | sed 's/^vmlinuz-//')
CONSOLE=$SVC/console-$KVER.log

[ -n "$KERNEL" ] && [ -r "$KERNEL" ] || { echo "no kernel ${KERNEL:-for $1} (scripts/vm/fetch-kernels.sh)" >&2; exit 2; }
# One guest at a time (zombies, state Z, left by an init that does not reap,
# do not count).
if ps -C qemu-system-x86_64 -o pid=,stat= | awk '$2 !~ /^Z/ { found = 1 } END { exit !found }'; then
	echo "a qemu-system-x86_64 is already running:" >&2
	ps -C qemu-system-x86_64 -o pid,stat,args >&2
	exit 2
fi

cat >"$SVC/qemu-wrap.sh" <<'WRAP'
#!/bin/bash
# Given to vng as --qemu: edits the kernel command line vng built for
# --systemd, then execs the real qemu with every other argument unchanged.
# 1. vng --systemd always adds "audit=off" ("so there are no errors if the
#    user lacks --rw"). That disables the kernel audit subsystem entirely (no
#    NETLINK_AUDIT socket for auditd or fastaudit), and fastaudit.service has
#    ConditionKernelCommandLine=!audit=off: the start would be skipped.
#    -> audit=1.
# 2. The early init shell (init=/bin/sh -- -c "...; exec /sbin/init") first
#    sources @SHARE@/guest-root.sh (see there).
args=()
next_is_append=0
for a in "$@"; do
	if [ "$next_is_append" = 1 ]; then
		a=$(printf '%s' "$a" | sed -E \
			-e 's/(^| )audit=off( |$)/\1audit=1\2/' \
			-e 's#init=/bin/sh -- -c "#init=/bin/sh -- -c ". @SHARE@/guest-root.sh \&\& #')
		next_is_append=0
	elif [ "$a" = -append ]; then
		next_is_append=1
	fi
	args+=("$a")
done
[ -n "${QEMU_WRAP_LOG:-}" ] && printf '%q ' "${args[@]}" >"$QEMU_WRAP_LOG"
exec /usr/bin/qemu-system-x86_64 "${args[@]}"
WRAP
sed -i "s#@SHARE@#$SVC#g" "$SVC/qemu-wrap.sh"
chmod 0755 "$SVC/qemu-wrap.sh"

cat >"$SVC/guest-root.sh" <<'ROOT'
# Sourced (". SHARE/guest-root.sh &&") by the guest's early init shell that
# vng --systemd starts (init=/bin/sh -c "... exec /sbin/init"), inserted there
# by SHARE/qemu-wrap.sh. Runs as PID 1 before systemd, on the host's root
# exported read-only over 9p. Writes nothing on the host.
#
# 1. The host root has /.dockerenv (this machine is a Docker container), so
#    systemd would detect "docker" inside the VM. In a container systemd
#    ignores the kernel command line (systemd.mask=, ConditionKernelCommand-
#    Line= read PID 1's argv instead) and the getty generator starts
#    console-getty, not serial-getty@ttyS0 where vng's --exec script runs.
#    Fix: a writable overlay of the whole root (tmpfs upper) with /.dockerenv
#    deleted (whiteout), made the root with pivot_root (which also moves this
#    shell's root and cwd, so vng's remaining commands run in it).
# 2. No udev on this root (none in the host container): dev-ttyS0.device never
#    appears, so serial-getty@ttyS0.service (BindsTo=dev-%i.device) would time
#    out. The same unit without that dependency, in the overlay's /etc.
# 3. virtme-ng-init later mounts a tmpfs on /var/log: the journal is kept in
#    /run (Storage=volatile) so that journalctl still finds it.
# 4. Speed only: systemd-tmpfiles-setup's "D /tmp" --remove would empty the
#    overlay's /tmp (the host's ~3000 entries, whited out one by one: ~50 s).
#    /tmp is excluded (vng mounts the host's /tmp there afterwards anyway).
fa_guest_root() {
	mount -n -t tmpfs -o mode=0755 fa-ovl /mnt || return 1
	mkdir -p /mnt/upper /mnt/work /mnt/root || return 1
	mount -n -t overlay overlay -o lowerdir=/,upperdir=/mnt/upper,workdir=/mnt/work /mnt/root || return 1
	rm -f /mnt/root/.dockerenv || return 1
	mkdir -p /mnt/root/.oldroot || return 1
	cd /mnt/root || return 1
	pivot_root . .oldroot || return 1
	cd / || return 1
	umount -n -l /.oldroot && rmdir /.oldroot || return 1
	sed -e '/^BindsTo=dev-/d' -e 's/^After=dev-%i.device /After=/' \
		/lib/systemd/system/serial-getty@.service >/etc/systemd/system/serial-getty@ttyS0.service || return 1
	mkdir -p /etc/systemd/system/getty.target.wants /etc/systemd/journald.conf.d || return 1
	ln -sf /etc/systemd/system/serial-getty@ttyS0.service \
		/etc/systemd/system/getty.target.wants/serial-getty@ttyS0.service || return 1
	printf '[Journal]\nStorage=volatile\n' >/etc/systemd/journald.conf.d/zz-fastaudit-vm.conf || return 1
	mkdir -p /etc/systemd/system/systemd-tmpfiles-setup.service.d || return 1
	printf '[Service]\nExecStart=\nExecStart=systemd-tmpfiles --create --remove --boot --exclude-prefix=/dev --exclude-prefix=/tmp\n' \
		>/etc/systemd/system/systemd-tmpfiles-setup.service.d/zz-fastaudit-vm.conf || return 1
	echo "<6>fastaudit guest-root: overlay root without /.dockerenv, serial-getty@ttyS0 without udev" >/dev/kmsg
}
fa_guest_root || { echo "<3>fastaudit guest-root: FAILED" >/dev/kmsg; false; }
ROOT

# The guest's uname -r names the result; remove stale ones for this kernel.
rm -f "$SVC/result-$KVER.txt" "$SVC/result-$KVER.txt.partial"

# --systemd: systemd is PID 1; vng's --exec script then runs from
# serial-getty@ttyS0.service (vng's drop-in runs virtme-ng-init there), and
# virtme-ng-init powers the guest off when the script ends.
# Units masked: the host's PostgreSQL (slow, irrelevant); tmpfiles-clean
# (the guest shares the host's /tmp).
# --rwdir /tmp: results are written to the host's $SVC.
echo "$(date -u +%T) booting $KERNEL (timeout ${TIMEOUT}s; console: $CONSOLE)"
START=$(date +%s)
cd /tmp || exit 2
# One TCG thread for both vCPUs: qemu's multi-threaded TCG races the
# kernel's int3 text patching (see run-in-guest.sh, VM_QEMU_OPTS).
BISECT=()
[ "${FA_BISECT:-0}" = 1 ] && BISECT=(--append fastaudit.bisect=1)
QEMU_WRAP_LOG=$SVC/qemu-cmd-$KVER.txt \
	timeout -k 10 "$TIMEOUT" vng "${VERBOSE[@]}" -r "$KERNEL" \
	--qemu "$SVC/qemu-wrap.sh" --systemd \
	--disable-kvm --force-9p --memory 3G --cpus 2 --rwdir /tmp \
	--qemu-opts="-accel tcg,thread=single" \
	--append systemd.mask=postgresql.service \
	--append systemd.mask=postgresql@15-main.service \
	--append systemd.mask=systemd-tmpfiles-clean.timer "${BISECT[@]}" \
	--exec "$SVC/guest-service.sh" </dev/null >"$CONSOLE" 2>&1
RC=$?
END=$(date +%s)
# vng's exit status is 255 even on success here: without udev the guest has
# no /dev/virtio-ports/virtme.ret, so the script's status does not come back.
echo "$(date -u +%T) vng exit status $RC after $((END - START)) s"
[ "$RC" = 124 ] || [ "$RC" = 137 ] && echo "TIMEOUT after ${TIMEOUT}s" >&2

# Named by the guest's uname -r: the vmlinuz name for Debian's kernels.
RESULT=$SVC/result-$KVER.txt
[ -e "$RESULT" ] || RESULT=$(ls -t "$SVC"/result-*.txt 2>/dev/null | head -1)
if [ -n "$RESULT" ] && [ "$RESULT" -nt "$SVC/qemu-wrap.sh" ]; then
	echo "result: $RESULT"
	sed -n '/======== summary/,$p' "$RESULT"
	grep -q '^RESULT: PASS' "$RESULT"
	exit $?
fi
echo "no result file written; partial:" >&2
ls -t "$SVC"/result-*.partial 2>/dev/null | head -1 | xargs -r tail -30 >&2
tail -30 "$CONSOLE" >&2
exit 1
