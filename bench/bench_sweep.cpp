// Sweep throughput: points per second of bench/sweep_1000.json (2 models × 10 clusters, DGX H100
// and DGX A100 of 1 to 5 nodes × 25 workloads, seq 1,024–16,384 by global batch 16–256 × 2
// objectives: 1,000 full ranked searches) on 2 threads (and 1), lines in point order as the CLI writes them.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "core/session/sweep.hpp"

namespace {

using namespace meshscope;

void sweep_1000_points(benchmark::State& state) {
  std::ifstream file(MESHSCOPE_SOURCE_DIR "/bench/sweep_1000.json");
  std::ostringstream text;
  text << file.rdbuf();
  auto spec = parse_sweep_spec_text(text.str());
  if (!spec) {
    state.SkipWithError(spec.error().to_string().c_str());
    return;
  }
  auto plan = plan_sweep(*spec);
  if (!plan) {
    state.SkipWithError(plan.error().to_string().c_str());
    return;
  }
  SweepRunOptions options;
  options.threads = static_cast<int>(state.range(0));
  int64_t points = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    run_sweep_points(*plan, plan->points, options, [&](const std::string& line) {
      ++points;
      bytes += line.size();
    });
  }
  state.counters["points"] = static_cast<double>(plan->points.size());
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(points), benchmark::Counter::kIsRate);
  benchmark::DoNotOptimize(bytes);
}
BENCHMARK(sweep_1000_points)
    ->ArgName("threads")
    ->Arg(2)
    ->Arg(1)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
