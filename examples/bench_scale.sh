#!/usr/bin/env bash
# Benchmark at scale: for each size, generate an arXiv-shaped corpus (gen_corpus --shape
# arxiv: 0.435 author files per paper, 2.4 files per paper, ...) and report a fresh build's
# wall time and peak memory, the output's size and number of files, the diagnostic lines a
# non-quiet build prints, how long `cp -r` of the output takes on the same disk (a floor
# for writing that many files there), a one-off build after one new record file, and
# `build --watch` regenerating the site as that file comes and goes
# (`examples/watch_bench.py` into the same output, 4 runs; WATCH_RUNS=0 skips it).
#
#   bash examples/bench_scale.sh [PAPERS...]      (default: 500000 2500000)
#
# Environment: WORK, the work folder (default target/bench-scale; one site per size,
# WORK/pN); OUT, the output folder (default WORK/pN/public, on the disk; e.g. /dev/shm/x
# for tmpfs; its copy goes beside it, OUT.copy); KEEP=1 keeps the outputs (by default each
# size's output is removed before the next size); FORCE=1 runs a size even when memory
# looks too small; PAGE_LAYOUT=files builds with `page_layout: files` (a file a page
# rather than a folder: below); PRECOMPRESS=gzip builds with `precompress: gzip` (pages,
# feeds, data and search files written gzip-compressed as `<name>.gz`; at 500,000 papers
# with PAGE_LAYOUT=files the output was 5.78 GB by du, 2026-12-06). Needs GNU time
# (/usr/bin/time) and python3.
#
# Disk space, measured at 500,000 papers (ext4):
#   corpus       217,500 files    1.8 GB   (1.35 GB of text)
#   cache        .profilegen/     0.6 GB   (build cache 0.15 GB; kept TeX conversions
#                                          0.16 GB and search terms 0.24 GB, 2026-12-03)
#   output     1,073,000 files   21 GB     (20 GB of bytes; 718,000 folders; with
#                                          PAGE_LAYOUT=files 15.9 GB, 3,065 folders)
#   output copy                  21 GB
#   total       3.6 M inodes     45 GB     (without the copy: 24 GB, 1.8 M inodes)
# 2,500,000 papers, extrapolated from 500,000 (everything grows in proportion; not
# measured): about 220 GB and 18 M inodes, or 115 GB and 9 M inodes without the copy.
# The fresh build's peak memory was 1.60 GB at 500,000 papers (about 3.2 KB a paper);
# `profilegen check` of 2,500,000 papers peaked at 7.36 GB (measured 2026-12-02).
#
# Before each size the script checks free space and inodes with df: without room for the
# corpus it skips the size; without room for the output it measures `profilegen check` on
# the corpus instead (it reads, links, plans and renders every page as a build does and
# writes nothing: the build's memory but for the output writer's); without room for the
# copy it skips only the copy.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# Per paper, from the 500,000-paper measurement above (bytes on disk, inodes, memory).
corpus_bytes=3700
cache_bytes=1200
output_bytes=42000
output_inodes_x10=36
rss_bytes=4000

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(500000 2500000)
work=${WORK:-target/bench-scale}
mkdir -p "$work"
work=$(realpath "$work")

cargo build --release --quiet --bin profilegen --example gen_corpus
target=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
bin=$target/release/profilegen
gen=$target/release/examples/gen_corpus

# Free bytes and inodes of the file system that holds $1 (or its nearest existing parent).
existing() {
  local d=$1
  while [ ! -e "$d" ]; do d=$(dirname "$d"); done
  echo "$d"
}
free_bytes() { df -B1 --output=avail "$(existing "$1")" | tail -n 1 | tr -d ' '; }
free_inodes() { df --output=iavail "$(existing "$1")" | tail -n 1 | tr -d ' '; }
same_fs() { [ "$(stat -c %d "$(existing "$1")")" = "$(stat -c %d "$(existing "$2")")" ]; }
gb() { awk -v b="$1" 'BEGIN { printf "%.1f GB", b / 1e9 }'; }
# Wall time in seconds and peak RSS from a `/usr/bin/time -v` log.
wall() {
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
    for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.1f", s }' "$1"
}
rss() {
  awk -F': ' '/Maximum resident set size/ {
    if ($2 < 1e6) printf "%d MB", $2 / 1e3; else printf "%.2f GB", $2 / 1e6 }' "$1"
}
cpu() {
  awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 }
    END { printf "user %.1f s, system %.1f s", u, s }' "$1"
}

echo "profilegen $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores," \
  "$(awk '/MemTotal/ { printf "%.1f GB", $2 / 1e6 }' /proc/meminfo) memory, $(date -u +%Y-%m-%dT%H:%MZ)"

for papers in "${sizes[@]}"; do
  site=$work/p$papers
  out=${OUT:-$site/public}
  echo
  echo "== $papers papers (gen_corpus --shape arxiv), site $site, output $out"

  # Room for this size, counting what an earlier run of it left behind as free.
  rm -rf "$site" "$out" "$out.copy"
  need_site=$(( papers * (corpus_bytes + cache_bytes) ))
  need_out=$(( papers * output_bytes ))
  need_inodes=$(( papers * output_inodes_x10 / 10 ))
  site_inodes=$(( papers / 2 ))
  copy=yes
  measure=build
  if same_fs "$work" "$out"; then
    room=$(free_bytes "$work")
    inodes=$(free_inodes "$work")
    if [ "$room" -lt "$need_site" ] || [ "$inodes" -lt "$site_inodes" ]; then
      echo "skipped: the corpus needs $(gb "$need_site") and $site_inodes inodes on" \
        "$(existing "$work"), has $(gb "$room") and $inodes"
      continue
    fi
    if [ "$room" -lt $(( need_site + need_out )) ] ||
      [ "$inodes" -lt $(( site_inodes + need_inodes )) ]; then
      echo "no room for the output: needs $(gb $(( need_site + need_out ))) and" \
        "$(( site_inodes + need_inodes )) inodes on $(existing "$work"), has $(gb "$room") and" \
        "$inodes; measuring \`profilegen check\` (every page rendered, nothing written) instead"
      measure=check
    fi
    if [ "$room" -lt $(( need_site + 2 * need_out )) ] ||
      [ "$inodes" -lt $(( site_inodes + 2 * need_inodes )) ]; then
      copy=no
    fi
  else
    room=$(free_bytes "$work")
    if [ "$room" -lt "$need_site" ]; then
      echo "skipped: the corpus needs $(gb "$need_site") on $(existing "$work"), has $(gb "$room")"
      continue
    fi
    room=$(free_bytes "$out")
    inodes=$(free_inodes "$out")
    if [ "$room" -lt "$need_out" ] || [ "$inodes" -lt "$need_inodes" ]; then
      echo "no room for the output: needs $(gb "$need_out") and $need_inodes inodes on" \
        "$(existing "$out"), has $(gb "$room") and $inodes; measuring \`profilegen check\`" \
        "(every page rendered, nothing written) instead"
      measure=check
    fi
    if [ "$room" -lt $(( 2 * need_out )) ] || [ "$inodes" -lt $(( 2 * need_inodes )) ]; then
      copy=no
    fi
  fi
  memory=$(( $(awk '/MemTotal/ { print $2 }' /proc/meminfo) * 1024 ))
  if [ $(( papers * rss_bytes )) -gt "$memory" ] && [ "${FORCE:-}" != 1 ]; then
    echo "skipped: a build needs about $(gb $(( papers * rss_bytes ))) of memory, the machine" \
      "has $(gb "$memory") (FORCE=1 runs it anyway)"
    continue
  fi

  mkdir -p "$site/content"
  : > "$site/profilegen.yaml"
  if [ -n "${PAGE_LAYOUT:-}" ]; then
    printf 'page_layout: %s\n' "$PAGE_LAYOUT" >> "$site/profilegen.yaml"
    echo "page_layout: $PAGE_LAYOUT"
  fi
  if [ -n "${PRECOMPRESS:-}" ]; then
    printf 'precompress: %s\n' "$PRECOMPRESS" >> "$site/profilegen.yaml"
    echo "precompress: $PRECOMPRESS"
  fi
  /usr/bin/time -v -o "$work/gen.time" \
    "$gen" --shape arxiv --papers "$papers" "$site/content/records" 2> "$work/gen.log"
  tail -n 1 "$work/gen.log"
  echo "corpus: $(du -sh "$site/content/records" | cut -f1) on disk, generated in" \
    "$(wall "$work/gen.time") s, peak RSS $(rss "$work/gen.time")"
  cd "$site"

  if [ "$measure" = check ]; then
    # Reads, links, plans and renders every page as a build does; stages nothing.
    # A failing check (an error diagnostic, or killed) is reported, not measured.
    status=0
    /usr/bin/time -v -o "$work/check.time" "$bin" check > "$work/check.log" 2>&1 || status=$?
    if [ "$status" != 0 ]; then
      echo "check FAILED (exit status $status; see $work/check.log): $(tail -n 1 "$work/check.log")"
      exit 1
    fi
    echo "check: wall $(wall "$work/check.time") s, peak RSS $(rss "$work/check.time")," \
      "$(cpu "$work/check.time"); $(tail -n 1 "$work/check.log")"
    cd - > /dev/null
    continue
  fi

  /usr/bin/time -v -o "$work/build.time" "$bin" build --quiet --output "$out"
  echo "fresh build: wall $(wall "$work/build.time") s, peak RSS $(rss "$work/build.time")," \
    "$(cpu "$work/build.time")"
  files=$(find "$out" -type f | wc -l)
  folders=$(find "$out" -type d | wc -l)
  echo "output: $(du -sh "$out" | cut -f1) ($(du -sb "$out" | cut -f1) bytes), $files files," \
    "$(awk -v f="$files" -v p="$papers" 'BEGIN { printf "%.2f", f / p }') files per paper," \
    "$folders folders; cache $(du -sh .profilegen | cut -f1)"
  # A precompressed page's size is measured as it is served, decompressed.
  largest=$(find "$out" -name '*.html' -printf '%s %P\n' | sort -n | tail -n 1)
  over=$(find "$out" -name '*.html' -size +300k | wc -l)
  if [ -n "${PRECOMPRESS:-}" ]; then
    largest=$(find "$out" -name '*.html.gz' -printf '%s %P\n' | sort -n | tail -n 20 |
      while read -r _ page; do echo "$(gzip -dc "$out/$page" | wc -c) $page"; done |
      sort -n | tail -n 1)
    over="(the 20 largest compressed pages looked at)"
  fi
  echo "largest page: $largest bytes; pages over 300 KB: $over"

  # With nothing changed the build prints the same diagnostics, at a fraction of the cost.
  lines=$("$bin" build --output "$out" 2>&1 | tee "$work/diagnostics.log" | wc -l)
  echo "diagnostics: a non-quiet build prints $lines lines; $(tail -n 1 "$work/diagnostics.log" |
    grep -o '[0-9,]* warnings, [0-9,]* errors')"

  if [ "$copy" = yes ]; then
    if /usr/bin/time -f %e -o "$work/cp.time" cp -r "$out" "$out.copy"; then
      cp_s=$(tail -n 1 "$work/cp.time")
      echo "cp -r of the output: $cp_s s; build / cp = $(awk -v b="$(wall "$work/build.time")" \
        -v c="$cp_s" 'BEGIN { printf "%.2f", b / c }')"
    else
      echo "cp -r of the output: failed (see above)"
    fi
    rm -rf "$out.copy"
  else
    echo "cp -r of the output: skipped, no room for a second copy on $(existing "$out")"
  fi

  # One new record file: a copy of an author with 15-40 records under a new name, so it
  # shares all its papers with that author and with their co-authors.
  python3 - content/records new_author.txt <<'PY'
import os, re, sys
folder = sys.argv[1]
for name in sorted(os.listdir(folder))[500:]:
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        text = f.read()
    blocks = text.split("\n\n")
    count = int(re.match(r"\d+", blocks[3]).group())
    if 15 <= count <= 40:
        break
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write(text.replace(blocks[1], "Newcomer Q. Author"))
print(f"new record file: {name} ({count} records) as Newcomer Q. Author")
PY
  cp new_author.txt content/records/zz_new.txt
  /usr/bin/time -v -o "$work/one.time" "$bin" build --output "$out" > "$work/one.log" 2>&1
  echo "build after one new record file: wall $(wall "$work/one.time") s, peak RSS" \
    "$(rss "$work/one.time"), $(tail -n 1 "$work/one.log" | grep -o '[0-9,]* files written')"
  tail -n 1 "$work/one.log"
  rm -f content/records/zz_new.txt
  if [ "${WATCH_RUNS:-4}" -gt 0 ]; then
    echo "build --watch in the same output:"
    python3 "$repo/examples/watch_bench.py" "$site" --output "$out" --bin "$bin" \
      --runs "${WATCH_RUNS:-4}" | tail -n 4
  fi
  cd - > /dev/null

  if [ "${KEEP:-}" != 1 ]; then rm -rf "$out"; fi
done
