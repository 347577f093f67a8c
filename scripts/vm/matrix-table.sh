# shellcheck shell=bash
# Sourced by scripts/kernel-matrix.sh and scripts/arm64-matrix.sh: the
# table kernel x check they end with, and why each check that did not pass
# did not, written to RUN/table.txt too.
#
# matrix_table RUN TITLE: reads the caller's CHECKS, names (one per
# kernel, "RELEASE VERSION"), res[NAME/CHECK] (pass|fail|skip) and
# times[NAME] (seconds), and each kernel's RUN/RELEASE/checks/results.tsv
# and missing.tsv (checks the guest gave no result for).
matrix_table() {
  local run=$1 title=$2 n c rel
  echo
  echo "=== $title ($run)"
  {
    printf 'check'; for n in "${names[@]}"; do printf '\t%s' "$n"; done; echo
    for c in $CHECKS; do
      printf '%s' "$c"; for n in "${names[@]}"; do printf '\t%s' "${res[$n/$c]:-?}"; done; echo
    done
    printf 'boot+checks (s)'; for n in "${names[@]}"; do printf '\t%s' "${times[$n]}"; done; echo
  } | column -t -s $'\t' | tee "$run/table.txt"
  {
    echo
    echo "=== reasons (fail/skip)"
    for n in "${names[@]}"; do
      rel=${n%% *}
      # (missing.tsv is there only when a guest gave no result: no error)
      { cat "$run/$rel/checks/results.tsv" "$run/$rel/checks/missing.tsv" 2>/dev/null || true; } |
        awk -F'\t' -v k="$n" '$2!="pass"{printf "%s\t%s\t%s\t%s\n", k, $1, $2, $3}'
    done
  } | tee -a "$run/table.txt"
}
