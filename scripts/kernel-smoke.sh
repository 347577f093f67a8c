#!/usr/bin/env bash
# A short smoke of the kernel matrix (scripts/kernel-matrix.sh), for CI: on
# the oldest Debian kernel fastaudit supports (bookworm, 6.1) and on the
# newest amd64 kernel Debian ships (trixie-backports or sid, whichever has
# the higher version), each booted in an emulated VM guest:
#   start:default  fastaudit starts on rules/default.rules and stops cleanly
#   start:stig     ... on auditd's 30-stig.rules example
#   one SYSCALL comparison and one PATH comparison with that kernel's own
#   audit (the differential tests below), run inside the guest
# so that a change that breaks a kernel does not land.
#
# Usage: scripts/kernel-smoke.sh [KERNEL...]   (default: bookworm newest)
# Needs root, network access to the Debian mirror (the first time: about
# 300 MB of kernel packages, cached in /var/cache/fastaudit-kernels), and
# what scripts/setup.sh --tests installs (auditd's tools, bpftool). It
# installs the VM tools itself (scripts/vm/fetch-kernels.sh: qemu,
# virtme-ng) and builds what the guests run (they cannot build): the
# release binary and the two test binaries (`cargo test --no-run`); both
# are no-ops after scripts/test.sh.
# Environment: SMOKE_CHECKS replaces the checks; VM_TIMEOUT (default 900 s
# a guest) and the rest as kernel-matrix.sh reads them.
# Exit status: 0 when every check passed, 1 when one failed, 2 when the
# smoke could not run (no build, no kernel).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" != 0 ]; then echo "kernel-smoke.sh: run as root" >&2; exit 2; fi
t0=$(date +%s)
CHECKS=${SMOKE_CHECKS:-"start:default start:stig
 test:integration:differential::basic_success_and_failure
 test:integration:differential_paths::creates_deletes_links_renames_and_symlinks"}
kernels=("$@"); [ ${#kernels[@]} -gt 0 ] || kernels=(bookworm newest)

cd "$root"
cargo build --release --locked -q --bin fastaudit || { echo "kernel-smoke.sh: the release build failed" >&2; exit 2; }
cargo test --locked -q -p fastaudit --test integration --no-run ||
  { echo "kernel-smoke.sh: the test binaries did not build" >&2; exit 2; }
# The kernels first: a download error is "could not run", not a failed check.
"$root/scripts/vm/fetch-kernels.sh" "${kernels[@]}" >/dev/null ||
  { echo "kernel-smoke.sh: fetching the kernels failed" >&2; exit 2; }

set +e
CHECKS=$(echo $CHECKS) "$root/scripts/kernel-matrix.sh" "${kernels[@]}"
rc=$?
set -e
echo "kernel-smoke.sh: $(( $(date +%s) - t0 )) s in all; $([ $rc = 0 ] && echo PASS || echo "FAIL (exit $rc)")"
case $rc in 0) ;; 2) exit 2 ;; *) exit 1 ;; esac
