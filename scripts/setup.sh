#!/usr/bin/env bash
# Set up a Debian machine for fastaudit: build tools, BPF toolchain, the
# kernel audit userspace (the test oracle), then build fastaudit.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then echo "setup.sh: run as root (it installs packages)" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
# audispd-plugins (audisp-remote), rsyslog and libacl1-dev (to build Laurel)
# are for the plugin tests: fastaudit runs auditd's plugins unchanged.
# systemd: systemd-analyze checks dist/fastaudit.service (tests/service.rs).
pkgs=(build-essential pkg-config clang llvm libbpf-dev libelf-dev zlib1g-dev bpftool auditd binutils python3 audispd-plugins rsyslog libacl1-dev systemd jq)
missing=()
for p in "${pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  apt-get install -y -qq cargo >/dev/null
fi
# Laurel (an auditd plugin writing JSON), as its users install it: the
# plugin tests run it under fastaudit. About 2.5 minutes on one CPU.
if [ ! -x /usr/local/bin/laurel ]; then
  cargo install laurel --version 0.8.2 --locked --root /usr/local 2>&1 | tail -n 1
fi
# The package may start auditd (and load its rules) where an init system runs;
# fastaudit's tests own the kernel audit state, so leave it clean.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active -q auditd 2>/dev/null; then
  systemctl stop auditd || true
fi
pkill -x auditd 2>/dev/null || true
auditctl -D >/dev/null 2>&1 || true
auditctl -e 0 >/dev/null 2>&1 || true
auditctl -a never,task >/dev/null 2>&1 || true
cargo build --release --locked 2>&1 | tail -n 3
