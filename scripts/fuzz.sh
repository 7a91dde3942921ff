#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 and runs each for FUZZ_RUNS inputs (default 20000,
# fixed seed, so a run is reproducible) on a corpus seeded from the real inputs (../shared/data,
# or the mirror in tests/data/shared). Any crash, leak or sanitizer report fails the script.
# FUZZ_SECONDS=N fuzzes by time instead (for longer local sessions).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${FUZZ_RUNS:-20000}"
limit=(-runs="$runs" -seed=1)
[ -n "${FUZZ_SECONDS:-}" ] && limit=(-max_total_time="$FUZZ_SECONDS")
shared=../shared
[ -d "$shared/data" ] || shared=tests/data/shared
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
  -DMESHSCOPE_BUILD_FUZZERS=ON -DMESHSCOPE_BUILD_GUI=OFF -DMESHSCOPE_BUILD_TESTS=OFF >/dev/null
cmake --build build/fuzz -j "$(nproc)" --target fuzz_hf_config fuzz_cluster fuzz_nccl_tests fuzz_kineto fuzz_node_topology
seed() {  # seed <target> <files...>: copy the real inputs (gunzipped) into the target's corpus
  local dir="build/fuzz/corpus/$1"; shift
  rm -rf "$dir"; mkdir -p "$dir"
  for f in "$@"; do
    case "$f" in
      *.gz) (gunzip -c "$f" 2>/dev/null || true) | head -c 200000 > "$dir/$(basename "${f%.gz}")" || true ;;
      *) cp "$f" "$dir/" ;;
    esac
  done
}
seed fuzz_hf_config "$shared"/data/hf_configs/*.json
seed fuzz_cluster sample_clusters/teaching-2x4.json sample_clusters/irregular-mixed.json sample_clusters/dgx-a100-2nodes.json
seed fuzz_nccl_tests "$shared"/data/nccl_tests/*.log
seed fuzz_kineto "$shared"/data/kineto_traces/hta_mi250_minitoy_train_ROCm6.2.json.gz \
  "$shared"/data/kineto_traces/hta_triton_example_A100.json.gz \
  "$shared"/data/kineto_traces/hta_no_distributedInfo_A100.json.gz
seed fuzz_node_topology "$shared"/data/nvidia_smi_topo/*.txt "$shared"/data/nccl_topo_xml/*.xml \
  "$shared"/data/hwloc_xml/hwloc_power8_4xP100_nvlink.xml
for target in fuzz_hf_config fuzz_cluster fuzz_nccl_tests fuzz_kineto fuzz_node_topology; do
  echo "== $target (${limit[*]})"
  "build/fuzz/tests/fuzz/$target" "${limit[@]}" -max_len=262144 -rss_limit_mb=4096 \
    -print_final_stats=1 "build/fuzz/corpus/$target" > "build/fuzz/$target.log" 2>&1 || {
    tail -40 "build/fuzz/$target.log"
    echo "$target failed: see build/fuzz/$target.log" >&2
    exit 1
  }
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "build/fuzz/$target.log" || true
done
