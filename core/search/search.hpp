#pragma once
// Ranked layouts: enumerate every candidate (TP, PP, virtual stages, CP, EP, expert-TP, DP,
// ZeRO/FSDP stage, micro-batch, recompute, SP, schedule, TP-overlap), reject the invalid ones with their
// reason and the ones that do not fit with the amount they exceed, and rank the rest. Candidates
// are scored with a fast closed-form version of the step model (cached per-layer compute and
// per-group collective times, closed-form pipeline makespan, no link sharing between groups); the
// best ones can be re-evaluated with the full event simulation (`refine`).
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/estimate/step.hpp"

namespace meshscope {

enum class RankObjective { throughput, memory_headroom, cost_per_token };
[[nodiscard]] bool parse_rank_objective(std::string_view name, RankObjective& objective);
[[nodiscard]] std::string_view rank_objective_name(RankObjective objective);

struct SearchSpace {
  std::vector<int64_t> micro_batches = {1, 2, 4, 8};
  std::vector<RecomputeMode> recompute = {RecomputeMode::none, RecomputeMode::selective, RecomputeMode::full};
  std::vector<int> zero_stages = {1, 3};  // 1: distributed optimizer; 3: FSDP
  std::vector<PipelineSchedule> schedules = {PipelineSchedule::one_f_one_b, PipelineSchedule::zb_h1,
                                             PipelineSchedule::dualpipe};
  int64_t max_tp = 0;  // 0: GPUs per node
  int64_t max_cp = 16;
  int64_t max_vpp = 8;
  std::vector<bool> sequence_parallel = {true};  // SP variants tried when TP > 1
  // tp_comm_overlap variants tried where they can differ, TP > 1 with SP (Megatron-LM allows TE's
  // userbuffer overlap only with SP): the overlap hides TP collectives but slows the GEMMs on the
  // SMs its kernels take, so either can win. The DP and FSDP overlap keys are the workload's:
  // turning them on never lengthens the modelled step, so they are not a choice to rank.
  std::vector<bool> tp_comm_overlap = {false, true};
  // Rank orders tried (placement.hpp). Megatron's tp-pp-dp mapping only differs from its default
  // when there is both a pipeline and data parallelism, and it is meant to keep a pipeline inside
  // a node: it is tried when TP × PP fits in a node, for dense layouts without CP (the fast
  // model's groups are strided sets of ranks).
  std::vector<AxisOrder> orders = {AxisOrder::megatron, AxisOrder::tp_pp_dp};
};

struct SearchOptions {
  SearchSpace space;
  RankObjective objective = RankObjective::throughput;
  int64_t top = 10;
  int64_t refine = 0;          // re-evaluate this many of the best with the full model
  double gpu_hour_cost = 1.0;  // cost per GPU-hour, for cost_per_token (relative units)
  // Rejected candidates kept as examples, per distinct reason (about nine reasons exist, so a few
  // hundred in all); the counts in SearchResult::rejected are always complete.
  int64_t rejected_examples_per_reason = 24;
  EstimateOptions estimate;
  // Threads searching the TP × CP × PP meshes concurrently (0: std::thread::hardware_concurrency()).
  // The result is the same for any number, bit for bit: each thread has its own caches and the
  // meshes' findings are joined in enumeration order. Every core by default (bench_search: the
  // 1T-on-3,072-A100 search takes 110 ms on one thread and 59 ms on two on a 2-core machine).
  int threads = 0;
  // Set to true (from another thread) to stop the search early; rank_layouts then returns an
  // Error whose message is kSearchCancelled. Checked once per TP × CP × PP mesh.
  const std::atomic<bool>* cancel = nullptr;
};
inline constexpr const char* kSearchCancelled = "search cancelled";

struct RankedLayout {
  Layout layout;
  RecomputeMode recompute = RecomputeMode::selective;
  int zero_stage = 1;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  AxisOrder order = AxisOrder::megatron;
  bool tp_comm_overlap = false;  // Megatron --tp-comm-overlap (a search dimension where TP > 1 with SP)
  double step_time_s = 0;
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;
  double peak_memory_bytes = 0;
  double headroom_bytes = 0;
  double bubble_fraction = 0;
  double cost_per_million_tokens = 0;
  bool refined = false;  // scored by the full event simulation
  // Ids of the validation gaps this layout falls into (core/estimate/known_gaps.hpp): its number
  // is less certain than the others'.
  std::vector<std::string> known_gaps;
  // The frameworks that run this layout as ranked (framework_bit of each, core/framework/framework.hpp):
  // under a target framework that one; under `any` every framework whose table allows it.
  uint32_t frameworks = 0;
  // Ties (search/ties.hpp): layouts whose predicted steps lie within the model's own uncertainty of
  // the best of their group share its 1-based group number; the model cannot order them.
  int tie_group = 0;
  // The relative uncertainty of this layout's step (the validation set's error for its regime).
  double uncertainty = 0;
};

// How far the enumeration had gone when a candidate was rejected: structural checks turn away a
// whole sub-tree before the later knobs are chosen, and those keep their defaults.
enum class RejectedScope {
  mesh,         // TP, CP, PP, DP (and EP, expert-TP) chosen
  micro_batch,  // also virtual stages and micro-batch
  candidate,    // every knob: recompute, ZeRO stage, schedule, SP too
};

// A candidate the search turned away, kept as an example of its reason.
struct RejectedLayout {
  Layout layout;  // the degrees chosen so far (see scope)
  RecomputeMode recompute = RecomputeMode::selective;
  int zero_stage = 1;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  RejectedScope scope = RejectedScope::mesh;
  std::string reason;            // the sentence that keys SearchResult::rejected
  double peak_memory_bytes = 0;  // "does not fit in GPU memory": the predicted peak of the worst rank
  double overflow_bytes = 0;     // "does not fit in GPU memory": peak − capacity; 0 for other reasons
};

struct SearchResult {
  int64_t evaluated = 0;                    // candidates scored or rejected
  int64_t valid = 0;                        // fit and valid
  int64_t collapsed = 0;                    // equivalent variants not enumerated twice (e.g. VPP without PP)
  std::map<std::string, int64_t> rejected;  // reason → count
  double largest_overflow_bytes = 0;        // the worst "does not fit" amount
  double elapsed_s = 0;
  std::vector<RankedLayout> layouts;     // the best `top`, best first
  Framework framework = Framework::any;  // the target framework the search proposed layouts for
  // At most `rejected_examples_per_reason` per reason: the first ones enumerated for structural
  // reasons, and for "does not fit in GPU memory" the nearest misses (smallest overflow first),
  // which are the ones a user can rescue by changing one knob. Grouped by reason in the order the
  // reasons first occurred.
  std::vector<RejectedLayout> rejected_examples;
};

[[nodiscard]] Result<SearchResult> rank_layouts(const ModelSpec& model, const TrainingWorkload& workload,
                                                const Cluster& cluster, const SearchOptions& options = {});

}  // namespace meshscope
