// Layout search speed: candidates evaluated per second (the target: ≥ 1,000,000 per
// second per core, and the whole Llama-3.1-405B search on 16,384 H100s in under a second).
#include <benchmark/benchmark.h>

#include "core/model/catalogue.hpp"
#include "core/search/search.hpp"
#include "core/topology/generators.hpp"

namespace {

using namespace meshscope;

// The benchmark's argument is the search's thread count (SearchOptions::threads; 0: every core).
void run(benchmark::State& state, const char* model_name, const char* cluster_spec, int64_t seq, int64_t batch) {
  const ModelSpec model = *model_preset(model_name);
  const Cluster cluster = *generate_cluster(cluster_spec);
  TrainingWorkload w;
  w.seq_len = seq;
  w.global_batch = batch;
  SearchOptions options;
  options.threads = static_cast<int>(state.range(0));
  int64_t evaluated = 0;
  for (auto _ : state) {
    auto result = rank_layouts(model, w, cluster, options);
    evaluated += result->evaluated;
    benchmark::DoNotOptimize(result->layouts.data());
  }
  state.counters["candidates"] = static_cast<double>(evaluated) / static_cast<double>(state.iterations());
  state.counters["candidates_per_s"] = benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
}

// Llama-3.1-405B, seq 8192, 16 M tokens per step (2,048 sequences), 2,048 DGX H100 nodes.
void search_405b_16k_h100(benchmark::State& state) {
  run(state, "llama3.1-405b", "dgx-h100:nodes=2048", 8192, 2048);
}
BENCHMARK(search_405b_16k_h100)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Megatron's 1T model (SC21 Table 1) on 3,072 A100s, batch 3,072 × 2,048.
void search_1t_3072_a100(benchmark::State& state) {
  run(state, "megatron-gpt-1008b", "dgx-a100:nodes=384", 2048, 3072);
}
BENCHMARK(search_1t_3072_a100)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// GPT-3 175B on 1,024 A100s (128 DGX A100), sequence 2,048, 1,536 sequences a step (SC21 Table 1's
// run), under `any` and under Megatron-LM's table (framework.hpp).
void search_gpt3_1024_a100(benchmark::State& state) {
  run(state, "gpt3-175b", "dgx-a100:nodes=128", 2048, 1536);
}
BENCHMARK(search_gpt3_1024_a100)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
