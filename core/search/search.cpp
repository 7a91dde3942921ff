#include "core/search/search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "core/estimate/known_gaps.hpp"
#include "core/estimate/overlap.hpp"
#include "core/framework/framework.hpp"
#include "core/memory/activations.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/search/fast_model.hpp"
#include "core/search/ties.hpp"
#include "core/workload/flops.hpp"

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

using namespace search_detail;

std::vector<int64_t> divisors(int64_t n, int64_t limit) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= std::min(n, limit); ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

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
  const FrameworkSpec& framework;  // the target framework: what it runs (framework.hpp)
};

// One sub-tree of a TP × CP × PP mesh: its EP, expert-TP and virtual-stage degrees, or the
// structural reason the sub-tree (or the whole mesh) is rejected. The units of a mesh, in
// enumeration order, are what the search's threads share out (a large mesh is several tasks).
struct MeshUnit {
  int64_t ep = 1, etp = 1, vpp = 1;
  const char* reason = nullptr;  // rejected: the sentence that keys SearchResult::rejected
};

// Layers per stage of an uneven split (Llama 3: 126 on 16), or empty when PP divides them.
std::vector<int64_t> stage_split_of(const ModelSpec& m, int64_t pp) {
  return m.num_layers % pp != 0 ? balanced_stage_layers(m.num_layers, pp) : std::vector<int64_t>{};
}

// The units of one mesh: a single rejected unit when a structural check turns the whole mesh
// away (counted once), else every (EP, expert-TP, virtual stages), the EP × expert-TP pairs that
// do not divide as rejected units.
std::vector<MeshUnit> mesh_units(const MeshSearch& search, int64_t tp, int64_t cp, int64_t pp) {
  const ModelSpec& m = search.m;
  const SearchSpace& space = search.options.space;
  const int64_t dp = search.gpus / (tp * cp * pp);
  const std::vector<int64_t> stage_split = stage_split_of(m, pp);
  const bool uneven = !stage_split.empty();
  // Structural checks first: each failure rejects the whole sub-tree, counted once.
  if (m.num_heads % tp != 0 || (!m.mla.enabled() && m.num_kv_heads % tp != 0))
    return {MeshUnit{1, 1, 1, "attention heads or KV heads not divisible by TP"}};
  if (m.ffn_hidden_size > 0 && m.ffn_hidden_size % tp != 0) return {MeshUnit{1, 1, 1, "FFN width not divisible by TP"}};
  if (uneven && m.num_layers / pp < 2) return {MeshUnit{1, 1, 1, "fewer than two layers per pipeline stage"}};
  if (cp > 1 && search.base.seq_len % (2 * cp) != 0) return {MeshUnit{1, 1, 1, "sequence not divisible by 2×CP"}};
  const FrameworkSpec& framework = search.framework;
  std::vector<int64_t> eps = {1};
  if (m.is_moe() && framework.expert_parallel) eps = divisors(m.moe.num_experts, tp * cp * dp);
  std::vector<MeshUnit> units;
  for (const int64_t ep : eps) {
    // Expert tensor parallelism: none, or as wide as TP (Megatron-Core's two common choices).
    for (const int64_t etp : (m.is_moe() && tp > 1 && framework.expert_tensor_parallel) ? std::vector<int64_t>{1, tp}
                                                                                        : std::vector<int64_t>{1}) {
      if ((tp * cp * dp) % (ep * etp) != 0) {
        units.push_back({ep, etp, 1, "EP×expert-TP does not divide TP×CP×DP"});
        continue;
      }
      if (m.is_moe() && m.moe.expert_ffn_hidden_size % etp != 0) {
        units.push_back({ep, etp, 1, "expert FFN width not divisible by expert-TP"});
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
      for (const int64_t vpp : vpps) units.push_back({ep, etp, vpp, nullptr});
    }
  }
  return units;
}

// Counts a candidate (or a sub-tree) turned away for `reason` and keeps the first few examples of it.
void reject(const MeshSearch& search, SearchPart& part, const std::string& reason, const Layout& degrees,
            RejectedScope scope) {
  const int64_t count = ++part.result.rejected[reason];
  ++part.result.evaluated;
  if (count == 1) part.reason_order.push_back(reason);
  if (count > search.examples_per_reason) return;
  RejectedLayout example;
  example.layout = degrees;
  example.scope = scope;
  example.reason = reason;
  part.structural_examples.push_back(std::move(example));
}

// A scored candidate whose peak exceeds the GPU's memory: counted, and kept if it is one of the
// nearest misses (a bounded max-heap by overflow and enumeration order; copied only then).
void record_miss(const MeshSearch& search, SearchPart& part, const Candidate& c, double peak_memory_bytes,
                 double capacity) {
  SearchResult& result = part.result;
  std::vector<Miss>& nearest_misses = part.nearest_misses;
  const int64_t examples_per_reason = search.examples_per_reason;
  if (++result.rejected[search.does_not_fit] == 1) part.reason_order.push_back(search.does_not_fit);
  const double overflow = peak_memory_bytes - capacity;
  result.largest_overflow_bytes = std::max(result.largest_overflow_bytes, overflow);
  if (examples_per_reason > 0 && (static_cast<int64_t>(nearest_misses.size()) < examples_per_reason ||
                                  overflow < nearest_misses.front().example.overflow_bytes)) {
    Miss miss;
    miss.example.layout = c.layout;
    miss.example.recompute = c.workload.recompute;
    miss.example.zero_stage = c.workload.zero_stage;
    miss.example.schedule = c.schedule;
    miss.example.scope = RejectedScope::candidate;
    miss.example.reason = search.does_not_fit;
    miss.example.peak_memory_bytes = peak_memory_bytes;
    miss.example.overflow_bytes = overflow;
    miss.order = result.evaluated;
    if (static_cast<int64_t>(nearest_misses.size()) == examples_per_reason) {
      std::pop_heap(nearest_misses.begin(), nearest_misses.end(), worse_miss);
      nearest_misses.pop_back();
    }
    nearest_misses.push_back(std::move(miss));
    std::push_heap(nearest_misses.begin(), nearest_misses.end(), worse_miss);
  }
}

// A scored candidate that fits: its ranked entry, with the objective it is ranked by (lower is better).
void record_ranked(const MeshSearch& search, SearchPart& part, const Candidate& c, const Score& s, double capacity) {
  const TrainingWorkload& base = search.base;
  const SearchOptions& options = search.options;
  RankedLayout r;
  r.layout = c.layout;
  r.recompute = c.workload.recompute;
  r.zero_stage = c.workload.zero_stage;
  r.schedule = c.schedule;
  r.order = c.order;
  r.tp_comm_overlap = c.workload.tp_comm_overlap;
  r.step_time_s = s.step_time_s;
  r.tokens_per_s_per_gpu = static_cast<double>(base.global_batch) * static_cast<double>(base.seq_len) / s.step_time_s /
                           static_cast<double>(search.gpus);
  r.peak_memory_bytes = s.peak_memory_bytes;
  r.headroom_bytes = capacity - s.peak_memory_bytes;
  r.bubble_fraction = s.bubble_fraction;
  r.cost_per_million_tokens = options.gpu_hour_cost / 3600.0 / r.tokens_per_s_per_gpu * 1e6;
  const double objective = options.objective == RankObjective::throughput        ? s.step_time_s
                           : options.objective == RankObjective::memory_headroom ? -r.headroom_bytes
                                                                                 : r.cost_per_million_tokens;
  part.ranked.emplace_back(r, objective);
}

// Scores the candidate `c` and records it: collapsed (another order's memory verdict stands), a
// miss, or ranked.
void evaluate_candidate(const MeshSearch& search, Evaluator& ev, const Candidate& c, SearchPart& part) {
  const SearchSpace& space = search.options.space;
  SearchResult& result = part.result;
  const Score s = score(ev, search.m, c, search.options.estimate.comm.bucket_params);
  const double capacity = ev.gpu().memory_bytes;
  // Memory does not depend on the order: the first order's verdict stands.
  if (s.peak_memory_bytes > capacity && c.order != space.orders.front()) {
    ++result.collapsed;
    return;
  }
  ++result.evaluated;
  if (s.peak_memory_bytes > capacity) {
    record_miss(search, part, c, s.peak_memory_bytes, capacity);
    return;
  }
  ++result.valid;
  record_ranked(search, part, c, s, capacity);
}

// The degrees of one mesh unit and the micro-batch size, which every candidate below shares.
struct UnitDegrees {
  int64_t tp = 1, cp = 1, pp = 1, dp = 1, ep = 1, etp = 1, vpp = 1, micro_batch = 1;
  const std::vector<int64_t>& stage_split;  // empty when PP divides the layers
};

// Every SP, TP-overlap and order variant of one (recompute, ZeRO stage, schedule), each written into
// the scratch candidate `c` and evaluated; the variants that would repeat a layout are collapsed.
void search_variants(const MeshSearch& search, Evaluator& ev, Candidate& c, SearchPart& part, const UnitDegrees& u,
                     RecomputeMode recompute, int zero, PipelineSchedule schedule) {
  const SearchSpace& space = search.options.space;
  SearchResult& result = part.result;
  // Read once into locals (score() is called in between; a value read through a reference would be
  // loaded again).
  const int64_t tp = u.tp, cp = u.cp, pp = u.pp, dp = u.dp, ep = u.ep, etp = u.etp, vpp = u.vpp;
  const int64_t mbs = u.micro_batch, per_node = search.per_node;
  const bool uneven = !u.stage_split.empty();
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
        if (order != space.orders.front() &&
            (order != AxisOrder::tp_pp_dp || pp == 1 || dp == 1 || cp > 1 || ep > 1 || etp > 1 || tp * pp > per_node)) {
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
          c.layout.stage_layers = u.stage_split;
        else
          c.layout.stage_layers.clear();
        c.layout.pipeline_layout.clear();  // the search splits the layers itself
        c.layout.micro_batch = mbs;
        c.layout.sp = sp_on;
        c.workload.tp_comm_overlap = sp_on && tp_overlap;
        c.workload.recompute = recompute;
        c.workload.zero_stage = zero;
        c.schedule = vpp > 1 ? PipelineSchedule::interleaved : schedule;
        c.order = order;
        evaluate_candidate(search, ev, c, part);
      }
}

// Every recompute mode, ZeRO stage and schedule of one micro-batch size: the ones the target
// framework does not run with this mesh rejected, the ones that repeat a layout collapsed.
void search_micro_batch(const MeshSearch& search, Evaluator& ev, Candidate& c, SearchPart& part, const UnitDegrees& u,
                        bool dualpipe_fits) {
  const SearchSpace& space = search.options.space;
  const FrameworkSpec& framework = search.framework;
  SearchResult& result = part.result;
  const int64_t tp = u.tp, cp = u.cp, pp = u.pp, dp = u.dp, ep = u.ep, etp = u.etp, vpp = u.vpp;
  const int64_t mbs = u.micro_batch;
  for (const RecomputeMode recompute : space.recompute) {
    for (const int zero : space.zero_stages) {
      if (pp > 1 && dp * cp > 1 && zero > framework.max_zero_stage_with_pipeline) {
        // DeepSpeed's pipeline engine asserts ZeRO-1 at most (framework.cpp).
        reject(search, part,
               std::string(framework.title) + " runs ZeRO stage " +
                   std::to_string(framework.max_zero_stage_with_pipeline) + " at most with pipeline parallelism",
               mesh(tp, cp, pp, dp, ep, etp, vpp, mbs), RejectedScope::micro_batch);
        continue;
      }
      if (ep > 1 && dp * cp > 1 && zero >= 3 && !framework.fsdp_with_expert_parallel) {
        reject(search, part, std::string(framework.title) + " runs no FSDP with expert parallelism",
               mesh(tp, cp, pp, dp, ep, etp, vpp, mbs), RejectedScope::micro_batch);
        continue;
      }
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
        search_variants(search, ev, c, part, u, recompute, zero, schedule);
      }
    }
  }
}

// Every candidate of the units [first, last) of one TP × CP × PP mesh, into `part`: per unit (EP,
// expert-TP, virtual stages) its micro-batch sizes, those the global batch or the schedule cannot
// take rejected. `c` is scratch (one candidate rewritten in place for every combination: no
// allocation per candidate).
void search_mesh(const MeshSearch& search, Evaluator& ev, Candidate& c, SearchPart& part, int64_t tp, int64_t cp,
                 int64_t pp, const std::vector<MeshUnit>& units, size_t first, size_t last) {
  const TrainingWorkload& base = search.base;
  const SearchSpace& space = search.options.space;
  const std::vector<int64_t> stage_split = stage_split_of(search.m, pp);
  const int64_t dp = search.gpus / (tp * cp * pp);
  for (size_t i = first; i < last; ++i) {
    const MeshUnit& unit = units[i];
    const int64_t ep = unit.ep, etp = unit.etp, vpp = unit.vpp;
    if (unit.reason != nullptr) {
      reject(search, part, unit.reason, mesh(tp, cp, pp, dp, ep, etp), RejectedScope::mesh);
      continue;
    }
    for (const int64_t mbs : space.micro_batches) {
      if (base.global_batch % (dp * mbs) != 0) {
        reject(search, part, "global batch not divisible by DP×micro-batch", mesh(tp, cp, pp, dp, ep, etp, vpp, mbs),
               RejectedScope::micro_batch);
        continue;
      }
      const int64_t micro_batches = base.global_batch / (dp * mbs);
      if (vpp > 1 && micro_batches % pp != 0) {
        reject(search, part, "interleaving needs micro-batches in multiples of PP",
               mesh(tp, cp, pp, dp, ep, etp, vpp, mbs), RejectedScope::micro_batch);
        continue;
      }
      // DualPipe feeds half the micro-batches from each end: an even PP and at least
      // 2·PP micro-batches, an even number (deepseek-ai/DualPipe asserts these).
      const bool dualpipe_fits = pp % 2 == 0 && vpp == 1 && micro_batches % 2 == 0 && micro_batches >= 2 * pp;
      if (pp > 1 && vpp == 1 && !dualpipe_fits && search.wants_dualpipe)
        reject(search, part, "DualPipe needs an even PP and an even number of at least 2×PP micro-batches",
               mesh(tp, cp, pp, dp, ep, etp, vpp, mbs), RejectedScope::micro_batch);
      search_micro_batch(search, ev, c, part, UnitDegrees{tp, cp, pp, dp, ep, etp, vpp, mbs, stage_split},
                         dualpipe_fits);
    }
  }
}

// The asked space narrowed to what the target framework runs (framework.hpp): its schedules (and
// interleaving only where it runs interleaved 1F1B), its ZeRO stages, its recompute modes (Korthikanti's
// selective recompute is torchtitan's per-op selective AC there), SP where TP always has it, the TP
// overlap, CP and the tp-pp-dp mapping where it has them. `any` keeps the asked space.
Result<SearchOptions> framework_search_options(const SearchOptions& asked, const FrameworkSpec& framework) {
  SearchOptions options = asked;
  if (framework.id == Framework::any) return options;
  SearchSpace& space = options.space;
  const auto runs = [&](PipelineSchedule schedule) {
    return std::find(framework.schedules.begin(), framework.schedules.end(), schedule) != framework.schedules.end();
  };
  std::erase_if(space.schedules, [&](PipelineSchedule schedule) { return !runs(schedule); });
  if (space.schedules.empty()) {
    // A pipeline needs one schedule: the framework's 1F1B (every framework here runs it).
    space.schedules = {PipelineSchedule::one_f_one_b};
  }
  if (!runs(PipelineSchedule::interleaved)) space.max_vpp = 1;
  const auto has_zero = [&](int zero) {
    return std::find(framework.zero_stages.begin(), framework.zero_stages.end(), zero) != framework.zero_stages.end();
  };
  std::erase_if(space.zero_stages, [&](int zero) { return !has_zero(zero); });
  if (space.zero_stages.empty())
    return make_error(ErrorCode::invalid_argument,
                      std::string(framework.title) + " runs none of the ZeRO stages the search was asked for",
                      "framework");
  const auto has_recompute = [&](RecomputeMode mode) {
    return std::find(framework.recompute.begin(), framework.recompute.end(), mode) != framework.recompute.end();
  };
  std::vector<RecomputeMode> recompute;
  for (RecomputeMode mode : space.recompute) {
    if (mode == RecomputeMode::selective && !has_recompute(mode) && has_recompute(RecomputeMode::op))
      mode = RecomputeMode::op;
    if (has_recompute(mode) && std::find(recompute.begin(), recompute.end(), mode) == recompute.end())
      recompute.push_back(mode);
  }
  if (recompute.empty())
    return make_error(ErrorCode::invalid_argument,
                      std::string(framework.title) + " runs none of the recompute modes the search was asked for",
                      "framework");
  space.recompute = std::move(recompute);
  if (!framework.sequence_parallel_optional) space.sequence_parallel = {true};
  if (!framework.tp_comm_overlap) space.tp_comm_overlap = {false};
  if (framework.cp_comms.empty()) space.max_cp = 1;
  if (!framework.tp_pp_dp_mapping) std::erase(space.orders, AxisOrder::tp_pp_dp);
  if (space.orders.empty()) space.orders = {AxisOrder::megatron};
  return options;
}

// The TP × CP × PP meshes of `gpus` GPUs the space allows, in enumeration order.
struct Mesh {
  int64_t tp = 1, cp = 1, pp = 1;
};
std::vector<Mesh> meshes_of(const ModelSpec& m, const SearchSpace& space, int64_t gpus, int64_t max_tp) {
  std::vector<Mesh> meshes;
  for (const int64_t tp : divisors(gpus, max_tp))
    for (const int64_t cp : divisors(gpus / tp, space.max_cp))
      for (const int64_t pp : divisors(gpus / (tp * cp), m.num_layers)) meshes.push_back({tp, cp, pp});
  return meshes;
}

// The most GPUs a node of the cluster has.
int64_t max_gpus_per_node(const Cluster& cluster) {
  int64_t per_node = 1;
  std::unordered_map<int32_t, int64_t> counts;
  for (const DeviceId g : cluster.gpus) per_node = std::max(per_node, ++counts[cluster.device(g).node]);
  return per_node;
}

// What the threads share: the meshes and their units, the inputs, and the caches.
struct SearchWork {
  const MeshSearch& search;
  const std::vector<Mesh>& meshes;
  const std::vector<std::vector<MeshUnit>>& units;
  const Cluster& cluster;
  const Router& router;
  SharedCaches& shared;
  Evaluator& ev;                    // the calling thread's
  const std::atomic<bool>* cancel;  // SearchOptions::cancel
  [[nodiscard]] bool cancelled() const { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
};

// Every mesh in order on the calling thread: the enumeration as it always was.
Result<SearchPart> search_serially(const SearchWork& work) {
  SearchPart all;
  Candidate c;
  c.workload = work.search.base;
  for (size_t i = 0; i < work.meshes.size(); ++i) {
    if (work.cancelled()) return make_error(ErrorCode::invalid_argument, kSearchCancelled, "rank_layouts");
    const Mesh& mesh = work.meshes[i];
    search_mesh(work.search, work.ev, c, all, mesh.tp, mesh.cp, mesh.pp, work.units[i], 0, work.units[i].size());
  }
  return all;
}

// One part per mesh unit (a large mesh, such as 405B's TP 8 on 16,384 GPUs, is most of the search:
// its units let both threads share it), searched by a pool of `threads` threads (each with its own
// evaluator and caches), then joined in enumeration order exactly as the serial enumeration
// accumulates them: counts summed, reasons by first occurrence, the first examples of each reason,
// the nearest misses by (overflow, enumeration order) with each part's order offset by the
// candidates before it, and the valid candidates concatenated. The result is the same as with one
// thread, bit for bit.
Result<SearchPart> search_in_parallel(const SearchWork& work, size_t threads) {
  const MeshSearch& search = work.search;
  struct Task {
    size_t mesh = 0, unit = 0;
  };
  std::vector<Task> tasks;
  for (size_t i = 0; i < work.meshes.size(); ++i)
    for (size_t u = 0; u < work.units[i].size(); ++u) tasks.push_back({i, u});
  std::vector<SearchPart> parts(tasks.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> stopped{false};
  const auto run = [&](Evaluator& evaluator) {
    Candidate scratch;
    scratch.workload = search.base;
    for (size_t i = next.fetch_add(1); i < tasks.size(); i = next.fetch_add(1)) {
      if (stopped || work.cancelled()) {
        stopped = true;
        return;
      }
      const Task& task = tasks[i];
      const Mesh& mesh = work.meshes[task.mesh];
      search_mesh(search, evaluator, scratch, parts[i], mesh.tp, mesh.cp, mesh.pp, work.units[task.mesh], task.unit,
                  task.unit + 1);
    }
  };
  {
    std::vector<std::jthread> pool;
    for (size_t t = 1; t < threads; ++t)
      pool.emplace_back([&] {
        Evaluator own(search.m, work.cluster, search.options, work.router, work.shared);
        run(own);
      });
    run(work.ev);
  }
  if (stopped) return make_error(ErrorCode::invalid_argument, kSearchCancelled, "rank_layouts");
  SearchPart joined;
  SearchResult& result = joined.result;
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
      if (std::find(joined.reason_order.begin(), joined.reason_order.end(), reason) == joined.reason_order.end())
        joined.reason_order.push_back(std::move(reason));
    for (RejectedLayout& example : part.structural_examples)
      if (++examples_of[example.reason] <= search.examples_per_reason)
        joined.structural_examples.push_back(std::move(example));
    for (Miss& miss : part.nearest_misses) {
      miss.order += offset;
      misses.push_back(std::move(miss));
    }
    offset += part.result.evaluated;
    joined.ranked.insert(joined.ranked.end(), std::make_move_iterator(part.ranked.begin()),
                         std::make_move_iterator(part.ranked.end()));
  }
  std::sort(misses.begin(), misses.end(), worse_miss);
  if (static_cast<int64_t>(misses.size()) > search.examples_per_reason)
    misses.resize(static_cast<size_t>(search.examples_per_reason));
  joined.nearest_misses = std::move(misses);
  std::make_heap(joined.nearest_misses.begin(), joined.nearest_misses.end(), worse_miss);
  return joined;
}

// The counts of what the search found, and its rejection examples grouped by reason in the order
// the reasons first occurred ("does not fit": the nearest misses, smallest overflow first).
void collect_rejections(SearchPart& found, const std::string& does_not_fit, SearchResult& result) {
  result.evaluated = found.result.evaluated;
  result.valid = found.result.valid;
  result.collapsed = found.result.collapsed;
  result.rejected = std::move(found.result.rejected);
  result.largest_overflow_bytes = found.result.largest_overflow_bytes;
  std::vector<Miss>& nearest_misses = found.nearest_misses;
  std::sort_heap(nearest_misses.begin(), nearest_misses.end(), worse_miss);
  for (const std::string& reason : found.reason_order) {
    if (reason == does_not_fit) {
      for (Miss& miss : nearest_misses) result.rejected_examples.push_back(std::move(miss.example));
      continue;
    }
    for (RejectedLayout& example : found.structural_examples)
      if (example.reason == reason) result.rejected_examples.push_back(std::move(example));
  }
}

// Deterministic order: by objective, then by the layout's degrees (fewest-axes first).
constexpr auto tie_key = [](const RankedLayout& r) {
  return std::tuple(r.layout.cp, r.layout.tp, r.layout.pp, r.layout.ep, r.layout.vpp, r.layout.micro_batch,
                    static_cast<int>(r.recompute), r.zero_stage, static_cast<int>(r.schedule), r.layout.sp,
                    static_cast<int>(r.order), r.tp_comm_overlap);
};
constexpr auto better = [](const std::pair<RankedLayout, double>& a, const std::pair<RankedLayout, double>& b) {
  if (a.second != b.second) return a.second < b.second;
  return tie_key(a.first) < tie_key(b.first);
};

// The best `wanted` in order, layouts the model cannot tell apart (same step time and memory, e.g.
// CP×micro-batch trades that leave the per-rank work unchanged) collapsed into the first in
// canonical order (counted in `collapsed`).
void keep_best(std::vector<std::pair<RankedLayout, double>>& ranked, size_t wanted, int64_t& collapsed) {
  const auto same_prediction = [](const RankedLayout& a, const RankedLayout& b) {
    return std::abs(a.step_time_s - b.step_time_s) <= 1e-12 * a.step_time_s &&
           std::abs(a.peak_memory_bytes - b.peak_memory_bytes) <= 1e-9 * a.peak_memory_bytes;
  };
  size_t keep = std::min(ranked.size(), wanted * 8 + 16);
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(), better);
  ranked.resize(keep);
  std::vector<std::pair<RankedLayout, double>> distinct;
  for (auto& entry : ranked) {
    if (!distinct.empty() && same_prediction(distinct.back().first, entry.first)) {
      ++collapsed;
      continue;
    }
    distinct.push_back(std::move(entry));
  }
  ranked = std::move(distinct);
  if (ranked.size() > wanted) ranked.resize(wanted);
}

// The workload a ranked layout runs: the base with its recompute, ZeRO stage and TP overlap.
TrainingWorkload workload_of(const TrainingWorkload& base, const RankedLayout& r) {
  TrainingWorkload w = base;
  w.recompute = r.recompute;
  w.zero_stage = r.zero_stage;
  w.tp_comm_overlap = r.tp_comm_overlap;
  return w;
}

// The best `options.refine` re-evaluated with the full model (event simulation, concurrent groups).
void refine_best(std::vector<std::pair<RankedLayout, double>>& ranked, const ModelSpec& m, const TrainingWorkload& base,
                 const Cluster& cluster, const Router& router, const SearchOptions& options) {
  for (int64_t i = 0; i < std::min<int64_t>(options.refine, static_cast<int64_t>(ranked.size())); ++i) {
    auto& [r, objective] = ranked[static_cast<size_t>(i)];
    TrainingWorkload w = workload_of(base, r);
    w.schedule = r.schedule;
    EstimateOptions estimate = options.estimate;
    estimate.order = r.order;
    auto e = estimate_step(m, w, r.layout, cluster, router, estimate);
    if (!e) continue;
    r.step_time_s = e->step_time_s;
    r.tokens_per_s_per_gpu = e->tokens_per_s_per_gpu;
    r.bubble_fraction = e->bubble_fraction;
    r.cost_per_million_tokens = options.gpu_hour_cost / 3600.0 / r.tokens_per_s_per_gpu * 1e6;
    r.refined = true;
    if (options.objective == RankObjective::throughput) objective = r.step_time_s;
    if (options.objective == RankObjective::cost_per_token) objective = r.cost_per_million_tokens;
  }
}

// The top `options.top` with what the result reports of each: MFU, the validation gaps it falls
// into, the frameworks that run it and its uncertainty; then the ties among them.
void report_top(std::vector<std::pair<RankedLayout, double>>& ranked, const ModelSpec& m, const TrainingWorkload& base,
                const GpuSpec& gpu, const FrameworkSpec& framework, const SearchOptions& options,
                SearchResult& result) {
  const auto flops = flops_per_token(m, base.seq_len, base.causal, RecomputeMode::none).model_training();
  const double peak = compute_peak_flops(gpu, base.compute_dtype);
  for (size_t i = 0; i < ranked.size() && static_cast<int64_t>(i) < options.top; ++i) {
    RankedLayout& r = ranked[i].first;
    r.mfu = flops * r.tokens_per_s_per_gpu / peak;
    const TrainingWorkload w = workload_of(base, r);
    for (const KnownGap& gap : known_gaps(m, w, r.layout, gpu)) r.known_gaps.push_back(gap.id);
    r.frameworks = framework.id == Framework::any
                       ? frameworks_running(r.layout, w, r.schedule, r.order == AxisOrder::tp_pp_dp)
                       : framework_bit(framework.id);
    r.uncertainty = step_uncertainty(m, r);
    result.layouts.push_back(r);
  }
  mark_ties(result.layouts, options.objective);
}

}  // namespace

Result<SearchResult> rank_layouts(const ModelSpec& m, const TrainingWorkload& base, const Cluster& cluster,
                                  const SearchOptions& asked) {
  const auto started = std::chrono::steady_clock::now();
  SearchResult result;
  const FrameworkSpec& framework = framework_spec(base.framework);
  result.framework = framework.id;
  if (auto why = framework_rejects_workload(framework, base))
    return make_error(ErrorCode::invalid_argument, *why, "framework");
  // The space the target framework runs: the asked space's knobs that it has (framework_space).
  MS_TRY(framework_options, framework_search_options(asked, framework));
  const SearchOptions& options = framework_options;
  const int64_t gpus = cluster.num_gpus();
  if (gpus < 1) return make_error(ErrorCode::invalid_argument, "the cluster has no GPUs", "--cluster");
  const Router router(cluster);
  SharedCaches shared;  // the collective groups' routes and the layers' times, shared by the threads
  Evaluator ev(m, cluster, options, router, shared);
  if (auto supported = check_training_precision(ev.gpu(), base.compute_dtype); !supported)
    return tl::unexpected(supported.error());
  const int64_t per_node = max_gpus_per_node(cluster);
  const SearchSpace& space = options.space;
  const int64_t max_tp = space.max_tp > 0 ? space.max_tp : per_node;
  // Rejection examples (SearchResult::rejected_examples). Structural rejections happen once per
  // sub-tree, so keeping the first few costs nothing measurable; "does not fit" happens per
  // candidate, so its nearest misses are kept in a bounded max-heap by (overflow, enumeration
  // order) and a candidate is only copied when it beats the heap's worst.
  const auto examples_per_reason = std::max<int64_t>(options.rejected_examples_per_reason, 0);
  const std::string does_not_fit = "does not fit in GPU memory";
  const bool wants_dualpipe =
      std::find(space.schedules.begin(), space.schedules.end(), PipelineSchedule::dualpipe) != space.schedules.end();
  const MeshSearch search{m,        base, options, gpus, per_node, wants_dualpipe, examples_per_reason, does_not_fit,
                          framework};
  const std::vector<Mesh> meshes = meshes_of(m, space, gpus, max_tp);
  // Each mesh's sub-trees (EP, expert-TP, virtual stages), in enumeration order.
  std::vector<std::vector<MeshUnit>> units(meshes.size());
  for (size_t i = 0; i < meshes.size(); ++i) units[i] = mesh_units(search, meshes[i].tp, meshes[i].cp, meshes[i].pp);
  const SearchWork work{search, meshes, units, cluster, router, shared, ev, options.cancel};
  const size_t threads =
      std::min(meshes.size(), options.threads > 0 ? static_cast<size_t>(options.threads)
                                                  : std::max<size_t>(1, std::thread::hardware_concurrency()));
  MS_TRY(found, threads <= 1 ? search_serially(work) : search_in_parallel(work, threads));
  collect_rejections(found, does_not_fit, result);

  std::vector<std::pair<RankedLayout, double>>& ranked = found.ranked;  // layout, objective (lower is better)
  keep_best(ranked, static_cast<size_t>(std::max<int64_t>(options.top, options.refine)), result.collapsed);
  refine_best(ranked, m, base, cluster, ev.router(), options);
  std::sort(ranked.begin(), ranked.end(), better);
  report_top(ranked, m, base, ev.gpu(), framework, options, result);
  result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace meshscope
