#include "core/session/compare_layouts.hpp"

#include <utility>

#include "core/serving/serving.hpp"

namespace meshscope {

LayoutComparison compare_layouts(const Project& project, const Cluster& cluster, const Router& router,
                                 const std::vector<RankedLayout>& pinned) {
  LayoutComparison comparison;
  for (const RankedLayout& ranked : pinned) {
    TrainingWorkload workload = project.training;
    workload.recompute = ranked.recompute;
    workload.zero_stage = ranked.zero_stage;
    workload.tp_comm_overlap = ranked.tp_comm_overlap;
    workload.schedule = ranked.schedule;
    auto options = project_estimate_options(project);
    if (!options) return {{}, options.error().to_string()};
    options->order = ranked.order;
    auto estimate = estimate_step(project.model, workload, ranked.layout, cluster, router, *options);
    if (!estimate) return {{}, estimate.error().to_string()};
    const GpuSpec gpu = cluster_gpu(cluster);
    comparison.sides.push_back(
        {ranked, std::move(*estimate), training_memory(project.model, workload, ranked.layout, gpu)});
  }
  return comparison;
}

}  // namespace meshscope
