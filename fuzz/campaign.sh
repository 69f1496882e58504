#!/usr/bin/env bash
# Runs fuzz targets for SECONDS each, all at once, one process per target at the lowest
# CPU priority, then prints each target's executions and any crashes.
#
#   fuzz/campaign.sh SECONDS [TARGET...]     (default: every target)
#
# Corpora grow in fuzz/corpus/<target> (build them first with fuzz/seed.sh), inputs that
# fail are written to fuzz/artifacts/<target>/ and libFuzzer's output to
# fuzz/logs/<target>.log. A failing input is replayed with
#   cargo +nightly fuzz run <target> fuzz/artifacts/<target>/<file>
# Needs nightly Rust and cargo-fuzz (`cargo install cargo-fuzz`).
#
# FUZZ_SANITIZER=none builds the targets without AddressSanitizer, which in safe Rust
# finds little that the targets' own checks and Rust's bounds checks do not, for a few
# times the executions per second; the default is `address`.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:?usage: fuzz/campaign.sh SECONDS [TARGET...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(records tex cite slug config front_matter request_path)
fi

# Longest input per target: whole record files for the parser, a long abstract for TeX,
# titles and names for the rest. Run time grows with input length.
max_len() {
  case $1 in
    records) echo 16384 ;;
    tex | front_matter | config) echo 4096 ;;
    *) echo 1024 ;;
  esac
}

cargo +nightly fuzz build --sanitizer "${FUZZ_SANITIZER:-address}"
bin="${CARGO_TARGET_DIR:-fuzz/target}/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"
mkdir -p fuzz/logs
pids=()
for target in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
  nice -n 19 "$bin/$target" "fuzz/corpus/$target" \
    -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$target/" \
    >"fuzz/logs/$target.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!targets[@]}"; do
  wait "${pids[$i]}" || status=1
done
for target in "${targets[@]}"; do
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz/logs/$target.log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "fuzz/logs/$target.log")
  crashes=$(find "fuzz/artifacts/$target" -type f | wc -l)
  echo "$target: ${runs:-?} executions, ${speed:-?}/s, $crashes failing inputs in fuzz/artifacts/$target"
done
exit $status
