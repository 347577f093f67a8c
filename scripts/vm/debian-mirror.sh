# shellcheck shell=bash
# Sourced by the scripts that fetch Debian packages of their own
# (scripts/vm/fetch-kernels.sh, scripts/arm64/setup.sh): debian_mirror
# prints the first URI of a Debian main archive (not -security) in the
# host's apt sources, deb822 or one-line style, so their downloads come
# from the mirror apt already uses; it returns 1 when there is none.
debian_mirror() {
  local f u
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    u=$(awk 'BEGIN{IGNORECASE=1} /^URIs:/{for(i=2;i<=NF;i++) print $i}' "$f" | grep -v -- '-security' | grep -E '/debian/?$' | head -n1 || true)
    [ -n "$u" ] && { echo "${u%/}"; return; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    u=$(awk '$1=="deb"{for(i=2;i<=NF;i++) if($i ~ /^[a-z]+:\/\//){print $i; break}}' "$f" | grep -v -- '-security' | grep -E '/debian/?$' | head -n1 || true)
    [ -n "$u" ] && { echo "${u%/}"; return; }
  done
  return 1
}
