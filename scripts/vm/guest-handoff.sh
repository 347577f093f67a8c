# shellcheck shell=bash
# Sourced by scripts/vm/run-in-guest.sh and scripts/arm64/run-in-guest.sh:
# what a guest is handed to run, in files under the shared OUT (the
# kernel command line mangles arguments).
#
# guest_handoff OUT PASS SCRIPT [ARG...]: OUT/.cmd is SCRIPT with its
# arguments, quoted (run by bash unless executable); OUT/.env exports the
# environment variables whose names match the extended regex VM_PASS_ENV,
# else PASS.
guest_handoff() {
  local out=$1 pass=${VM_PASS_ENV:-$2} script=$3 name
  shift 3
  local runner=()
  [ -x "$script" ] || runner=(bash)
  printf '%q ' "${runner[@]}" "$script" "$@" > "$out/.cmd"
  : > "$out/.env"
  while IFS= read -r name; do
    if [[ $name =~ $pass ]]; then printf 'export %s=%q\n' "$name" "${!name}" >> "$out/.env"; fi
  done < <(compgen -e)
}
