#pragma once
// The values of a scaling run (core/session/scaling.hpp runs it; core/report/scaling.hpp prints it): per GPU
// count the search's best layout, its throughput and the scaling efficiency against the stated baseline.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/search/search.hpp"

namespace meshscope {

enum class ScalingMode { weak, strong };
[[nodiscard]] std::string_view scaling_mode_name(ScalingMode mode);

struct ScalingPoint {
  int64_t gpus = 0;
  std::string cluster;       // the generator string searched
  int64_t global_batch = 0;  // sequences per step at this size (weak: B0 · N / N0)
  bool valid = false;
  std::string error;  // why not valid: the batch rule, or the search found no layout
  std::vector<std::pair<std::string, int64_t>> top_rejections;  // invalid: the search's commonest reasons
  RankedLayout best;                                            // valid: rank_layouts' best
  double tokens_per_s = 0;                                      // best.tokens_per_s_per_gpu · gpus
  double scaling_efficiency = 0;                                // E(N) (core/session/scaling.hpp); 0 when invalid
  bool layout_changed = false;  // the best layout's shape differs from the previous valid point's
  std::string layout_change;    // "tp 4→8, pp 1→2" (every key but dp, which grows with N by design)
};

struct ScalingResult {
  ScalingMode mode = ScalingMode::weak;
  std::string cluster_family;
  int64_t gpus_per_node = 0;
  int64_t baseline_global_batch = 0;  // B0, the workload's global batch at N0 GPUs
  int64_t baseline_batch_gpus = 0;    // N0 (ScalingRequest::batch_gpus, or the first size)
  bool has_baseline = false;          // some size has a valid layout
  int64_t baseline_gpus = 0;          // N_b
  double baseline_tokens_per_s_per_gpu = 0;
  double baseline_step_time_s = 0;
  std::string efficiency_definition;  // the formula in words, with N_b and its value
  std::vector<ScalingPoint> points;
};

// The layout's keys as the rank report prints them (layout_to_keys plus recompute, zero, schedule,
// order, tp_comm_overlap), in that order.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> ranked_layout_keys(const RankedLayout& layout);
// "tp 4→8, pp 1→2": the keys (but dp) whose values differ; empty when none.
[[nodiscard]] std::string layout_change_text(const RankedLayout& before, const RankedLayout& after);

}  // namespace meshscope
