#!/usr/bin/env bash
# Compare the fresh-build time of two profilegen binaries on the benchmark corpus,
# running them alternately so that the machine's drift affects both alike.
#
#   bash examples/ab_bench.sh OLD_BINARY NEW_BINARY [PAIRS] [SITE]
#
# PAIRS defaults to 10, SITE to target/bench (made by examples/bench.sh). Prints the
# mean wall, user and system time of each binary. Needs GNU time (/usr/bin/time).
set -euo pipefail
old=$(realpath "$1")
new=$(realpath "$2")
pairs=${3:-10}
site=${4:-target/bench}
cd "$site"
out=public-ab
if [ -d /dev/shm ] && [ -w /dev/shm ]; then out=/dev/shm/profilegen-ab; fi
for _ in $(seq "$pairs"); do
  for bin in "$old" "$new"; do
    rm -rf "$out" .profilegen
    /usr/bin/time -f "$bin %e %U %S" "$bin" build --quiet --output "$out" 2>&1 | tail -n 1
  done
done | awk '{ wall[$1] += $2; user[$1] += $3; sys[$1] += $4; n[$1]++ }
  END { for (b in wall) printf "%s: wall %.3f s, user %.3f s, system %.3f s (%d runs)\n",
        b, wall[b] / n[b], user[b] / n[b], sys[b] / n[b], n[b] }'
rm -rf "$out" .profilegen
