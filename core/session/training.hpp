#pragma once
// Training use cases as the CLI and the Python binding ask for them, through the same session functions the app's
// evaluator runs (evaluate_project, and rank_project under search_project): a project built from a front end's
// arguments (or read from a project file), its estimate with every reason it has none as one Error, and its
// ranked layouts under the project's calibration.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "core/base/result.hpp"
#include "core/keys/options.hpp"
#include "core/model/model.hpp"
#include "core/project/project.hpp"
#include "core/search/search.hpp"
#include "core/session/evaluate.hpp"
#include "core/topology/cluster.hpp"

namespace meshscope {

// A front end's training arguments: the model, the cluster as resolved and as --cluster names it (a generator
// string or a cluster file; empty: the cluster is kept inline in the project), and the --train, --layout,
// --efficiency and --comm keys with the axis order.
struct TrainingArguments {
  ModelSpec model;
  Cluster cluster;
  std::string cluster_ref;
  KeyValues train, layout, efficiency, comm;
  AxisOrder order = AxisOrder::megatron;
};
// The project they describe: "M on C", training mode, the model inline, the layout as given (not checked), the
// efficiency and comm keys as its calibration. Errors: the keys' (training_from_keys, layout_from_keys, the
// calibration's).
[[nodiscard]] Result<Project> training_project(const TrainingArguments& arguments);

// evaluate_project of a training project with each reason it has no estimate as one Error: the cluster's, the
// layout's problems ("the layout is not valid for M on this cluster:" and each), the calibration's, the
// estimate's. `resolved`, when given, is the cluster the project resolves to (so that it is not built twice).
[[nodiscard]] Result<Evaluation> evaluate_training(const Project& project, const Cluster* resolved = nullptr,
                                                   const EvaluateRequest& request = {});

// What a search is asked for beyond the project (SearchOptions' own meaning).
struct SearchRequest {
  int64_t top = 10;
  int64_t refine = 0;
  RankObjective objective = RankObjective::throughput;
  int threads = 0;
  const std::atomic<bool>* cancel = nullptr;
};
// The ranked layouts of a training project on `cluster` (the cluster the project resolves to), the estimates
// under the project's calibration (its --efficiency and --comm keys; defaults where they do not parse, as the
// app's search has always taken them).
[[nodiscard]] Result<SearchResult> rank_project(const Project& project, const Cluster& cluster,
                                                const SearchRequest& request);

}  // namespace meshscope
