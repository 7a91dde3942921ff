// Scale of the topology pipeline on a 16,384-GPU cluster (2,048 DGX H100 nodes): generate, index,
// route, place a layout and plan its communication. Run:
//   cmake --preset release -DMESHSCOPE_BUILD_BENCH=ON && cmake --build --preset release
//   build/release/bench/meshscope_bench
#include <benchmark/benchmark.h>

#include "core/comm/comm_plan.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/summary.hpp"

namespace {

using namespace meshscope;

constexpr const char* kSpec = "dgx-h100:nodes=2048";

const Cluster& big_cluster() {
  static const Cluster cluster = *generate_cluster(kSpec);
  return cluster;
}

Layout big_layout() {
  Layout l;
  l.tp = 8;
  l.pp = 16;
  l.dp = 128;
  l.sp = true;
  return l;
}

void generate_16k(benchmark::State& state) {
  for (auto _ : state) {
    auto cluster = generate_cluster(kSpec);
    benchmark::DoNotOptimize(cluster->devices.data());
  }
  state.counters["gpus"] = static_cast<double>(big_cluster().num_gpus());
  state.counters["links"] = static_cast<double>(big_cluster().links.size());
}
BENCHMARK(generate_16k)->Unit(benchmark::kMillisecond);

void router_16k(benchmark::State& state) {
  for (auto _ : state) {
    Router router(big_cluster());
    benchmark::DoNotOptimize(&router);
  }
}
BENCHMARK(router_16k)->Unit(benchmark::kMillisecond);

void route_all_ring_neighbours_16k(benchmark::State& state) {
  const Cluster& c = big_cluster();
  const Router router(c);
  for (auto _ : state) {
    for (size_t i = 0; i + 1 < c.gpus.size(); ++i) benchmark::DoNotOptimize(router.route(c.gpus[i], c.gpus[i + 1]));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(c.gpus.size() - 1));
}
BENCHMARK(route_all_ring_neighbours_16k)->Unit(benchmark::kMillisecond);

void place_16k(benchmark::State& state) {
  const Router router(big_cluster());
  for (auto _ : state) benchmark::DoNotOptimize(place_layout(big_layout(), big_cluster(), router));
}
BENCHMARK(place_16k)->Unit(benchmark::kMillisecond);

// Load, route and place: the "well under a second" figure.
void load_route_place_16k(benchmark::State& state) {
  for (auto _ : state) {
    auto cluster = generate_cluster(kSpec);
    const Router router(*cluster);
    auto placement = place_layout(big_layout(), *cluster, router);
    benchmark::DoNotOptimize(placement->axes.data());
  }
}
BENCHMARK(load_route_place_16k)->Unit(benchmark::kMillisecond);

void comm_plan_16k(benchmark::State& state) {
  const Router router(big_cluster());
  const auto placement = place_layout(big_layout(), big_cluster(), router);
  const ModelSpec model = *model_preset("llama3.1-405b");
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 2048;
  for (auto _ : state)
    benchmark::DoNotOptimize(plan_communication(model, w, big_layout(), big_cluster(), router, *placement));
}
BENCHMARK(comm_plan_16k)->Unit(benchmark::kMillisecond);

void bisection_16k(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(summarize_cluster(big_cluster()));
}
BENCHMARK(bisection_16k)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
