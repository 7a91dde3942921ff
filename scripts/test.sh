#!/usr/bin/env bash
# One command, fresh Debian 12: install dependencies, build with tests, run the whole suite
# through CTest. Idempotent. MESHSCOPE_PRESET=asan runs it under ASan/UBSan instead.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${MESHSCOPE_PRESET:-dev}"
./scripts/install-deps.sh
./scripts/build.sh "$preset"
ctest --preset "$preset" -j "$(nproc)"
