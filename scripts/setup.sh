#!/usr/bin/env bash
# Set up a Debian machine for fastaudit (as root): what building and running
# it need, then build it (target/release). With --tests, also what the test
# suite needs (.ci/run uses it). Before it stops a running auditd or changes
# the kernel audit's state, it says so.
#
#   bash scripts/setup.sh [--tests]
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bash scripts/setup.sh [--tests]"
tests=no
case "${1:-}" in
  '') ;;
  --tests) tests=yes ;;
  -h|--help) echo "$usage"; exit 0 ;;
  *) echo "setup.sh: unknown argument $1 ($usage)" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ]; then echo "setup.sh: run as root (it installs packages)" >&2; exit 1; fi
say() { echo "setup.sh: $*"; }
export DEBIAN_FRONTEND=noninteractive

# Building: the Rust and C toolchains, clang/LLVM for the BPF object, the
# headers libbpf is built with, strip (scripts/package.sh).
build=(build-essential pkg-config clang llvm libbpf-dev libelf-dev zlib1g-dev binutils)
# Running: auditd's configuration, which fastaudit reads (auditd.conf,
# rules.d, plugins.d), and the tools that read its logs (ausearch, aureport).
run=(auditd)
# Testing: the kernel audit with auditd is the oracle (above); bpftool (BPF
# links and programs left behind), python3 (workloads), audispd-plugins,
# rsyslog and libacl1-dev (to build Laurel) for the plugin tests, systemd
# (systemd-analyze checks dist/fastaudit.service), groff-base and man-db
# (the man pages render; verify looks up the unit's Documentation=man:),
# jq (a consumer of the JSON log), redis-server and redis-tools (the bench's
# redis scenario starts a private server on a loopback port of its own).
test_only=(bpftool python3 audispd-plugins rsyslog libacl1-dev systemd groff-base man-db jq redis-server redis-tools)

pkgs=("${build[@]}" "${run[@]}")
[ "$tests" = yes ] && pkgs+=("${test_only[@]}")
missing=()
for p in "${pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Rust: the workspace's rust-version (Cargo.toml) or newer. Debian 12's own
# rustc is 1.63; its cargo-web/rustc-web packages (security updates, for the
# browsers) are current, else rustup.
rust_min=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
rust_ok() {
  command -v cargo >/dev/null 2>&1 || return 1
  local v; v=$(rustc --version | awk '{print $2}')
  [ "$(printf '%s\n%s\n' "$rust_min" "$v" | sort -V | head -n 1)" = "$rust_min" ]
}
if ! rust_ok; then
  if apt-cache show cargo-web >/dev/null 2>&1; then
    say "installing cargo-web and rustc-web (Rust $rust_min or newer)"
    apt-get install -y -qq cargo-web >/dev/null
  else
    say "installing Rust with rustup (Rust $rust_min or newer)"
    curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >/dev/null
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
  rust_ok || { echo "setup.sh: no Rust $rust_min or newer" >&2; exit 1; }
fi
# Laurel (an auditd plugin writing JSON), as its users install it: the
# plugin tests run it under fastaudit. About 2.5 minutes on one CPU.
if [ "$tests" = yes ] && [ ! -x /usr/local/bin/laurel ]; then
  say "installing Laurel 0.8.2 into /usr/local (cargo install)"
  cargo install laurel --version 0.8.2 --locked --root /usr/local 2>&1 | tail -n 1
fi

# The auditd package starts auditd where an init system runs, and auditd
# loads its rules into the kernel. fastaudit takes auditd's place as the
# audit daemon, and the tests own the kernel audit's state: auditd is
# stopped (not disabled: it starts again at boot) and the kernel audit left
# clean. Say what is done before doing it.
if pids=$(pgrep -x auditd); then
  say "auditd is running (pid ${pids//$'\n'/ }): stopping it, so that fastaudit can be the audit daemon"
  say "  (to have it back: systemctl start auditd, or auditd; its rules are loaded again by augenrules --load)"
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active -q auditd 2>/dev/null; then
    systemctl stop auditd || true
  fi
  pkill -x auditd 2>/dev/null || true
fi
if command -v auditctl >/dev/null 2>&1; then
  status=$(auditctl -s 2>/dev/null || true)
  rules=$(auditctl -l 2>/dev/null | grep -vx -e 'No rules' -e '-a never,task' || true)
  if grep -qx 'enabled 2' <<<"$status"; then
    say "the kernel audit is locked (enabled 2) until reboot: its rules and state cannot be changed; left as they are"
  else
    if [ -n "$rules" ]; then
      say "deleting the kernel's $(wc -l <<<"$rules") audit rules (auditctl -D; auditctl -l listed them)"
      auditctl -D >/dev/null 2>&1 || true
    fi
    if ! grep -qx 'enabled 0' <<<"$status"; then
      say "turning the kernel audit off (auditctl -e 0); fastaudit run turns it on while it runs"
      auditctl -e 0 >/dev/null 2>&1 || true
    fi
    if ! auditctl -l 2>/dev/null | grep -qx -e '-a never,task'; then
      say "adding -a never,task (the kernel builds no audit context for new tasks: the clean state the tests expect)"
      auditctl -a never,task >/dev/null 2>&1 || true
    fi
  fi
fi
cargo build --release --locked 2>&1 | tail -n 3
