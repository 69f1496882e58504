#!/usr/bin/env bash
# Browser check of built sites: installs what it needs, then runs check.mjs, or with
# --math-layout the phone-width math layout check (math_layout.mjs) of one site.
#   bash tests/browser/run.sh SITE_DIR [SITE_DIR...]
#   bash tests/browser/run.sh --math-layout SITE_DIR [SCREENSHOT.png]
# Site paths are taken relative to the current folder (normally the repository root).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

script="check.mjs"
if [ "${1:-}" = "--math-layout" ]; then
  script="math_layout.mjs"
  shift
fi
if [ "$#" -eq 0 ]; then
  echo "usage: bash tests/browser/run.sh SITE_DIR [SITE_DIR...]" >&2
  echo "       bash tests/browser/run.sh --math-layout SITE_DIR [SCREENSHOT.png]" >&2
  exit 2
fi

# Debian's Chromium (playwright-core downloads no browser of its own).
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then sudo="sudo"; else
      echo "error: $chromium is missing and installing it needs root (apt-get install chromium)" >&2
      exit 1
    fi
  fi
  echo "browser: installing chromium with apt-get"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "error: node (20 or newer) and npm are needed for the browser check" >&2
  exit 1
fi

# playwright-core, pinned by package-lock.json; reinstalled when the lock file changes.
if [ ! -d "$here/node_modules/playwright-core" ] ||
  [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
  echo "browser: installing playwright-core with npm ci"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

exec node "$here/$script" "$@"
