#include "core/search/search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "core/activations.hpp"
#include "core/catalogue.hpp"
#include "core/estimate/overlap.hpp"
#include "core/flops.hpp"
#include "core/memory.hpp"

namespace meshscope {

bool parse_rank_objective(std::string_view name, RankObjective& objective) {
  if (name == "throughput")
    objective = RankObjective::throughput;
  else if (name == "memory" || name == "memory-headroom")
    objective = RankObjective::memory_headroom;
  else if (name == "cost" || name == "cost-per-token")
    objective = RankObjective::cost_per_token;
  else
    return false;
  return true;
}

std::string_view rank_objective_name(RankObjective objective) {
  switch (objective) {
    case RankObjective::throughput:
      return "throughput";
    case RankObjective::memory_headroom:
      return "memory-headroom";
    case RankObjective::cost_per_token:
      return "cost-per-token";
  }
  return "?";
}

namespace {

uint64_t key_of(std::initializer_list<int64_t> parts) {
  uint64_t key = 1469598103934665603ULL;  // FNV-1a over the parts
  for (const int64_t part : parts) {
    key ^= static_cast<uint64_t>(part) + 0x9e3779b97f4a7c15ULL + (key << 6) + (key >> 2);
    key *= 1099511628211ULL;
  }
  return key;
}

std::vector<int64_t> divisors(int64_t n, int64_t limit) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= std::min(n, limit); ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

// Everything about the model and cluster that does not depend on the candidate, and caches of
// what depends on a few of its degrees only.
class Evaluator {
 public:
  // The router is shared by the search's threads (its lazy caches are locked, routing.hpp).
  Evaluator(const ModelSpec& m, const Cluster& c, const SearchOptions& o, const Router& router)
      : m_(m), cluster_(c), options_(o), router_(router) {
    auto gpu = find_gpu(c.gpus.empty() ? "" : c.device(c.gpus.front()).gpu_model);
    gpu_ = gpu ? *gpu : *find_gpu("h100-sxm");
    sms_ = streaming_multiprocessors(gpu_);
    // Per-layer parameters split the way memory.cpp's stage_params() splits them, as prefix sums.
    const auto layers = static_cast<size_t>(m.num_layers);
    split_.assign(layers + 1, 0);
    replicated_.assign(layers + 1, 0);
    experts_.assign(layers + 1, 0);
    moe_.assign(layers + 1, 0);
    for (size_t i = 0; i < layers; ++i) {
      const LayerParams p = layer_params(m, static_cast<int64_t>(i));
      split_[i + 1] = split_[i] + p.attention + p.mlp + p.shared_experts;
      replicated_[i + 1] = replicated_[i] + p.norms + p.router;
      experts_[i + 1] = experts_[i] + p.routed_experts;
      moe_[i + 1] = moe_[i] + (m.is_moe_layer(static_cast<int64_t>(i)) ? 1 : 0);
    }
  }

  const GpuSpec& gpu() const { return gpu_; }
  // Per-stage scratch for a candidate's stage times (no allocation per candidate).
  std::vector<double>& stage_times(size_t stages) {
    if (stage_times_.size() < stages) stage_times_.resize(stages);
    return stage_times_;
  }
  const Router& router() const { return router_; }

  // The degrees one layer's compute depends on (EP: the local experts of a grouped GEMM,
  // compute.cpp), as a cache key; and the first layer of the kind.
  static uint64_t layer_key(const Layout& l, const TrainingWorkload& w, bool moe_layer) {
    return key_of({l.tp, l.cp, l.micro_batch, l.etp, l.ep, l.sp, static_cast<int64_t>(w.recompute), moe_layer});
  }
  int64_t first_layer(bool moe_layer) const {
    int64_t index = 0;
    while (index < m_.num_layers && m_.is_moe_layer(index) != moe_layer) ++index;
    return std::min(index, m_.num_layers - 1);
  }

  // Compute of one dense or MoE layer for one micro-batch, cached by the degrees it depends on.
  const WorkTime& layer(const Layout& l, const TrainingWorkload& w, bool moe_layer) {
    const uint64_t key = layer_key(l, w, moe_layer);
    auto it = layer_cache_.find(key);
    if (it != layer_cache_.end()) return it->second;
    const ComputeContext context{m_, w, l, gpu_, options_.estimate.efficiency};
    return layer_cache_.emplace(key, layer_compute(context, first_layer(moe_layer), false)).first->second;
  }

  // The GEMMs Transformer Engine overlaps the TP collectives with (overlap.hpp), per layer kind,
  // cached by the same degrees as the layer's compute.
  const TpOverlapGemms& tp_gemms(const Layout& l, const TrainingWorkload& w, bool moe_layer) {
    const uint64_t key = layer_key(l, w, moe_layer);
    auto it = tp_gemm_cache_.find(key);
    if (it != tp_gemm_cache_.end()) return it->second;
    const ComputeContext context{m_, w, l, gpu_, options_.estimate.efficiency};
    return tp_gemm_cache_.emplace(key, tp_overlap_gemms(layer_operations(context, first_layer(moe_layer))))
        .first->second;
  }
  double sms() const { return sms_; }

  const std::pair<WorkTime, WorkTime>& ends(const Layout& l, const TrainingWorkload& w) {
    const uint64_t key = key_of({l.tp, l.cp, l.micro_batch});
    auto it = ends_cache_.find(key);
    if (it != ends_cache_.end()) return it->second;
    const ComputeContext context{m_, w, l, gpu_, options_.estimate.efficiency};
    return ends_cache_.emplace(key, std::pair{embedding_compute(context), head_compute(context)}).first->second;
  }

  // Activation bytes of one layer and one micro-batch (and the full-layer bytes recompute needs).
  std::pair<double, double> activation(const Layout& l, const TrainingWorkload& w, bool moe_layer) {
    const bool te_fp8 = te_fp8_memory({}, w);  // training_memory: GEMM inputs saved in FP8
    const uint64_t key =
        key_of({l.tp, l.cp, l.micro_batch, l.etp, l.sp, static_cast<int64_t>(w.recompute), moe_layer, te_fp8 ? 1 : 0});
    auto it = activation_cache_.find(key);
    if (it != activation_cache_.end()) return it->second;
    ActivationConfig config = ActivationConfig::from(w, m_, l);
    if (te_fp8) config.gemm_input_bytes = 1.0;
    const int64_t index = first_layer(moe_layer);
    const RecomputeMode mode = w.recompute == RecomputeMode::layers ? RecomputeMode::full : w.recompute;
    const double kept = layer_activation_bytes(m_, index, config, mode);
    const double full = layer_activation_bytes(m_, index, config, RecomputeMode::none);
    return activation_cache_.emplace(key, std::pair{kept, full}).first->second;
  }

  // One call of a collective on the group of `size` ranks spaced by `stride` starting at rank 0
  // (alone on the network: the fast model does not share links between groups).
  double collective(int64_t stride, int64_t size, CollectiveOp op, double bytes) {
    if (size <= 1 || bytes <= 0) return 0;
    const uint64_t key = key_of({stride, size, static_cast<int64_t>(op)});
    auto it = comm_cache_.find(key);
    if (it == comm_cache_.end()) {
      const uint64_t group_key = key_of({stride, size});
      auto group = group_cache_.find(group_key);
      if (group == group_cache_.end()) {
        std::vector<DeviceId> gpus;
        for (int64_t i = 0; i < size; ++i) gpus.push_back(cluster_.gpus[static_cast<size_t>(i * stride)]);
        GroupPaths paths = group_paths(router_, gpus);
        GroupBandwidth bandwidth = group_bandwidth(router_, paths, options_.estimate.comm.constants);
        group = group_cache_.emplace(group_key, std::pair{std::move(paths), bandwidth}).first;
      }
      it = comm_cache_
               .emplace(key, prepare_collective(router_, group->second.first, op, options_.estimate.comm.constants,
                                                group->second.second))
               .first;
    }
    return evaluate_collective(it->second, bytes, options_.estimate.comm.constants).time_s;
  }

  // Activations outside the layers, by (TP, CP, micro-batch, SP).
  std::pair<double, double> outer_activations(const Layout& l, const TrainingWorkload& w) {
    const uint64_t key = key_of({l.tp, l.cp, l.micro_batch, l.sp});
    auto it = outer_cache_.find(key);
    if (it != outer_cache_.end()) return it->second;
    const ActivationConfig act = ActivationConfig::from(w, m_, l);
    return outer_cache_
        .emplace(key, std::pair{embedding_activation_bytes(m_, act), output_activation_bytes(m_, act, w.fp32_logits)})
        .first->second;
  }

  double split(int64_t from, int64_t to) const {
    return split_[static_cast<size_t>(to)] - split_[static_cast<size_t>(from)];
  }
  double replicated(int64_t from, int64_t to) const {
    return replicated_[static_cast<size_t>(to)] - replicated_[static_cast<size_t>(from)];
  }
  double experts(int64_t from, int64_t to) const {
    return experts_[static_cast<size_t>(to)] - experts_[static_cast<size_t>(from)];
  }
  int64_t moe_layers(int64_t from, int64_t to) const {
    return moe_[static_cast<size_t>(to)] - moe_[static_cast<size_t>(from)];
  }

 private:
  const ModelSpec& m_;
  const Cluster& cluster_;
  const SearchOptions& options_;
  const Router& router_;
  GpuSpec gpu_;
  std::vector<double> split_, replicated_, experts_;
  std::vector<int64_t> moe_;
  std::unordered_map<uint64_t, WorkTime> layer_cache_;
  std::unordered_map<uint64_t, TpOverlapGemms> tp_gemm_cache_;
  double sms_ = 0;
  std::unordered_map<uint64_t, std::pair<WorkTime, WorkTime>> ends_cache_;
  std::unordered_map<uint64_t, std::pair<double, double>> activation_cache_;
  std::unordered_map<uint64_t, std::pair<GroupPaths, GroupBandwidth>> group_cache_;
  std::unordered_map<uint64_t, CollectiveModel> comm_cache_;
  std::unordered_map<uint64_t, std::pair<double, double>> outer_cache_;
  std::vector<double> stage_times_;
};

// Layers per stage when PP does not divide them: the remainder goes to the middle stages and the
// first and last stages (embedding, LM head) get the fewest, as Llama 3 split 126 layers on 16.
std::vector<int64_t> balanced_stage_layers(int64_t layers, int64_t pp) {
  std::vector<int64_t> counts(static_cast<size_t>(pp), (layers + pp - 1) / pp);
  int64_t excess = static_cast<int64_t>(counts.size()) * counts.front() - layers;
  for (size_t i = 0; excess > 0; ++i, --excess) {
    // Take one layer at a time from the ends inwards: first, last, second, second to last, ...
    const size_t index = i % 2 == 0 ? i / 2 : counts.size() - 1 - i / 2;
    counts[index] -= 1;
  }
  return counts;
}

// The degrees a rejection example records (the knobs not chosen yet keep their defaults).
Layout mesh(int64_t tp, int64_t cp, int64_t pp, int64_t dp, int64_t ep = 1, int64_t etp = 1, int64_t vpp = 1,
            int64_t micro_batch = 1) {
  Layout l;
  l.tp = tp;
  l.cp = cp;
  l.pp = pp;
  l.dp = dp;
  l.ep = ep;
  l.etp = etp;
  l.vpp = vpp;
  l.micro_batch = micro_batch;
  return l;
}

struct Candidate {
  Layout layout;
  TrainingWorkload workload;
  PipelineSchedule schedule;
  AxisOrder order = AxisOrder::megatron;
};

struct Score {
  double step_time_s = 0;
  double peak_memory_bytes = 0;
  double bubble_fraction = 0;
};

// The fast model: the same per-layer compute and collective times as estimate_step(), with the
// pipeline makespan in closed form over the per-stage times and no link sharing between groups.
Score score(Evaluator& ev, const ModelSpec& m, const Candidate& c, double bucket_params_default,
            const ComputeEfficiency& efficiency) {
  const Layout& l = c.layout;
  const TrainingWorkload& w = c.workload;
  const auto mb = static_cast<double>(std::max<int64_t>(num_micro_batches(w, l), 1));
  // Layers per stage: even, or the explicit (Llama-3-style uneven) split; no allocation here,
  // this runs for every candidate.
  const auto stage_count = [&](int64_t s) {
    return l.stage_layers.empty() ? m.num_layers / l.pp : l.stage_layers[static_cast<size_t>(s)];
  };
  const int64_t per_stage = stage_count(0);
  const double e = dtype_bytes(w.activation_dtype);
  const double tokens = static_cast<double>(w.seq_len) * static_cast<double>(l.micro_batch) / static_cast<double>(l.cp);
  const double hidden_bytes = tokens * static_cast<double>(m.hidden_size) * e;

  // Per-layer communication exposed (as in estimate_step): TP per pass, all of it, or with
  // tp_comm_overlap what TE's chunked overlap leaves plus its SM charge (overlap.hpp).
  const double tp_ag = l.tp > 1 && l.sp ? ev.collective(1, l.tp, CollectiveOp::all_gather, hidden_bytes) : 0.0;
  const double tp_rs = l.tp > 1 && l.sp ? ev.collective(1, l.tp, CollectiveOp::reduce_scatter, hidden_bytes) : 0.0;
  const double tp_layer =
      l.tp > 1 ? (l.sp ? 2 * (tp_ag + tp_rs) : 2 * ev.collective(1, l.tp, CollectiveOp::all_reduce, hidden_bytes))
               : 0.0;
  TpLayerCost tp_dense{tp_layer, tp_layer}, tp_moe = tp_dense;
  if (w.tp_comm_overlap && l.tp > 1 && l.sp) {
    tp_dense = tp_overlapped_layer(ev.tp_gemms(l, w, false), tp_ag, tp_rs, l.tp, ev.sms());
    if (m.is_moe()) tp_moe = tp_overlapped_layer(ev.tp_gemms(l, w, true), tp_ag, tp_rs, l.tp, ev.sms());
  }
  const double ep_layer =
      (m.is_moe() && l.ep > 1)
          ? 2 * ev.collective(l.etp, l.ep, CollectiveOp::all_to_all,
                              tokens / (l.sp ? static_cast<double>(l.tp) : 1.0) * static_cast<double>(m.moe.top_k) *
                                  static_cast<double>(m.hidden_size) * e)
          : 0.0;
  double cp_forward = 0, cp_backward = 0;
  if (l.cp > 1) {
    const double chunk = 2.0 * tokens * static_cast<double>(m.kv_width()) * e / static_cast<double>(l.tp);
    const double t = ev.collective(l.tp, l.cp, CollectiveOp::send_recv, chunk);
    cp_forward = static_cast<double>(l.cp - 1) * t;
    cp_backward = 2 * cp_forward;
  }
  // Rank strides of the pipeline and of the gradient-reduction (DP×CP) groups under the order
  // (the tp-pp-dp order is only enumerated with CP = 1, so DP×CP stays one strided group).
  const bool pp_inside = c.order == AxisOrder::tp_pp_dp;
  const int64_t pp_stride = pp_inside ? l.tp * l.cp : l.tp * l.cp * l.dp;
  const int64_t dp_stride = pp_inside ? l.tp * l.pp : l.tp;
  const double p2p =
      l.pp > 1 ? ev.collective(pp_stride, 2, CollectiveOp::send_recv, hidden_bytes / static_cast<double>(l.tp)) : 0.0;

  const WorkTime& dense = ev.layer(l, w, false);
  const WorkTime* moe = m.is_moe() ? &ev.layer(l, w, true) : nullptr;
  const auto& [embedding, head] = ev.ends(l, w);
  const bool full = w.recompute == RecomputeMode::full;
  // DualPipe (DeepSeek-V3 §3.2.1) runs a forward chunk's all-to-alls under the paired backward's
  // compute and vice versa, and sends asynchronously (as estimate_step).
  const bool dualpipe = c.schedule == PipelineSchedule::dualpipe && l.pp > 1;
  const double ep_forward =
      dualpipe && moe != nullptr ? std::max(0.0, ep_layer - moe->backward_input_s - moe->backward_weight_s) : ep_layer;
  const double ep_backward = dualpipe && moe != nullptr ? std::max(0.0, ep_layer - moe->forward_s) : ep_layer;
  std::vector<double>& stage_time = ev.stage_times(static_cast<size_t>(l.pp));
  double t_max = 0, t_sum = 0, f_max = 0, b_max = 0, w_max = 0, first_backward = 0, first_forward = 0;
  for (int64_t s = 0, from = 0; s < l.pp; from += stage_count(s), ++s) {
    const int64_t stage_layers = stage_count(s);
    const int64_t to = from + stage_layers;
    const auto moe_count = static_cast<double>(ev.moe_layers(from, to));
    const double dense_count = static_cast<double>(stage_layers) - moe_count;
    auto stage = [&](double WorkTime::*field) {
      return dense_count * dense.*field + (moe != nullptr ? moe_count * moe->*field : 0.0);
    };
    double f = stage(&WorkTime::forward_s) + dense_count * tp_dense.forward_s + moe_count * tp_moe.forward_s +
               static_cast<double>(stage_layers) * std::max(0.0, cp_forward - 0.5 * dense.forward_s) +
               moe_count * ep_forward;
    double b = stage(&WorkTime::backward_input_s) + stage(&WorkTime::recompute_s) +
               dense_count * (tp_dense.backward_s + (full ? tp_dense.forward_s : 0.0)) +
               moe_count * (tp_moe.backward_s + (full ? tp_moe.forward_s : 0.0)) +
               static_cast<double>(stage_layers) * std::max(0.0, cp_backward - 0.5 * dense.backward_input_s) +
               moe_count * ep_backward;
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
    // Synchronous pipeline send/recv, as estimate_step (stage_sends); DualPipe's are asynchronous.
    if (!dualpipe) {
      const StageSends sends = stage_sends(s, l.pp, l.vpp);
      f += sends.forward * p2p;
      b += sends.backward * p2p;
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
  // Closed-form makespans (uniform-stage theory generalised to the slowest stage):
  // 1F1B/GPipe (SC21 §2.2.1): (m − 1)·t_max + Σ t_s; interleaved (§2.2.2): the fill shrinks by v;
  // ZB-H1 (Qi et al. 2024 §3): bubble (p − 1)(F + B − W).
  const auto p = static_cast<double>(l.pp), v = static_cast<double>(l.vpp);
  double makespan = (mb - 1) * t_max + t_sum;
  if (l.vpp > 1) makespan = mb * t_max + (t_sum - t_max) / v;
  if (c.schedule == PipelineSchedule::zb_h1 && l.pp > 1)
    makespan = mb * t_max + (p - 1) * std::max(0.0, f_max + b_max - w_max);
  if (dualpipe) {
    // A rank runs half the micro-batches through stage r and half through stage p − 1 − r; the
    // DualPipe README's bubble (PP/2 − 1)(F&B + B − 3W), with B a full backward and F&B = F + B,
    // is (PP/2 − 1)(F + 2B − W) in input-gradient B and weight-gradient W.
    double pair_max = 0;
    for (int64_t r = 0; r < l.pp / 2; ++r)
      pair_max = std::max(pair_max, stage_time[static_cast<size_t>(r)] + stage_time[static_cast<size_t>(l.pp - 1 - r)]);
    makespan = 0.5 * mb * pair_max + (p / 2 - 1) * std::max(0.0, f_max + 2 * b_max - w_max);
  }
  makespan += 2 * (p - 1) * p2p;

  // Data parallel and optimizer, as estimate_step().
  const int64_t dp_cp = l.dp * l.cp;
  const double dense_params =
      ev.split(0, per_stage) / static_cast<double>(l.tp) + ev.replicated(0, per_stage) +
      static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size) / static_cast<double>(l.tp);
  double dp_exposed = 0;
  if (dp_cp > 1) {
    const double grads = dense_params * dtype_bytes(w.grad_dtype);
    const double params = dense_params * dtype_bytes(w.param_dtype);
    if (w.zero_stage >= 3) {
      // FSDP per block and micro-batch under the first stage's compute (fsdp_exposed_s, as
      // estimate_step), with the backward re-gathers of torchtitan's reshard policy.
      const double layer_params = params / static_cast<double>(per_stage);
      FsdpBlock block;
      block.all_gather_s = ev.collective(dp_stride, dp_cp, CollectiveOp::all_gather, layer_params);
      block.reduce_scatter_s =
          ev.collective(dp_stride, dp_cp, CollectiveOp::reduce_scatter, grads / static_cast<double>(per_stage));
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
    } else {
      // Megatron's buckets (as estimate_step): the gradient reduction under the last backward
      // with overlap_grad_reduce, the distributed optimizer's gather under the first forward with
      // overlap_param_gather, else after the backward and after the optimizer step.
      const double bucket_params = std::max(bucket_params_default, 1e6 * static_cast<double>(dp_cp));
      const double buckets = std::max(1.0, std::ceil(dense_params / bucket_params));
      const double rs =
          ev.collective(dp_stride, dp_cp, w.zero_stage == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter,
                        grads / buckets);
      const double ag =
          w.zero_stage == 0 ? 0.0 : ev.collective(dp_stride, dp_cp, CollectiveOp::all_gather, params / buckets);
      dp_exposed = (w.overlap_grad_reduce ? bucketed_exposed_s(buckets * rs, rs, first_backward) : buckets * rs) +
                   (w.overlap_param_gather && w.zero_stage > 0 ? bucketed_exposed_s(buckets * ag, ag, first_forward)
                                                               : buckets * ag);
      dp_exposed += nccl_sm_slowdown_s(buckets * (rs + ag) - dp_exposed, w.runtime.nccl_channels, ev.sms());
    }
  }
  const ComputeContext context{m, w, l, ev.gpu(), efficiency};
  const double optimizer = optimizer_step_s(
      context, dense_params + ev.experts(0, per_stage) / static_cast<double>(l.ep * l.etp), l.shard_group() * l.cp);

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
    const int64_t stage_layers = stage_count(s);
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
    const double activations = per_micro_batch * in_flight;
    const size_t end = s == 0 ? 0 : 1;
    end_states[end] = states;
    end_activation[end] = per_micro_batch;
    // The framework's buffers (temporaries, side-stream pools) as training_memory's stage_buffers.
    const StageBuffers buffers =
        stage_buffers(m, w, l, {}, stage_params(m, l, s), largest_recompute, s == 0, last, false);
    const double temporary = buffers.temporary;
    const double total = states + activations + temporary + communication + w.runtime.runtime_bytes +
                         (activations + temporary + communication) * w.runtime.allocator_fraction +
                         buffers.all_gather_pool + buffers.loss_hole;
    peak = std::max(peak, total);
  }
  if (dualpipe) {
    // The end ranks hold both end stages (training_memory): their states, p + 1 chunks of either,
    // and the last stage's temporaries (the logits gradient) beside the first's.
    const double in_flight = in_flight_micro_batches(memory_schedule, 0, l.pp, l.vpp, static_cast<int64_t>(mb));
    const double activations = 0.5 * (end_activation[0] + end_activation[1]) * in_flight;
    StageParams both = stage_params(m, l, 0);
    const StageParams mirror = stage_params(m, l, l.pp - 1);
    both.dense += mirror.dense;
    both.experts += mirror.experts;
    both.largest_layer = std::max(both.largest_layer, mirror.largest_layer);
    const StageBuffers buffers = stage_buffers(m, w, l, {}, both, largest_recompute, true, true, false);
    const double temporary = buffers.temporary;
    peak = end_states[0] + end_states[1] + activations + temporary + communication + w.runtime.runtime_bytes +
           (activations + temporary + communication) * w.runtime.allocator_fraction + buffers.all_gather_pool +
           buffers.loss_hole;
  }
  Score result;
  result.step_time_s = makespan + dp_exposed + optimizer;
  result.peak_memory_bytes = peak;
  result.bubble_fraction = makespan > 0 ? std::max(0.0, 1 - t_sum * mb / (p * makespan)) : 0.0;
  return result;
}

// A "does not fit" example and its place in the enumeration (for the nearest misses' order).
struct Miss {
  RejectedLayout example;
  int64_t order = 0;
};
constexpr auto worse_miss = [](const Miss& a, const Miss& b) {
  return std::tie(a.example.overflow_bytes, a.order) < std::tie(b.example.overflow_bytes, b.order);
};

// What the enumeration of some meshes found: the counts, the reasons in the order they first
// occurred, the first examples of each structural reason, the nearest misses (a bounded max-heap;
// `order` counts from this part's first candidate) and every valid candidate in enumeration order.
struct SearchPart {
  SearchResult result;
  std::vector<std::string> reason_order;
  std::vector<RejectedLayout> structural_examples;
  std::vector<Miss> nearest_misses;
  std::vector<std::pair<RankedLayout, double>> ranked;  // layout, objective (lower is better)
};

// What every mesh's enumeration shares.
struct MeshSearch {
  const ModelSpec& m;
  const TrainingWorkload& base;
  const SearchOptions& options;
  int64_t gpus = 0;
  int64_t per_node = 1;
  bool wants_dualpipe = false;
  int64_t examples_per_reason = 0;
  const std::string& does_not_fit;
};

// Every candidate of one TP × CP × PP mesh, into `part`. `c` and `stage_split` are scratch (one
// candidate rewritten in place for every combination: no allocation per candidate).
void search_mesh(const MeshSearch& search, Evaluator& ev, Candidate& c, std::vector<int64_t>& stage_split,
                 SearchPart& part, int64_t tp, int64_t cp, int64_t pp) {
  const ModelSpec& m = search.m;
  const TrainingWorkload& base = search.base;
  const SearchOptions& options = search.options;
  const SearchSpace& space = options.space;
  const int64_t gpus = search.gpus;
  const int64_t per_node = search.per_node;
  const bool wants_dualpipe = search.wants_dualpipe;
  const int64_t examples_per_reason = search.examples_per_reason;
  const std::string& does_not_fit = search.does_not_fit;
  SearchResult& result = part.result;
  std::vector<std::string>& reason_order = part.reason_order;
  std::vector<RejectedLayout>& structural_examples = part.structural_examples;
  std::vector<Miss>& nearest_misses = part.nearest_misses;
  std::vector<std::pair<RankedLayout, double>>& ranked = part.ranked;
  auto reject = [&](const std::string& reason, const Layout& degrees, RejectedScope scope) {
    const int64_t count = ++result.rejected[reason];
    ++result.evaluated;
    if (count == 1) reason_order.push_back(reason);
    if (count > examples_per_reason) return;
    RejectedLayout example;
    example.layout = degrees;
    example.scope = scope;
    example.reason = reason;
    structural_examples.push_back(std::move(example));
  };
  const bool uneven = m.num_layers % pp != 0;
  if (uneven) stage_split = balanced_stage_layers(m.num_layers, pp);
  const int64_t dp = gpus / (tp * cp * pp);
  // Structural checks first: each failure rejects the whole sub-tree, counted once.
  if (m.num_heads % tp != 0 || (!m.mla.enabled() && m.num_kv_heads % tp != 0)) {
    reject("attention heads or KV heads not divisible by TP", mesh(tp, cp, pp, dp), RejectedScope::mesh);
    return;
  }
  if (m.ffn_hidden_size > 0 && m.ffn_hidden_size % tp != 0) {
    reject("FFN width not divisible by TP", mesh(tp, cp, pp, dp), RejectedScope::mesh);
    return;
  }
  if (uneven && m.num_layers / pp < 2) {
    reject("fewer than two layers per pipeline stage", mesh(tp, cp, pp, dp), RejectedScope::mesh);
    return;
  }
  if (cp > 1 && base.seq_len % (2 * cp) != 0) {
    reject("sequence not divisible by 2×CP", mesh(tp, cp, pp, dp), RejectedScope::mesh);
    return;
  }
  std::vector<int64_t> eps = {1};
  if (m.is_moe()) eps = divisors(m.moe.num_experts, tp * cp * dp);
  for (const int64_t ep : eps) {
    // Expert tensor parallelism: none, or as wide as TP (Megatron-Core's two common choices).
    for (const int64_t etp : (m.is_moe() && tp > 1) ? std::vector<int64_t>{1, tp} : std::vector<int64_t>{1}) {
      if ((tp * cp * dp) % (ep * etp) != 0) {
        reject("EP×expert-TP does not divide TP×CP×DP", mesh(tp, cp, pp, dp, ep, etp), RejectedScope::mesh);
        continue;
      }
      if (m.is_moe() && m.moe.expert_ffn_hidden_size % etp != 0) {
        reject("expert FFN width not divisible by expert-TP", mesh(tp, cp, pp, dp, ep, etp), RejectedScope::mesh);
        continue;
      }
      // Virtual stages: divisors of the layers per stage; with an uneven split (Llama 3: 126
      // layers on 16 stages, one fewer on the first and last), divisors of the fuller stages'
      // count that still leave every chunk a layer (layers_per_virtual_stage spreads them).
      std::vector<int64_t> vpps = divisors(uneven ? stage_split[1] : m.num_layers / pp, pp > 1 ? space.max_vpp : 1);
      if (uneven) {
        const int64_t fewest = *std::min_element(stage_split.begin(), stage_split.end());
        vpps.erase(std::remove_if(vpps.begin(), vpps.end(), [&](int64_t v) { return v > fewest; }), vpps.end());
      }
      for (const int64_t vpp : vpps) {
        for (const int64_t mbs : space.micro_batches) {
          if (base.global_batch % (dp * mbs) != 0) {
            reject("global batch not divisible by DP×micro-batch", mesh(tp, cp, pp, dp, ep, etp, vpp, mbs),
                   RejectedScope::micro_batch);
            continue;
          }
          const int64_t micro_batches = base.global_batch / (dp * mbs);
          if (vpp > 1 && micro_batches % pp != 0) {
            reject("interleaving needs micro-batches in multiples of PP", mesh(tp, cp, pp, dp, ep, etp, vpp, mbs),
                   RejectedScope::micro_batch);
            continue;
          }
          // DualPipe feeds half the micro-batches from each end: an even PP and at least
          // 2·PP micro-batches, an even number (deepseek-ai/DualPipe asserts these).
          const bool dualpipe_fits = pp % 2 == 0 && vpp == 1 && micro_batches % 2 == 0 && micro_batches >= 2 * pp;
          if (pp > 1 && vpp == 1 && !dualpipe_fits && wants_dualpipe)
            reject("DualPipe needs an even PP and an even number of at least 2×PP micro-batches",
                   mesh(tp, cp, pp, dp, ep, etp, vpp, mbs), RejectedScope::micro_batch);
          for (const RecomputeMode recompute : space.recompute) {
            for (const int zero : space.zero_stages) {
              if (zero > 0 && dp * cp == 1) {
                // ZeRO without data parallelism is the same layout: enumerate it once.
                if (zero != space.zero_stages.front()) {
                  ++result.collapsed;
                  continue;
                }
              }
              for (const PipelineSchedule schedule : space.schedules) {
                if ((pp == 1 || vpp > 1) && schedule != space.schedules.front()) {
                  ++result.collapsed;  // one schedule when there is no pipeline or it is interleaved
                  continue;
                }
                if (schedule == PipelineSchedule::dualpipe && !dualpipe_fits) continue;  // rejected above
                for (size_t sp_variant = 0; sp_variant < (tp > 1 ? space.sequence_parallel.size() : 1); ++sp_variant)
                  for (size_t overlap_variant = 0; overlap_variant < std::max<size_t>(space.tp_comm_overlap.size(), 1);
                       ++overlap_variant)
                    for (const AxisOrder order : space.orders) {
                      const bool sp_on = tp > 1 && space.sequence_parallel[sp_variant];
                      const bool tp_overlap = !space.tp_comm_overlap.empty() && space.tp_comm_overlap[overlap_variant];
                      if (overlap_variant > 0 && !sp_on) {
                        ++result.collapsed;  // TE's TP overlap needs TP > 1 with SP: the same layout
                        continue;
                      }
                      if (order != space.orders.front() && (order != AxisOrder::tp_pp_dp || pp == 1 || dp == 1 ||
                                                            cp > 1 || ep > 1 || etp > 1 || tp * pp > per_node)) {
                        ++result.collapsed;  // the same placement as the first order
                        continue;
                      }
                      c.layout.tp = tp;
                      c.layout.cp = cp;
                      c.layout.pp = pp;
                      c.layout.dp = dp;
                      c.layout.ep = ep;
                      c.layout.etp = etp;
                      c.layout.vpp = vpp;
                      if (uneven)
                        c.layout.stage_layers = stage_split;
                      else
                        c.layout.stage_layers.clear();
                      c.layout.micro_batch = mbs;
                      c.layout.sp = sp_on;
                      c.workload.tp_comm_overlap = sp_on && tp_overlap;
                      c.workload.recompute = recompute;
                      c.workload.zero_stage = zero;
                      c.schedule = vpp > 1 ? PipelineSchedule::interleaved : schedule;
                      c.order = order;
                      const Score s = score(ev, m, c, options.estimate.comm.bucket_params, options.estimate.efficiency);
                      const double capacity = ev.gpu().memory_bytes;
                      // Memory does not depend on the order: the first order's verdict stands.
                      if (s.peak_memory_bytes > capacity && order != space.orders.front()) {
                        ++result.collapsed;
                        continue;
                      }
                      ++result.evaluated;
                      if (s.peak_memory_bytes > capacity) {
                        if (++result.rejected[does_not_fit] == 1) reason_order.push_back(does_not_fit);
                        const double overflow = s.peak_memory_bytes - capacity;
                        result.largest_overflow_bytes = std::max(result.largest_overflow_bytes, overflow);
                        if (examples_per_reason > 0 &&
                            (static_cast<int64_t>(nearest_misses.size()) < examples_per_reason ||
                             overflow < nearest_misses.front().example.overflow_bytes)) {
                          Miss miss;
                          miss.example.layout = c.layout;
                          miss.example.recompute = recompute;
                          miss.example.zero_stage = zero;
                          miss.example.schedule = c.schedule;
                          miss.example.scope = RejectedScope::candidate;
                          miss.example.reason = does_not_fit;
                          miss.example.peak_memory_bytes = s.peak_memory_bytes;
                          miss.example.overflow_bytes = overflow;
                          miss.order = result.evaluated;
                          if (static_cast<int64_t>(nearest_misses.size()) == examples_per_reason) {
                            std::pop_heap(nearest_misses.begin(), nearest_misses.end(), worse_miss);
                            nearest_misses.pop_back();
                          }
                          nearest_misses.push_back(std::move(miss));
                          std::push_heap(nearest_misses.begin(), nearest_misses.end(), worse_miss);
                        }
                        continue;
                      }
                      ++result.valid;
                      RankedLayout r;
                      r.layout = c.layout;
                      r.recompute = recompute;
                      r.zero_stage = zero;
                      r.schedule = c.schedule;
                      r.order = order;
                      r.tp_comm_overlap = c.workload.tp_comm_overlap;
                      r.step_time_s = s.step_time_s;
                      r.tokens_per_s_per_gpu = static_cast<double>(base.global_batch) *
                                               static_cast<double>(base.seq_len) / s.step_time_s /
                                               static_cast<double>(gpus);
                      r.peak_memory_bytes = s.peak_memory_bytes;
                      r.headroom_bytes = capacity - s.peak_memory_bytes;
                      r.bubble_fraction = s.bubble_fraction;
                      r.cost_per_million_tokens = options.gpu_hour_cost / 3600.0 / r.tokens_per_s_per_gpu * 1e6;
                      const double objective = options.objective == RankObjective::throughput ? s.step_time_s
                                               : options.objective == RankObjective::memory_headroom
                                                   ? -r.headroom_bytes
                                                   : r.cost_per_million_tokens;
                      ranked.emplace_back(r, objective);
                    }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

Result<SearchResult> rank_layouts(const ModelSpec& m, const TrainingWorkload& base, const Cluster& cluster,
                                  const SearchOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  SearchResult result;
  const int64_t gpus = cluster.num_gpus();
  if (gpus < 1) return make_error(ErrorCode::invalid_argument, "the cluster has no GPUs", "--cluster");
  const Router router(cluster);
  Evaluator ev(m, cluster, options, router);
  int64_t per_node = 1;
  {
    std::unordered_map<int32_t, int64_t> counts;
    for (const DeviceId g : cluster.gpus) per_node = std::max(per_node, ++counts[cluster.device(g).node]);
  }
  const SearchSpace& space = options.space;
  const int64_t max_tp = space.max_tp > 0 ? space.max_tp : per_node;
  std::vector<std::pair<RankedLayout, double>> ranked;  // layout, objective (lower is better)
  // Rejection examples (SearchResult::rejected_examples). Structural rejections happen once per
  // sub-tree, so keeping the first few costs nothing measurable; "does not fit" happens per
  // candidate, so its nearest misses are kept in a bounded max-heap by (overflow, enumeration
  // order) and a candidate is only copied when it beats the heap's worst.
  const auto examples_per_reason = std::max<int64_t>(options.rejected_examples_per_reason, 0);
  const std::string does_not_fit = "does not fit in GPU memory";
  std::vector<std::string> reason_order;  // reasons in the order they first occurred
  std::vector<RejectedLayout> structural_examples;
  std::vector<Miss> nearest_misses;
  const std::vector<int64_t> tps = divisors(gpus, max_tp);
  const bool wants_dualpipe =
      std::find(space.schedules.begin(), space.schedules.end(), PipelineSchedule::dualpipe) != space.schedules.end();
  const MeshSearch search{m, base, options, gpus, per_node, wants_dualpipe, examples_per_reason, does_not_fit};
  struct Mesh {
    int64_t tp = 1, cp = 1, pp = 1;
  };
  std::vector<Mesh> meshes;
  for (const int64_t tp : tps)
    for (const int64_t cp : divisors(gpus / tp, space.max_cp))
      for (const int64_t pp : divisors(gpus / (tp * cp), m.num_layers)) meshes.push_back({tp, cp, pp});
  const auto cancelled = [&] { return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed); };
  const size_t threads =
      std::min(meshes.size(), options.threads > 0 ? static_cast<size_t>(options.threads)
                                                  : std::max<size_t>(1, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    // One part for every mesh, in order: the enumeration as it always was.
    SearchPart all;
    Candidate c;
    c.workload = base;
    std::vector<int64_t> stage_split;
    for (const Mesh& mesh : meshes) {
      if (cancelled()) return make_error(ErrorCode::invalid_argument, kSearchCancelled, "rank_layouts");
      search_mesh(search, ev, c, stage_split, all, mesh.tp, mesh.cp, mesh.pp);
    }
    result.evaluated = all.result.evaluated;
    result.valid = all.result.valid;
    result.collapsed = all.result.collapsed;
    result.rejected = std::move(all.result.rejected);
    result.largest_overflow_bytes = all.result.largest_overflow_bytes;
    reason_order = std::move(all.reason_order);
    structural_examples = std::move(all.structural_examples);
    nearest_misses = std::move(all.nearest_misses);
    ranked = std::move(all.ranked);
  } else {
    // One part per mesh, searched by a pool of threads (each with its own evaluator and caches),
    // then joined in mesh order exactly as the serial enumeration accumulates them: counts summed,
    // reasons by first occurrence, the first examples of each reason, the nearest misses by
    // (overflow, enumeration order) with each part's order offset by the candidates before it, and
    // the valid candidates concatenated. The result is the same as with one thread, bit for bit.
    std::vector<SearchPart> parts(meshes.size());
    std::atomic<size_t> next{0};
    std::atomic<bool> stopped{false};
    const auto work = [&](Evaluator& evaluator) {
      Candidate scratch;
      scratch.workload = base;
      std::vector<int64_t> split;
      for (size_t i = next.fetch_add(1); i < meshes.size(); i = next.fetch_add(1)) {
        if (stopped || cancelled()) {
          stopped = true;
          return;
        }
        search_mesh(search, evaluator, scratch, split, parts[i], meshes[i].tp, meshes[i].cp, meshes[i].pp);
      }
    };
    {
      std::vector<std::jthread> pool;
      for (size_t t = 1; t < threads; ++t)
        pool.emplace_back([&] {
          Evaluator own(m, cluster, options, router);
          work(own);
        });
      work(ev);
    }
    if (stopped) return make_error(ErrorCode::invalid_argument, kSearchCancelled, "rank_layouts");
    std::map<std::string, int64_t> examples_of;
    std::vector<Miss> misses;
    int64_t offset = 0;
    for (SearchPart& part : parts) {
      result.evaluated += part.result.evaluated;
      result.valid += part.result.valid;
      result.collapsed += part.result.collapsed;
      for (const auto& [reason, count] : part.result.rejected) result.rejected[reason] += count;
      result.largest_overflow_bytes = std::max(result.largest_overflow_bytes, part.result.largest_overflow_bytes);
      for (std::string& reason : part.reason_order)
        if (std::find(reason_order.begin(), reason_order.end(), reason) == reason_order.end())
          reason_order.push_back(std::move(reason));
      for (RejectedLayout& example : part.structural_examples)
        if (++examples_of[example.reason] <= examples_per_reason) structural_examples.push_back(std::move(example));
      for (Miss& miss : part.nearest_misses) {
        miss.order += offset;
        misses.push_back(std::move(miss));
      }
      offset += part.result.evaluated;
      ranked.insert(ranked.end(), std::make_move_iterator(part.ranked.begin()),
                    std::make_move_iterator(part.ranked.end()));
    }
    std::sort(misses.begin(), misses.end(), worse_miss);
    if (static_cast<int64_t>(misses.size()) > examples_per_reason)
      misses.resize(static_cast<size_t>(examples_per_reason));
    nearest_misses = std::move(misses);
    std::make_heap(nearest_misses.begin(), nearest_misses.end(), worse_miss);
  }

  std::sort_heap(nearest_misses.begin(), nearest_misses.end(), worse_miss);
  for (const std::string& reason : reason_order) {
    if (reason == does_not_fit) {
      for (Miss& miss : nearest_misses) result.rejected_examples.push_back(std::move(miss.example));
      continue;
    }
    for (RejectedLayout& example : structural_examples)
      if (example.reason == reason) result.rejected_examples.push_back(std::move(example));
  }
  // Deterministic order: by objective, then by the layout's degrees (fewest-axes first).
  auto tie_key = [](const RankedLayout& r) {
    return std::tuple(r.layout.cp, r.layout.tp, r.layout.pp, r.layout.ep, r.layout.vpp, r.layout.micro_batch,
                      static_cast<int>(r.recompute), r.zero_stage, static_cast<int>(r.schedule), r.layout.sp,
                      static_cast<int>(r.order), r.tp_comm_overlap);
  };
  const auto better = [&](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second < b.second;
    return tie_key(a.first) < tie_key(b.first);
  };
  // Layouts the model cannot tell apart (same step time and memory, e.g. CP×micro-batch trades
  // that leave the per-rank work unchanged) collapse into the first in canonical order.
  const auto same_prediction = [](const RankedLayout& a, const RankedLayout& b) {
    return std::abs(a.step_time_s - b.step_time_s) <= 1e-12 * a.step_time_s &&
           std::abs(a.peak_memory_bytes - b.peak_memory_bytes) <= 1e-9 * a.peak_memory_bytes;
  };
  const auto wanted = static_cast<size_t>(std::max<int64_t>(options.top, options.refine));
  size_t keep = std::min(ranked.size(), wanted * 8 + 16);
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(), better);
  ranked.resize(keep);
  {
    std::vector<std::pair<RankedLayout, double>> distinct;
    for (auto& entry : ranked) {
      if (!distinct.empty() && same_prediction(distinct.back().first, entry.first)) {
        ++result.collapsed;
        continue;
      }
      distinct.push_back(std::move(entry));
    }
    ranked = std::move(distinct);
    if (ranked.size() > wanted) ranked.resize(wanted);
  }
  // Refine the best with the full model (event simulation, concurrent groups).
  for (int64_t i = 0; i < std::min<int64_t>(options.refine, static_cast<int64_t>(ranked.size())); ++i) {
    auto& [r, objective] = ranked[static_cast<size_t>(i)];
    TrainingWorkload w = base;
    w.recompute = r.recompute;
    w.zero_stage = r.zero_stage;
    w.tp_comm_overlap = r.tp_comm_overlap;
    w.schedule = r.schedule;
    EstimateOptions estimate = options.estimate;
    estimate.order = r.order;
    auto e = estimate_step(m, w, r.layout, cluster, ev.router(), estimate);
    if (!e) continue;
    r.step_time_s = e->step_time_s;
    r.tokens_per_s_per_gpu = e->tokens_per_s_per_gpu;
    r.bubble_fraction = e->bubble_fraction;
    r.cost_per_million_tokens = options.gpu_hour_cost / 3600.0 / r.tokens_per_s_per_gpu * 1e6;
    r.refined = true;
    if (options.objective == RankObjective::throughput) objective = r.step_time_s;
    if (options.objective == RankObjective::cost_per_token) objective = r.cost_per_million_tokens;
  }
  std::sort(ranked.begin(), ranked.end(), better);
  const auto flops = flops_per_token(m, base.seq_len, base.causal, RecomputeMode::none).model_training();
  const double peak = compute_peak_flops(ev.gpu(), base.compute_dtype);
  for (size_t i = 0; i < ranked.size() && static_cast<int64_t>(i) < options.top; ++i) {
    ranked[i].first.mfu = flops * ranked[i].first.tokens_per_s_per_gpu / peak;
    result.layouts.push_back(ranked[i].first);
  }
  result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace meshscope
