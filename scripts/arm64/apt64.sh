#!/bin/sh
# apt-get for arm64 packages with private state under $ARM64_DIR/apt
# (sources.list, lists, cache, an empty dpkg status): the host's apt
# configuration, lists and architectures are not touched.
# Usage: ARM64_DIR=... scripts/arm64/apt64.sh update | download PKG[/SUITE]...
set -eu
D=${ARM64_DIR:-/var/cache/fastaudit-arm64}/apt
exec apt-get -o APT::Architecture=arm64 -o APT::Architectures::=arm64 \
  -o Dir::Etc::sourcelist="$D/etc/sources.list" -o Dir::Etc::sourceparts=- \
  -o Dir::Etc::preferencesparts="$D/etc/preferences.d" -o Dir::Etc::parts="$D/etc/apt.conf.d" \
  -o Dir::State::Lists="$D/lists" -o Dir::Cache="$D/cache" -o Dir::State::status="$D/status" \
  -o Debug::NoLocking=1 -o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root "$@"
