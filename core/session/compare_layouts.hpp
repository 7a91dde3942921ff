#pragma once
// Two ranked layouts side by side (the GUI's "Compare pinned" view): each estimated in full (event simulation,
// per-axis communication) for the project's model, workload and cluster, with its busiest rank's memory. The GUI
// runs it on the evaluator's worker thread with each evaluation while two layouts are pinned (ui/document/evaluator.*),
// and stores the result in the Evaluation (core/session/evaluate.hpp).
#include <string>
#include <vector>

#include "core/estimate/step.hpp"
#include "core/memory/memory.hpp"
#include "core/project/project.hpp"
#include "core/search/search.hpp"
#include "core/topology/routing.hpp"

namespace meshscope {

// One side: the ranked layout as the search gave it, its step estimate and its memory budget.
struct ComparedLayout {
  RankedLayout ranked;
  StepEstimate estimate;
  MemoryBudget memory;
};

struct LayoutComparison {
  std::vector<ComparedLayout> sides;  // one per pinned layout, in pin order; empty with an error
  std::string error;                  // why a side could not be estimated
};

// Each of `pinned` (the ranked layouts' own recompute, ZeRO stage, TP overlap, schedule and rank order over the
// project's workload and estimate options) on `cluster`; `router` must be the cluster's. A few milliseconds a side.
[[nodiscard]] LayoutComparison compare_layouts(const Project& project, const Cluster& cluster, const Router& router,
                                               const std::vector<RankedLayout>& pinned);

}  // namespace meshscope
