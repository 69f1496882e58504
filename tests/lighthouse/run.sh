#!/usr/bin/env bash
# Lighthouse, in Debian's headless Chromium, on the home page, an author page and a paper
# page of the example site. Fails unless accessibility, best practices and SEO score 100
# and performance at least 95.
#
#   bash tests/lighthouse/run.sh [PROFILEGEN_BINARY]
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
repo=$(cd ../.. && pwd)
bin=${1:-${CARGO_TARGET_DIR:-$repo/target}/release/profilegen}
if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  npm ci --no-audit --no-fund --silent >/dev/null
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
site=$(mktemp -d)
server=""
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi; rm -rf "$site"' EXIT
# Built as it would be published: with its address as base_url.
"$bin" build --quiet --root "$repo" --output "$site" --base-url "http://127.0.0.1:$port/"
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
sleep 1

status=0
for page in "" "authors/zhongbo-zhu/" "papers/scalable-training-of-mixture-of-experts-models-with-megatron-core-2026/"; do
  report="$site/.lighthouse.json"
  CHROME_PATH=/usr/bin/chromium "$here/node_modules/.bin/lighthouse" "http://127.0.0.1:$port/$page" \
    --quiet --output=json --output-path="$report" \
    --only-categories=performance,accessibility,best-practices,seo \
    --chrome-flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync"
  python3 - "$report" "/$page" <<'PY' || status=1
import json, sys
report = json.load(open(sys.argv[1]))
scores = {k: round(v["score"] * 100) for k, v in report["categories"].items()}
needed = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100}
print(f"lighthouse {sys.argv[2]}: {scores}")
failed = False
for category, minimum in needed.items():
    if scores[category] < minimum:
        failed = True
        for ref in report["categories"][category]["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref.get("weight", 0) > 0 and audit.get("score") is not None and audit["score"] < 1:
                print(f"  {category}: {ref['id']}: {audit.get('title')} {audit.get('displayValue', '')}")
sys.exit(1 if failed else 0)
PY
done
exit $status
