#!/usr/bin/env bash
# Configures and builds one CMake preset (dev, release, asan). Used by run.sh and test.sh.
# Further arguments name the targets to build (default: all of the preset's targets); run.sh
# builds just the app, so that a first start does not wait for the test suites.
# MESHSCOPE_WERROR=ON (set by .ci/run) makes every warning an error; unset, the build goes back to plain warnings.
set -euo pipefail
preset="${1:-dev}"
shift || true
cd "$(dirname "$0")/.."
cmake --preset "$preset" -DMESHSCOPE_WERROR="${MESHSCOPE_WERROR:-OFF}" >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"
