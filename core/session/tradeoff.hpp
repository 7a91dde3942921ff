#pragma once
// The trade-off explorer (issue 17 §1): one knob of a training project varied along an axis, the
// rest fixed, every point evaluated by evaluate_project (the same core the app shows), and the grid of
// two knobs for the heat map. What "the rest fixed" means for each axis is tradeoff_rule(axis): where
// the GPU count must stay the cluster's, the data-parallel degree absorbs the change.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/enum_names.hpp"
#include "core/base/result.hpp"
#include "core/estimate/step.hpp"
#include "core/memory/memory.hpp"
#include "core/project/project.hpp"
#include "core/session/evaluate.hpp"

namespace meshscope {

enum class TradeoffAxis { tp, pp, vpp, dp, fsdp, cp, ep, mbs, recompute, zero, seq, gbs, gpus, gpu, nic_gbps };

template <>
struct EnumNames<TradeoffAxis> {
  static constexpr std::array<std::pair<TradeoffAxis, std::string_view>, 15> table{
      {{TradeoffAxis::tp, "tp"},
       {TradeoffAxis::pp, "pp"},
       {TradeoffAxis::vpp, "vpp"},
       {TradeoffAxis::dp, "dp"},
       {TradeoffAxis::fsdp, "fsdp"},
       {TradeoffAxis::cp, "cp"},
       {TradeoffAxis::ep, "ep"},
       {TradeoffAxis::mbs, "mbs"},
       {TradeoffAxis::recompute, "recompute"},
       {TradeoffAxis::zero, "zero"},
       {TradeoffAxis::seq, "seq"},
       {TradeoffAxis::gbs, "gbs"},
       {TradeoffAxis::gpus, "gpus"},
       {TradeoffAxis::gpu, "gpu"},
       {TradeoffAxis::nic_gbps, "nic_gbps"}}};
};

// One value along an axis: a number (for recompute, the RecomputeMode's index; for gpu, the index into
// gpu_catalogue()) and how it reads.
struct TradeoffValue {
  int64_t number = 0;
  std::string label;  // "8", "selective", "h200-sxm"
  bool operator==(const TradeoffValue&) const = default;
};

// Exposed time per step of the busiest stage, by part (StepBreakdown's parts, grouped).
struct TradeoffBreakdown {
  double compute_s = 0;  // forward + backward + recompute
  double tp_exposed_s = 0;
  double cp_exposed_s = 0;
  double ep_exposed_s = 0;
  double pp_p2p_s = 0;
  double dp_exposed_s = 0;
  double bubble_s = 0;
  double optimizer_s = 0;
};

struct TradeoffPoint {
  TradeoffValue value;    // along the axis (the grid: the x value)
  TradeoffValue value_y;  // the grid's y value (empty label on a curve)
  bool valid = false;     // the layout is valid, it fits in memory and the step was estimated
  std::string reason;     // why not: the layout's problems, "does not fit: +12.3 GiB", an estimate error
  Layout layout;          // the varied layout (what a click applies)
  int64_t gpus = 0;       // the world size of the varied project
  // The busiest rank's memory (also for a layout that does not fit; 0 where the layout is invalid).
  bool has_memory = false;
  double peak_memory_bytes = 0;
  double capacity_bytes = 0;
  std::array<double, kMemoryCategoryCount> memory_bytes{};  // by MemoryCategory
  std::string memory_role;                                  // "first stage", ...
  // The step (valid points, and layouts that do not fit but could be estimated).
  bool has_step = false;
  double step_time_s = 0;
  double mfu = 0;
  double tokens_per_s_per_gpu = 0;
  double bubble_fraction = 0;
  TradeoffBreakdown breakdown;
  std::vector<std::pair<MeshAxis, double>> bytes_per_step;  // per mesh axis, per rank (CommPlan)
};

struct TradeoffCurve {
  TradeoffAxis axis = TradeoffAxis::tp;
  std::string rule;  // tradeoff_rule(axis)
  std::vector<TradeoffPoint> points;
  double elapsed_s = 0;
};

// values_x × values_y; cells row-major: cells[iy * values_x.size() + ix].
struct TradeoffGrid {
  TradeoffAxis axis_x = TradeoffAxis::tp, axis_y = TradeoffAxis::pp;
  std::string rule_x, rule_y;
  std::vector<TradeoffValue> values_x, values_y;
  std::vector<TradeoffPoint> cells;
  double elapsed_s = 0;
  [[nodiscard]] const TradeoffPoint& at(size_t ix, size_t iy) const { return cells[iy * values_x.size() + ix]; }
};

// What stays fixed when the axis varies (documented in docs/cli.md, shown by the view).
[[nodiscard]] std::string tradeoff_rule(TradeoffAxis axis);
// The axis's unit for an axis title ("GPUs", "tokens", "sequences"; empty for a degree).
[[nodiscard]] std::string tradeoff_axis_title(TradeoffAxis axis);
// The values the explorer shows by default for this project (powers of two or divisors that make
// sense for the model and the cluster, every recompute mode, ZeRO 0–3); invalid ones are included
// where they teach something (TP past the KV heads), and are drawn as gaps.
[[nodiscard]] std::vector<TradeoffValue> default_tradeoff_values(const Project& project, TradeoffAxis axis);
// The view's axes: "pp", or "tp,pp" for the heat map (a lesson step's "axis", the app's --tradeoff-axis); an
// error names the unknown axis, or says that there are more than two.
struct TradeoffAxes {
  TradeoffAxis axis = TradeoffAxis::tp;
  std::optional<TradeoffAxis> axis2;
};
[[nodiscard]] Result<TradeoffAxes> parse_tradeoff_axes(std::string_view text);
// "1,2,4,8" or "none,full": an error names the bad value and the axis.
[[nodiscard]] Result<std::vector<TradeoffValue>> parse_tradeoff_values(TradeoffAxis axis, std::string_view text);
// The project with the axis set to the value, the rest fixed by tradeoff_rule; an error when the
// rule cannot be kept (the world size not divisible, a cluster that cannot be resized).
[[nodiscard]] Result<Project> apply_tradeoff_value(const Project& project, TradeoffAxis axis,
                                                   const TradeoffValue& value);
// Both values of a grid cell: tp/pp/cp pairs may keep the world size in one order only, so both are tried.
[[nodiscard]] Result<Project> apply_tradeoff_pair(const Project& project, TradeoffAxis axis_x, const TradeoffValue& x,
                                                  TradeoffAxis axis_y, const TradeoffValue& y);

// One point per value; `cache` is shared across the points (one cluster and router while the
// cluster does not change). A serving project is an error (the explorer varies training knobs).
[[nodiscard]] Result<TradeoffCurve> tradeoff_curve(const Project& project, TradeoffAxis axis,
                                                   const std::vector<TradeoffValue>& values, ClusterCache& cache);
[[nodiscard]] Result<TradeoffGrid> tradeoff_grid(const Project& project, TradeoffAxis axis_x,
                                                 const std::vector<TradeoffValue>& values_x, TradeoffAxis axis_y,
                                                 const std::vector<TradeoffValue>& values_y, ClusterCache& cache);

// The point of one evaluated project (exposed for tests: a point is its project's evaluation).
[[nodiscard]] TradeoffPoint tradeoff_point(const Evaluation& evaluation);

}  // namespace meshscope
