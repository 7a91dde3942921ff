#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (ASan + UBSan, any UBSan report is fatal) and runs each on a corpus
# seeded from the real inputs (../shared/data, or the mirror in tests/data/shared). Any crash, leak, sanitizer
# report or hang (an input that runs past FUZZ_TIMEOUT seconds, default 25) fails the script; the input is kept
# under build/fuzz/artifacts/<target>/.
#
#   scripts/fuzz.sh                 the CI run: FUZZ_RUNS inputs per target (default 20000, fixed seed, reproducible)
#   scripts/fuzz.sh --long          each target to 1,000,000 executions (FUZZ_RUNS overrides); prints, per target,
#                                   the executions, libFuzzer's final coverage (cov: edges, ft: features) and the
#                                   wall time, and a summary table at the end
#   scripts/fuzz.sh [--long] T...   only the targets named (fuzz_cluster fuzz_kineto ...)
#   FUZZ_SECONDS=N                  fuzzes each target for N seconds instead of a number of runs
#   FUZZ_MAX_LEN=N                  the largest input libFuzzer makes (default 262144 bytes)
#   FUZZ_SKIP_BUILD=1               uses the targets already in build/fuzz (to run several targets side by side)
set -euo pipefail
cd "$(dirname "$0")/.."
all_targets=(fuzz_hf_config fuzz_cluster fuzz_project fuzz_nccl_tests fuzz_kineto fuzz_kernel_rules fuzz_node_topology
  fuzz_hwloc_xml fuzz_nccl_topo_xml fuzz_training_log fuzz_launcher_config)
long=0
targets=()
for arg in "$@"; do
  case "$arg" in
    --long) long=1 ;;
    fuzz_*) targets+=("$arg") ;;
    *) echo "usage: scripts/fuzz.sh [--long] [target...]; targets: ${all_targets[*]}" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
runs="${FUZZ_RUNS:-20000}"
[ "$long" = 1 ] && runs="${FUZZ_RUNS:-1000000}"
limit=(-runs="$runs" -seed=1)
[ -n "${FUZZ_SECONDS:-}" ] && limit=(-max_total_time="$FUZZ_SECONDS")
jobs="${FUZZ_BUILD_JOBS:-$(nproc)}"
shared=../shared
[ -d "$shared/data" ] || shared=tests/data/shared
# UBSan is compiled recoverable: halt_on_error makes any report a crash libFuzzer keeps the input of.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
if [ -z "${FUZZ_SKIP_BUILD:-}" ]; then
  cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
    -DMESHSCOPE_BUILD_FUZZERS=ON -DMESHSCOPE_BUILD_GUI=OFF -DMESHSCOPE_BUILD_TESTS=OFF >/dev/null
  cmake --build build/fuzz -j "$jobs" --target "${targets[@]}"
fi
seed() {  # seed <target> <files...>: copy the real inputs (gunzipped) into the target's corpus
  local dir="build/fuzz/corpus/$1"; shift
  rm -rf "$dir"; mkdir -p "$dir"
  for f in "$@"; do
    # Logs from the held-out sources (aws-samples/awsome-distributed-training, coreweave/nccl-tests,
    # hisohara/ai-scripts, AMD-AGI/TraceLens, deepseek-ai/profile-data) are no seeds: ../shared holds one.
    case "$(basename "$f")" in aws_*) continue ;; esac
    case "$f" in
      *.gz) (gunzip -c "$f" 2>/dev/null || true) | head -c 200000 > "$dir/$(basename "${f%.gz}")" || true ;;
      *) cp "$f" "$dir/" ;;
    esac
  done
}
seed_all() {
  case "$1" in
    fuzz_hf_config) seed "$1" "$shared"/data/hf_configs/*.json tests/data/regressions/hf_config_*.json ;;
    fuzz_cluster) seed "$1" sample_clusters/teaching-2x4.json sample_clusters/irregular-mixed.json \
      sample_clusters/dgx-a100-2nodes.json ;;
    fuzz_project)
      seed "$1" resources/default_project.json
      # A project with its cluster inline (what the app saves after an edit).
      jq --slurpfile c sample_clusters/teaching-2x4.json '.version = 2 | .cluster = $c[0] | .gpu_count = 8
        | .layout = {"tp": 2, "pp": 2, "dp": 2} | .calibration = {"comm": {"nvlink_efficiency": 0.8}}' \
        resources/default_project.json > "build/fuzz/corpus/$1/inline_cluster.json" ;;
    fuzz_nccl_tests) seed "$1" "$shared"/data/nccl_tests/*.log ;;
    fuzz_kineto) seed "$1" "$shared"/data/kineto_traces/hta_mi250_minitoy_train_ROCm6.2.json.gz \
      "$shared"/data/kineto_traces/hta_triton_example_A100.json.gz \
      "$shared"/data/kineto_traces/hta_no_distributedInfo_A100.json.gz ;;
    fuzz_kernel_rules)
      seed "$1"
      printf '%s\n' '{"rules": [{"match": "my_a2a_kernel", "category": "communication", "op": "all-to-all"},' \
        ' {"regex": "^fused_.*_gemm", "category": "gemm", "ignore_case": true}]}' > "build/fuzz/corpus/$1/rules.json" ;;
    fuzz_node_topology) seed "$1" "$shared"/data/nvidia_smi_topo/*.txt "$shared"/data/nccl_topo_xml/*.xml \
      "$shared"/data/hwloc_xml/hwloc_power8_4xP100_nvlink.xml ;;
    fuzz_hwloc_xml) seed "$1" "$shared"/data/hwloc_xml/*.xml ;;
    fuzz_nccl_topo_xml) seed "$1" "$shared"/data/nccl_topo_xml/*.xml ;;
    fuzz_training_log) seed "$1" "$shared"/data/training_logs/*.log "$shared"/data/training_logs/*.log.gz \
      tests/data/training_logs/*.txt ;;
    fuzz_launcher_config) seed "$1" "$shared"/data/launcher_configs/*.sh "$shared"/data/launcher_configs/*.toml \
      "$shared"/data/launcher_configs/*.json ;;
  esac
}
summary=()
for target in "${targets[@]}"; do
  seed_all "$target"
  log="build/fuzz/$target.log"
  mkdir -p "build/fuzz/artifacts/$target"
  echo "== $target (${limit[*]})"
  start=$(date +%s)
  "build/fuzz/tests/fuzz/$target" "${limit[@]}" -max_len="${FUZZ_MAX_LEN:-262144}" -rss_limit_mb=4096 -timeout="${FUZZ_TIMEOUT:-25}" \
    -artifact_prefix="build/fuzz/artifacts/$target/" -print_final_stats=1 "build/fuzz/corpus/$target" \
    > "$log" 2>&1 || {
    tail -40 "$log"
    echo "$target failed: see $log; the input is in build/fuzz/artifacts/$target/" >&2
    exit 1
  }
  seconds=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
  # libFuzzer's last status line: "#1000000 DONE cov: 1234 ft: 5678 corp: ..."
  coverage=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || echo "cov: ? ft: ?")
  echo "$target: $execs executions, $coverage, ${seconds} s, peak RSS ${rss} MB"
  summary+=("$(printf '%-20s %10s  %-22s %6s s  %5s MB' "$target" "$execs" "$coverage" "$seconds" "$rss")")
done
if [ "$long" = 1 ] || [ ${#targets[@]} -gt 1 ]; then
  echo "== summary (target, executions, coverage, wall time, peak RSS)"
  printf '%s\n' "${summary[@]}"
fi
