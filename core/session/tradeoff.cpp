// The trade-off explorer's points: every one is evaluate_project of the varied project (one cost core).
#include "core/session/tradeoff.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace meshscope {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string problems_reason(const std::vector<LayoutProblem>& problems) {
  std::string out;
  for (const LayoutProblem& problem : problems) {
    if (!out.empty()) out += "; ";
    out += problem.message;
  }
  return out;
}

// "does not fit: +12.3 GiB" — the busiest rank's total over the usable capacity (MiB under 1 GiB, so that a
// near miss does not read +0.0).
std::string overflow_reason(double overflow_bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  char text[64];
  if (overflow_bytes < 1024 * kMiB)
    std::snprintf(text, sizeof text, "does not fit: +%.0f MiB", std::max(overflow_bytes / kMiB, 1.0));
  else
    std::snprintf(text, sizeof text, "does not fit: +%.1f GiB", overflow_bytes / (1024 * kMiB));
  return text;
}

const RankMemory* busiest_rank(const MemoryBudget& budget) {
  const RankMemory* busiest = nullptr;
  for (const RankMemory& rank : budget.ranks)
    if (!busiest || rank.total_bytes() > busiest->total_bytes()) busiest = &rank;
  return busiest;
}

void take_memory(TradeoffPoint& point, const MemoryBudget& budget) {
  const RankMemory* rank = busiest_rank(budget);
  if (!rank) return;
  point.has_memory = true;
  point.capacity_bytes = budget.usable_bytes;
  point.peak_memory_bytes = rank->total_bytes();
  point.memory_role = rank->role;
  for (const MemoryItem& item : rank->items) point.memory_bytes[static_cast<size_t>(item.category)] += item.bytes;
}

void take_step(TradeoffPoint& point, const StepEstimate& e) {
  point.has_step = true;
  point.step_time_s = e.step_time_s;
  point.mfu = e.mfu;
  point.tokens_per_s_per_gpu = e.tokens_per_s_per_gpu;
  point.bubble_fraction = e.bubble_fraction;
  const StepBreakdown& b = e.breakdown;
  point.breakdown = {b.forward_s + b.backward_s + b.recompute_s,
                     b.tp_exposed_s,
                     b.cp_exposed_s,
                     b.ep_exposed_s,
                     b.pp_p2p_s,
                     b.dp_exposed_s,
                     b.bubble_s,
                     b.optimizer_s};
  for (const AxisComm& axis : e.comm.axes) point.bytes_per_step.emplace_back(axis.axis, axis.bytes_per_step);
}

TradeoffPoint invalid_point(const Project& base, std::string reason) {
  TradeoffPoint point;
  point.layout = base.layout;
  point.reason = std::move(reason);
  return point;
}

Result<bool> check_training(const Project& project) {
  if (project.mode != Mode::training)
    return make_error(ErrorCode::invalid_argument,
                      "the trade-off explorer varies a training layout; this project is in serving mode", "mode");
  return true;
}

}  // namespace

Result<Project> apply_tradeoff_pair(const Project& project, TradeoffAxis ax, const TradeoffValue& x, TradeoffAxis ay,
                                    const TradeoffValue& y) {
  auto x_first = apply_tradeoff_value(project, ax, x);
  if (x_first) {
    auto both = apply_tradeoff_value(*x_first, ay, y);
    if (both) return both;
  }
  auto y_first = apply_tradeoff_value(project, ay, y);
  if (!y_first) return y_first;
  return apply_tradeoff_value(*y_first, ax, x);
}

TradeoffPoint tradeoff_point(const Evaluation& evaluation) {
  TradeoffPoint point;
  point.layout = evaluation.project.layout;
  point.gpus = evaluation.cluster ? evaluation.cluster->num_gpus() : evaluation.project.gpu_count;
  if (!evaluation.cluster_error.empty()) {
    point.reason = evaluation.cluster_error;
    return point;
  }
  if (!evaluation.problems.empty()) {
    point.reason = problems_reason(evaluation.problems);
    return point;
  }
  if (evaluation.budget) take_memory(point, *evaluation.budget);
  if (evaluation.estimate) take_step(point, *evaluation.estimate);
  if (!evaluation.estimate_error.empty()) {
    point.reason = evaluation.estimate_error;
  } else if (point.has_memory && point.peak_memory_bytes > point.capacity_bytes) {
    point.reason = overflow_reason(point.peak_memory_bytes - point.capacity_bytes);
  } else {
    point.valid = point.has_step;
  }
  return point;
}

Result<TradeoffCurve> tradeoff_curve(const Project& project, TradeoffAxis axis,
                                     const std::vector<TradeoffValue>& values, ClusterCache& cache) {
  MS_TRY(training, check_training(project));
  (void)training;
  const auto start = std::chrono::steady_clock::now();
  TradeoffCurve curve;
  curve.axis = axis;
  curve.rule = tradeoff_rule(axis);
  for (const TradeoffValue& value : values) {
    auto varied = apply_tradeoff_value(project, axis, value);
    TradeoffPoint point =
        varied ? tradeoff_point(evaluate_project(*varied, cache)) : invalid_point(project, varied.error().message);
    point.value = value;
    curve.points.push_back(std::move(point));
  }
  curve.elapsed_s = seconds_since(start);
  return curve;
}

Result<TradeoffGrid> tradeoff_grid(const Project& project, TradeoffAxis axis_x,
                                   const std::vector<TradeoffValue>& values_x, TradeoffAxis axis_y,
                                   const std::vector<TradeoffValue>& values_y, ClusterCache& cache) {
  MS_TRY(training, check_training(project));
  (void)training;
  if (axis_x == axis_y)
    return make_error(ErrorCode::invalid_argument,
                      "the two axes of a grid must differ (both are " + std::string(enum_name(axis_x)) + ")", "axis2");
  const auto start = std::chrono::steady_clock::now();
  TradeoffGrid grid;
  grid.axis_x = axis_x;
  grid.axis_y = axis_y;
  grid.rule_x = tradeoff_rule(axis_x);
  grid.rule_y = tradeoff_rule(axis_y);
  grid.values_x = values_x;
  grid.values_y = values_y;
  for (const TradeoffValue& y : values_y) {
    for (const TradeoffValue& x : values_x) {
      auto varied = apply_tradeoff_pair(project, axis_x, x, axis_y, y);
      TradeoffPoint point =
          varied ? tradeoff_point(evaluate_project(*varied, cache)) : invalid_point(project, varied.error().message);
      point.value = x;
      point.value_y = y;
      grid.cells.push_back(std::move(point));
    }
  }
  grid.elapsed_s = seconds_since(start);
  return grid;
}

}  // namespace meshscope
