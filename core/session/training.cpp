#include "core/session/training.hpp"

#include <utility>

#include "core/serving/serving.hpp"
#include "core/session/inputs.hpp"

namespace meshscope {

Result<Project> training_project(const TrainingArguments& arguments) {
  Project project;
  project.name = arguments.model.name + " on " + arguments.cluster.name;
  project.model = arguments.model;
  project.gpu = cluster_gpu(arguments.cluster);
  if (arguments.cluster_ref.empty())
    project.cluster_inline = arguments.cluster;
  else
    project.cluster = arguments.cluster_ref;
  project.gpu_count = arguments.cluster.num_gpus();
  project.mode = Mode::training;
  MS_TRY(workload, training_from_keys(arguments.train));
  MS_TRY(layout, layout_from_keys(arguments.layout));
  project.training = workload;
  project.layout = layout;
  project.efficiency_keys = arguments.efficiency;
  project.comm_keys = arguments.comm;
  project.order = arguments.order;
  MS_TRY(options, project_estimate_options(project));
  (void)options;  // checked here, so that a bad key is an error before anything is estimated
  return project;
}

Result<Evaluation> evaluate_training(const Project& project, const Cluster* resolved, const EvaluateRequest& request) {
  ClusterCache cache;
  if (resolved) cache = cluster_cache_of(project, *resolved);
  Evaluation evaluation = evaluate_project(project, cache, request);
  // The evaluation keeps each error as its text (Error::to_string()), which is all a front end prints.
  if (!evaluation.cluster) return make_error(ErrorCode::invalid_argument, evaluation.cluster_error);
  if (!evaluation.problems.empty())
    return make_error(ErrorCode::invalid_layout,
                      problems_message(project.model.name + " on this cluster", evaluation.problems));
  if (!evaluation.estimate) return make_error(ErrorCode::invalid_argument, evaluation.estimate_error);
  return evaluation;
}

Result<SearchResult> rank_project(const Project& project, const Cluster& cluster, const SearchRequest& request) {
  SearchOptions options;
  if (auto calibrated = project_estimate_options(project)) options.estimate = *calibrated;
  options.top = request.top;
  options.refine = request.refine;
  options.objective = request.objective;
  options.threads = request.threads;
  options.cancel = request.cancel;
  return rank_layouts(project.model, project.training, cluster, options);
}

}  // namespace meshscope
