#!/usr/bin/env bash
# The cost of `build --generations` against a plain build, on one site, in runs that
# alternate between the two so that the machine's drift affects both alike.
#
#   bash examples/generations_bench.sh [PAIRS] [SITE] [OUT_DIR]
#
# PAIRS defaults to 5, SITE to target/bench (made by examples/bench.sh), OUT_DIR to
# /dev/shm/profilegen-generations (the outputs are built there, on tmpfs). For each
# mode, each pair times a fresh build (into an empty folder, or the first generation),
# a rebuild after one new record file, and one after that file is removed again (in
# generations, that build also removes the first generation: the steady state).
# Prints the mean wall, user and system time and the largest peak memory of each. Needs
# GNU time (/usr/bin/time).
set -euo pipefail
pairs=${1:-5}
site=$(realpath "${2:-target/bench}")
out=${3:-/dev/shm/profilegen-generations}
cd "$(dirname "$0")/.."
bin=$(realpath "${CARGO_TARGET_DIR:-target}/release/profilegen")
new=$site/content/records/zz_generations_bench.txt
trap 'rm -f "$new"; rm -rf "$out"' EXIT
printf 'arXiv subjects\n\nBench Q. Newcomer\n\nPublications and source records attributed to Bench Q. Newcomer.\n\n1 recordLinked to original sources\n\narXiv2026\n\nA paper of the one new record file\n\nIts abstract.\n\ncs.DC\xe2\x86\x97' >"$new.in"

run() { # label args...
  local label=$1
  shift
  /usr/bin/time -f "$label %e %U %S %M" "$bin" build --quiet --root "$site" "$@" 2>&1 | tail -n 1
}
for _ in $(seq "$pairs"); do
  for mode in plain generations; do
    flag=()
    [ "$mode" = generations ] && flag=(--generations)
    rm -rf "$out" "$site/.profilegen"
    mkdir -p "$out"
    rm -f "$new"
    run "$mode-fresh" --output "$out/site" "${flag[@]}"
    cp "$new.in" "$new"
    run "$mode-one-new-file" --output "$out/site"
    rm -f "$new"
    run "$mode-one-file-removed" --output "$out/site"
  done
done | awk '{ wall[$1] += $2; user[$1] += $3; sys[$1] += $4; n[$1]++; if ($5 > mem[$1]) mem[$1] = $5 }
  END { for (b in wall) printf "%-26s wall %7.3f s, user %7.3f s, system %6.3f s, peak %5.0f MB (%d runs)\n",
        b ":", wall[b] / n[b], user[b] / n[b], sys[b] / n[b], mem[b] / 1024, n[b] }' | sort
rm -f "$new.in"
