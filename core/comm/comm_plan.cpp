#include "core/comm/comm_plan.hpp"

#include <algorithm>
#include <cmath>

#include "core/comm/link_load.hpp"
#include "core/memory/memory.hpp"

namespace meshscope {
namespace {

PlannedCollective planned(CollectiveOp op, std::string what, std::string source, double count, double bytes) {
  PlannedCollective c;
  c.op = op;
  c.what = std::move(what);
  c.source = std::move(source);
  c.count_per_step = count;
  c.bytes = bytes;
  return c;
}

struct AxisSpec {
  MeshAxis axis;
  std::vector<std::vector<int32_t>> groups;
  std::vector<PlannedCollective> collectives;
};

// FSDP's gathers in the backward of the stage's layers (the MoE layers only, for their experts):
// one per layer resharded after forward (torchtitan's policy, workload.hpp ReshardAfterForward), and
// one more under full recompute for the recomputed forward.
double fsdp_backward_gathers(const ModelSpec& m, const TrainingWorkload& w, const Layout& l, const StageParams& stage,
                             bool moe_layers_only) {
  double gathers = 0;
  for (int64_t i = 0; i < stage.layers; ++i) {
    const int64_t layer = stage.first_layer + i;
    if (moe_layers_only && !m.is_moe_layer(layer)) continue;
    if (reshards_after_forward(w.reshard_after_forward, l.pp > 1, layer == m.num_layers - 1))
      gathers += w.recompute == RecomputeMode::full ? 2.0 : 1.0;
  }
  return gathers;
}

// The busiest rank's step, from which every axis' volumes are computed: the stage with the most
// layers (the first, on ties), its micro-batches and the bytes of one micro-batch's hidden states.
struct StageTraffic {
  double e = 0;  // bytes per activation element
  double micro_batches = 0, seq = 0, mbs = 0, h = 0, tp = 0, cp = 0;
  StageParams stage;
  double layers = 0, moe_layers = 0;
  double activation_bytes = 0;  // one micro-batch's hidden states on a rank
};

StageTraffic busiest_stage_traffic(const ModelSpec& m, const TrainingWorkload& w, const Layout& l) {
  StageTraffic t;
  t.e = dtype_bytes(w.activation_dtype);
  t.micro_batches = static_cast<double>(std::max<int64_t>(num_micro_batches(w, l), 1));
  t.seq = static_cast<double>(w.seq_len);
  t.mbs = static_cast<double>(l.micro_batch);
  t.h = static_cast<double>(m.hidden_size);
  t.tp = static_cast<double>(l.tp);
  t.cp = static_cast<double>(l.cp);
  int64_t busiest = 0;
  const auto stage_layer_counts = layers_per_stage(m, l);
  for (size_t s = 0; s < stage_layer_counts.size(); ++s)
    if (stage_layer_counts[s] > stage_layer_counts[static_cast<size_t>(busiest)]) busiest = static_cast<int64_t>(s);
  t.stage = stage_params(m, l, busiest);
  t.layers = static_cast<double>(t.stage.layers);
  for (int64_t i = 0; i < t.stage.layers; ++i) t.moe_layers += m.is_moe_layer(t.stage.first_layer + i) ? 1 : 0;
  t.activation_bytes = t.seq * t.mbs * t.h * t.e / t.cp;
  return t;
}

// Tensor parallelism: the Megatron f/g all-reduces, or SP's all-gathers and reduce-scatters.
AxisSpec tp_axis(const AxisGroups& g, const TrainingWorkload& w, const Layout& l, const StageTraffic& t) {
  // Megatron SC21 §3.2: per layer, two all-reduces in forward (attention and MLP outputs) and
  // two in backward; with sequence parallelism (Korthikanti §4.2.2) each becomes an all-gather
  // plus a reduce-scatter of the same volume. Full recompute repeats the forward ones.
  const double forward_passes = w.recompute == RecomputeMode::full ? 2.0 : 1.0;
  const double per_layer_calls = 2.0 * forward_passes + 2.0;
  AxisSpec spec{MeshAxis::tp, g.groups, {}};
  if (l.sp) {
    // Under an FP8 or NVFP4 recipe the gathered inputs and output gradients travel quantised
    // (tp_gather_element_bytes, workload.hpp); the reduce-scatters stay 16-bit.
    spec.collectives.push_back(planned(CollectiveOp::all_gather,
                                       fp8_linears(w)
                                           ? "sequence-parallel all-gather (attention, MLP inputs; gathered quantised)"
                                           : "sequence-parallel all-gather (attention, MLP inputs)",
                                       "Korthikanti et al. 2022 §4.2.2", per_layer_calls * t.layers * t.micro_batches,
                                       t.activation_bytes / t.e * tp_gather_element_bytes(w)));
    spec.collectives.push_back(planned(CollectiveOp::reduce_scatter, "sequence-parallel reduce-scatter (block outputs)",
                                       "Korthikanti et al. 2022 §4.2.2", per_layer_calls * t.layers * t.micro_batches,
                                       t.activation_bytes));
  } else {
    spec.collectives.push_back(planned(CollectiveOp::all_reduce, "tensor-parallel all-reduce (attention, MLP outputs)",
                                       "Narayanan et al. SC21 §3.2 (Megatron f/g operators)",
                                       per_layer_calls * t.layers * t.micro_batches, t.activation_bytes));
  }
  return spec;
}

// Context parallelism: Ulysses' all-to-alls, PyTorch's all-gathered K/V, or the ring's exchanges.
AxisSpec cp_axis(const AxisGroups& g, const ModelSpec& m, const TrainingWorkload& w, const StageTraffic& t) {
  const double seq = t.seq, mbs = t.mbs, e = t.e, tp = t.tp, cp = t.cp, layers = t.layers;
  const double micro_batches = t.micro_batches;
  AxisSpec spec{MeshAxis::cp, g.groups, {}};
  const CpComm cp_comm = resolved_cp_comm(w);
  if (cp_comm == CpComm::all_to_all) {
    // DeepSpeed-Ulysses (Jacobs et al. 2023, §3): all-to-alls of Q, K, V before attention and of
    // the output after it, in forward and again in backward; each rank holds s/cp tokens of
    // its TP share of the heads.
    const double widths = static_cast<double>(2 * m.q_width() + 2 * m.kv_width()) / 4.0;
    const double bytes = seq / cp * mbs * widths * e / tp;
    const std::string source = "Jacobs et al. 2023 DeepSpeed-Ulysses §3";
    spec.collectives.push_back(planned(CollectiveOp::all_to_all, "Ulysses all-to-all of Q, K, V and output (forward)",
                                       source, 4 * layers * micro_batches, bytes));
    spec.collectives.push_back(planned(CollectiveOp::all_to_all,
                                       "Ulysses all-to-all of the gradients of Q, K, V and output (backward)", source,
                                       4 * layers * micro_batches, bytes));
  } else if (cp_comm == CpComm::torch) {
    // PyTorch's context_parallel (torch/distributed/tensor/experimental/_attention.py, default
    // _RotateMethod.ALL_GATHER): per layer, K and V — repeated to the query heads, as torchtitan
    // calls SDPA — all-gathered once in forward and again in backward (_AllGatherRotater); in
    // backward the fp32 dK/dV accumulators passed to the next rank after every step, cp times
    // (_AllToAllRotater, ft_c.permute_tensor), the last one waited for after the loop.
    const double kv_per_token = static_cast<double>(m.q_width() + m.attention_output_width()) / tp;
    const std::string source = "PyTorch torch/distributed/tensor/experimental/_attention.py (context_parallel)";
    spec.collectives.push_back(planned(CollectiveOp::all_gather, "ring-attention K/V all-gather (forward)", source,
                                       layers * micro_batches, seq * mbs * kv_per_token * e));
    spec.collectives.push_back(planned(CollectiveOp::all_gather, "ring-attention K/V all-gather (backward)", source,
                                       layers * micro_batches, seq * mbs * kv_per_token * e));
    spec.collectives.push_back(planned(CollectiveOp::send_recv, "ring-attention fp32 dK/dV exchange (backward)", source,
                                       cp * layers * micro_batches, seq / cp * mbs * kv_per_token * 4));
  } else {
    // Ring attention (Megatron-Core/Transformer Engine "p2p" context parallelism): per layer,
    // CP−1 exchanges of a K and V chunk in forward, and of K, V and their gradients in backward.
    const double kv_width =
        m.mla.enabled()
            ? static_cast<double>(m.num_heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim)) /
                  2.0
            : static_cast<double>(m.kv_width());
    const double chunk = 2.0 * seq / cp * mbs * kv_width * e / tp;
    spec.collectives.push_back(planned(CollectiveOp::send_recv, "ring-attention K/V exchange (forward)",
                                       "Liu et al. 2023 Ring Attention; Megatron-Core context parallelism",
                                       (cp - 1) * layers * micro_batches, chunk));
    spec.collectives.push_back(planned(CollectiveOp::send_recv, "ring-attention K/V and dK/dV exchange (backward)",
                                       "Liu et al. 2023 Ring Attention; Megatron-Core context parallelism",
                                       (cp - 1) * layers * micro_batches, 2 * chunk));
  }
  return spec;
}

// Pipeline parallelism: activations forward and gradients backward across every stage boundary.
AxisSpec pp_axis(const AxisGroups& g, const Layout& l, const StageTraffic& t) {
  // SC21 §4.1: each micro-batch crosses every stage boundary once forward (activations) and
  // once backward (gradients), per model chunk; the scatter/gather optimisation (or SP) sends
  // 1/t of the tensor per TP rank.
  const double chunks = static_cast<double>(l.vpp);
  const double bytes = t.activation_bytes / t.tp;
  AxisSpec spec{MeshAxis::pp, g.groups, {}};
  spec.collectives.push_back(planned(CollectiveOp::send_recv, "pipeline send/recv of activations (forward)",
                                     "Narayanan et al. SC21 §4.1", t.micro_batches * chunks, bytes));
  spec.collectives.push_back(planned(CollectiveOp::send_recv, "pipeline send/recv of gradients (backward)",
                                     "Narayanan et al. SC21 §4.1", t.micro_batches * chunks, bytes));
  return spec;
}

// Data parallelism (over DP × CP): the dense gradients' all-reduce, ZeRO's reduce-scatter and
// all-gather, or FSDP's per-layer gathers and reduce-scatters.
AxisSpec dp_axis(const ModelSpec& m, const TrainingWorkload& w, const Layout& l, const Placement& placement,
                 const CommOptions& options, const StageTraffic& t) {
  const StageParams& stage = t.stage;
  const double grads = stage.dense * dtype_bytes(w.grad_dtype);
  const double params = stage.dense * dtype_bytes(w.param_dtype);
  const double dp_cp = static_cast<double>(l.dp * l.cp);
  const double bucket = std::max(options.bucket_params, 1e6 * dp_cp) * dtype_bytes(w.grad_dtype);
  const double buckets = std::max(1.0, std::ceil(grads / bucket));
  AxisSpec spec{MeshAxis::dp, dp_cp_groups(l, placement.order), {}};
  if (w.zero_stage == 0) {
    spec.collectives.push_back(planned(CollectiveOp::all_reduce, "gradient all-reduce (bucketed)",
                                       "Li et al. 2020 PyTorch DDP (VLDB) §3.2; SC21 §3.1", buckets, grads / buckets));
  } else if (w.zero_stage <= 2) {
    spec.collectives.push_back(planned(CollectiveOp::reduce_scatter, "gradient reduce-scatter (bucketed)",
                                       "Rajbhandari et al. SC20 ZeRO §5.2; Megatron distributed optimizer", buckets,
                                       grads / buckets));
    spec.collectives.push_back(planned(CollectiveOp::all_gather, "updated-parameter all-gather (bucketed)",
                                       "Rajbhandari et al. SC20 ZeRO §5.2; Megatron distributed optimizer", buckets,
                                       params / buckets));
  } else {
    // ZeRO-3 / FSDP: parameters gathered per layer in forward and again in backward, gradients
    // reduce-scattered per layer, every micro-batch (ZeRO §5.3; PyTorch FSDP, Zhao et al. 2023).
    const double per_layer = std::max(t.layers, 1.0);
    // Forward gathers each layer's parameters; the backward gathers them again where the layer
    // was resharded after forward (torchtitan's policy: workload.hpp ReshardAfterForward), and
    // full recompute once more for the recomputed forward.
    const double backward_gathers = fsdp_backward_gathers(m, w, l, stage, false);
    spec.collectives.push_back(planned(CollectiveOp::all_gather,
                                       "parameter all-gather (forward, backward and recompute, per layer)",
                                       "Rajbhandari et al. SC20 ZeRO §5.3; Zhao et al. 2023 PyTorch FSDP",
                                       (per_layer + backward_gathers) * t.micro_batches, params / per_layer));
    spec.collectives.push_back(planned(CollectiveOp::reduce_scatter, "gradient reduce-scatter (per layer)",
                                       "Rajbhandari et al. SC20 ZeRO §5.3; Zhao et al. 2023 PyTorch FSDP",
                                       per_layer * t.micro_batches, grads / per_layer));
  }
  return spec;
}

// Expert parallelism: the MoE layers' token dispatch and combine all-to-alls.
AxisSpec ep_axis(const AxisGroups& g, const ModelSpec& m, const TrainingWorkload& w, const Layout& l,
                 const StageTraffic& t) {
  // GShard/Switch-style expert parallelism: per MoE layer a dispatch and a combine all-to-all
  // in forward and both again in backward; each rank's buffer holds its tokens × top-k.
  const double tokens = t.seq * t.mbs / t.cp / (l.sp ? t.tp : 1.0);
  // Experts padded to capacity (moe_capacity_factor) exchange factor × the balanced rows.
  const double bytes =
      tokens * dispatched_rows_per_token(m, l.ep, w.moe_dispatcher) * t.h * t.e * moe_routed_rows_factor(w);
  AxisSpec spec{MeshAxis::ep, g.groups, {}};
  spec.collectives.push_back(planned(CollectiveOp::all_to_all, "MoE token dispatch and combine (forward and backward)",
                                     "Lepikhin et al. 2020 GShard §2; Megatron-Core MoE all-to-all dispatcher",
                                     4 * t.moe_layers * t.micro_batches, bytes));
  // The flex dispatcher's DeepEP/HybridEP kernels write to every peer's buffer from one launch.
  spec.collectives.back().one_kernel = w.moe_dispatcher == MoeDispatcher::flex;
  return spec;
}

// Expert data parallelism: the routed experts' gradients and parameters, as DP's for the dense ones.
AxisSpec edp_axis(const AxisGroups& g, const ModelSpec& m, const TrainingWorkload& w, const Layout& l,
                  const CommOptions& options, const StageTraffic& t) {
  // The routed experts' gradients reduce over the expert-data-parallel group as the dense ones
  // do over DP: Megatron-Core's DDP keeps them in their own buffers (expert_parallel_buffers,
  // reduced over the expert DP group) with the same buckets and the same overlap; the
  // distributed optimizer shards and all-gathers them over that group; FSDP gathers and
  // reduce-scatters each layer's experts over it (distributed_data_parallel.py,
  // param_and_grad_buffer.py; torchtitan's dp_shard_mod_ep mesh).
  const StageParams& stage = t.stage;
  const double grads = stage.experts * dtype_bytes(w.grad_dtype);
  const double params = stage.experts * dtype_bytes(w.param_dtype);
  const auto edp = static_cast<double>(g.size);
  const double bucket = std::max(options.bucket_params, 1e6 * edp) * dtype_bytes(w.grad_dtype);
  const double buckets = std::max(1.0, std::ceil(grads / bucket));
  AxisSpec spec{MeshAxis::edp, g.groups, {}};
  const char* source = "Megatron-Core DDP expert_parallel_buffers (expert data parallel group)";
  if (w.zero_stage == 0) {
    spec.collectives.push_back(
        planned(CollectiveOp::all_reduce, "expert gradient all-reduce (bucketed)", source, buckets, grads / buckets));
  } else if (w.zero_stage <= 2) {
    spec.collectives.push_back(planned(CollectiveOp::reduce_scatter, "expert gradient reduce-scatter (bucketed)",
                                       source, buckets, grads / buckets));
    spec.collectives.push_back(planned(CollectiveOp::all_gather, "updated expert-parameter all-gather (bucketed)",
                                       source, buckets, params / buckets));
  } else {
    const double moe_layers_here = std::max(t.moe_layers, 1.0);
    const double backward_gathers = fsdp_backward_gathers(m, w, l, stage, true);  // as DP's
    spec.collectives.push_back(planned(CollectiveOp::all_gather, "expert-parameter all-gather (per MoE layer)", source,
                                       (moe_layers_here + backward_gathers) * t.micro_batches,
                                       params / moe_layers_here));
    spec.collectives.push_back(planned(CollectiveOp::reduce_scatter, "expert gradient reduce-scatter (per MoE layer)",
                                       source, moe_layers_here * t.micro_batches, grads / moe_layers_here));
  }
  return spec;
}

// The collectives of every axis the layout has, in the order of the plan's axes.
std::vector<AxisSpec> axis_specs(const ModelSpec& m, const TrainingWorkload& w, const Layout& l,
                                 const Placement& placement, const CommOptions& options, const StageTraffic& t) {
  std::vector<AxisSpec> specs;
  if (const AxisGroups* g = placement.axis(MeshAxis::tp)) specs.push_back(tp_axis(*g, w, l, t));
  if (const AxisGroups* g = placement.axis(MeshAxis::cp)) specs.push_back(cp_axis(*g, m, w, t));
  if (const AxisGroups* g = placement.axis(MeshAxis::pp)) specs.push_back(pp_axis(*g, l, t));
  if (l.dp * l.cp > 1) specs.push_back(dp_axis(m, w, l, placement, options, t));
  if (const AxisGroups* g = placement.axis(MeshAxis::ep); g != nullptr && m.is_moe())
    specs.push_back(ep_axis(*g, m, w, l, t));
  if (const AxisGroups* g = placement.axis(MeshAxis::edp); g != nullptr && t.stage.experts > 0)
    specs.push_back(edp_axis(*g, m, w, l, options, t));
  return specs;
}

// Bytes per step and the busiest axis' flows of every link direction (2·link + direction).
struct LinkTotals {
  std::vector<double> traffic;
  std::vector<int32_t> busiest_flows;
};

// One axis timed with all its groups running at once: the times share links through `load` (one
// ring per group, collective.cpp spreads it over the NICs); the bytes per link follow NCCL's
// channels (axis_link_traffic) and are added to `totals`.
AxisComm time_axis(AxisSpec& spec, const Router& router, const Placement& placement, const CommOptions& options,
                   const Cluster& cluster, LinkTotals& totals) {
  AxisComm axis;
  axis.axis = spec.axis;
  axis.groups = static_cast<int64_t>(spec.groups.size());
  axis.group_size = spec.groups.empty() ? 1 : static_cast<int64_t>(spec.groups.front().size());
  std::vector<std::vector<DeviceId>> gpus;
  std::vector<GroupPaths> paths;
  gpus.reserve(spec.groups.size());
  paths.reserve(spec.groups.size());
  LinkLoad load(cluster.links.size());
  for (const auto& ranks : spec.groups) {
    gpus.push_back(placement.gpus_of(ranks));
    paths.push_back(group_paths(router, gpus.back()));
    add_ring_flows(cluster, paths.back(), load);
    axis.tier = std::max(axis.tier, paths.back().worst_tier);
  }
  double slowest = -1;
  for (PlannedCollective& c : spec.collectives) {
    for (const GroupPaths& g : paths) {
      CommConstants constants = options.constants;
      constants.all_to_all_one_kernel = c.one_kernel;
      const CollectiveEstimate estimate = estimate_collective(router, g, c.op, c.bytes, constants, &load);
      if (estimate.time_s > c.time_s) {
        c.time_s = estimate.time_s;
        c.estimate = estimate;
      }
    }
    axis.bytes_per_step += c.bytes_per_step();
    axis.time_per_step_s += c.time_per_step_s();
    if (c.time_per_step_s() > slowest) {
      slowest = c.time_per_step_s();
      axis.bottleneck = c.estimate.bottleneck;
    }
  }
  axis.collectives = std::move(spec.collectives);
  for (const LinkTraffic& t : axis_link_traffic(axis, router, gpus).links)
    for (size_t d = 0; d < 2; ++d) {
      totals.traffic[2 * t.link.index() + d] += t.bytes_per_step[d];
      totals.busiest_flows[2 * t.link.index() + d] = std::max(totals.busiest_flows[2 * t.link.index() + d], t.flows[d]);
    }
  return axis;
}

// The links that carry traffic, in link order.
std::vector<LinkTraffic> loaded_links(const LinkTotals& totals, size_t links) {
  std::vector<LinkTraffic> out;
  for (size_t link = 0; link < links; ++link) {
    if (totals.traffic[2 * link] <= 0 && totals.traffic[2 * link + 1] <= 0) continue;
    LinkTraffic t;
    t.link = LinkId{static_cast<int32_t>(link)};
    t.bytes_per_step[0] = totals.traffic[2 * link];
    t.bytes_per_step[1] = totals.traffic[2 * link + 1];
    t.flows[0] = totals.busiest_flows[2 * link];
    t.flows[1] = totals.busiest_flows[2 * link + 1];
    out.push_back(t);
  }
  return out;
}

}  // namespace

double dispatched_rows_per_token(const ModelSpec& m, int64_t ep, MoeDispatcher dispatcher) {
  const auto k = static_cast<double>(m.moe.top_k);
  if (dispatcher == MoeDispatcher::alltoall || ep <= 1) return k;
  const auto experts = static_cast<double>(m.moe.num_experts);
  const double elsewhere = experts - experts / static_cast<double>(ep);  // experts not on a given rank
  double none_here = 1;                                                  // C(elsewhere, k) / C(experts, k)
  for (int64_t i = 0; i < m.moe.top_k; ++i)
    none_here *= std::max(0.0, elsewhere - static_cast<double>(i)) / (experts - static_cast<double>(i));
  return static_cast<double>(ep) * (1 - none_here);
}

CommPlan plan_communication(const ModelSpec& m, const TrainingWorkload& w, const Layout& l, const Cluster& cluster,
                            const Router& router, const Placement& placement, const CommOptions& options) {
  CommPlan plan;
  plan.warnings = placement.warnings;
  const StageTraffic traffic = busiest_stage_traffic(m, w, l);
  std::vector<AxisSpec> specs = axis_specs(m, w, l, placement, options, traffic);
  LinkTotals totals{std::vector<double>(2 * cluster.links.size(), 0.0),
                    std::vector<int32_t>(2 * cluster.links.size(), 0)};
  for (AxisSpec& spec : specs) plan.axes.push_back(time_axis(spec, router, placement, options, cluster, totals));
  plan.links = loaded_links(totals, cluster.links.size());
  return plan;
}

}  // namespace meshscope
