#include "core/estimate/step.hpp"

#include <algorithm>
#include <cstdio>

#include "core/estimate/overlap.hpp"
#include "core/estimate/step_phases.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/workload/flops.hpp"

namespace meshscope {
namespace step_detail {
namespace {

const AxisComm* find_axis(const CommPlan& plan, MeshAxis axis) {
  for (const auto& a : plan.axes)
    if (a.axis == axis) return &a;
  return nullptr;
}

// Seconds of one call of the axis's collective `op` (0 when absent).
double call_time(const AxisComm* axis, CollectiveOp op) {
  if (axis == nullptr) return 0;
  for (const auto& c : axis->collectives)
    if (c.op == op) return c.time_s;
  return 0;
}

std::string format(const char* text, double value) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, text, value);
  return buffer;
}

void add(StageCosts& to, const StageCosts& c) {
  to.forward_s += c.forward_s;
  to.backward_input_s += c.backward_input_s;
  to.backward_weight_s += c.backward_weight_s;
}

}  // namespace

Result<CommPlan> step_communication(const ModelSpec& m, const TrainingWorkload& w, const Layout& l,
                                    const Cluster& cluster, const Router& router, const EstimateOptions& options) {
  MS_TRY(placement, place_layout(l, cluster, router, options.order));
  return plan_communication(m, w, l, cluster, router, placement, options.comm);
}

Result<StepSetup> step_setup(const ModelSpec& m, const TrainingWorkload& w, const Layout& l, const Cluster& cluster,
                             const EstimateOptions& options) {
  GpuSpec gpu = [&] {
    // The GPU model of the cluster's first GPU, from the catalogue; H100 if unknown.
    auto g = find_gpu(cluster.gpus.empty() ? "h100-sxm" : cluster.device(cluster.gpus.front()).gpu_model);
    return g ? *g : *find_gpu("h100-sxm");
  }();
  if (auto supported = check_training_precision(gpu, w.compute_dtype); !supported)
    return tl::unexpected(supported.error());
  // The host costs scaled to the CPU that issues the first GPU's kernels (compute.hpp on_host_cpu).
  StepSetup s{m, w, l, std::move(gpu), on_host_cpu(options.efficiency, host_cpu_name(cluster))};
  s.sms = streaming_multiprocessors(s.gpu);
  s.micro_batches = std::max<int64_t>(num_micro_batches(w, l), 1);
  s.schedule = simulated_schedule(w.schedule, l.vpp);
  s.dualpipe = s.schedule == PipelineSchedule::dualpipe && l.pp > 1;
  s.async_sends = s.schedule == PipelineSchedule::interleaved && l.pp > 1 && w.overlap_p2p_comm;
  s.stage_layers = layers_per_stage(m, l);
  s.chunk_layers = layers_per_virtual_stage(m, l);
  s.chunk_first_layers = first_layer_of_virtual_stage(m, l);
  // Multi-token prediction (a pipeline layout's 'm'): each module's transformer block is one more
  // layer of the kind of the model's last, with its communication, plus mtp_extra_compute.
  s.chunk_mtp_layers = mtp_layers_per_virtual_stage(l);
  return s;
}

LayerCollectives layer_collectives(const StepSetup& s, const CommPlan& plan) {
  const Layout& l = s.layout;
  const AxisComm* tp = find_axis(plan, MeshAxis::tp);
  const AxisComm* cp = find_axis(plan, MeshAxis::cp);
  const AxisComm* pp = find_axis(plan, MeshAxis::pp);
  LayerCollectives c;
  c.tp_planned = tp != nullptr;
  c.tp_all_gather_s = call_time(tp, CollectiveOp::all_gather);
  c.tp_reduce_scatter_s = call_time(tp, CollectiveOp::reduce_scatter);
  // TP: two collectives (or two all-gather + reduce-scatter pairs with SP) per layer forward, the
  // same in backward (SC21 §3.2).
  c.tp_s = l.sp ? 2 * (c.tp_all_gather_s + c.tp_reduce_scatter_s) : 2 * call_time(tp, CollectiveOp::all_reduce);
  if (cp != nullptr) {
    const bool torch_cp = l.cp > 1 && resolved_cp_comm(s.workload) == CpComm::torch;
    for (const auto& call : cp->collectives) {
      if (torch_cp && call.op == CollectiveOp::send_recv) {
        c.cp_exchange_s = call.time_s;
        continue;
      }
      // The plan counts calls for the busiest stage's layers over all micro-batches.
      const double per_layer =
          call.count_per_step / std::max(1.0, static_cast<double>(s.micro_batches)) /
          static_cast<double>(std::max<int64_t>(*std::max_element(s.stage_layers.begin(), s.stage_layers.end()), 1));
      (call.what.find("backward") != std::string::npos ? c.cp_backward_s : c.cp_forward_s) += per_layer * call.time_s;
    }
  }
  c.ep_all_to_all_s = call_time(find_axis(plan, MeshAxis::ep), CollectiveOp::all_to_all);
  c.p2p_s = pp != nullptr && !pp->collectives.empty() ? pp->collectives.front().time_s : 0.0;
  return c;
}

LayerOverlap layer_overlap(const StepSetup& s, const LayerCollectives& c) {
  const ModelSpec& m = s.model;
  const TrainingWorkload& w = s.workload;
  const Layout& l = s.layout;
  LayerOverlap o;
  // TP: all exposed; with tp_comm_overlap (Megatron --tp-comm-overlap, which asserts
  // --sequence-parallel in megatron/training/arguments.py) each collective runs in chunks under its
  // GEMM as Transformer Engine's userbuffers do, and what costs the step is the exposed remainder
  // plus the GEMMs' slowdown on the SMs the communication kernels take (core/estimate/overlap.hpp).
  o.tp_overlap = w.tp_comm_overlap && c.tp_planned && l.tp > 1 && l.sp;
  o.tp_dense = {c.tp_s, c.tp_s};
  o.tp_moe = o.tp_dense;
  if (o.tp_overlap) {
    // A split backward (zero bubble, DualPipe) runs W later: no wgrad GEMM for the bulk overlap.
    const bool split = splits_backward(s.schedule, l.pp);
    const ComputeContext context = s.context();
    const auto overlapped = [&](int64_t layer) {
      const TpOverlapGemms gemms = tp_overlap_gemms(layer_operations(context, layer));
      return tp_overlapped_layer(split ? without_deferred_wgrad(gemms) : gemms, c.tp_all_gather_s,
                                 c.tp_reduce_scatter_s, l.tp, s.sms);
    };
    int64_t first_dense = 0, first_moe = 0;
    while (first_dense < m.num_layers && m.is_moe_layer(first_dense)) ++first_dense;
    while (first_moe < m.num_layers && !m.is_moe_layer(first_moe)) ++first_moe;
    if (first_dense < m.num_layers) o.tp_dense = overlapped(first_dense);
    if (first_moe < m.num_layers) o.tp_moe = overlapped(first_moe);
  }
  o.cp_impl = resolved_cp_comm(w);
  o.torch_cp = l.cp > 1 && o.cp_impl == CpComm::torch;
  o.ep_paired = w.ep_comm_overlap ? ep_overlap_paired_share(l.pp, l.vpp, s.micro_batches) : 0.0;
  o.ep_sms = ep_kernel_sms(w);
  return o;
}

LayerExposed exposed_communication(const StepSetup& s, const LayerCollectives& c, const LayerOverlap& o, int64_t layer,
                                   const WorkTime& t, bool recomputed) {
  const ModelSpec& m = s.model;
  // CP's ring exchange overlaps the attention it feeds; EP's all-to-alls are exposed (two in
  // forward, two in backward); a recomputed layer repeats its forward TP, CP and EP communication.
  const TpLayerCost& tp_cost = m.is_moe_layer(layer) ? o.tp_moe : o.tp_dense;
  // Selective recompute of the MLP (mlp, a dense layer) or the MoE layer (moe) repeats its half of
  // the layer's forward TP collectives, and moe its dispatch and combine all-to-alls.
  const bool mlp_recomputed = recomputes_layer_mlp(s.workload, m.is_moe_layer(layer));
  const auto [cp_forward, cp_backward] =
      cp_exposed(o.cp_impl, s.layout.cp, c.cp_forward_s, c.cp_backward_s, c.cp_exchange_s, t);
  const double ep_each = m.is_moe_layer(layer) ? 2 * c.ep_all_to_all_s : 0.0;
  // Under DualPipe a forward's all-to-alls hide behind the paired backward's compute and a
  // backward's behind the paired forward's; only what exceeds it is exposed. Megatron's combined
  // 1F1B (ep_comm_overlap) does the same for the passes its steady state pairs. What hides still
  // holds SMs from the compute it hides under (ep_exposed).
  const auto [ep_forward, ep_backward] = ep_exposed(ep_each, t.forward_s, t.backward_input_s + t.backward_weight_s,
                                                    s.dualpipe ? 1.0 : o.ep_paired, o.ep_sms, s.sms);
  LayerExposed x;
  x.tp = {tp_cost.forward_s, tp_cost.backward_s,
          recomputed       ? tp_cost.forward_s
          : mlp_recomputed ? 0.5 * tp_cost.forward_s
                           : 0.0};
  x.cp = {cp_forward, cp_backward, recomputed ? cp_forward : 0.0};
  x.ep = {ep_forward, ep_backward, recomputed || mlp_recomputed ? ep_forward : 0.0};
  return x;
}

StageCompute stage_compute(const StepSetup& s, const LayerCollectives& collectives, const LayerOverlap& overlap) {
  const ModelSpec& m = s.model;
  const TrainingWorkload& w = s.workload;
  const Layout& l = s.layout;
  const ComputeContext context = s.context();
  StageCompute out;
  // Layers are walked per virtual stage (chunk·pp + rank; with vpp = 1 the rank itself), so an
  // interleaved rank's chunks can differ (uneven splits, the embedding on the first, the LM head on
  // the last); the schedule gets the sum of compute and exposed communication.
  out.work.resize(static_cast<size_t>(l.pp));
  out.costs.resize(static_cast<size_t>(l.pp));
  out.with_sends.resize(static_cast<size_t>(l.pp));
  out.embedding = embedding_compute(context);
  out.head = head_compute(context);
  const double p2p_s = collectives.p2p_s;
  const int64_t virtual_stages = l.pp * l.vpp;
  for (int64_t u = 0; u < virtual_stages; ++u) {
    const auto r = static_cast<size_t>(u % l.pp);
    StageWork& sw = out.work[r];
    WorkTime chunk;
    const int64_t decoder_layers = s.chunk_layers[static_cast<size_t>(u)];
    const int64_t mtp_layers = s.chunk_mtp_layers[static_cast<size_t>(u)];
    for (int64_t i = 0; i < decoder_layers + mtp_layers; ++i) {
      const int64_t layer = i < decoder_layers ? s.chunk_first_layers[static_cast<size_t>(u)] + i : m.num_layers - 1;
      // Recompute "n layers": the first n layers of each model chunk (Megatron --recompute-num-layers).
      const bool full = w.recompute == RecomputeMode::layers && i < w.recompute_layers;
      const bool recomputed = full || w.recompute == RecomputeMode::full;
      WorkTime t = layer_compute(context, layer, full);
      sw.compute += t;
      const LayerExposed x = exposed_communication(s, collectives, overlap, layer, t, recomputed);
      t.forward_s += x.tp.forward_s + x.cp.forward_s + x.ep.forward_s;
      t.backward_input_s += x.tp.backward_s + x.cp.backward_s + x.ep.backward_s;
      t.recompute_s += x.tp.recompute_s + x.cp.recompute_s + x.ep.recompute_s;
      sw.tp_s += x.tp.total_s();
      sw.cp_s += x.cp.total_s();
      sw.ep_s += x.ep.total_s();
      chunk += t;
    }
    if (mtp_layers > 0) {
      WorkTime extra = mtp_extra_compute(context);
      extra.forward_s *= static_cast<double>(mtp_layers);
      extra.backward_input_s *= static_cast<double>(mtp_layers);
      extra.backward_weight_s *= static_cast<double>(mtp_layers);
      extra.forward_flops *= static_cast<double>(mtp_layers);
      extra.forward_bytes *= static_cast<double>(mtp_layers);
      chunk += extra;
      sw.compute += extra;
    }
    if (u == 0) {
      chunk += out.embedding;
      sw.compute += out.embedding;
    }
    if (u == virtual_stages - 1) {
      chunk += out.head;
      sw.compute += out.head;
    }
    // Recomputation runs inside the backward pass, before the input gradients.
    StageCosts c{chunk.forward_s, chunk.backward_input_s + chunk.recompute_s, chunk.backward_weight_s};
    add(out.costs[r], c);
    // Megatron's send/recv is synchronous (stage_sends in core/schedule/schedule.hpp): each chunk
    // sends its activations onwards, except the model's last, and its input gradients back, except
    // the model's first. DualPipe sends asynchronously under the paired chunk's compute: no stage
    // is kept busy, and the transfer still delays the receiver in the simulation. The interleaved
    // schedule with overlap_p2p_comm sends asynchronously in its steady state: the simulation
    // charges the warm-up and cool-down sends itself (ScheduleInput::async_sends).
    if (!s.dualpipe && !s.async_sends) {
      const double forward_send = u + 1 < virtual_stages ? p2p_s : 0.0, backward_send = u > 0 ? p2p_s : 0.0;
      c.forward_s += forward_send;
      c.backward_input_s += backward_send;
      sw.p2p_s += forward_send + backward_send;
    }
    add(out.with_sends[r], c);
    out.chunk_costs.push_back(c);
  }
  return out;
}

Result<ScheduleResult> simulate_step_schedule(const StepSetup& s, double p2p_s, std::vector<StageCosts> rank_costs,
                                              std::vector<StageCosts> chunk_costs) {
  const Layout& l = s.layout;
  ScheduleInput input;
  input.schedule = s.schedule;
  input.stages = l.pp;
  input.micro_batches = s.micro_batches;
  input.virtual_stages = l.vpp;
  input.costs = std::move(rank_costs);
  input.p2p_s = p2p_s;
  input.async_sends = s.async_sends;
  input.async_warmup_flush = s.workload.overlap_p2p_comm_warmup_flush;
  if (input.schedule == PipelineSchedule::interleaved && l.pp > 1) input.chunk_costs = std::move(chunk_costs);
  return simulate_schedule(input);
}

DataParallelCost data_parallel_cost(const StepSetup& s, const CommPlan& plan, const StageCosts& first_rank) {
  const TrainingWorkload& w = s.workload;
  const Layout& l = s.layout;
  // Data parallelism (ZeRO 0–2, Megatron DDP and distributed optimizer,
  // megatron/core/distributed/distributed_data_parallel.py and param_and_grad_buffer.py): the
  // gradients reduce bucket by bucket; with overlap_grad_reduce each bucket's all-reduce or
  // reduce-scatter starts as the last micro-batch's backward completes its gradients, so what
  // that backward cannot hide, and at least the last bucket, is exposed; without it
  // finish_grad_sync reduces them all after the backward. The distributed optimizer's parameter
  // all-gather runs after the optimizer step (start_param_sync(force_sync)), exposed; with
  // overlap_param_gather it is dispatched asynchronously and each bucket is waited for in the
  // forward pre-hook of its first module, which dispatches the next: what the first
  // micro-batch's forward cannot hide, and at least the first bucket, is exposed.
  // The routed experts' gradients and parameters go the same way over the expert-data-parallel
  // group (comm_plan.cpp), in their own buckets after the dense ones.
  const AxisComm* dp = find_axis(plan, MeshAxis::dp);
  const AxisComm* edp = find_axis(plan, MeshAxis::edp);
  double grad_total = 0, grad_bucket = 0, gather_total = 0, gather_bucket = 0;
  for (const AxisComm* axis : {dp, edp}) {
    if (axis == nullptr) continue;
    double grad_call = 0, gather_call = 0;
    for (const auto& c : axis->collectives) {
      const bool gather = c.op == CollectiveOp::all_gather;
      (gather ? gather_total : grad_total) += c.time_per_step_s();
      (gather ? gather_call : grad_call) += c.time_s;
    }
    grad_bucket = std::max(grad_bucket, grad_call);
    gather_bucket = std::max(gather_bucket, gather_call);
  }
  DataParallelCost d;
  d.has_dp = (dp != nullptr && l.dp * l.cp > 1) || edp != nullptr;
  d.distributed_optimizer = w.zero_stage == 1 || w.zero_stage == 2;
  d.grad_overlap = d.has_dp && w.zero_stage < 3 && w.overlap_grad_reduce;
  d.gather_overlap = d.has_dp && d.distributed_optimizer && w.overlap_param_gather;
  double dp_exposed = grad_total + gather_total;
  if (d.has_dp && w.zero_stage < 3) {
    const double backward_window = first_rank.backward_input_s + first_rank.backward_weight_s;
    dp_exposed =
        (d.grad_overlap ? bucketed_exposed_s(grad_total, grad_bucket, backward_window) : grad_total) +
        (d.gather_overlap ? bucketed_exposed_s(gather_total, gather_bucket, first_rank.forward_s) : gather_total);
  } else if (d.has_dp) {
    // FSDP (ZeRO-3): per block and micro-batch, under the block's own compute (overlap.hpp).
    const double layers_on_stage = static_cast<double>(std::max<int64_t>(s.stage_layers.front(), 1));
    const double blocks = static_cast<double>(s.micro_batches) * layers_on_stage;
    FsdpBlock block;
    // Per step, for the busiest stage: the dense layers' gathers and reduce-scatters over DP (the
    // blocks), and the MoE layers' experts over expert DP, whose time is spread over the blocks.
    double gathers = 0, reduce_scatters = 0;  // calls of the axis that sets the blocks
    double gather_time = 0, reduce_time = 0, gathered_bytes = 0, reduced_bytes = 0;
    const AxisComm* blocks_axis = dp != nullptr ? dp : edp;
    for (const AxisComm* axis : {dp, edp}) {
      if (axis == nullptr) continue;
      for (const auto& c : axis->collectives) {
        const bool gather = c.op == CollectiveOp::all_gather;
        (gather ? gather_time : reduce_time) += c.time_per_step_s();
        (gather ? gathered_bytes : reduced_bytes) += c.bytes * c.count_per_step;
        if (axis == blocks_axis) (gather ? gathers : reduce_scatters) += c.count_per_step;
      }
    }
    block.all_gather_s = gathers > 0 ? gather_time / gathers : 0.0;
    block.reduce_scatter_s = reduce_scatters > 0 ? reduce_time / reduce_scatters : 0.0;
    d.fsdp_copy_s =
        fsdp2_copy_s(w, 1.0, gathered_bytes, reduced_bytes, s.gpu.memory_bandwidth_bytes_per_s * s.efficiency.memory);
    // One reduce-scatter per block and micro-batch: the gathers beyond the forward's one are the
    // backward's (and the recompute's) re-gathers.
    block.backward_gathers = reduce_scatters > 0 ? std::max(0.0, gathers / reduce_scatters - 1.0) : 0.0;
    block.forward_compute_s = first_rank.forward_s / layers_on_stage;
    block.backward_compute_s = (first_rank.backward_input_s + first_rank.backward_weight_s) / layers_on_stage;
    dp_exposed = std::min(grad_total + gather_total, fsdp_exposed_s(block, blocks, w.fsdp_prefetch));
  }
  // The data-parallel collectives hidden under compute take SMs from it (nccl_sm_slowdown_s), with
  // the runtime's channel count (nccl_channels, 16: the "16 coll channels" NCCL prints in the
  // shared OLMoE log).
  d.sm_slowdown_s =
      nccl_sm_slowdown_s(std::max(0.0, grad_total + gather_total - dp_exposed), w.runtime.nccl_channels, s.sms);
  d.exposed_s = dp_exposed + (d.sm_slowdown_s + d.fsdp_copy_s);
  return d;
}

OptimizerCost optimizer_cost(const StepSetup& s) {
  OptimizerCost o;
  o.params_on_rank = stage_params(s.model, s.layout, 0).total();
  o.time_s = optimizer_step_s(s.context(), o.params_on_rank, s.layout.shard_group() * s.layout.cp);
  return o;
}

void assign_throughput(StepEstimate& est, const StepSetup& s, double step_time_s) {
  const ModelSpec& m = s.model;
  const TrainingWorkload& w = s.workload;
  est.step_time_s = step_time_s;
  const double tokens = static_cast<double>(w.global_batch) * static_cast<double>(w.seq_len);
  const auto gpus = static_cast<double>(s.layout.world_size());
  est.tokens_per_s = tokens / est.step_time_s;
  est.tokens_per_s_per_gpu = est.tokens_per_s / gpus;
  // Recompute "n layers": the first n layers of every model chunk are recomputed in full.
  double recomputed_layers = 0;
  if (w.recompute == RecomputeMode::layers)
    for (const int64_t layers : s.chunk_layers)
      recomputed_layers += static_cast<double>(std::min(std::max<int64_t>(w.recompute_layers, 0), layers));
  const FlopsPerToken flops = flops_per_token(
      m, w.seq_len, w.causal, w.recompute, recomputed_layers / static_cast<double>(std::max<int64_t>(m.num_layers, 1)),
      SelectiveRecomputeFlops::physical, w.recompute_modules);
  const double peak = compute_peak_flops(s.gpu, w.compute_dtype);
  est.model_tflops_per_gpu = flops.model_training() * est.tokens_per_s_per_gpu / 1e12;
  est.hardware_tflops_per_gpu = flops.hardware_training() * est.tokens_per_s_per_gpu / 1e12;
  est.mfu = est.model_tflops_per_gpu * 1e12 / peak;
  est.hfu = est.hardware_tflops_per_gpu * 1e12 / peak;
}

size_t busiest_stage(const ScheduleResult& schedule) {
  size_t busiest = 0;
  for (size_t k = 1; k < schedule.busy_s.size(); ++k)
    if (schedule.busy_s[k] > schedule.busy_s[busiest]) busiest = k;
  return busiest;
}

StepBreakdown step_breakdown(const StepSetup& s, const StageCompute& stages, const ScheduleResult& schedule,
                             size_t busiest, const DataParallelCost& data_parallel, const OptimizerCost& optimizer) {
  // A DualPipe rank runs half the micro-batches through model stage r and half through stage p − 1 − r.
  StageWork sw = stages.work[busiest];
  double per_micro_batch = static_cast<double>(s.micro_batches);
  if (s.dualpipe) {
    sw += stages.work[static_cast<size_t>(s.layout.pp - 1) - busiest];
    per_micro_batch /= 2;
  }
  StepBreakdown b;
  b.forward_s = sw.compute.forward_s * per_micro_batch;
  b.backward_s = (sw.compute.backward_input_s + sw.compute.backward_weight_s) * per_micro_batch;
  b.recompute_s = sw.compute.recompute_s * per_micro_batch;
  b.tp_exposed_s = sw.tp_s * per_micro_batch;
  b.cp_exposed_s = sw.cp_s * per_micro_batch;
  b.ep_exposed_s = sw.ep_s * per_micro_batch;
  b.pp_p2p_s = s.async_sends ? schedule.send_busy_s[busiest] : sw.p2p_s * per_micro_batch;
  const double busy =
      b.forward_s + b.backward_s + b.recompute_s + b.tp_exposed_s + b.cp_exposed_s + b.ep_exposed_s + b.pp_p2p_s;
  // The schedule's idle time; a rounding residue of the sum (1e-9 of the step) is none.
  const double idle = schedule.makespan_s - busy;
  b.bubble_s = idle > 1e-9 * schedule.makespan_s ? idle : 0.0;
  b.dp_exposed_s = data_parallel.exposed_s;
  b.optimizer_s = optimizer.time_s;
  return b;
}

void assign_memory(StepEstimate& est, const StepSetup& s) {
  // The memory budget holds what the simulated schedule keeps in flight (DualPipe: both ends'
  // parameters and p + 1 chunks; ZB-H2: 2(p − s) − 1 micro-batches).
  TrainingWorkload scheduled = s.workload;
  scheduled.schedule = s.schedule;
  const MemoryBudget memory = training_memory(s.model, scheduled, s.layout, s.gpu);
  est.peak_memory_bytes = memory.peak_total_bytes();
  for (const RankMemory& rank : memory.ranks) {
    est.peak_allocated_bytes = std::max(est.peak_allocated_bytes, rank.peak_allocated_bytes);
    est.peak_reserved_bytes = std::max(est.peak_reserved_bytes, rank.peak_reserved_bytes);
  }
  est.fits_in_memory = memory.fits();
}

std::vector<OperationCost> step_operations(const StepSetup& s, const StageCompute& stages, size_t busiest,
                                           const OptimizerCost& optimizer) {
  const ComputeContext context = s.context();
  const WorkTime& embedding = stages.embedding;
  const WorkTime& head = stages.head;
  std::vector<OperationCost> operations = layer_operations(context, s.chunk_first_layers[busiest]);
  operations.push_back({"embedding (first stage)", 0.0, embedding.forward_bytes, embedding.forward_s,
                        embedding.backward_input_s, embedding.backward_weight_s, false});
  operations.push_back({"LM head and loss (last stage)", head.forward_flops, head.forward_bytes, head.forward_s,
                        head.backward_input_s, head.backward_weight_s, false});
  operations.push_back({"optimizer step (per step)", 0.0,
                        optimizer_step_bytes(context, optimizer.params_on_rank, s.layout.shard_group() * s.layout.cp),
                        optimizer.time_s, 0.0, 0.0, false});
  return operations;
}

namespace {

// The attention core's kernel and rates, as the assumptions list states them.
std::string attention_assumption(const ModelSpec& m, const TrainingWorkload& w, const Layout& l, const GpuSpec& gpu,
                                 const ComputeEfficiency& efficiency) {
  if (!w.flash_attention) return "attention core unfused (flash=false): scores stored, softmax and dropout in HBM";
  const double bf16_peak = compute_peak_flops(gpu, DType::bf16);
  const auto [sequence, head_dim] = attention_call(m, w, l);
  const AttentionCoreRates r = attention_core_rates(gpu, w, efficiency, sequence, head_dim, bf16_peak);
  std::string text = "attention core: " + r.kernel + format(" at %.0f TFLOP/s forward", r.forward_flops_per_s / 1e12) +
                     format(", %.0f backward", r.backward_flops_per_s / 1e12) +
                     format(" (%.2f", r.forward_flops_per_s / bf16_peak) +
                     format(" / %.2f of the BF16 peak; ", r.backward_flops_per_s / bf16_peak);
  return text + (r.measured ? "measured for this GPU at head dim " + format("%.0f", head_dim) +
                                  format(" and %.0f tokens per call", sequence) +
                                  ", at the sustained clock; attention_kernel= chooses the kernel)"
                            : "no measurement of " + r.kernel +
                                  " on this GPU: the generic --efficiency attention_forward/attention_backward" +
                                  (r.length_scaled ? format(", slowed for a %.0f-token call as the kernel's measured "
                                                            "length roll-off on H100)",
                                                            sequence)
                                                   : std::string(")")));
}

// The low-precision recipe's casts, as the assumptions list states them.
std::string fp8_assumption(const TrainingWorkload& w) {
  const bool te = resolved_framework({}, w) == MemoryFramework::megatron;
  const std::string weights = te ? "each weight cast once per step (Transformer Engine keeps its FP8 copy across "
                                   "micro-batches)"
                                 : "weights cast in every forward";
  if (w.compute_dtype == DType::fp4)
    return "NVFP4 casts: an amax pass, then the cast with its 16-element block scales; " + weights;
  const Fp8Recipe recipe = fp8_recipe_of(w);
  return "FP8 recipe " + std::string(enum_name(recipe)) +
         (recipe == Fp8Recipe::current ? ": an amax pass over each tensor before its cast; "
                                       : ": the scales come out of the cast itself; ") +
         weights;
}

// The TP overlap key as it applied (or why it did not).
std::string tp_assumption(const StepSetup& s, const LayerOverlap& o) {
  const TrainingWorkload& w = s.workload;
  const Layout& l = s.layout;
  std::string text = "TP communication exposed: on the critical path of every layer";
  if (w.tp_comm_overlap && l.tp > 1 && !l.sp)
    text += " (tp_comm_overlap not applied: Megatron-LM allows it only with sequence parallelism, sp=true)";
  if (o.tp_overlap)
    text =
        "tp_comm_overlap: TP all-gathers and reduce-scatters in chunks under their GEMMs (Transformer Engine "
        "userbuffers: ring-exchange all-gathers, 4-split pipelined reduce-scatters, bulk in the weight gradients); "
        "the exposed remainder and the GEMMs' slowdown on the 16 SMs the pipelined and bulk kernels take are "
        "counted as TP" +
        (s.sms > 0 ? format(" (%.0f SMs per GPU)", s.sms) : std::string(" (SM count unknown: not charged)")) +
        (s.model.is_moe() ? "; MoE experts' collectives stay exposed (grouped GEMMs outside the userbuffers)" : "");
  return text;
}

// The CP implementation and what of it hides.
std::string cp_assumption(const LayerOverlap& o) {
  return o.torch_cp ? std::string(
                          "CP by PyTorch's context_parallel (cp_comm=torch): K/V all-gathered under the first "
                          "ring step's SDPA call, fp32 dK/dV passed on under the next step's (the last "
                          "exposed), the per-step fp32 merges charged as memory-bound traffic")
         : o.cp_impl == CpComm::all_to_all
             ? std::string("CP by Ulysses all-to-alls (cp_comm=a2a): before and after the attention core, exposed")
             : std::string(
                   "CP ring (cp_comm=p2p, Transformer Engine): each of the cp - 1 K/V exchanges hides under "
                   "one ring step's attention (1/cp of it), the rest is exposed");
}

// The EP overlap (DualPipe's, or ep_comm_overlap's) and the dispatcher.
std::string ep_assumption(const StepSetup& s, const LayerOverlap& o) {
  const ModelSpec& m = s.model;
  const TrainingWorkload& w = s.workload;
  const Layout& l = s.layout;
  return (s.dualpipe ? format("EP dispatch/combine all-to-alls and pipeline sends overlapped with the paired chunk's "
                              "compute (DualPipe); what exceeds it is exposed, and the hidden all-to-alls' kernels "
                              "take %.0f SMs from the compute they overlap",
                              static_cast<double>(o.ep_sms))
          : w.ep_comm_overlap
              ? format("EP dispatch/combine all-to-alls of the %.0f %% of passes Megatron's combined 1F1B pairs "
                       "(ep_comm_overlap) under the other micro-batch's compute, what exceeds it exposed; the "
                       "warm-up and cool-down passes' exposed",
                       100 * o.ep_paired) +
                    format("; the hidden all-to-alls' kernels take %.0f SMs from the compute they overlap",
                           static_cast<double>(o.ep_sms))
              : std::string("EP dispatch/combine all-to-alls exposed (no DualPipe-style overlap)")) +
         (m.is_moe() && l.ep > 1
              ? "; moe_dispatcher=" + std::string(enum_name(w.moe_dispatcher)) +
                    format(": %.2f rows per token", dispatched_rows_per_token(m, l.ep, w.moe_dispatcher)) +
                    (w.moe_dispatcher == MoeDispatcher::flex ? " (once per rank holding its experts)"
                                                             : " (one per selected expert)")
              : std::string());
}

// The DP overlap keys (Megatron DDP's, FSDP's) as they applied, or why they did not.
std::string dp_assumption(const StepSetup& s, const DataParallelCost& d) {
  const TrainingWorkload& w = s.workload;
  std::string text;
  if (!d.has_dp) {
    text = "no data-parallel communication (DP × CP = 1)";
  } else if (w.zero_stage >= 3) {
    text = std::string("FSDP (ZeRO-3): reduce-scatters under the previous block's backward; ") +
           (w.fsdp_prefetch ? "the next block's all-gather prefetched under this block's compute"
                            : "no prefetch: every all-gather waits") +
           "; reshard_after_forward=" + std::string(reshard_after_forward_name(w.reshard_after_forward)) +
           (w.reshard_after_forward == ReshardAfterForward::torchtitan_default
                ? (s.layout.pp > 1 ? " (torchtitan with PP: not resharded, no backward all-gathers)"
                                   : " (torchtitan: every block but the last re-gathered for the backward)")
                : "");
    if (w.overlap_grad_reduce || w.overlap_param_gather)
      text += "; overlap_grad_reduce/overlap_param_gather are Megatron DDP keys: not applied under FSDP";
    if (d.fsdp_copy_s > 0)
      text += format(
          "; FSDP2's all-gather copy-out and reduce-scatter copy-in on the compute stream (%.3f s, "
          "in the DP time)",
          d.fsdp_copy_s);
  } else {
    text = d.grad_overlap ? "overlap_grad_reduce: DP gradient reduction bucket by bucket under the last "
                            "micro-batch's backward; the last bucket is exposed"
                          : "DP gradient reduction after the backward pass, fully exposed (overlap_grad_reduce "
                            "off)";
    if (d.distributed_optimizer)
      text += d.gather_overlap ? "; overlap_param_gather: the parameter all-gather bucket by bucket under the "
                                 "next step's first forward; the first bucket is exposed"
                               : "; parameter all-gather after the optimizer step, fully exposed "
                                 "(overlap_param_gather off)";
    else if (w.overlap_param_gather)
      text += "; overlap_param_gather not applied: no distributed optimizer (zero=0) gathers parameters";
  }
  if (d.sm_slowdown_s > 0)
    text += format("; the hidden DP collectives' NCCL kernels take %.0f SMs",
                   std::min(static_cast<double>(w.runtime.nccl_channels), s.sms)) +
            format(" of %.0f from the compute they overlap", s.sms) +
            format(" (%.3f s, in the DP time)", d.sm_slowdown_s);
  if (!d.has_dp && (w.overlap_grad_reduce || w.overlap_param_gather))
    text += ": overlap_grad_reduce/overlap_param_gather have nothing to overlap";
  return text;
}

// The host's dispatch of the kernels (eager, or CUDA graphs) and the host CPU's speed.
std::string host_dispatch_assumption(const StepSetup& s) {
  const TrainingWorkload& w = s.workload;
  const ComputeEfficiency& efficiency = s.efficiency;
  return (w.cuda_graphs
              ? std::string(w.cuda_graph_moe_router
                                ? "host dispatch: CUDA graphs replay the dense layers and the MoE layers' attention, "
                                  "router and dispatch preprocessing; the permutations, all-to-alls and experts issued "
                                  "eagerly"
                                : "host dispatch: CUDA graphs replay the dense layers and the MoE layers' attention; "
                                  "routing, token dispatch and experts issued eagerly") +
                    format(" (%.0f µs per framework op", efficiency.host_op_us) +
                    format(", %.0f µs per further kernel); a pass over a layer takes the longer of its GPU and host "
                           "time",
                           efficiency.host_kernel_us)
              : format("host dispatch (eager PyTorch): %.0f µs per framework op", efficiency.host_op_us) +
                    format(", %.0f µs per further kernel an op launches; a pass over a layer takes the longer of its "
                           "GPU and host time (cuda_graphs=1 removes it)",
                           efficiency.host_kernel_us)) +
         (efficiency.host_cpu.empty()
              ? std::string()
              : "; the host is " + efficiency.host_cpu +
                    format(", whose per-op time is %.2f× the x86 hosts' where the costs were measured (TE issue #2053)",
                           host_cpu_op_time_ratio(efficiency.host_cpu)));
}

// A pipeline layout's split, and what its MTP layers cost (docs/schedules.md).
std::string pipeline_layout_assumption(const StepSetup& s) {
  const Layout& l = s.layout;
  std::string stages;
  for (const int64_t n : s.stage_layers) stages += (stages.empty() ? "" : ":") + std::to_string(n);
  int64_t mtp = 0;
  for (const int64_t n : s.chunk_mtp_layers) mtp += n;
  return "pipeline layout " + l.pipeline_layout + ": " + std::to_string(l.pp * l.vpp) + " model chunks, " + stages +
         " transformer layers per rank" +
         (mtp > 0 ? "; " + std::to_string(mtp) +
                        " MTP layer(s), each a block like the last layer with its communication, the 2h → h "
                        "projection and its own LM head and loss (DeepSeek-V3 §2.2)"
                  : std::string());
}

// The pipeline sends: asynchronous in the interleaved steady state, synchronous otherwise.
std::string pipeline_sends_assumption(const StepSetup& s) {
  return s.async_sends ? std::string(
                             "pipeline sends: the interleaved steady state's are asynchronous (overlap_p2p_comm, "
                             "Megatron-Core's default): they delay the receiving rank, not the sender; ") +
                             (s.workload.overlap_p2p_comm_warmup_flush
                                  ? "the warm-up and cool-down's too (overlap_p2p_comm_warmup_flush)"
                                  : "the warm-up forwards and cool-down backwards send synchronously")
         : s.schedule == PipelineSchedule::interleaved
             ? "pipeline sends synchronous (overlap_p2p_comm=false): each keeps its rank busy"
             : "pipeline sends synchronous (Megatron's 1F1B: send_forward_recv_backward): each keeps its rank busy";
}

// Selective recompute's modules, or why they have no effect.
std::string recompute_modules_assumption(const TrainingWorkload& w) {
  return w.recompute == RecomputeMode::selective
             ? "recompute_modules=" + recompute_modules_text(w.recompute_modules) +
                   " (Megatron-Core --recompute-modules): those submodules' saved tensors freed and their forward run "
                   "again in backward; an MLP or MoE layer recomputed repeats its half of the forward TP collectives, "
                   "an MoE layer its dispatch and combine all-to-alls"
             : "recompute_modules=" + recompute_modules_text(w.recompute_modules) +
                   " has no effect: recompute=" + std::string(recompute_name(w.recompute)) +
                   " (Megatron-Core reads --recompute-modules under "
                   "--recompute-granularity selective only)";
}

// Experts padded to capacity.
std::string capacity_assumption(const TrainingWorkload& w) {
  return format(
             "moe_capacity_factor=%g: every expert's input padded to that factor × its balanced share of the "
             "routed tokens (Megatron --moe-pad-expert-input-to-capacity), the experts, permutations and "
             "all-to-alls sized to it; static shapes, no device-to-host sync of the splits",
             w.moe_capacity_factor) +
         (w.cuda_graphs ? "; CUDA graphs replay the whole MoE layer" : "");
}

}  // namespace

std::vector<std::string> step_assumptions(const StepSetup& s, const LayerOverlap& overlap,
                                          const DataParallelCost& data_parallel) {
  const ModelSpec& m = s.model;
  const TrainingWorkload& w = s.workload;
  const Layout& l = s.layout;
  std::vector<std::string> assumptions = {
      std::string("pipeline schedule: ") + std::string(enum_name(s.schedule)) +
          " (event simulation with per-stage forward, input-gradient and weight-gradient times)",
      tp_assumption(s, overlap),
      cp_assumption(overlap),
      ep_assumption(s, overlap),
      dp_assumption(s, data_parallel),
      format("large GEMMs at %.2f of the dense peak (the GPU's measured rate unless --efficiency gemm is set; "
             "lower for small shapes, core/estimate/gemm_rate.hpp)",
             gemm_share_of_peak(s.gpu, w.compute_dtype, s.efficiency)) +
          format(", memory-bound kernels at %.2f of HBM bandwidth", s.efficiency.memory),
      attention_assumption(m, w, l, s.gpu, s.efficiency),
      "optimizer step memory-bound over the rank's sharded master weights and moments",
      w.eager_kernels ? "element-wise kernels as eager PyTorch composites (kernels=eager: RMSNorm's upcast, pow, mean "
                        "and products, RoPE in fp32 complex numbers)"
                      : "element-wise kernels fused (kernels=fused: Transformer Engine's or torch.compile's)",
      host_dispatch_assumption(s),
  };
  if (!l.pipeline_layout.empty()) assumptions.push_back(pipeline_layout_assumption(s));
  if (l.pp > 1 && !s.dualpipe) assumptions.push_back(pipeline_sends_assumption(s));
  if (fp8_linears(w)) assumptions.push_back(fp8_assumption(w));
  if (w.recompute_modules != recompute_bit(RecomputeModule::core_attn))
    assumptions.push_back(recompute_modules_assumption(w));
  if (w.moe_capacity_factor > 0 && m.is_moe()) assumptions.push_back(capacity_assumption(w));
  return assumptions;
}

}  // namespace step_detail

Result<StepEstimate> estimate_step(const ModelSpec& m, const TrainingWorkload& w, const Layout& l,
                                   const Cluster& cluster, const Router& router, const EstimateOptions& options) {
  using namespace step_detail;
  MS_TRY(comm, step_communication(m, w, l, cluster, router, options));
  MS_TRY(setup, step_setup(m, w, l, cluster, options));
  const LayerCollectives collectives = layer_collectives(setup, comm);
  const LayerOverlap overlap = layer_overlap(setup, collectives);
  StageCompute stages = stage_compute(setup, collectives, overlap);
  MS_TRY(schedule,
         simulate_step_schedule(setup, collectives.p2p_s, std::move(stages.with_sends), std::move(stages.chunk_costs)));
  const DataParallelCost data_parallel = data_parallel_cost(setup, comm, stages.costs.front());
  const OptimizerCost optimizer = optimizer_cost(setup);

  StepEstimate est;
  est.micro_batches = setup.micro_batches;
  est.pipeline_schedule = setup.schedule;
  est.bubble_fraction = schedule.bubble_fraction;
  assign_throughput(est, setup, schedule.makespan_s + data_parallel.exposed_s + optimizer.time_s);
  const size_t busiest = busiest_stage(schedule);
  est.breakdown = step_breakdown(setup, stages, schedule, busiest, data_parallel, optimizer);
  assign_memory(est, setup);
  est.operations = step_operations(setup, stages, busiest, optimizer);
  est.assumptions = step_assumptions(setup, overlap, data_parallel);
  est.known_gaps = known_gaps(m, w, l, setup.gpu);
  est.schedule = std::move(schedule);
  est.comm = std::move(comm);
  return est;
}

}  // namespace meshscope
