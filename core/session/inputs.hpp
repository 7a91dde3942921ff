#pragma once
// The inputs every front end builds the same way (the CLI's --model/--cluster/--train/--layout, the Python
// binding's arguments, the app's project): a training setup from a model, a cluster and the key lists, the
// layout checked against them, and the one message that lists a layout's problems.
#include <string>
#include <vector>

#include "core/base/result.hpp"
#include "core/keys/options.hpp"
#include "core/model/model.hpp"
#include "core/topology/cluster.hpp"
#include "core/workload/layout.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

struct TrainingSetup {
  ModelSpec model;
  Cluster cluster;
  TrainingWorkload workload;
  Layout layout;
};

// How much of the cluster the layout must use.
enum class ClusterUse {
  any,   // not checked (rank: the search chooses the layout)
  fill,  // valid for the model and using every GPU (estimate, comm, trade-off)
  fit,   // valid and at most the cluster's GPUs: a measured job may have run on part of it (compare)
};

// The workload from `train` and the layout from `layout` (the key=value lists of --train and --layout), checked
// as `use` says; an invalid layout is an error listing every problem (problems_message).
[[nodiscard]] Result<TrainingSetup> training_setup(ModelSpec model, Cluster cluster, const KeyValues& train,
                                                   const KeyValues& layout, ClusterUse use);
// `layout` checked against `model`, `workload` and `cluster` as `use` says.
[[nodiscard]] Result<void> check_cluster_use(const ModelSpec& model, const TrainingWorkload& workload,
                                             const Layout& layout, const Cluster& cluster, ClusterUse use);

// "the layout is not valid for WHAT:" and every problem, one per line as "  [field] message".
[[nodiscard]] std::string problems_message(const std::string& what, const std::vector<LayoutProblem>& problems);

}  // namespace meshscope
