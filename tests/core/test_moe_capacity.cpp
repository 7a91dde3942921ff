// Token dropping with padded experts (the --train key moe_capacity_factor: Megatron's
// --moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity, the all-to-all
// dispatcher's drop_and_pad path in megatron/core/transformer/moe/token_dispatcher.py): every
// expert computes its capacity, factor × its balanced share of the routed tokens, the all-to-alls
// carry as many rows, and the shapes are static — no device-to-host copy of the splits, so CUDA
// graphs capture the whole MoE layer.
#include <catch2/catch.hpp>
#include <string>

#include "core/estimate/compute.hpp"
#include "core/estimate/step.hpp"
#include "core/keys/options.hpp"
#include "core/memory/activations.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/routing.hpp"
#include "operations_support.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;
using meshscope::test::operation;

namespace {

// Megatron-Bridge's Qwen3-30B-A3B layout on one DGX B200: EP 8 over DP 8.
Layout qwen_layout() {
  Layout l;
  l.dp = 8;
  l.ep = 8;
  return l;
}

TrainingWorkload qwen_workload(double factor) {
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 64;
  w.moe_capacity_factor = factor;
  return w;
}

}  // namespace

TEST_CASE("moe_capacity_factor: the experts compute and exchange their padded capacity") {
  const ModelSpec m = *model_preset("qwen3-30b-a3b");
  const Layout l = qwen_layout();
  const GpuSpec gpu = *find_gpu("b200");
  const ComputeEfficiency efficiency;
  const TrainingWorkload dropless = qwen_workload(0), padded = qwen_workload(1.25);
  const auto dropless_ops = layer_operations({m, dropless, l, gpu, efficiency}, 0);
  const auto padded_ops = layer_operations({m, padded, l, gpu, efficiency}, 0);
  // The experts' GEMMs run 1.25 × the balanced rows (tokens × top-k over the local experts).
  for (const std::string name : {"moe: experts gate and up projections", "moe: experts down projection"})
    CHECK_THAT(operation(padded_ops, name).flops, WithinRel(1.25 * operation(dropless_ops, name).flops, 1e-12));
  // The router and the attention see every token once either way.
  CHECK(operation(padded_ops, "moe: router").flops == operation(dropless_ops, "moe: router").flops);

  // The all-to-alls: 1.25 × the bytes per call.
  auto cluster = generate_cluster("dgx-b200:nodes=1");
  REQUIRE(cluster);
  const Router router(*cluster);
  const auto ep_bytes = [&](const TrainingWorkload& w) {
    auto e = estimate_step(m, w, l, *cluster, router);
    REQUIRE(e);
    for (const auto& axis : e->comm.axes)
      if (axis.axis == MeshAxis::ep) return axis.collectives.front().bytes;
    FAIL("no EP axis");
    return 0.0;
  };
  CHECK_THAT(ep_bytes(padded), WithinRel(1.25 * ep_bytes(dropless), 1e-12));

  // The routed activations: 1.25 × the dispatched inputs [tokens · k, h] a layer saves.
  ActivationConfig c = ActivationConfig::from(dropless, m, l);
  ActivationConfig cp = c;
  cp.routed_token_factor = 1.25;
  const double h = static_cast<double>(m.hidden_size), k = static_cast<double>(m.moe.top_k);
  const SavedTensor dispatched{"moe: dispatched expert inputs", 2 * k * h, TensorSplit::expert_routed};
  CHECK_THAT(tensor_bytes_on_rank(dispatched, cp), WithinRel(1.25 * 4096 * k * h * 2, 1e-12));
  const MemoryBudget lean = training_memory(m, dropless, l, gpu), fat = training_memory(m, padded, l, gpu);
  CHECK(fat.ranks.front().total_bytes() > lean.ranks.front().total_bytes());
}

TEST_CASE("moe_capacity_factor: static shapes let CUDA graphs replay the whole MoE layer") {
  const ModelSpec m = *model_preset("qwen3-30b-a3b");
  const Layout l = qwen_layout();
  const GpuSpec gpu = *find_gpu("b200");
  const ComputeEfficiency efficiency;
  TrainingWorkload dropless = qwen_workload(0), padded = qwen_workload(1);
  dropless.cuda_graphs = padded.cuda_graphs = true;
  // Dropless: the splits come back to the host every layer, so the experts, routing and
  // permutations stay eager; padded: none of the layer's operations is dispatched by the host.
  double eager = 0, graphed = 0;
  for (const auto& op : layer_operations({m, dropless, l, gpu, efficiency}, 0)) eager += op.host_forward_s;
  for (const auto& op : layer_operations({m, padded, l, gpu, efficiency}, 0)) graphed += op.host_forward_s;
  CHECK(eager > 0);
  CHECK(graphed == 0);
  auto cluster = generate_cluster("dgx-b200:nodes=1");
  REQUIRE(cluster);
  const Router router(*cluster);
  auto e = estimate_step(m, padded, l, *cluster, router);
  REQUIRE(e);
  bool stated = false;
  for (const auto& a : e->assumptions)
    stated = stated || (a.find("moe_capacity_factor=1") == 0 && a.find("whole MoE layer") != std::string::npos);
  CHECK(stated);
}

TEST_CASE("moe_capacity_factor: the key, and the dispatcher it needs") {
  auto w = training_from_keys({{"moe_capacity_factor", "1.25"}});
  REQUIRE(w);
  CHECK(w->moe_capacity_factor == 1.25);
  CHECK(training_from_keys({})->moe_capacity_factor == 0);
  auto flex = training_from_keys({{"moe_capacity_factor", "1"}, {"moe_dispatcher", "flex"}});
  REQUIRE_FALSE(flex);
  CHECK_THAT(flex.error().to_string(), Contains("moe_dispatcher=alltoall"));
  CHECK_FALSE(training_from_keys({{"moe_capacity_factor", "-1"}}));
  CHECK_FALSE(training_from_keys({{"moe_capacity_factor", "much"}}));
}
