#!/usr/bin/env bash
# Run fastaudit's checks on Debian's arm64 kernels, each in an emulated
# arm64 guest over a Debian arm64 root with auditd (scripts/arm64/), as
# scripts/kernel-matrix.sh does for amd64.
#
# Usage: scripts/arm64-matrix.sh [KERNEL...]
#   KERNEL: bookworm (6.1), trixie (6.12); default both
# Before: scripts/arm64/setup.sh (once), then the cross build:
#   . scripts/arm64/cross-env.sh
#   cargo build --release --locked --target aarch64-unknown-linux-gnu -p fastaudit
#   cargo test --no-run --locked --target aarch64-unknown-linux-gnu -p fastaudit --test integration
#   bash scripts/package.sh --arch arm64     # for the `deb` check
# Environment:
#   CHECKS      space-separated checks (default: explain, start on the
#               default, STIG and Neo23x0 rules, the rules listing against
#               the guest's auditctl on the whole corpus, the arm64 .deb,
#               then the differential tests; kinds in
#               scripts/vm/guest-checks.sh)
#   FASTAUDIT   the arm64 binary (default
#               target/aarch64-unknown-linux-gnu/release/fastaudit)
#   ARM64_TARGET_DIR  the cross build's target dir (default
#               target/aarch64-unknown-linux-gnu): test binaries from its
#               debug/deps
#   FASTAUDIT_DEB  the package for `deb` (default the newest
#               target/debian/fastaudit_*_arm64.deb)
#   FASTAUDIT_TEST_ARMHF_BUSYBOX  a static armhf busybox (Debian's
#               busybox-static, armhf; default $ARM64_DIR/busybox-armhf if
#               there) for the arm compat tests; without it they print
#               SKIPPED and pass
#   FASTAUDIT_TEST_READY_TIMEOUT  seconds a test's fastaudit run may take
#               to be ready (default here 300: BPF loads slowly emulated)
#   ARM64_DIR, VM_SHARE, VM_TIMEOUT, VM_APPEND: see scripts/arm64/run-in-guest.sh
# Each check prints CHECK<TAB>pass|fail|skip<TAB>reason; at the end a
# table kernel x check. A guest's output is kept under
# $VM_SHARE/arm64-matrix-DATE/RELEASE/ (checks/*.log, oracle/ with the
# kernel's verdicts and `auditctl -l` of each corpus file, guest.log,
# vng.log). Exit status: 0 when no check failed.
# Needs root; one guest at a time; nothing runs against the host's kernel.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" != 0 ]; then echo "arm64-matrix.sh: run as root" >&2; exit 2; fi
export ARM64_DIR=${ARM64_DIR:-/var/cache/fastaudit-arm64}
export VM_SHARE=${VM_SHARE:-/tmp/vm-matrix}
tdir=${ARM64_TARGET_DIR:-$root/target/aarch64-unknown-linux-gnu}
FASTAUDIT=${FASTAUDIT:-$tdir/release/fastaudit}
# The SYSCALL, PATH, CWD, EXECVE, SOCKADDR and record differentials of the
# amd64 matrix, less the ia32 ones (x86's compat ABI), with their arm
# compat counterparts.
DIFFERENTIAL="test:integration:differential::basic_success_and_failure test:integration:differential::file_and_directory_watches
 test:integration:differential_paths::attribute_changes_that_keep_the_attributes test:integration:differential_paths::creates_deletes_links_renames_and_symlinks
 test:integration:differential_paths::exec_of_binaries_and_a_script test:integration:differential_paths::failed_lookups_and_refused_objects
 test:integration:differential_paths::relative_paths_and_dirfd test:integration:differential_paths::watched_file_deleted_and_recreated
 test:integration:differential_paths::syscalls_on_a_file_descriptor_name_its_file
 test:integration:differential_paths::chdir_and_chroot_name_the_directory_they_reached test:integration:differential_paths::stats_by_descriptor
 test:integration:differential_paths::arm_compat_syscalls_name_their_paths
 test:integration:differential_paths::a_failed_arm_exec_after_an_exec_no_rule_judged
 test:integration:differential_records::socket_addresses_passed_and_returned
 test:integration:daemon::kernel_and_user_records_match_auditd_and_the_kernel_is_put_back
 test:integration:differential_records::posix_message_queues test:integration:differential_records::system_v_ipc_objects
 test:integration:differential_records::clock_adjustments test:integration:differential_records::module_loads_and_unloads"
CHECKS=$(echo ${CHECKS:-"explain start:default start:stig start:neo23x0 listing deb $DIFFERENTIAL"})
kernels=("$@"); [ ${#kernels[@]} -gt 0 ] || kernels=(bookworm trixie)

[ -x "$FASTAUDIT" ] || echo "arm64-matrix.sh: no $FASTAUDIT (cross build first): the fastaudit checks will fail, listing gives the kernel's side only" >&2
if [ -x "$FASTAUDIT" ] && ! readelf -h "$FASTAUDIT" 2>/dev/null | grep -q 'Machine:.*AArch64'; then
  echo "arm64-matrix.sh: $FASTAUDIT is not an aarch64 binary" >&2; exit 2
fi
case " $CHECKS" in *" test:"*)
  ls "$tdir"/debug/deps/integration-* >/dev/null 2>&1 ||
    echo "arm64-matrix.sh: no test binaries under $tdir/debug/deps (cargo test --no-run --target aarch64-unknown-linux-gnu first): test checks will skip" >&2 ;;
esac
if [ -z "${FASTAUDIT_DEB:-}" ]; then
  FASTAUDIT_DEB=$(ls -t "$root"/target/debian/fastaudit_*_arm64.deb 2>/dev/null | head -n1 || true)
fi
export FASTAUDIT_DEB
mkdir -p "$VM_SHARE"
run=$VM_SHARE/arm64-matrix-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"
# The package goes through the share: the guest sees VM_SHARE whatever
# the checkout's place.
if [ -f "$FASTAUDIT_DEB" ]; then cp -f "$FASTAUDIT_DEB" "$run/"; FASTAUDIT_DEB=$run/$(basename "$FASTAUDIT_DEB"); fi

# The armhf busybox goes through the share too.
FASTAUDIT_TEST_ARMHF_BUSYBOX=${FASTAUDIT_TEST_ARMHF_BUSYBOX:-$ARM64_DIR/busybox-armhf}
if [ -f "$FASTAUDIT_TEST_ARMHF_BUSYBOX" ]; then
  install -m 0755 "$FASTAUDIT_TEST_ARMHF_BUSYBOX" "$run/busybox-armhf"
  export FASTAUDIT_TEST_ARMHF_BUSYBOX=$run/busybox-armhf
else
  echo "arm64-matrix.sh: no armhf busybox ($FASTAUDIT_TEST_ARMHF_BUSYBOX): the arm compat tests will skip" >&2
  unset FASTAUDIT_TEST_ARMHF_BUSYBOX
fi

# shellcheck source=scripts/vm/matrix-table.sh
. "$(dirname "$0")/vm/matrix-table.sh"
declare -A res times
names=()
status=0
for k in "${kernels[@]}"; do
  case $k in
    bookworm|12|6.1) rel=bookworm ;;
    trixie|13|6.12) rel=trixie ;;
    *) echo "arm64-matrix.sh: unknown kernel $k (bookworm, trixie, 6.1, 6.12)" >&2; exit 2 ;;
  esac
  [ -f "$ARM64_DIR/kernels/$rel/VERSION" ] || { echo "arm64-matrix.sh: no kernel $rel in $ARM64_DIR (scripts/arm64/setup.sh)" >&2; exit 2; }
  ver=$(cut -f1 "$ARM64_DIR/kernels/$rel/VERSION"); debver=$(cut -f2 "$ARM64_DIR/kernels/$rel/VERSION")
  name="$rel ${debver%%-*}"; names+=("$name")
  out=$run/$rel; mkdir -p "$out"
  echo "=== arm64 $name ($ver)"
  t0=$(date +%s)
  set +e
  OUT=$out ROOT=$root FASTAUDIT=$FASTAUDIT CHECK_PLAIN_TMP=1 \
    FASTAUDIT_TEST_READY_TIMEOUT=${FASTAUDIT_TEST_READY_TIMEOUT:-300} \
    FASTAUDIT_DEB=$FASTAUDIT_DEB TEST_DEPS=$tdir/debug/deps \
    VM_PASS_ENV='^(CHECK_|FASTAUDIT|LIBBPF_|RUST_|ROOT$|CORPUS$|READY_TIMEOUT$|TEST_TIMEOUT$|VM_SHARE$|TEST_DEPS$)' \
    "$root/scripts/arm64/run-in-guest.sh" "$rel" "$root/scripts/vm/guest-checks.sh" $CHECKS </dev/null
  rc=$?
  set -e
  times[$name]=$(( $(date +%s) - t0 ))
  [ $rc = 0 ] || status=1
  matrix_collect "$name" "$out" "$rc"
  [ -f "$out/checks/results.tsv" ] && cat "$out/checks/results.tsv"
done

matrix_table "$run" "arm64 kernel x check"
exit $status
