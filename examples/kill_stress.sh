#!/usr/bin/env bash
# Kills `profilegen build --generations` with SIGKILL at random moments, again and
# again, and checks after each kill that the output link leads to one whole build: a
# site equal, file for file and byte for byte, to a clean build of the old or of the new
# input.
#
#   bash examples/kill_stress.sh [KILLS] [PAPERS] [DIR]
#
# KILLS defaults to 100, PAPERS to 2000, DIR to /dev/shm/profilegen-kill (or
# target/kill-stress without /dev/shm). The input alternates between two versions (the
# second changes one record file, removes one and adds one), so most builds have
# something to write, remove and switch; a third of the builds are forced (--force),
# the others incremental. Half the kills land anywhere in a build, half near its end,
# where the commit and the switch are (from 0.5 to 1.3 times a build's time). Prints how
# many kills hit a running build and where it was (from what it left), and how many
# checks found the old site, the new one, a broken link or a mixed site; exits 1 unless
# the last two are 0.
set -euo pipefail
kills=${1:-100}
papers=${2:-2000}
dir=${3:-}
if [ -z "$dir" ]; then
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then dir=/dev/shm/profilegen-kill; else dir=target/kill-stress; fi
fi
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin profilegen --example gen_corpus
bin=$(realpath "${CARGO_TARGET_DIR:-target}/release/profilegen")
gen=$(realpath "${CARGO_TARGET_DIR:-target}/release/examples/gen_corpus")
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"

# Two versions of the input: b changes the first record file, removes the second and
# adds an author.
"$gen" --papers "$papers" --authors $((papers / 5)) input-a/records >/dev/null 2>&1
cp -r input-a input-b
first=$(ls input-b/records | sed -n 1p)
second=$(ls input-b/records | sed -n 2p)
sed -i '0,/arXiv20[0-9][0-9]/s//arXiv2001/' "input-b/records/$first"
rm "input-b/records/$second"
printf 'arXiv subjects\n\nKill Q. Stress\n\nPublications and source records attributed to Kill Q. Stress.\n\n1 recordLinked to original sources\n\narXiv2026\n\nA paper only the new input has\n\nIts abstract.\n\ncs.DC\xe2\x86\x97' >input-b/records/zz_new.txt

# The digest of a site: every file's path and bytes. The lock file a plain build leaves
# (empty; a build in generations has it in the generations folder) is no part of it.
digest() { (cd "$1" && find . -type f ! -path ./.profilegen-lock -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16); }

for v in a b; do
  mkdir -p "clean-$v"
  ln -s "../input-$v" "clean-$v/content"
  "$bin" build --quiet --root "clean-$v" --output "clean-$v/public"
done
digest_a=$(digest clean-a/public)
digest_b=$(digest clean-b/public)
[ "$digest_a" != "$digest_b" ] || { echo "the two inputs build the same site" >&2; exit 1; }

mkdir -p live
ln -sfn ../input-a live/content
"$bin" build --quiet --generations --root live --output live/public
# How long a build from one input to the other takes (the longer of two).
took_ms=0
for v in b a; do
  ln -sfn "../input-$v" live/content
  start=$(date +%s%N)
  "$bin" build --quiet --root live --output live/public
  ms=$((($(date +%s%N) - start) / 1000000))
  [ "$ms" -gt "$took_ms" ] && took_ms=$ms
done
echo "a build from one input to the other takes up to ${took_ms} ms; $kills kills follow"

# Where a build was when killed, from what it left: no new generation yet; one being
# staged; one whose staged files were moved in but not yet switched to (the commit);
# switched to (removing old generations); or it had finished.
declare -A phases=()
newest() { ls live/public.generations | sort -n | tail -n 1; }
phase_of() { # killed? target-before newest-generation-before
  local target newest
  target=$(readlink live/public || true)
  if [ "$1" = no ]; then echo finished; return; fi
  if [ "$target" != "$2" ]; then echo "after the switch"; return; fi
  newest=$(newest)
  if [ "$newest" = "$3" ]; then echo "before a generation was made"
  elif [ -d "live/public.generations/$newest/.profilegen-staging" ]; then echo "linking or staging"
  else echo "in the commit"; fi
}

old=0 new=0 broken=0 mixed=0 current=a
for i in $(seq "$kills"); do
  # The next input: the other version (the link is switched in one rename too).
  if [ "$current" = a ]; then next=b; else next=a; fi
  ln -sfn "../input-$next" live/content.tmp && mv -T live/content.tmp live/content
  if [ $((i % 2)) -eq 0 ]; then
    delay=$((RANDOM * took_ms / 32768))
  else
    delay=$((took_ms / 2 + RANDOM * took_ms * 8 / 10 / 32768))
  fi
  force=()
  [ $((i % 3)) -eq 0 ] && force=(--force)
  before=$(readlink live/public)
  newest_before=$(newest)
  "$bin" build --quiet --generations --root live --output live/public "${force[@]}" &
  pid=$!
  sleep "$(awk "BEGIN { print $delay / 1000 }")"
  if kill -9 "$pid" 2>/dev/null; then killed=yes; else killed=no; fi
  wait "$pid" 2>/dev/null || true
  phase=$(phase_of "$killed" "$before" "$newest_before")
  phases[$phase]=$((${phases[$phase]:-0} + 1))
  target=$(readlink live/public || true)
  if [ -z "$target" ] || [ ! -d "live/$target" ]; then
    broken=$((broken + 1)); echo "kill $i: broken link: '$target'"; continue
  fi
  got=$(digest live/public/)
  if [ "$got" = "$digest_a" ]; then
    if [ "$current" = a ]; then old=$((old + 1)); else new=$((new + 1)); fi
    current=a
  elif [ "$got" = "$digest_b" ]; then
    if [ "$current" = b ]; then old=$((old + 1)); else new=$((new + 1)); fi
    current=b
  else
    mixed=$((mixed + 1)); echo "kill $i: $target is neither build"
  fi
done
echo "$kills kills, $((kills - ${phases[finished]:-0})) of a running build: the link led to the old site $old times, to the new one $new times; $broken broken, $mixed mixed"
for phase in "${!phases[@]}"; do echo "  ${phases[$phase]} x $phase"; done | sort -k3
echo "generations left: $(ls live/public.generations | sort -n | tr '\n' ' ')"
[ "$broken" -eq 0 ] && [ "$mixed" -eq 0 ]
