#include "core/session/inputs.hpp"

#include <utility>

namespace meshscope {

std::string problems_message(const std::string& what, const std::vector<LayoutProblem>& problems) {
  std::string message = "the layout is not valid for " + what + ":";
  for (const auto& p : problems) message += "\n  [" + p.field + "] " + p.message;
  return message;
}

Result<void> check_cluster_use(const ModelSpec& model, const TrainingWorkload& workload, const Layout& layout,
                               const Cluster& cluster, ClusterUse use) {
  if (use == ClusterUse::fill) {
    const auto problems = validate_training_layout(model, workload, layout, cluster.num_gpus());
    if (!problems.empty())
      return make_error(ErrorCode::invalid_layout, problems_message(model.name + " on this cluster", problems));
  } else if (use == ClusterUse::fit) {
    const auto problems = validate_training_layout(model, workload, layout);
    if (!problems.empty()) return make_error(ErrorCode::invalid_layout, problems_message(model.name, problems));
    if (layout.world_size() > cluster.num_gpus())
      return make_error(ErrorCode::invalid_layout, "the layout has " + std::to_string(layout.world_size()) +
                                                       " ranks but the cluster only " +
                                                       std::to_string(cluster.num_gpus()) + " GPUs");
  }
  return {};
}

Result<TrainingSetup> training_setup(ModelSpec model, Cluster cluster, const KeyValues& train, const KeyValues& layout,
                                     ClusterUse use) {
  MS_TRY(workload, training_from_keys(train));
  MS_TRY(parsed_layout, layout_from_keys(layout));
  if (auto checked = check_cluster_use(model, workload, parsed_layout, cluster, use); !checked)
    return tl::unexpected(checked.error());
  return TrainingSetup{std::move(model), std::move(cluster), workload, parsed_layout};
}

}  // namespace meshscope
