#!/usr/bin/env bash
# One command, fresh Debian 12: install dependencies, build, launch meshscope on the embedded
# default project. Idempotent. Extra arguments are passed to the app (e.g. a project file).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh release meshscope
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
  echo "No display found: starting meshscope under xvfb-run (set DISPLAY to use your own)." >&2
  exec xvfb-run -a -s "-screen 0 1600x1000x24" ./build/release/app/meshscope "$@"
fi
exec ./build/release/app/meshscope "$@"
