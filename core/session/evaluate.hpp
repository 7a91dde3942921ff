#pragma once
// The use cases the GUI, the CLI and (next) the Python binding share, with no Qt: evaluate a
// project (its layout's problems, memory budget, step or serving estimate, placement) and search
// it (the ranked training layouts, or the serving ranking and its curves). The GUI runs them on a
// worker thread (ui/document/evaluator.hpp); tests and benchmarks call them directly.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/estimate/step.hpp"
#include "core/memory/memory.hpp"
#include "core/project/project.hpp"
#include "core/search/search.hpp"
#include "core/serving/serving.hpp"
#include "core/serving/serving_traffic.hpp"
#include "core/topology/routing.hpp"

namespace meshscope {

struct LayoutComparison;  // core/session/compare_layouts.hpp
struct TracePrediction;   // core/session/trace_prediction.hpp

// Everything the views show for one state of the project.
struct Evaluation {
  uint64_t generation = 0;
  Project project;
  std::vector<LayoutProblem> problems;           // empty: the layout is valid
  std::shared_ptr<const MemoryBudget> budget;    // valid layouts
  std::shared_ptr<const Cluster> cluster;        // when it resolves
  std::string cluster_error;                     // why it does not
  std::shared_ptr<const StepEstimate> estimate;  // training, valid layout, cluster resolved
  std::shared_ptr<const Placement> placement;    // of the layout on the cluster, with the estimate
  // The same layout under a second pipeline schedule (EvaluateRequest::compare_schedule), drawn below.
  std::shared_ptr<const StepEstimate> compare_estimate;
  std::string compare_error;  // why the second schedule cannot run this layout
  std::shared_ptr<const ServingEstimate> serving;
  std::shared_ptr<const ServingTrafficMap> serving_traffic;  // the map of one decode iteration
  std::string estimate_error;
  // What a front end compares with this state, computed with it (the GUI's evaluator does, on its worker
  // thread): two pinned ranked layouts side by side (compare_layouts), and an imported profiler trace and
  // training log against this estimate (compare_with_prediction). Null when not asked for.
  std::shared_ptr<const LayoutComparison> pinned_comparison;
  std::shared_ptr<const TracePrediction> measured;
  double elapsed_s = 0;
};

struct SearchEvaluation {
  // Serving: the latency–throughput curves of the best colocated layouts, for the chart.
  struct ServingCurveOf {
    ServingLayout layout;
    ServingEstimate estimate;
  };
  uint64_t generation = 0;
  Project project;  // the project searched (its layout is irrelevant)
  std::shared_ptr<const SearchResult> training;
  std::shared_ptr<const ServingRankResult> serving;
  ServingTarget target;
  std::vector<ServingCurveOf> curves;
  std::string error;
  bool cancelled = false;
  double elapsed_s = 0;
};

// Evaluates one project synchronously (the worker's body; also used by tests and the benchmark).
// `cache` keeps the last resolved cluster: generating a 2,048-node cluster is not free.
struct ClusterCache {
  std::string key;
  std::shared_ptr<const Cluster> cluster;
  std::shared_ptr<const Router> router;
};
// A cache holding `cluster` as the cluster `project` resolves to.
[[nodiscard]] ClusterCache cluster_cache_of(const Project& project, Cluster cluster);
// What a front end asks for beyond the project itself.
struct EvaluateRequest {
  // Also estimate the layout under this schedule (the pipeline view's comparison; with virtual
  // stages, a schedule that cannot use them gives compare_error).
  std::optional<PipelineSchedule> compare_schedule;
  bool operator==(const EvaluateRequest&) const = default;
};
[[nodiscard]] Evaluation evaluate_project(const Project& project, ClusterCache& cache,
                                          const EvaluateRequest& request = {});
[[nodiscard]] SearchEvaluation search_project(const Project& project, const ServingTarget& target,
                                              const std::atomic<bool>& cancel);

// What a search depends on: the project without its layout, view state and the choices the
// search makes itself (recompute, ZeRO stage, schedule, TP overlap). Two projects need the same
// search when their search_inputs compare equal (field by field, Project::operator==).
[[nodiscard]] Project search_inputs(const Project& project);

}  // namespace meshscope
