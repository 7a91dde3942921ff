#pragma once
// The layout search's fast model (search.cpp enumerates, this scores): an Evaluator holds what
// does not depend on the candidate and caches what depends on a few of its degrees; score() is the
// step time and peak memory of one candidate from them. Internal to core/search.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/estimate/compute.hpp"
#include "core/estimate/overlap.hpp"
#include "core/memory/activations.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/search/search.hpp"
#include "core/topology/routing.hpp"

namespace meshscope::search_detail {

inline uint64_t key_of(std::initializer_list<int64_t> parts) {
  uint64_t key = 1469598103934665603ULL;  // FNV-1a over the parts
  for (const int64_t part : parts) {
    key ^= static_cast<uint64_t>(part) + 0x9e3779b97f4a7c15ULL + (key << 6) + (key >> 2);
    key *= 1099511628211ULL;
  }
  return key;
}

// A cache shared by the search's threads for what is costly to compute and the same for every
// thread: the routes and bandwidth of a strided group of ranks (a group of a 16,384-GPU cluster
// takes milliseconds to route) and one layer's operations and times. Each value is computed once:
// the first thread to ask computes it, the others wait for it. Each Evaluator keeps its own
// lock-free copy of what it has met, so the lock is only taken on a thread's first use of a key.
template <class V>
class SharedCache {
 public:
  template <class Compute>
  const V& get(uint64_t key, Compute&& compute) {
    std::shared_ptr<Entry> entry;
    {
      const std::lock_guard lock(mutex_);
      auto& slot = values_[key];
      if (!slot) slot = std::make_shared<Entry>();
      entry = slot;
    }
    std::call_once(entry->once, [&] { entry->value = compute(); });
    return entry->value;
  }

 private:
  struct Entry {
    std::once_flag once;
    V value;
  };
  std::mutex mutex_;
  std::unordered_map<uint64_t, std::shared_ptr<Entry>> values_;
};

struct SharedCaches {
  SharedCache<std::pair<GroupPaths, GroupBandwidth>> groups;
  SharedCache<WorkTime> layers;
  SharedCache<TpOverlapGemms> tp_gemms;
};

// Everything about the model and cluster that does not depend on the candidate, and caches of
// what depends on a few of its degrees only.
class Evaluator {
 public:
  // The router is shared by the search's threads (its lazy caches are locked, routing.hpp).
  Evaluator(const ModelSpec& m, const Cluster& c, const SearchOptions& o, const Router& router, SharedCaches& shared)
      : m_(m),
        cluster_(c),
        options_(o),
        router_(router),
        efficiency_(on_host_cpu(o.estimate.efficiency, host_cpu_name(c))),
        shared_(shared) {  // as estimate_step
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
  // The compute efficiencies with the host costs of the cluster's host CPU (compute.hpp on_host_cpu).
  const ComputeEfficiency& efficiency() const { return efficiency_; }
  // Per-stage scratch for a candidate's stage times (no allocation per candidate).
  std::vector<double>& stage_times(size_t stages) {
    if (stage_times_.size() < stages) stage_times_.resize(stages);
    return stage_times_;
  }
  const Router& router() const { return router_; }

  // The degrees one layer's compute depends on (EP: the local experts of a grouped GEMM,
  // compute.cpp), as a cache key; and the first layer of the kind. Under FP8/FP4 the framework
  // (ZeRO 3 resolves to FSDP2) sets the recipe and whether weights are cast once per step, spread
  // over the step's micro-batches (layer_operations); with CP it sets the implementation
  // (PyTorch's context_parallel merges its ring steps in fp32).
  static uint64_t layer_key(const Layout& l, const TrainingWorkload& w, bool moe_layer) {
    const bool low_precision = fp8_linears(w);
    return key_of({l.tp, l.cp, l.micro_batch, l.etp, l.ep, l.sp, static_cast<int64_t>(w.recompute), moe_layer,
                   low_precision ? static_cast<int64_t>(resolved_framework({}, w)) : -1,
                   low_precision ? num_micro_batches(w, l) : -1,
                   l.cp > 1 ? static_cast<int64_t>(resolved_cp_comm(w)) : -1});
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
    const WorkTime& shared = shared_.layers.get(key, [&] {
      const ComputeContext context{m_, w, l, gpu_, efficiency_};
      return layer_compute(context, first_layer(moe_layer), false);
    });
    return layer_cache_.emplace(key, shared).first->second;
  }

  // The GEMMs Transformer Engine overlaps the TP collectives with (overlap.hpp), per layer kind,
  // cached by the same degrees as the layer's compute.
  const TpOverlapGemms& tp_gemms(const Layout& l, const TrainingWorkload& w, bool moe_layer) {
    const uint64_t key = layer_key(l, w, moe_layer);
    auto it = tp_gemm_cache_.find(key);
    if (it != tp_gemm_cache_.end()) return it->second;
    const TpOverlapGemms& shared = shared_.tp_gemms.get(key, [&] {
      const ComputeContext context{m_, w, l, gpu_, efficiency_};
      return tp_overlap_gemms(layer_operations(context, first_layer(moe_layer)));
    });
    return tp_gemm_cache_.emplace(key, shared).first->second;
  }
  double sms() const { return sms_; }

  const std::pair<WorkTime, WorkTime>& ends(const Layout& l, const TrainingWorkload& w) {
    const uint64_t key = key_of({l.tp, l.cp, l.micro_batch});
    auto it = ends_cache_.find(key);
    if (it != ends_cache_.end()) return it->second;
    const ComputeContext context{m_, w, l, gpu_, efficiency_};
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
  // `one_kernel`: an all-to-all of DeepEP/HybridEP (CommConstants::all_to_all_one_kernel).
  double collective(int64_t stride, int64_t size, CollectiveOp op, double bytes, bool one_kernel = false) {
    if (size <= 1 || bytes <= 0) return 0;
    const uint64_t key = key_of({stride, size, static_cast<int64_t>(op), one_kernel ? 1 : 0});
    auto it = comm_cache_.find(key);
    if (it == comm_cache_.end()) {
      const auto& group = shared_.groups.get(key_of({stride, size}), [&] {
        std::vector<DeviceId> gpus;
        for (int64_t i = 0; i < size; ++i) gpus.push_back(cluster_.gpus[static_cast<size_t>(i * stride)]);
        GroupPaths paths = group_paths(router_, gpus);
        GroupBandwidth bandwidth = group_bandwidth(router_, paths, options_.estimate.comm.constants);
        return std::pair{std::move(paths), bandwidth};
      });
      CommConstants constants = options_.estimate.comm.constants;
      constants.all_to_all_one_kernel = one_kernel;
      it = comm_cache_.emplace(key, prepare_collective(router_, group.first, op, constants, group.second)).first;
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

  // A stage's parameters on one rank (memory.hpp stage_params: a walk over the model's layers), by
  // the degrees they depend on.
  const StageParams& stage(const Layout& l, int64_t stage_index) {
    const uint64_t key = key_of({l.tp, l.cp, l.pp, l.vpp, l.ep, l.etp, stage_index});
    auto it = stage_cache_.find(key);
    if (it != stage_cache_.end()) return it->second;
    return stage_cache_.emplace(key, stage_params(m_, l, stage_index)).first->second;
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
  ComputeEfficiency efficiency_;
  GpuSpec gpu_;
  std::vector<double> split_, replicated_, experts_;
  std::vector<int64_t> moe_;
  std::unordered_map<uint64_t, WorkTime> layer_cache_;
  std::unordered_map<uint64_t, TpOverlapGemms> tp_gemm_cache_;
  double sms_ = 0;
  std::unordered_map<uint64_t, std::pair<WorkTime, WorkTime>> ends_cache_;
  std::unordered_map<uint64_t, std::pair<double, double>> activation_cache_;
  SharedCaches& shared_;
  std::unordered_map<uint64_t, StageParams> stage_cache_;
  std::unordered_map<uint64_t, CollectiveModel> comm_cache_;
  std::unordered_map<uint64_t, std::pair<double, double>> outer_cache_;
  std::vector<double> stage_times_;
};

struct Candidate {
  Layout layout;
  TrainingWorkload workload;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  AxisOrder order = AxisOrder::megatron;
};

struct Score {
  double step_time_s = 0;
  double peak_memory_bytes = 0;
  double bubble_fraction = 0;
};

// The fast model: the same per-layer compute and collective times as estimate_step(), with the
// pipeline makespan in closed form over the per-stage times and no link sharing between groups.
// Its phases, each testable alone: core/search/fast_model_phases.hpp.
Score score(Evaluator& ev, const ModelSpec& m, const Candidate& c, double bucket_params_default);

}  // namespace meshscope::search_detail
