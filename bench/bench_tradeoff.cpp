// The trade-off explorer's update (issue 17: "fast enough to follow a slider live"): one curve of 16 values
// along an axis of the default project (Llama-3.1-70B on 8 DGX H100, TP 8 × PP 4 × v 5 × DP 2), every point a
// full evaluate_project (memory budget, placement, communication plan, the schedule's event simulation). The
// cluster cache is kept across updates as the view keeps it. Target: under 100 ms per update.
#include <benchmark/benchmark.h>

#include <string>

#include "core/project/project.hpp"
#include "core/session/tradeoff.hpp"

namespace {

using namespace meshscope;

void run(benchmark::State& state, TradeoffAxis axis, const std::string& values_text) {
  const Project project = *default_project();
  const auto values = *parse_tradeoff_values(axis, values_text);
  ClusterCache cache;
  int64_t points = 0;
  for (auto _ : state) {
    auto curve = tradeoff_curve(project, axis, values, cache);
    points += static_cast<int64_t>(curve->points.size());
    benchmark::DoNotOptimize(curve->points.data());
  }
  state.counters["points"] = static_cast<double>(points) / static_cast<double>(state.iterations());
}

// Global batch 64, 128, ..., 1,024 sequences: 32 to 512 micro-batches per step through interleaved 1F1B.
void tradeoff_gbs_16_values(benchmark::State& state) {
  run(state, TradeoffAxis::gbs, "64,128,192,256,320,384,448,512,576,640,704,768,832,896,960,1024");
}
BENCHMARK(tradeoff_gbs_16_values)->Unit(benchmark::kMillisecond)->UseRealTime();

// Sequence length 1,024 to 16,384 tokens in steps of 1,024 (memory and the attention's quadratic term).
void tradeoff_seq_16_values(benchmark::State& state) {
  run(state, TradeoffAxis::seq,
      "1024,2048,3072,4096,5120,6144,7168,8192,9216,10240,11264,12288,13312,14336,15360,16384");
}
BENCHMARK(tradeoff_seq_16_values)->Unit(benchmark::kMillisecond)->UseRealTime();

// TP 1 to 16: the invalid values (not dividing 64 GPUs, past the 8 KV heads) cost only the validation.
void tradeoff_tp_16_values(benchmark::State& state) {
  run(state, TradeoffAxis::tp, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16");
}
BENCHMARK(tradeoff_tp_16_values)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

namespace {

// The heat map's default TP × PP grid of the default project: 7 × 7 cells, most of them gaps.
void tradeoff_grid_tp_pp_7x7(benchmark::State& state) {
  const Project project = *default_project();
  const auto xs = default_tradeoff_values(project, TradeoffAxis::tp);
  const auto ys = default_tradeoff_values(project, TradeoffAxis::pp);
  ClusterCache cache;
  for (auto _ : state) {
    auto grid = tradeoff_grid(project, TradeoffAxis::tp, xs, TradeoffAxis::pp, ys, cache);
    benchmark::DoNotOptimize(grid->cells.data());
  }
  state.counters["cells"] = static_cast<double>(xs.size() * ys.size());
}
BENCHMARK(tradeoff_grid_tp_pp_7x7)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
