// Host dispatch (docs/estimate.md, "Fixed costs that dominate small models"): the two host costs
// measured on the shared profiler traces with the trace importer, the ops each operation counts
// from its framework's source, where a pass over a layer becomes host-bound, what CUDA graphs
// remove, and the grouped expert GEMMs (one GEMM per local expert).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "core/estimate/compute.hpp"
#include "core/estimate/step.hpp"
#include "core/importers/kineto.hpp"
#include "core/keys/options.hpp"
#include "core/model/catalogue.hpp"
#include "core/search/search.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/routing.hpp"
#include "kineto_test_support.hpp"
#include "operations_support.hpp"

using namespace meshscope;
using meshscope::test::operation;
using namespace meshscope::test::kineto;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

struct Setup {
  ModelSpec model;
  TrainingWorkload workload;
  Layout layout;
  GpuSpec gpu;
  ComputeEfficiency efficiency;
  [[nodiscard]] ComputeContext context() const { return {model, workload, layout, gpu, efficiency}; }
};

// Megatron-Bridge's Qwen3-30B-A3B setting on 8 × B200 (EP 8, micro-batch 1, sequence 4096, FP8).
Setup qwen3_moe() {
  Setup s{*model_preset("qwen3-30b-a3b"), {}, {}, *find_gpu("b200"), {}};
  s.workload.seq_len = 4096;
  s.workload.compute_dtype = DType::fp8;
  s.layout.dp = 8;
  s.layout.ep = 8;
  s.layout.micro_batch = 1;
  return s;
}

int64_t first_moe_layer(const ModelSpec& m) {
  int64_t layer = 0;
  while (layer < m.num_layers && !m.is_moe_layer(layer)) ++layer;
  return layer;
}

}  // namespace

TEST_CASE("host dispatch: the default host costs are the ones measured on the shared A100 trace", "[host]") {
  // hta_rank0_ws16_A100-SXM4-80GB (HolisticTraceAnalysis test data, MANIFEST.md): the thread
  // that launched the most kernels, its median launch-to-launch interval and launch call.
  const auto a100 = kineto_host_dispatch(shared_trace("hta_rank0_ws16_A100-SXM4-80GB.json.gz"));
  REQUIRE(a100);
  CHECK(a100->kernels > 1000);
  const ComputeEfficiency defaults;
  CHECK_THAT(a100->median_interval_us, WithinAbs(defaults.host_op_us, 0.5));
  CHECK_THAT(a100->median_launch_us, WithinAbs(defaults.host_kernel_us, 0.5));
  // A V100 trace of another job issues at the same order (tens of µs per op, a few per launch).
  // (hta_rank1_ws2_V100_with_memory_events is not one to compare: profile_memory=1 records an
  // event per allocation on the issuing thread, 74 µs between its launches.)
  for (const char* name : {"hta_rank-0_V100_ns_resolution.pt.trace.json.gz"}) {
    const auto v100 = kineto_host_dispatch(shared_trace(name));
    REQUIRE(v100);
    INFO(name);
    CHECK(v100->median_interval_us > 10);
    CHECK(v100->median_interval_us < 50);
    CHECK(v100->median_launch_us > 2);
    CHECK(v100->median_launch_us < 10);
    std::printf("[fidelity] host dispatch %-48s %6lld kernels on %s: median interval %.1f us, launch %.1f us\n", name,
                static_cast<long long>(v100->kernels), v100->thread.c_str(), v100->median_interval_us,
                v100->median_launch_us);
  }
  // A trace without kernels has nothing to measure.
  CHECK_FALSE(kineto_host_dispatch(shared_trace("hta_cpu_only_rank-34_ws300_gloo.pt.trace.json.gz")));
}

TEST_CASE("host dispatch: --efficiency sets the host costs in microseconds", "[host]") {
  auto keys = split_key_values("host_op_us=35,host_kernel_us=6", "--efficiency");
  REQUIRE(keys);
  auto e = compute_efficiency_from_keys(*keys);
  REQUIRE(e);
  CHECK(e->host_op_us == 35);
  CHECK(e->host_kernel_us == 6);
  auto bad = split_key_values("host_op_us=-1", "--efficiency");
  REQUIRE(bad);
  CHECK_FALSE(compute_efficiency_from_keys(*bad));
}

TEST_CASE("host dispatch: a Grace host takes 2.75x an x86 host's time per framework op", "[host]") {
  // NVIDIA/TransformerEngine issue #2053 (2025-08-11): one torch.nn.Linear forward (BF16, hidden
  // 2048, 8192 tokens) took 37.08 µs of CPU time on GB200 and 13.48 µs on DGX H100 (Xeon Platinum
  // 8480C), the same script and PyTorch on both.
  const double grace = 37.08 / 13.48;
  CHECK_THAT(host_cpu_op_time_ratio("NVIDIA Grace"), WithinRel(grace, 1e-12));
  CHECK_THAT(host_cpu_op_time_ratio("Neoverse-V2"), WithinRel(grace, 1e-12));  // hwloc's name for its cores
  CHECK(host_cpu_op_time_ratio("Intel Xeon Platinum 8480C") == 1.0);
  CHECK(host_cpu_op_time_ratio("AMD EPYC 7742") == 1.0);
  CHECK(host_cpu_op_time_ratio("") == 1.0);

  const ComputeEfficiency defaults;
  const ComputeEfficiency on_grace = on_host_cpu(defaults, "NVIDIA Grace");
  CHECK_THAT(on_grace.host_op_us, WithinRel(defaults.host_op_us * grace, 1e-12));
  CHECK_THAT(on_grace.host_kernel_us, WithinRel(defaults.host_kernel_us * grace, 1e-12));
  CHECK(on_grace.host_cpu == "NVIDIA Grace");
  CHECK(on_host_cpu(defaults, "Intel Xeon Platinum 8570").host_op_us == defaults.host_op_us);
  // Costs a user gave with --efficiency are their own host's: not scaled.
  auto keys = split_key_values("host_op_us=35", "--efficiency");
  REQUIRE(keys);
  auto given = compute_efficiency_from_keys(*keys);
  REQUIRE(given);
  CHECK(on_host_cpu(*given, "NVIDIA Grace").host_op_us == 35);
}

TEST_CASE("host dispatch: the step and the search charge the Grace hosts of a GB200 rack", "[host]") {
  // Qwen3-30B-A3B, EP 8, micro-batch 1 (host-bound, as above) on one GB200 NVL72 rack and on nine
  // DGX B200 nodes (x86): the same GPU work; the step's layer forward is host-bound on both, 2.75×
  // longer on Grace. The ranked search's fast model charges the same hosts.
  const ModelSpec m = *model_preset("qwen3-30b-a3b");
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 72 * 4;
  w.compute_dtype = DType::fp8;
  Layout l;
  l.dp = 72;
  l.ep = 8;
  l.micro_batch = 1;
  double host_forward[2] = {0, 0};
  int index = 0;
  for (const char* generator : {"dgx-b200:nodes=9", "gb200-nvl72:racks=1"}) {
    auto cluster = generate_cluster(generator);
    REQUIRE(cluster);
    const Router router(*cluster);
    auto e = estimate_step(m, w, l, *cluster, router);
    REQUIRE(e);
    for (const auto& op : e->operations) host_forward[index] += op.host_forward_s;
    bool stated = false;
    for (const auto& a : e->assumptions) stated = stated || a.find("NVIDIA Grace") != std::string::npos;
    CHECK(stated == (index == 1));
    ++index;
  }
  CHECK_THAT(host_forward[1], WithinRel(host_forward[0] * 37.08 / 13.48, 1e-9));

  // The ranked search's fast model charges the same host: its candidates agree with the step on
  // the nine B200 nodes drawn with Grace hosts (they would not if only one of the two charged
  // Grace's host time: the layer forward is host-bound).
  auto rack = generate_cluster("dgx-b200:nodes=9");
  REQUIRE(rack);
  for (Device& d : rack->devices)
    if (d.kind == DeviceKind::cpu) d.name = "NVIDIA Grace";
  const Router router(*rack);
  SearchOptions options;
  options.top = 5;
  auto r = rank_layouts(m, w, *rack, options);
  REQUIRE(r);
  REQUIRE_FALSE(r->layouts.empty());
  for (const auto& candidate : r->layouts) {
    TrainingWorkload cw = w;
    cw.recompute = candidate.recompute;
    cw.zero_stage = candidate.zero_stage;
    cw.tp_comm_overlap = candidate.tp_comm_overlap;
    cw.schedule = candidate.schedule;
    EstimateOptions e;
    e.order = candidate.order;
    auto detailed = estimate_step(m, cw, candidate.layout, *rack, router, e);
    REQUIRE(detailed);
    CHECK_THAT(candidate.step_time_s, WithinRel(detailed->step_time_s, 0.05));
  }
}

TEST_CASE("host dispatch: a grouped expert GEMM is one call launching a GEMM per local expert", "[host]") {
  Setup s = qwen3_moe();
  const auto ops = layer_operations(s.context(), first_moe_layer(s.model));
  const OperationCost& up = operation(ops, "moe: experts gate and up projections");
  // 128 experts over EP 8: 16 local experts. Forward: one module call, 15 further GEMMs and an
  // FP8 cast of each expert's input; backward: one call, 31 further GEMMs (input and weight
  // gradients of 16) and a cast of each output gradient.
  const double experts = 128.0 / 8.0;
  const ComputeEfficiency& e = s.efficiency;
  CHECK_THAT(up.host_forward_s, WithinRel((e.host_op_us + (experts - 1 + experts) * e.host_kernel_us) * 1e-6, 1e-12));
  CHECK_THAT(up.host_backward_s,
             WithinRel((e.host_op_us + (2 * experts - 1 + experts) * e.host_kernel_us) * 1e-6, 1e-12));
  // Without FP8 no casts.
  s.workload.compute_dtype = DType::bf16;
  const OperationCost& bf16 =
      operation(layer_operations(s.context(), first_moe_layer(s.model)), "moe: experts gate and up projections");
  CHECK_THAT(bf16.host_forward_s, WithinRel((e.host_op_us + (experts - 1) * e.host_kernel_us) * 1e-6, 1e-12));
}

TEST_CASE("host dispatch: fine-grained MoE at micro-batch 1 is host-bound, a 70B dense layer is not", "[host]") {
  {
    const Setup s = qwen3_moe();
    const int64_t layer = first_moe_layer(s.model);
    double gpu = 0, host = 0;
    for (const auto& op : layer_operations(s.context(), layer)) {
      gpu += op.forward_s;
      host += op.host_forward_s;
    }
    CHECK(host > gpu);
    CHECK_THAT(layer_compute(s.context(), layer, false).forward_s, WithinRel(host, 1e-12));
  }
  {
    Setup s{*model_preset("llama3.1-70b"), {}, {}, *find_gpu("h100-sxm"), {}};
    s.workload.seq_len = 8192;
    s.layout.tp = 8;
    s.layout.sp = true;
    double gpu = 0, host = 0;
    for (const auto& op : layer_operations(s.context(), 0)) {
      gpu += op.forward_s;
      host += op.host_forward_s;
    }
    CHECK(host > 0);
    CHECK(host < 0.1 * gpu);
    CHECK_THAT(layer_compute(s.context(), 0, false).forward_s, WithinRel(gpu, 1e-12));
  }
}

TEST_CASE("host dispatch: CUDA graphs replay dense layers and a dropless MoE layer's attention", "[host]") {
  Setup s = qwen3_moe();
  s.workload.cuda_graphs = true;
  const auto ops = layer_operations(s.context(), first_moe_layer(s.model));
  CHECK(operation(ops, "attention: QKV projection").host_forward_s == 0);
  CHECK(operation(ops, "attention: core (FlashAttention)").host_backward_s == 0);
  // The routed token counts are known only at run time: routing, dispatch and experts stay eager.
  CHECK(operation(ops, "moe: router").host_forward_s > 0);
  CHECK(operation(ops, "moe: token permutation and unpermutation").host_forward_s > 0);
  CHECK(operation(ops, "moe: experts down projection").host_backward_s > 0);

  Setup dense{*model_preset("llama3.1-8b"), {}, {}, *find_gpu("h100-sxm"), {}};
  dense.workload.cuda_graphs = true;
  for (const auto& op : layer_operations(dense.context(), 0)) {
    INFO(op.name);
    CHECK(op.host_forward_s == 0);
    CHECK(op.host_backward_s == 0);
  }
  // The key round-trips through the project's key list.
  auto keys = split_key_values("cuda_graphs=1", "--train");
  REQUIRE(keys);
  auto w = training_from_keys(*keys);
  REQUIRE(w);
  CHECK(w->cuda_graphs);
  auto again = training_from_keys(training_to_keys(*w));
  REQUIRE(again);
  CHECK(again->cuda_graphs);
  CHECK_FALSE(TrainingWorkload{}.cuda_graphs);
}

// Megatron-Core's --cuda-graph-scope moe_router moe_preprocess (cuda_graph_moe_router): the router
// module and the dispatcher's preprocess replay from graphs; what stays eager is counted op by op.
TEST_CASE("host dispatch: cuda_graph_moe_router also replays the router and the dispatch preprocessing", "[host]") {
  Setup s = qwen3_moe();
  s.workload.cuda_graphs = true;
  const int64_t layer = first_moe_layer(s.model);
  const auto eager = layer_operations(s.context(), layer);
  s.workload.cuda_graph_moe_router = true;
  const auto graphed = layer_operations(s.context(), layer);
  const ComputeEfficiency& e = s.efficiency;
  CHECK(operation(graphed, "moe: router").host_forward_s == 0);
  CHECK(operation(graphed, "moe: router").host_backward_s == 0);
  CHECK(operation(graphed, "moe: routing (softmax, top-k, load-balancing loss)").host_forward_s == 0);
  CHECK(operation(eager, "moe: routing (softmax, top-k, load-balancing loss)").host_forward_s > 0);
  // MoEAlltoAllTokenDispatcher.preprocess with EP > 1 launches 8 ops: routing_map.sum, .long(), the
  // input splits' sum, the counts' all-gather, the local experts' contiguous slice and three sums.
  const std::string dispatch = "moe: token permutation and unpermutation";
  CHECK_THAT(operation(eager, dispatch).host_forward_s - operation(graphed, dispatch).host_forward_s,
             WithinRel(8 * e.host_op_us * 1e-6, 1e-9));
  CHECK(operation(graphed, dispatch).host_backward_s == operation(eager, dispatch).host_backward_s);
  // The experts stay eager (their token counts are known only at run time).
  CHECK(operation(graphed, "moe: experts down projection").host_forward_s ==
        operation(eager, "moe: experts down projection").host_forward_s);
  // Without cuda_graphs the key changes nothing.
  s.workload.cuda_graphs = false;
  const auto none = layer_operations(s.context(), layer);
  CHECK(operation(none, "moe: router").host_forward_s > 0);
  CHECK(operation(none, dispatch).host_forward_s == operation(eager, dispatch).host_forward_s);
  // The key round-trips through the project's key list.
  auto keys = split_key_values("cuda_graphs=1,cuda_graph_moe_router=1", "--train");
  REQUIRE(keys);
  auto w = training_from_keys(*keys);
  REQUIRE(w);
  CHECK(w->cuda_graph_moe_router);
  auto again = training_from_keys(training_to_keys(*w));
  REQUIRE(again);
  CHECK(again->cuda_graph_moe_router);
  CHECK_FALSE(TrainingWorkload{}.cuda_graph_moe_router);
}

TEST_CASE("moe: the experts' FLOPs do not depend on EP, their GEMMs shrink with more local experts") {
  Setup s = qwen3_moe();
  const int64_t layer = first_moe_layer(s.model);
  const auto at = [&](int64_t ep) {
    s.layout.ep = ep;
    s.layout.dp = 8;
    return operation(layer_operations(s.context(), layer), "moe: experts gate and up projections");
  };
  const OperationCost ep8 = at(8), ep1 = at(1);
  CHECK_THAT(ep1.flops, WithinRel(ep8.flops, 1e-12));
  // EP 1: 128 GEMMs of 4096 · 8 / 128 = 256 rows each; EP 8: 16 of 2048 rows: smaller GEMMs run
  // further below the rate (wave quantisation, the kernel floor).
  CHECK(ep1.forward_s > ep8.forward_s);
  CHECK(ep1.backward_weight_s > ep8.backward_weight_s);
}

TEST_CASE("moe: token permutation moves the routed rows through both permutations and back") {
  Setup s = qwen3_moe();
  const int64_t layer = first_moe_layer(s.model);
  const auto& op = operation(layer_operations(s.context(), layer), "moe: token permutation and unpermutation");
  // token_dispatcher.py with EP 8 and 16 local experts: permutation 1 and 2 forward and their
  // inverses read and write the 4096 · 8 routed rows of 2048 BF16 values (7 row passes with the
  // unpermute's read), and the unpermute writes one row per token.
  const double rows = 4096.0 * 8 * 2048 * 2;
  CHECK_THAT(op.bytes, WithinRel(7 * rows + 4096.0 * 2048 * 2, 1e-12));
  // Without EP there is no all-to-all and no second permutation.
  s.layout.ep = 1;
  const auto& local = operation(layer_operations(s.context(), layer), "moe: token permutation and unpermutation");
  CHECK_THAT(local.bytes, WithinRel(3 * rows + 4096.0 * 2048 * 2, 1e-12));
}

TEST_CASE("eager kernels: PyTorch's RMSNorm and torchtitan's RoPE composites move more bytes than fused kernels") {
  // Llama 3 8B, one rank, sequence 8192: per token, the two RMSNorms of a block move 28 + 4e bytes
  // per element eagerly against 2e fused (aten rms_norm_symint's upcast, pow, mean, products and
  // casts), the rotation of q and k 16 + 2e against 2e (float(), complex product, type_as).
  Setup s{*model_preset("llama3-8b"), {}, {}, *find_gpu("h100-sxm"), {}};
  s.workload.seq_len = 8192;
  const std::string name = "element-wise: norms, residuals, activation, RoPE";
  const double fused = operation(layer_operations(s.context(), 0), name).bytes;
  s.workload.eager_kernels = true;
  const auto eager_ops = layer_operations(s.context(), 0);
  const double eager = operation(eager_ops, name).bytes;
  const double e = 2, h = 4096, rotated = 4096 + 1024;
  CHECK_THAT(eager - fused, WithinRel(8192 * (2 * (28 + 4 * e - 2 * e) * h + 16 * rotated), 1e-12));
  CHECK(operation(eager_ops, name).host_forward_s >
        operation(layer_operations(s.context(), 0), name).host_forward_s * 0.99);  // at least as many ops
  auto keys = split_key_values("kernels=eager", "--train");
  REQUIRE(keys);
  auto w = training_from_keys(*keys);
  REQUIRE(w);
  CHECK(w->eager_kernels);
  auto again = training_from_keys(training_to_keys(*w));
  REQUIRE(again);
  CHECK(again->eager_kernels);
  auto bad = split_key_values("kernels=compiled", "--train");
  REQUIRE(bad);
  CHECK_FALSE(training_from_keys(*bad));
}
