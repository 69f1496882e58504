#!/usr/bin/env bash
# Profiles a watcher's rebuilds with perf: where the processor time of each rebuild goes.
#
#   bash examples/profile_watch.sh SITE_DIR BINARY [REBUILDS] [PERF_DATA]
#
# SITE_DIR is a built site holding `new_author.txt` (`examples/bench.sh` and
# `examples/bench_scale.sh` make one), built into its `public/`. Starts `BINARY build
# --watch` there, adds and removes `new_author.txt` once untimed, then records
# `perf record --call-graph dwarf -F 200` of the watcher while the file is added and
# removed REBUILDS/2 more times (default 8 rebuilds), into PERF_DATA (default
# /dev/shm/profile_watch.data). Read it with `perf report -i PERF_DATA --no-children`,
# or `perf script -i PERF_DATA -F tid,ip,sym` for the stacks with inlined frames.
# The watcher's log (with `PROFILEGEN_TIMINGS=1`, each stage's time) goes to
# PERF_DATA.log. Needs `perf` (Debian's `linux-perf`) and permission to trace.
set -euo pipefail
site=$(cd "$1" && pwd)
binary=$(realpath "$2")
rebuilds=${3:-8}
data=${4:-/dev/shm/profile_watch.data}
log="$data.log"
new="$site/content/records/zz_watch_new.txt"
rm -f "$new"
cd "$site"
PROFILEGEN_TIMINGS=1 "$binary" build --watch 2>"$log" &
watcher=$!
trap 'kill -INT $watcher 2>/dev/null || true; rm -f "$new"' EXIT

# Waits until the log has COUNT lines with TEXT.
wait_for() {
  while [ "$(grep -c -- "$1" "$log" || true)" -lt "$2" ]; do sleep 0.2; done
}
wait_for "^Watching" 1
cp new_author.txt "$new" && wait_for "zz_watch_new.txt added" 1
rm "$new" && wait_for "zz_watch_new.txt removed" 1
sleep 3
perf record --call-graph dwarf,16384 -F 200 -p "$watcher" -o "$data" 2>/dev/null &
recorder=$!
sleep 1
for i in $(seq 1 $((rebuilds / 2))); do
  cp new_author.txt "$new" && wait_for "zz_watch_new.txt added" $((i + 1))
  sleep 2
  rm "$new" && wait_for "zz_watch_new.txt removed" $((i + 1))
  sleep 2
done
kill -INT $recorder && wait $recorder || true
echo "profile of $rebuilds rebuilds in $data, the watcher's log in $log"
