#!/usr/bin/env bash
# Benchmark: build a generated site of 10,000 papers by 2,000 authors (about 50 MB of
# record files) and report wall time and peak memory.
#
#   bash examples/bench.sh [WORK_DIR]      (default WORK_DIR: target/bench)
#
# Needs hyperfine (Debian: apt-get install hyperfine) and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${1:-target/bench}
papers=${PAPERS:-10000}
authors=${AUTHORS:-2000}

cargo build --release --quiet --bin profilegen --example gen_corpus
bin=$PWD/target/release/profilegen
rm -rf "$work"
mkdir -p "$work"
target/release/examples/gen_corpus --papers "$papers" --authors "$authors" "$work/content/records"
cd "$work"

# Output on tmpfs when there is one, so the figures measure profilegen rather than the disk.
out=public
if [ -d /dev/shm ] && [ -w /dev/shm ]; then out=/dev/shm/profilegen-bench; fi
rm -rf "$out"

echo "== fresh build into an empty output folder ($out), no cache"
hyperfine --warmup 1 --runs 10 --prepare "rm -rf $out .profilegen" "$bin build --quiet --output $out"
$bin build --quiet --output "$out"
echo "== rebuild with nothing changed (the cache in .profilegen/ says so)"
hyperfine --warmup 1 --runs 10 "$bin build --quiet --output $out"
echo "== rebuild after one new record file (an author sharing 20+ papers with others)"
python3 - content/records/a00500.txt new_author.txt <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
name = text.split("\n\n")[1]
open(sys.argv[2], "w", encoding="utf-8").write(text.replace(name, "Newcomer Q. Author"))
PY
hyperfine --warmup 1 --runs 10 \
  --prepare "rm -f content/records/zz_new.txt && $bin build --quiet --output $out" \
  "cp new_author.txt content/records/zz_new.txt && $bin build --quiet --output $out"
rm -f content/records/zz_new.txt
$bin build --quiet --output "$out"
cp new_author.txt content/records/zz_new.txt
$bin build --output "$out" 2>&1 | tail -n 1
rm -f content/records/zz_new.txt
echo "== build --watch: regeneration after one new record file (reuses the last build's work)"
python3 "$repo/examples/watch_bench.py" "$PWD" --runs 20 | tail -n 4
echo "== check (parse, link, render; no writing)"
hyperfine --warmup 1 --runs 10 "$bin check"
echo "== peak memory of a fresh build"
rm -rf "$out" .profilegen
/usr/bin/time -f "peak RSS %M KB, wall %e s" "$bin" build --quiet --output "$out"
echo "== per-stage times of a fresh build"
rm -rf "$out" .profilegen
PROFILEGEN_TIMINGS=1 "$bin" build --output "$out"
rm -rf "$out"
