# shellcheck shell=bash
# Sourced by scripts/kernel-matrix.sh and scripts/arm64-matrix.sh: each
# guest's results gathered, and the table kernel x check they end with,
# with why each check that did not pass did not, written to
# RUN/table.txt too.
#
# matrix_collect NAME OUT RC: after a guest (NAME "RELEASE VERSION", its
# results dir OUT, the guest's exit status RC), sets the caller's
# res[NAME/CHECK] for each of its CHECKS from OUT/checks/results.tsv; a
# check the guest gave no result for fails, with why, printed and kept in
# OUT/checks/missing.tsv.
matrix_collect() {
  local name=$1 out=$2 rc=$3 c r
  for c in $CHECKS; do
    # (no results.tsv at all when the guest died early: not an error here)
    r=$({ awk -F'\t' -v c="$c" '$1==c{print $2"\t"$3}' "$out/checks/results.tsv" 2>/dev/null || true; } | tail -n1)
    if [ -z "$r" ]; then
      case $rc in 124) r="fail	guest timed out" ;; *) r="fail	no result (guest exit $rc; see $out/vng.log)" ;; esac
      printf '%s\t%s\n' "$c" "$r"
      mkdir -p "$out/checks"
      printf '%s\t%s\n' "$c" "$r" >> "$out/checks/missing.tsv"
    fi
    res[$name/$c]=${r%%	*}
  done
}

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
