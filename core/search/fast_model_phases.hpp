#pragma once
// The phases of the fast model's score() (fast_model.cpp), in the order it runs them, each testable
// alone. score() runs for every candidate of the search: none of them allocates (the per-stage times
// are the evaluator's scratch) and they pass small structs on by reference. They are defined here,
// inline, so that the compiler can fold them back into score(), where each is called once: out of
// line, bench/bench_search.cpp's searches ran 2.7 % more instructions than the single function they
// were cut from; inline, 0.2–1.4 % (callgrind, GCC 12 -O3). Internal to core/search.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "core/comm/comm_plan.hpp"
#include "core/estimate/overlap.hpp"
#include "core/search/fast_model.hpp"
#include "core/workload/flops.hpp"

namespace meshscope::search_detail {

// Layers of pipeline stage `s`: even, or the explicit (Llama-3-style uneven) split.
inline int64_t layers_on_stage(const ModelSpec& m, const Layout& l, int64_t s) {
  return l.stage_layers.empty() ? m.num_layers / l.pp : l.stage_layers[static_cast<size_t>(s)];
}

// What every phase reads of the candidate.
struct CandidateShape {
  double micro_batches = 1;        // per step, at least one
  int64_t first_stage_layers = 0;  // the first pipeline stage's (the DP and optimizer tail's)
  double element_bytes = 0;        // of an activation
  double tokens = 0;               // per micro-batch on one rank (the sequence split over CP)
  double hidden_bytes = 0;         // one hidden-state tensor of those tokens
  bool full_recompute = false;
  bool dualpipe = false;
  // Rank strides of the pipeline and of the gradient-reduction (DP×CP) groups under the order
  // (the tp-pp-dp order puts the pipeline inside).
  bool pp_inside = false;
  int64_t pp_stride = 1, dp_stride = 1;
};
inline CandidateShape candidate_shape(const ModelSpec& m, const Candidate& c) {
  const Layout& l = c.layout;
  const TrainingWorkload& w = c.workload;
  CandidateShape shape;
  shape.micro_batches = static_cast<double>(std::max<int64_t>(num_micro_batches(w, l), 1));
  shape.first_stage_layers = layers_on_stage(m, l, 0);
  shape.element_bytes = dtype_bytes(w.activation_dtype);
  shape.tokens = static_cast<double>(w.seq_len) * static_cast<double>(l.micro_batch) / static_cast<double>(l.cp);
  shape.hidden_bytes = shape.tokens * static_cast<double>(m.hidden_size) * shape.element_bytes;
  shape.full_recompute = w.recompute == RecomputeMode::full;
  shape.dualpipe = c.schedule == PipelineSchedule::dualpipe && l.pp > 1;
  // Rank strides of the pipeline and of the gradient-reduction (DP×CP) groups under the order
  // (the tp-pp-dp order is only enumerated with CP = 1, so DP×CP stays one strided group).
  shape.pp_inside = c.order == AxisOrder::tp_pp_dp;
  shape.pp_stride = shape.pp_inside ? l.tp * l.cp : l.tp * l.cp * l.dp;
  shape.dp_stride = shape.pp_inside ? l.tp * l.pp : l.tp;
  return shape;
}

// 1. Communication per layer and micro-batch, each group alone on the network: TP per pass (with
// tp_comm_overlap, as Transformer Engine's chunked overlap leaves it), EP's dispatch and combine,
// CP's collectives, and one pipeline send.
struct LayerComm {
  TpLayerCost tp_dense, tp_moe;
  double ep_s = 0;  // a pass's dispatch and combine
  CpComm cp_impl = CpComm::p2p;
  double cp_forward_s = 0, cp_backward_s = 0, cp_exchange_s = 0;
  double p2p_s = 0;
};
inline LayerComm layer_communication(Evaluator& ev, const ModelSpec& m, const Candidate& c,
                                     const CandidateShape& shape) {
  const Layout& l = c.layout;
  const TrainingWorkload& w = c.workload;
  const double e = shape.element_bytes;
  const double tokens = shape.tokens;
  const double hidden_bytes = shape.hidden_bytes;
  LayerComm comm;
  // Per-layer communication exposed (as in estimate_step): TP per pass, all of it, or with
  // tp_comm_overlap what TE's chunked overlap leaves plus its SM charge (overlap.hpp).
  const double tp_ag =
      l.tp > 1 && l.sp ? ev.collective(1, l.tp, CollectiveOp::all_gather, hidden_bytes / e * tp_gather_element_bytes(w))
                       : 0.0;
  const double tp_rs = l.tp > 1 && l.sp ? ev.collective(1, l.tp, CollectiveOp::reduce_scatter, hidden_bytes) : 0.0;
  const double tp_layer =
      l.tp > 1 ? (l.sp ? 2 * (tp_ag + tp_rs) : 2 * ev.collective(1, l.tp, CollectiveOp::all_reduce, hidden_bytes))
               : 0.0;
  comm.tp_dense = {tp_layer, tp_layer};
  comm.tp_moe = comm.tp_dense;
  if (w.tp_comm_overlap && l.tp > 1 && l.sp) {
    // A split backward has no wgrad GEMM beside B for the bulk overlap (as estimate_step).
    const bool split = splits_backward(c.schedule, l.pp);
    const auto gemms = [&](bool moe_layer) {
      const TpOverlapGemms& g = ev.tp_gemms(l, w, moe_layer);
      return split ? without_deferred_wgrad(g) : g;
    };
    comm.tp_dense = tp_overlapped_layer(gemms(false), tp_ag, tp_rs, l.tp, ev.sms());
    if (m.is_moe()) comm.tp_moe = tp_overlapped_layer(gemms(true), tp_ag, tp_rs, l.tp, ev.sms());
  }
  comm.ep_s = (m.is_moe() && l.ep > 1)
                  ? 2 * ev.collective(l.etp, l.ep, CollectiveOp::all_to_all,
                                      tokens / (l.sp ? static_cast<double>(l.tp) : 1.0) *
                                          dispatched_rows_per_token(m, l.ep, w.moe_dispatcher) *
                                          static_cast<double>(m.hidden_size) * e * moe_routed_rows_factor(w),
                                      w.moe_dispatcher == MoeDispatcher::flex)
                  : 0.0;
  comm.cp_impl = resolved_cp_comm(w);
  if (l.cp > 1 && comm.cp_impl == CpComm::torch) {
    // PyTorch's context_parallel (comm_plan.cpp): K/V repeated to the query heads, all-gathered in
    // each pass; in backward cp fp32 dK/dV exchanges. (The search leaves MLA's head dims aside.)
    const double kv = 2.0 * tokens * static_cast<double>(m.q_width()) / static_cast<double>(l.tp);
    comm.cp_forward_s = ev.collective(l.tp, l.cp, CollectiveOp::all_gather, static_cast<double>(l.cp) * kv * e);
    comm.cp_backward_s = comm.cp_forward_s;
    comm.cp_exchange_s = ev.collective(l.tp, l.cp, CollectiveOp::send_recv, kv * 4);
  } else if (l.cp > 1 && comm.cp_impl == CpComm::all_to_all) {
    // Ulysses (comm_plan.cpp): four all-to-alls of the rank's Q, K, V and output slices per pass.
    const double widths = static_cast<double>(2 * m.q_width() + 2 * m.kv_width()) / 4.0;
    comm.cp_forward_s =
        4 * ev.collective(l.tp, l.cp, CollectiveOp::all_to_all, tokens * widths * e / static_cast<double>(l.tp));
    comm.cp_backward_s = comm.cp_forward_s;
  } else if (l.cp > 1) {
    const double chunk = 2.0 * tokens * static_cast<double>(m.kv_width()) * e / static_cast<double>(l.tp);
    const double t = ev.collective(l.tp, l.cp, CollectiveOp::send_recv, chunk);
    comm.cp_forward_s = static_cast<double>(l.cp - 1) * t;
    comm.cp_backward_s = 2 * comm.cp_forward_s;
  }
  comm.p2p_s =
      l.pp > 1 ? ev.collective(shape.pp_stride, 2, CollectiveOp::send_recv, hidden_bytes / static_cast<double>(l.tp))
               : 0.0;
  return comm;
}

// 2. Compute of a dense and an MoE layer, the embedding and the LM head (the evaluator's cached
// values), and what of a layer's EP and CP communication its compute leaves exposed.
struct LayerWork {
  const WorkTime* dense = nullptr;
  const WorkTime* moe = nullptr;  // null for a dense model
  const WorkTime* embedding = nullptr;
  const WorkTime* head = nullptr;
  double ep_forward_s = 0, ep_backward_s = 0;
  double cp_forward_s = 0, cp_backward_s = 0;
};
inline LayerWork layer_work(Evaluator& ev, const ModelSpec& m, const Candidate& c, const CandidateShape& shape,
                            const LayerComm& comm) {
  const Layout& l = c.layout;
  const TrainingWorkload& w = c.workload;
  LayerWork work;
  work.dense = &ev.layer(l, w, false);
  work.moe = m.is_moe() ? &ev.layer(l, w, true) : nullptr;
  const auto& ends = ev.ends(l, w);
  work.embedding = &ends.first;
  work.head = &ends.second;
  // DualPipe (DeepSeek-V3 §3.2.1) runs a forward chunk's all-to-alls under the paired backward's
  // compute and vice versa, and sends asynchronously (as estimate_step).
  // Megatron's combined 1F1B (ep_comm_overlap) pairs the steady state's passes the same way.
  const double paired = shape.dualpipe      ? 1.0
                        : w.ep_comm_overlap ? ep_overlap_paired_share(l.pp, l.vpp, num_micro_batches(w, l))
                                            : 0.0;
  // As estimate_step: what hides still holds SMs from the compute it hides under.
  const EpExposed ep = work.moe != nullptr ? ep_exposed(comm.ep_s, work.moe->forward_s,
                                                        work.moe->backward_input_s + work.moe->backward_weight_s,
                                                        paired, ep_kernel_sms(w), ev.sms())
                                           : EpExposed{comm.ep_s, comm.ep_s};
  work.ep_forward_s = ep.forward_s;
  work.ep_backward_s = ep.backward_s;
  // CP exposed per layer (as estimate_step); a fully recomputed layer repeats the forward's.
  const CpExposed cp =
      cp_exposed(comm.cp_impl, l.cp, comm.cp_forward_s, comm.cp_backward_s, comm.cp_exchange_s, *work.dense);
  work.cp_forward_s = cp.forward_s;
  work.cp_backward_s = cp.backward_s;
  return work;
}

// 3. Per pipeline stage and micro-batch: forward, backward and weight-gradient times with the exposed
// communication and the synchronous sends (each stage's total into Evaluator::stage_times), and
// their sums and maxima.
struct StageTimes {
  double max_s = 0, sum_s = 0;
  double forward_max_s = 0, backward_max_s = 0, weight_max_s = 0;
  double first_forward_s = 0, first_backward_s = 0;  // the first stage's (what hides the DP collectives)
};
inline StageTimes stage_times(Evaluator& ev, const ModelSpec& m, const Candidate& c, const CandidateShape& shape,
                              const LayerComm& comm, const LayerWork& work) {
  const Layout& l = c.layout;
  const TrainingWorkload& w = c.workload;
  const WorkTime& dense = *work.dense;
  const WorkTime* moe = work.moe;
  const WorkTime& embedding = *work.embedding;
  const WorkTime& head = *work.head;
  // Read once into locals: the loop below calls out of this file, after which a value read through
  // a reference would be loaded again.
  const TpLayerCost tp_dense = comm.tp_dense;
  const TpLayerCost tp_moe = comm.tp_moe;
  const double ep_forward = work.ep_forward_s, ep_backward = work.ep_backward_s;
  const double cp_forward_exposed = work.cp_forward_s, cp_backward_exposed = work.cp_backward_s;
  const double p2p = comm.p2p_s;
  const bool full = shape.full_recompute;
  const bool dualpipe = shape.dualpipe;
  // Selective recompute of a dense MLP or an MoE layer (recompute_modules mlp, moe) repeats its half
  // of the forward TP collectives, and moe its all-to-alls (as estimate_step).
  const double mlp_recomputed = recomputes_layer_mlp(w, false) ? 0.5 : 0.0;
  const double moe_recomputed = recomputes_layer_mlp(w, true) ? 0.5 : 0.0;
  std::vector<double>& stage_time = ev.stage_times(static_cast<size_t>(l.pp));
  double t_max = 0, t_sum = 0, f_max = 0, b_max = 0, w_max = 0, first_backward = 0, first_forward = 0;
  for (int64_t s = 0, from = 0; s < l.pp; from += layers_on_stage(m, l, s), ++s) {
    const int64_t stage_layers = layers_on_stage(m, l, s);
    const int64_t to = from + stage_layers;
    const auto moe_count = static_cast<double>(ev.moe_layers(from, to));
    const double dense_count = static_cast<double>(stage_layers) - moe_count;
    auto stage = [&](double WorkTime::*field) {
      return dense_count * dense.*field + (moe != nullptr ? moe_count * moe->*field : 0.0);
    };
    double f = stage(&WorkTime::forward_s) + dense_count * tp_dense.forward_s + moe_count * tp_moe.forward_s +
               static_cast<double>(stage_layers) * cp_forward_exposed + moe_count * ep_forward;
    double b = stage(&WorkTime::backward_input_s) + stage(&WorkTime::recompute_s) +
               dense_count * (tp_dense.backward_s + (full ? tp_dense.forward_s : mlp_recomputed * tp_dense.forward_s)) +
               moe_count * (tp_moe.backward_s + (full ? tp_moe.forward_s : moe_recomputed * tp_moe.forward_s)) +
               static_cast<double>(stage_layers) * (cp_backward_exposed + (full ? cp_forward_exposed : 0.0)) +
               moe_count * (ep_backward + (full || moe_recomputed > 0 ? ep_forward : 0.0));
    double wt = stage(&WorkTime::backward_weight_s);
    if (s == 0) {
      f += embedding.forward_s;
      wt += embedding.backward_weight_s;
    }
    if (s == l.pp - 1) {
      f += head.forward_s;
      b += head.backward_input_s;
      wt += head.backward_weight_s;
    }
    if (s == 0) first_forward = f;
    // Synchronous pipeline send/recv, as estimate_step (stage_sends); DualPipe's are asynchronous,
    // and so are the interleaved steady state's under overlap_p2p_comm: only the rank's warm-up
    // forwards (2(p − s − 1) + (v − 1)p of its m·v) and as many cool-down backwards send
    // synchronously (Megatron-Core schedules.py).
    if (!dualpipe) {
      const StageSends sends = stage_sends(s, l.pp, l.vpp);
      double sync_share = 1.0;
      if (l.vpp > 1 && w.overlap_p2p_comm) {
        const int64_t micro_batches = num_micro_batches(w, l);
        sync_share = w.overlap_p2p_comm_warmup_flush
                         ? 0.0
                         : static_cast<double>(interleaved_warmup_items(s, l.pp, micro_batches, l.vpp)) /
                               static_cast<double>(std::max<int64_t>(micro_batches * l.vpp, 1));
      }
      f += sync_share * sends.forward * p2p;
      b += sync_share * sends.backward * p2p;
    }
    const double t = f + b + wt;
    stage_time[static_cast<size_t>(s)] = t;
    if (s == 0) first_backward = b + wt;
    t_sum += t;
    t_max = std::max(t_max, t);
    f_max = std::max(f_max, f);
    b_max = std::max(b_max, b);
    w_max = std::max(w_max, wt);
  }
  StageTimes times;
  times.max_s = t_max;
  times.sum_s = t_sum;
  times.forward_max_s = f_max;
  times.backward_max_s = b_max;
  times.weight_max_s = w_max;
  times.first_forward_s = first_forward;
  times.first_backward_s = first_backward;
  return times;
}

// 4. The schedule's makespan in closed form over the stage times.
inline double pipeline_makespan_s(Evaluator& ev, const Candidate& c, const CandidateShape& shape,
                                  const StageTimes& times, double p2p_s) {
  const Layout& l = c.layout;
  const double mb = shape.micro_batches;
  const double t_max = times.max_s, t_sum = times.sum_s;
  const double f_max = times.forward_max_s, b_max = times.backward_max_s, w_max = times.weight_max_s;
  // Closed-form makespans (uniform-stage theory generalised to the slowest stage):
  // 1F1B/GPipe (SC21 §2.2.1): (m − 1)·t_max + Σ t_s; interleaved (§2.2.2): the fill shrinks by v;
  // ZB-H1 (Qi et al. 2024 §3): bubble (p − 1)(F + B − W).
  const auto p = static_cast<double>(l.pp), v = static_cast<double>(l.vpp);
  double makespan = (mb - 1) * t_max + t_sum;
  if (l.vpp > 1) makespan = mb * t_max + (t_sum - t_max) / v;
  if (c.schedule == PipelineSchedule::zb_h1 && l.pp > 1)
    makespan = mb * t_max + (p - 1) * std::max(0.0, f_max + b_max - w_max);
  if (shape.dualpipe) {
    // A rank runs half the micro-batches through stage r and half through stage p − 1 − r; the
    // DualPipe README's bubble (PP/2 − 1)(F&B + B − 3W), with B a full backward and F&B = F + B,
    // is (PP/2 − 1)(F + 2B − W) in input-gradient B and weight-gradient W.
    const std::vector<double>& stage_time = ev.stage_times(static_cast<size_t>(l.pp));
    double pair_max = 0;
    for (int64_t r = 0; r < l.pp / 2; ++r)
      pair_max = std::max(pair_max, stage_time[static_cast<size_t>(r)] + stage_time[static_cast<size_t>(l.pp - 1 - r)]);
    makespan = 0.5 * mb * pair_max + (p / 2 - 1) * std::max(0.0, f_max + 2 * b_max - w_max);
  }
  makespan += 2 * (p - 1) * p2p_s;
  return makespan;
}

// 5. The exposed data-parallel communication (Megatron's buckets, or FSDP per block) and the
// optimizer step, as estimate_step.
struct DataParallelTail {
  double dp_exposed_s = 0;
  double optimizer_s = 0;
};
inline DataParallelTail data_parallel_tail(Evaluator& ev, const ModelSpec& m, const Candidate& c,
                                           const CandidateShape& shape, const StageTimes& times,
                                           double bucket_params_default) {
  const Layout& l = c.layout;
  const TrainingWorkload& w = c.workload;
  const ComputeEfficiency& efficiency = ev.efficiency();
  const double mb = shape.micro_batches;
  const int64_t per_stage = shape.first_stage_layers;
  const int64_t dp_stride = shape.dp_stride;
  const double first_forward = times.first_forward_s, first_backward = times.first_backward_s;
  const bool full = shape.full_recompute;
  // Data parallel and optimizer, as estimate_step().
  const int64_t dp_cp = l.dp * l.cp;
  const double dense_params =
      ev.split(0, per_stage) / static_cast<double>(l.tp) + ev.replicated(0, per_stage) +
      static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size) / static_cast<double>(l.tp);
  // The routed experts over the expert-data-parallel group (as comm_plan.cpp and estimate_step):
  // its ranks are spaced by the expert mesh's ETP·EP inside the stage's TP·CP·DP ranks (the
  // tp-pp-dp order puts PP between them).
  const int64_t edp = l.expert_dp();
  const double expert_params = ev.experts(0, per_stage) / static_cast<double>(l.ep * l.etp);
  const int64_t edp_stride = shape.pp_inside && (l.etp * l.ep) % (l.tp * l.cp) == 0
                                 ? (l.etp * l.ep) / (l.tp * l.cp) * dp_stride
                                 : l.etp * l.ep;
  const auto moe_on_stage = static_cast<double>(ev.moe_layers(0, per_stage));
  double dp_exposed = 0;
  if (dp_cp > 1 || (edp > 1 && expert_params > 0)) {
    const double grads = dense_params * dtype_bytes(w.grad_dtype);
    const double params = dense_params * dtype_bytes(w.param_dtype);
    const double expert_grads = edp > 1 ? expert_params * dtype_bytes(w.grad_dtype) : 0.0;
    const double expert_weights = edp > 1 ? expert_params * dtype_bytes(w.param_dtype) : 0.0;
    if (w.zero_stage >= 3) {
      // FSDP per block and micro-batch under the first stage's compute (fsdp_exposed_s, as
      // estimate_step), with the backward re-gathers of torchtitan's reshard policy; the MoE
      // layers' experts over expert DP, spread over the blocks.
      const double layer_params = params / static_cast<double>(per_stage);
      const double moe_share = moe_on_stage / static_cast<double>(per_stage);
      const double moe_layers_here = std::max(moe_on_stage, 1.0);
      FsdpBlock block;
      block.all_gather_s =
          ev.collective(dp_stride, dp_cp, CollectiveOp::all_gather, layer_params) +
          moe_share * ev.collective(edp_stride, edp, CollectiveOp::all_gather, expert_weights / moe_layers_here);
      block.reduce_scatter_s =
          ev.collective(dp_stride, dp_cp, CollectiveOp::reduce_scatter, grads / static_cast<double>(per_stage)) +
          moe_share * ev.collective(edp_stride, edp, CollectiveOp::reduce_scatter, expert_grads / moe_layers_here);
      double backward_gathers = 0;
      for (int64_t i = 0; i < per_stage; ++i)
        if (reshards_after_forward(w.reshard_after_forward, l.pp > 1, i == m.num_layers - 1))
          backward_gathers += full ? 2.0 : 1.0;
      block.backward_gathers = backward_gathers / static_cast<double>(per_stage);
      block.forward_compute_s = first_forward / static_cast<double>(per_stage);
      block.backward_compute_s = first_backward / static_cast<double>(per_stage);
      const double blocks = mb * static_cast<double>(per_stage);
      const double total = blocks * ((1 + block.backward_gathers) * block.all_gather_s + block.reduce_scatter_s);
      dp_exposed = std::min(total, fsdp_exposed_s(block, blocks, w.fsdp_prefetch));
      dp_exposed += nccl_sm_slowdown_s(total - dp_exposed, w.runtime.nccl_channels, ev.sms());  // as estimate_step
      dp_exposed +=
          fsdp2_copy_s(w, mb * (1 + block.backward_gathers), params + expert_weights,  // as estimate_step
                       mb * (grads + expert_grads), ev.gpu().memory_bandwidth_bytes_per_s * efficiency.memory);
    } else {
      // Megatron's buckets (as estimate_step): the gradient reduction under the last backward
      // with overlap_grad_reduce, the distributed optimizer's gather under the first forward with
      // overlap_param_gather, else after the backward and after the optimizer step.
      const CollectiveOp reduce = w.zero_stage == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
      const double bucket_params = std::max(bucket_params_default, 1e6 * static_cast<double>(dp_cp));
      const double buckets = std::max(1.0, std::ceil(dense_params / bucket_params));
      const double rs = ev.collective(dp_stride, dp_cp, reduce, grads / buckets);
      const double ag =
          w.zero_stage == 0 ? 0.0 : ev.collective(dp_stride, dp_cp, CollectiveOp::all_gather, params / buckets);
      const double expert_bucket_params = std::max(bucket_params_default, 1e6 * static_cast<double>(edp));
      const double expert_buckets = std::max(1.0, std::ceil(expert_params / expert_bucket_params));
      const double expert_rs = ev.collective(edp_stride, edp, reduce, expert_grads / expert_buckets);
      const double expert_ag =
          w.zero_stage == 0 ? 0.0
                            : ev.collective(edp_stride, edp, CollectiveOp::all_gather, expert_weights / expert_buckets);
      const double rs_total = buckets * rs + expert_buckets * expert_rs;
      const double ag_total = buckets * ag + expert_buckets * expert_ag;
      dp_exposed =
          (w.overlap_grad_reduce ? bucketed_exposed_s(rs_total, std::max(rs, expert_rs), first_backward) : rs_total) +
          (w.overlap_param_gather && w.zero_stage > 0
               ? bucketed_exposed_s(ag_total, std::max(ag, expert_ag), first_forward)
               : ag_total);
      dp_exposed += nccl_sm_slowdown_s(rs_total + ag_total - dp_exposed, w.runtime.nccl_channels, ev.sms());
    }
  }
  const ComputeContext context{m, w, l, ev.gpu(), efficiency};
  DataParallelTail tail;
  tail.dp_exposed_s = dp_exposed;
  tail.optimizer_s = optimizer_step_s(
      context, dense_params + ev.experts(0, per_stage) / static_cast<double>(l.ep * l.etp), l.shard_group() * l.cp);
  return tail;
}

// 6. The peak memory of the first and last stages, as training_memory() counts it.
inline double peak_memory_bytes(Evaluator& ev, const ModelSpec& m, const Candidate& c, const CandidateShape& shape) {
  const Layout& l = c.layout;
  const TrainingWorkload& w = c.workload;
  const double mb = shape.micro_batches;
  const bool full = shape.full_recompute;
  // Memory of the first and last stages (the peaks), as training_memory() counts it.
  const int64_t expert_shard = std::max<int64_t>(l.expert_dp() * l.shard_group() / std::max<int64_t>(l.dp, 1), 1);
  const ModelStateBytes dense_bytes = model_state_bytes_per_param(w, l.shard_group() * l.cp);
  const ModelStateBytes expert_bytes = model_state_bytes_per_param(w, expert_shard);
  const auto [embedding_act, output_act] = ev.outer_activations(l, w);
  const auto [dense_act, dense_full] = ev.activation(l, w, false);
  const std::pair<double, double> moe_act = m.is_moe() ? ev.activation(l, w, true) : std::pair{0.0, 0.0};
  // What the candidate's schedule keeps in flight (GPipe, which the 1F1B closed form also times,
  // when the workload asks for it).
  const PipelineSchedule memory_schedule =
      c.schedule == PipelineSchedule::one_f_one_b && w.schedule == PipelineSchedule::gpipe ? PipelineSchedule::gpipe
                                                                                           : c.schedule;
  // Per end stage (first, last): model states, activations of one micro-batch, temporary buffers.
  double end_states[2] = {0, 0}, end_activation[2] = {0, 0};
  const bool te_fp8 = te_fp8_memory({}, w);
  // The recompute's largest materialisation of one layer (training_memory's largest_recompute).
  double largest_recompute = 0;
  if (full)
    largest_recompute = std::max(dense_full, moe_act.second);
  else if (w.recompute == RecomputeMode::selective || w.recompute == RecomputeMode::op)
    largest_recompute = std::max(dense_full - dense_act, moe_act.second - moe_act.first);
  const double communication = training_communication_bytes(m, w, l);
  double peak = 0;
  for (const int64_t s : {int64_t{0}, l.pp - 1}) {
    const int64_t stage_layers = layers_on_stage(m, l, s);
    const int64_t from = s == 0 ? 0 : m.num_layers - stage_layers, to = from + stage_layers;
    const auto moe_count = static_cast<double>(ev.moe_layers(from, to));
    const double dense_count = static_cast<double>(stage_layers) - moe_count;
    double dense_p = ev.split(from, to) / static_cast<double>(l.tp) + ev.replicated(from, to);
    const double vocab_table =
        static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size) / static_cast<double>(l.tp);
    if (s == 0) dense_p += vocab_table + (embedding_params(m) - vocab_table * static_cast<double>(l.tp));
    if (s == l.pp - 1) dense_p += final_norm_params(m) + ((!m.tied_embeddings || l.pp > 1) ? vocab_table : 0.0);
    const double expert_p = ev.experts(from, to) / static_cast<double>(l.ep * l.etp);
    double states = dense_p * dense_bytes.total() + expert_p * expert_bytes.total();
    if (te_fp8) states += 2.0 * rank_gemm_weights(m, l, from, stage_layers);  // TE's FP8 weight caches
    const double in_flight = in_flight_micro_batches(memory_schedule, s, l.pp, l.vpp, static_cast<int64_t>(mb));
    double per_micro_batch = dense_count * dense_act + moe_count * moe_act.first;
    if (s == 0) per_micro_batch += embedding_act;
    const bool last = s == l.pp - 1;
    if (last && w.output_layer_activations) per_micro_batch += output_act;
    double activations = per_micro_batch * in_flight;
    // A zero-bubble stage's deferred Ws (as training_memory, Qi et al. 2024 Table 2).
    if (const double owed = deferred_weight_gradient_micro_batches(memory_schedule, s, l.pp, static_cast<int64_t>(mb));
        owed > 0) {
      const ActivationConfig act = ActivationConfig::from(w, m, l);
      activations +=
          owed * (dense_count * weight_gradient_held_bytes(m, ev.first_layer(false), act) +
                  (moe_count > 0 ? moe_count * weight_gradient_held_bytes(m, ev.first_layer(true), act) : 0.0));
    }
    const size_t end = s == 0 ? 0 : 1;
    end_states[end] = states;
    end_activation[end] = per_micro_batch;
    // The framework's buffers (temporaries, side-stream pools) as training_memory's stage_buffers.
    const StageBuffers buffers = stage_buffers(m, w, l, {}, ev.stage(l, s), largest_recompute, s == 0, last, false);
    const double temporary = buffers.temporary;
    const double total = states + activations + temporary + communication + w.runtime.runtime_bytes +
                         (activations + temporary + communication) * w.runtime.allocator_fraction +
                         buffers.all_gather_pool + buffers.loss_hole;
    peak = std::max(peak, total);
  }
  if (shape.dualpipe) {
    // The end ranks hold both end stages (training_memory): their states, p + 1 chunks of either,
    // and the last stage's temporaries (the logits gradient) beside the first's.
    const double in_flight = in_flight_micro_batches(memory_schedule, 0, l.pp, l.vpp, static_cast<int64_t>(mb));
    const double activations = 0.5 * (end_activation[0] + end_activation[1]) * in_flight;
    StageParams both = ev.stage(l, 0);
    const StageParams& mirror = ev.stage(l, l.pp - 1);
    both.dense += mirror.dense;
    both.experts += mirror.experts;
    both.largest_layer = std::max(both.largest_layer, mirror.largest_layer);
    const StageBuffers buffers = stage_buffers(m, w, l, {}, both, largest_recompute, true, true, false);
    const double temporary = buffers.temporary;
    peak = end_states[0] + end_states[1] + activations + temporary + communication + w.runtime.runtime_bytes +
           (activations + temporary + communication) * w.runtime.allocator_fraction + buffers.all_gather_pool +
           buffers.loss_hole;
  }
  return peak;
}

}  // namespace meshscope::search_detail
