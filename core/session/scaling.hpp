#pragma once
// Weak and strong scaling (issue 17 §2; docs/cli.md "scaling"): for a model, a training workload and a
// cluster family (a generator string whose node count varies), the layout search (rank_layouts) at each
// GPU count, its best layout, the throughput and the scaling efficiency against a stated baseline.
//
// Weak scaling: the work grows with the GPUs. The workload's global batch B0 is the batch at N0 (the
// request's batch_gpus: the project's own GPU count, or else the first requested size), and at N GPUs the global batch
// is B0 · N / N0, i.e. the sequences (and tokens) per GPU per optimizer step stay fixed (the convention of Narayanan et
// al. SC21 §5.1's weak-scaling table, which grows the batch with the model and GPU count). Strong scaling: the global
// batch is B0 at every size; sizes where it cannot be split (DP above the batch, say) come out invalid with the
// search's reasons.
//
// Efficiency, both modes: E(N) = (tokens/s per GPU at N) / (tokens/s per GPU at the baseline N_b), N_b the
// smallest size with a valid layout. For strong scaling the tokens per step are fixed, so this is the
// classic T(N_b) · N_b / (T(N) · N) with T the step time (Amdahl-style speed-up over the GPU ratio).
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/result.hpp"
#include "core/model/model.hpp"
#include "core/project/project.hpp"
#include "core/search/scaling_result.hpp"
#include "core/search/search.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

[[nodiscard]] Result<ScalingMode> parse_scaling_mode(std::string_view text);

// GPU counts from text: "A:B" (powers of two from A to B; A and B themselves included), "A:B:+S" (A, A+S,
// ... up to B), "A:B:xF" (A, A·F, ... up to B), or a list "8,16,48". Counts are positive, increasing, at
// most 65,536 and at most 64 of them; errors name the text.
[[nodiscard]] Result<std::vector<int64_t>> parse_gpu_counts(std::string_view text);

// A cluster family: a generator string (core/topology/generators.hpp) whose node count (racks for
// gb200-nvl72) is the variable.
struct ClusterFamily {
  std::string generator;                                  // "dgx-h100"
  std::string count_key;                                  // "nodes" or "racks"
  int64_t gpus_per_unit = 0;                              // GPUs of one node (rack)
  std::vector<std::pair<std::string, std::string>> keys;  // the other keys, in the order given
};
// Errors: a cluster file (not a generator), an unknown generator or key (as generate_cluster's).
[[nodiscard]] Result<ClusterFamily> parse_cluster_family(std::string_view spec);
// The family's generator string for `gpus` GPUs; an error when `gpus` is not a multiple of gpus_per_unit.
[[nodiscard]] Result<std::string> family_cluster_spec(const ClusterFamily& family, int64_t gpus);

struct ScalingRequest {
  std::string cluster_family;       // generator string, e.g. "dgx-h100:nodes=1"
  std::vector<int64_t> gpu_counts;  // increasing
  ScalingMode mode = ScalingMode::weak;
  // The GPU count the workload's global batch B0 is given for (weak scaling's N0); 0: the first size.
  int64_t batch_gpus = 0;
};

// Runs the search at each size with `options` (its top is raised to at least 1). Errors: a bad family,
// a size not a multiple of the GPUs per node, no sizes, or the search cancelled (options.cancel).
[[nodiscard]] Result<ScalingResult> run_scaling(const ModelSpec& model, const TrainingWorkload& workload,
                                                const ScalingRequest& request, const SearchOptions& options = {});

// A project's scaling run (the app's scaling view, `scaling --project`): its model, training workload and
// calibrated estimate options, its cluster generator string as the family. Errors: a serving project, an
// inline cluster or a cluster file (no family to vary), and run_scaling's.
[[nodiscard]] Result<ScalingResult> scale_project(const Project& project, ScalingMode mode,
                                                  const std::vector<int64_t>& gpu_counts,
                                                  const std::atomic<bool>* cancel = nullptr);
// The project at a point: the family's cluster for its GPU count, its global batch, and its best layout
// with the search's choices (recompute, ZeRO stage, schedule, order, TP overlap). A valid point only.
[[nodiscard]] Project project_at_scaling_point(Project project, const ScalingPoint& point);

}  // namespace meshscope
