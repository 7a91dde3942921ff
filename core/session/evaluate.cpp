#include "core/session/evaluate.hpp"

#include <chrono>
#include <utility>

#include "core/session/training.hpp"
#include "core/topology/cluster_io.hpp"

namespace meshscope {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string cluster_key(const Project& project) {
  return project.cluster_inline ? cluster_to_json_text(*project.cluster_inline) : project.cluster;
}

// The serving options the project's calibration sets.
ServingOptions serving_options(const Project& project) {
  ServingOptions options;
  if (auto calibrated = project_estimate_options(project)) {
    options.comm = calibrated->comm.constants;
    options.efficiency = calibrated->efficiency;
  }
  return options;
}

// The cache holding `cluster` under `key` (cluster_key of its project), with its router.
ClusterCache cluster_cache(std::string key, Cluster cluster) {
  ClusterCache cache;
  cache.key = std::move(key);
  cache.cluster = std::make_shared<const Cluster>(std::move(cluster));
  cache.router = std::make_shared<const Router>(*cache.cluster);
  return cache;
}

}  // namespace

ClusterCache cluster_cache_of(const Project& project, Cluster cluster) {
  return cluster_cache(cluster_key(project), std::move(cluster));
}

Project search_inputs(const Project& project) {
  Project copy = project;
  copy.layout = {};
  copy.serving_layout = {};
  copy.view = nlohmann::json::object();
  copy.name.clear();
  // The search chooses recompute, ZeRO stage, schedule and TP overlap itself (SearchSpace).
  copy.training.recompute = RecomputeMode::selective;
  copy.training.zero_stage = 1;
  copy.training.schedule = PipelineSchedule::one_f_one_b;
  copy.training.tp_comm_overlap = false;
  return copy;
}

Evaluation evaluate_project(const Project& project, ClusterCache& cache, const EvaluateRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  Evaluation out;
  out.project = project;
  const bool training = project.mode == Mode::training;

  const std::string key = cluster_key(project);
  if (key != cache.key || !cache.cluster) {
    cache = {};
    auto cluster = project_cluster(project);
    if (cluster) {
      cache = cluster_cache(key, std::move(*cluster));
    } else {
      out.cluster_error = cluster.error().to_string();
    }
  }
  out.cluster = cache.cluster;
  const int64_t gpus = out.cluster ? out.cluster->num_gpus() : project.gpu_count;
  const GpuSpec gpu = out.cluster ? cluster_gpu(*out.cluster) : project.gpu;

  if (training) {
    out.problems = validate_training_layout(project.model, project.training, project.layout, gpus);
  } else {
    out.problems = validate_serving(project.model, project.serving_layout, gpus);
  }
  if (!out.problems.empty()) {
    out.elapsed_s = seconds_since(start);
    return out;
  }
  if (training) {
    out.budget =
        std::make_shared<const MemoryBudget>(training_memory(project.model, project.training, project.layout, gpu));
  } else {
    out.budget =
        std::make_shared<const MemoryBudget>(serving_memory(project.model, project.serving, project.layout, gpu));
  }
  if (out.cluster) {
    if (training) {
      auto calibrated = project_estimate_options(project);
      if (!calibrated) {
        out.estimate_error = calibrated.error().to_string();
        out.elapsed_s = seconds_since(start);
        return out;
      }
      EstimateOptions options = *calibrated;
      auto estimate =
          estimate_step(project.model, project.training, project.layout, *out.cluster, *cache.router, options);
      if (estimate)
        out.estimate = std::make_shared<const StepEstimate>(std::move(*estimate));
      else
        out.estimate_error = estimate.error().to_string();
      if (out.estimate) {
        // The communication map draws the groups of each axis: the same placement the estimate used.
        auto placement = place_layout(project.layout, *out.cluster, *cache.router, options.order);
        if (placement) out.placement = std::make_shared<const Placement>(std::move(*placement));
      }
      if (out.estimate && request.compare_schedule) {
        TrainingWorkload workload = project.training;
        workload.schedule = *request.compare_schedule;
        auto other = estimate_step(project.model, workload, project.layout, *out.cluster, *cache.router, options);
        if (other)
          out.compare_estimate = std::make_shared<const StepEstimate>(std::move(*other));
        else
          out.compare_error = other.error().to_string();
      }
    } else {
      auto estimate = estimate_serving(project.model, project.serving, {}, project.serving_layout, *out.cluster,
                                       *cache.router, serving_options(project));
      if (estimate) {
        out.serving = std::make_shared<const ServingEstimate>(std::move(*estimate));
        // The engine's own sizing (KV cache filling the memory fraction) is the budget shown.
        out.budget = std::shared_ptr<const MemoryBudget>(out.serving, &out.serving->memory);
        auto traffic = serving_traffic(project.model, project.serving, project.serving_layout,
                                       static_cast<double>(out.serving->point.running), *out.cluster, *cache.router);
        if (traffic) out.serving_traffic = std::make_shared<const ServingTrafficMap>(std::move(*traffic));
      } else
        out.estimate_error = estimate.error().to_string();
    }
  }
  out.elapsed_s = seconds_since(start);
  return out;
}

// The chart stays legible with a handful of lines.
constexpr size_t kServingCurves = 4;

SearchEvaluation search_project(const Project& project, const ServingTarget& target, const std::atomic<bool>& cancel) {
  const auto start = std::chrono::steady_clock::now();
  SearchEvaluation out;
  out.project = project;
  out.target = target;
  auto cluster = project_cluster(project);
  if (!cluster) {
    out.error = cluster.error().to_string();
    return out;
  }
  if (project.mode == Mode::training) {
    SearchRequest request;
    request.top = 200;
    request.cancel = &cancel;
    auto result = rank_project(project, *cluster, request);
    if (result)
      out.training = std::make_shared<const SearchResult>(std::move(*result));
    else
      out.error = result.error().to_string();
  } else {
    ServingRankOptions options;
    options.serving = serving_options(project);
    options.top = 200;
    auto result = rank_serving_layouts(project.model, project.serving, *cluster, target, options);
    if (result) {
      out.serving = std::make_shared<const ServingRankResult>(std::move(*result));
      const Router router(*cluster);
      for (const RankedServing& ranked : out.serving->layouts) {
        if (ranked.disaggregated || cancel.load()) continue;
        auto estimate =
            estimate_serving(project.model, project.serving, {}, ranked.layout, *cluster, router, options.serving);
        if (estimate) out.curves.push_back({ranked.layout, std::move(*estimate)});
        if (out.curves.size() == kServingCurves) break;
      }
    } else {
      out.error = result.error().to_string();
    }
  }
  out.cancelled = cancel.load();
  out.elapsed_s = seconds_since(start);
  return out;
}

}  // namespace meshscope
