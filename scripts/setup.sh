#!/usr/bin/env bash
# Set up a Debian machine for fastaudit (as root): what building and running
# it need, then build it (target/release). With --tests, also what the test
# suite needs (scripts/test.sh runs it so, with --no-build). Idempotent: it
# installs only what is missing and names it. Before it stops a running
# auditd or changes the kernel audit's state, it says so.
#
#   bash scripts/setup.sh [--tests] [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bash scripts/setup.sh [--tests] [--no-build]"
tests=no
build_it=yes
for arg in "$@"; do
  case "$arg" in
    --tests) tests=yes ;;
    --no-build) build_it=no ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "setup.sh: unknown argument $arg ($usage)" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" != 0 ]; then echo "setup.sh: run as root (it installs packages)" >&2; exit 1; fi
say() { echo "setup.sh: $*"; }
export DEBIAN_FRONTEND=noninteractive
# apt-get install, after one apt-get update per run (a fresh machine's
# package lists may be missing or stale).
updated=no
apt_install() {
  if [ "$updated" = no ]; then apt-get update -qq; updated=yes; fi
  apt-get install -y -qq "$@" >/dev/null
}

# Building: the Rust and C toolchains, clang/LLVM for the BPF object, the
# headers libbpf is built with, strip (scripts/package.sh).
build=(build-essential pkg-config clang llvm libbpf-dev libelf-dev zlib1g-dev binutils)
# Running: auditd's configuration, which fastaudit reads (auditd.conf,
# rules.d, plugins.d), and the tools that read its logs (ausearch, aureport);
# procps for pgrep/pkill (below: a running auditd is found and stopped),
# which a minimal Debian (debian:12's image, a minbase root) lacks.
run=(auditd procps)
# Testing: the kernel audit with auditd is the oracle (above); bpftool (BPF
# links and programs left behind), python3 (workloads), audispd-plugins,
# rsyslog and libacl1-dev (to build Laurel) for the plugin tests, systemd
# (systemd-analyze checks dist/fastaudit.service), groff-base and man-db
# (the man pages render; verify looks up the unit's Documentation=man:),
# jq (a consumer of the JSON log), redis-server and redis-tools (the bench's
# redis scenario starts a private server on a loopback port of its own),
# podman, runc, docker.io, containerd and busybox-static (the container
# identity tests run containers of an image they import from a static
# busybox, nothing pulled; they start dockerd and containerd themselves).
test_only=(bpftool python3 audispd-plugins rsyslog libacl1-dev systemd groff-base man-db jq redis-server redis-tools podman runc docker.io containerd busybox-static)

pkgs=("${build[@]}" "${run[@]}")
[ "$tests" = yes ] && pkgs+=("${test_only[@]}")
missing=()
for p in "${pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  apt_install "${missing[@]}"
fi
# Rust: the workspace's rust-version (Cargo.toml) or newer. Debian 12's own
# rustc is 1.63; its cargo-web/rustc-web packages (security updates, for the
# browsers) are current, else rustup. The tests also lint and check the
# formatting, and cargo-web comes without clippy: for --tests, a toolchain
# without clippy and rustfmt gets them (rustup component add), or rustup's.
rust_min=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
# rustup's toolchain, where a non-login shell has not put it on PATH.
if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
rust_ok() {
  command -v cargo >/dev/null 2>&1 && command -v rustc >/dev/null 2>&1 || return 1
  local v; v=$(rustc --version | awk '{print $2}')
  [ "$(printf '%s\n%s\n' "$rust_min" "$v" | sort -V | head -n 1)" = "$rust_min" ]
}
lints_ok() { cargo clippy --version >/dev/null 2>&1 && cargo fmt --version >/dev/null 2>&1; }
install_rustup() {
  if ! command -v curl >/dev/null 2>&1; then
    say "installing curl and ca-certificates (to fetch rustup)"
    apt_install curl ca-certificates
  fi
  # rustup-init itself, from where sh.rustup.rs's script fetches it (one
  # host fewer to reach), over HTTPS only.
  # It must be named rustup-init: rustup acts on the name it is run by.
  local dir; dir=$(mktemp -d)
  curl --proto '=https' --tlsv1.2 -sSf -o "$dir/rustup-init" \
    "https://static.rust-lang.org/rustup/dist/$(uname -m)-unknown-linux-gnu/rustup-init"
  chmod 0755 "$dir/rustup-init"
  # (beside a Debian Rust it warns and asks; the PATH above puts it first)
  RUSTUP_INIT_SKIP_PATH_CHECK=yes "$dir/rustup-init" -y -q --profile minimal -c clippy -c rustfmt >/dev/null
  rm -rf "$dir"
  export PATH="$HOME/.cargo/bin:$PATH"
}
if ! rust_ok; then
  if [ "$tests" = no ] && apt-cache show cargo-web >/dev/null 2>&1; then
    say "installing cargo-web and rustc-web (Rust $rust_min or newer)"
    apt_install cargo-web
  else
    say "installing Rust with rustup (Rust $rust_min or newer, with clippy and rustfmt)"
    install_rustup
  fi
  rust_ok || { echo "setup.sh: no Rust $rust_min or newer" >&2; exit 1; }
fi
if [ "$tests" = yes ] && ! lints_ok; then
  if command -v rustup >/dev/null 2>&1; then
    say "adding clippy and rustfmt to the Rust toolchain (rustup component add; the tests run them)"
    rustup component add clippy rustfmt >/dev/null
  else
    say "$(command -v cargo) has no clippy or rustfmt, which the tests run: installing Rust with rustup beside it (~/.cargo/bin, first on PATH for scripts/test.sh)"
    install_rustup
  fi
  lints_ok || { echo "setup.sh: cargo clippy and cargo fmt are still missing" >&2; exit 1; }
fi
# Laurel (an auditd plugin writing JSON), as its users install it: the
# plugin tests run it under fastaudit. About 2.5 minutes on one CPU.
if [ "$tests" = yes ] && [ ! -x /usr/local/bin/laurel ]; then
  say "installing Laurel 0.8.2 into /usr/local (cargo install, about 2.5 minutes)"
  # --quiet: cargo's progress lines go, its errors and warnings stay whole.
  cargo install --quiet laurel --version 0.8.2 --locked --root /usr/local
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
if [ "$build_it" = yes ]; then
  say "building fastaudit (cargo build --release; a few minutes the first time)"
  # --quiet: no progress lines, but a failed build's errors in full.
  cargo build --release --locked --quiet
  say "built $(pwd)/target/release/fastaudit"
fi
