#!/usr/bin/env bash
# Run fastaudit's kernel checks on Debian's stock kernels, each in a VM
# guest (virtme-ng over this machine's root file system; see scripts/vm/).
#
# Usage: scripts/kernel-matrix.sh [KERNEL...]
#   KERNEL: a Debian release (bullseye, bookworm, bookworm-backports,
#   trixie, trixie-backports, sid), a kernel series (5.10, 6.1, 6.12, 7.3,
#   ...), `newest`, or `all` (the default: every release); see
#   scripts/vm/fetch-kernels.sh
# Environment:
#   CHECKS      space-separated checks (default below: start-up on every
#               rule set, then the differential tests against the kernel's
#               own audit, whose binaries `cargo test --no-run` must have
#               built in this checkout; see
#               scripts/vm/guest-checks.sh for the kinds: start:SET, explain,
#               progs, test:BIN:NAME, cmd:NAME)
#   FASTAUDIT   the binary (default target/release/fastaudit)
#   FASTAUDIT_HOOK_KINDS, FASTAUDIT_SYSCALL_FUNCTION_HOOKS  passed to the
#               guests: every fastaudit run there (the checks' and the
#               tests') takes them; FASTAUDIT_SYSCALL_FUNCTION_HOOKS=yes
#               tests the hooks on the syscalls' own functions,
#               FASTAUDIT_HOOK_KINDS=tracepoint,tp_btf,raw_tp the paths
#               without fexit
#   VM_SHARE    results root, shared with the guests (default /tmp/vm-matrix)
#   VM_TIMEOUT  per-guest timeout in seconds (default 900)
#   VM_APPEND   extra guest kernel command line (default none: the LSMs
#               Debian's kernels start, AppArmor and TOMOYO among them,
#               whose labels and lookups show in the kernel's records;
#               e.g. lsm=lockdown,capability,landlock,yama,bpf to leave
#               them out)
# Each check prints CHECK<TAB>pass|fail|skip<TAB>reason; at the end, a table
# kernel x check. Everything a guest wrote is kept under
# $VM_SHARE/matrix-DATE/RELEASE/ (checks/*.log, guest.log, vng.log), with
# the BPF object and progprobe the `progs` check loads.
# Exit status: 0 when no check failed.
# Needs root. Runs one guest at a time. Changes nothing on the host's
# kernel: fastaudit and auditctl run only inside the guests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# A guest once left the host's /dev/null a regular file (holding a guest's
# output; cause not found): every later build then failed in rustc's
# probe. Put it back after each run, and say so.
dev_null_check() {
  if [ ! -c /dev/null ]; then
    echo "kernel-matrix.sh: /dev/null was not a character device after the guests: recreated" >&2
    rm -f /dev/null && mknod -m 666 /dev/null c 1 3
  fi
}
trap dev_null_check EXIT
vm=$root/scripts/vm
if [ "$(id -u)" != 0 ]; then echo "kernel-matrix.sh: run as root" >&2; exit 2; fi
export VM_SHARE=${VM_SHARE:-/tmp/vm-matrix}
export VM_APPEND=${VM_APPEND-}
FASTAUDIT=${FASTAUDIT:-$root/target/release/fastaudit}
DIFFERENTIAL="test:integration:differential::basic_success_and_failure test:integration:differential::file_and_directory_watches
 test:integration:differential_paths::attribute_changes_that_keep_the_attributes test:integration:differential_paths::creates_deletes_links_renames_and_symlinks
 test:integration:differential_paths::exec_of_binaries_and_a_script test:integration:differential_paths::failed_lookups_and_refused_objects
 test:integration:differential_paths::relative_paths_and_dirfd test:integration:differential_paths::watched_file_deleted_and_recreated
 test:integration:differential_paths::syscalls_on_a_file_descriptor_name_its_file test:integration:differential_paths::ia32_syscalls_name_their_paths
 test:integration:differential_paths::chdir_and_chroot_name_the_directory_they_reached test:integration:differential_paths::stats_by_descriptor
 test:integration:differential_paths::a_failed_exec_after_an_exec_no_rule_judged
 test:integration:uring_differential::inline_ops_and_their_io_uring_enter test:integration:uring_differential::forced_async_ops_run_by_io_wq
 test:integration:uring_differential::sqpoll_ops test:integration:uring_differential::sqpoll_names_across_directories_existing_files_and_io_wq
 test:integration:uring_differential::first_match_never_rules_fields_and_skipped_ops
 test:integration:uring_differential::credentials_of_an_unprivileged_submitter test:integration:uring_differential::linked_requests
 test:integration:uring_differential::skipped_ops_are_audited_only_when_asked_and_ausearch_reads_them
 test:integration:uring_differential::ops_whose_success_posts_no_completion test:integration:uring_differential::ops_retried_after_a_poll
 test:integration:daemon::kernel_and_user_records_match_auditd_and_the_kernel_is_put_back
 test:integration:differential_records::posix_message_queues test:integration:differential_records::system_v_ipc_objects
 test:integration:differential_records::clock_adjustments test:integration:differential_records::ia32_socketcall
 test:integration:differential_records::module_loads_and_unloads"
CHECKS=$(echo ${CHECKS:-"explain progs start:default start:stig start:ospp start:pci start:cis start:neo23x0 $DIFFERENTIAL"})
kernels=("$@"); [ ${#kernels[@]} -gt 0 ] || kernels=(all)

[ -x "$FASTAUDIT" ] || { echo "kernel-matrix.sh: no $FASTAUDIT (cargo build --release first)" >&2; exit 2; }
case " $CHECKS" in *" test:"*)
  ls "$root"/target/debug/deps/integration-* >/dev/null 2>&1 ||
    echo "kernel-matrix.sh: no test binaries under $root/target/debug/deps (cargo test --no-run first): test checks will skip" >&2
  case " $CHECKS" in *" test:integration:uring_differential::"*)
    # The io_uring tests run fastaudit-bench, which the guests cannot build.
    (cd "$root" && cargo build --locked -q -p fastaudit-bench --bin fastaudit-bench) ||
      echo "kernel-matrix.sh: fastaudit-bench not built: the io_uring tests will fail" >&2 ;;
  esac ;;
esac
mkdir -p "$VM_SHARE"
run=$VM_SHARE/matrix-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"
# The BPF object and progprobe, for the `progs` check (best effort); in
# this run's dir, so that runs side by side do not swap them.
export BPF_OBJ=$run/fastaudit.bpf.o PROGPROBE=$run/progprobe
case " $CHECKS " in *" progs "*)
  python3 "$vm/extract-bpf-object.py" "$BPF_OBJ" >/dev/null 2>&1 || echo "kernel-matrix.sh: no BPF object extracted (progs check will skip)" >&2
  "$vm/build-progprobe.sh" "$PROGPROBE" >/dev/null 2>&1 || echo "kernel-matrix.sh: progprobe not built (progs check will skip)" >&2 ;;
esac
# Every kernel fetched first (one line each: release, version, vmlinuz,
# Debian version); `all` and `newest` resolved to releases here.
"$vm/fetch-kernels.sh" "${kernels[@]}" > "$run/kernels.tsv"
cp -f "$run/kernels.tsv" "$VM_SHARE/kernels.tsv"

# shellcheck source=scripts/vm/matrix-table.sh
. "$(dirname "$0")/vm/matrix-table.sh"
declare -A res times
names=()
status=0
while IFS=$'\t' read -r rel ver _ debver; do
  # A kernel fetched by an older fetch-kernels.sh has no Debian version
  # in its line: the cached package has it.
  [ -n "$debver" ] || debver=$(dpkg-deb -f "$(ls ${FASTAUDIT_KERNEL_CACHE:-/var/cache/fastaudit-kernels}/debs/linux-image-"$ver"_*.deb 2>/dev/null | sort -V | tail -n1)" Version 2>/dev/null || true)
  upstream=${debver%%-*}; name="$rel ${upstream:-${ver%%-*}}"; names+=("$name")
  out=$run/$rel; mkdir -p "$out"
  # virtme-ng hides /lib/modules in the guests (a tmpfs of its own): the
  # module the KERN_MODULE test loads is handed over in the share.
  mkdir -p "$VM_SHARE/modules/$ver"
  cp -f /lib/modules/"$ver"/kernel/drivers/net/dummy.ko* "$VM_SHARE/modules/$ver/" 2>/dev/null || true
  echo "=== $name ($ver)"
  t0=$(date +%s)
  set +e
  OUT=$out ROOT=$root FASTAUDIT=$FASTAUDIT FASTAUDIT_TEST_MODULES=$VM_SHARE/modules \
    "$vm/run-in-guest.sh" "$rel" "$vm/guest-checks.sh" $CHECKS </dev/null
  rc=$?
  set -e
  times[$name]=$(( $(date +%s) - t0 ))
  [ $rc = 0 ] || status=1
  matrix_collect "$name" "$out" "$rc"
  # The guest's own lines were printed to guest.log; show them here.
  [ -f "$out/checks/results.tsv" ] && cat "$out/checks/results.tsv"
done < "$run/kernels.tsv"

matrix_table "$run" "kernel x check"
exit $status
