#include "core/session/scaling.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "core/base/enum_names.hpp"
#include "core/base/text.hpp"
#include "core/keys/options.hpp"
#include "core/report/launcher_export.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/placement.hpp"

namespace meshscope {

namespace {

constexpr int64_t kMaxGpus = 65536;
constexpr size_t kMaxSizes = 64;
constexpr size_t kTopRejections = 3;

constexpr auto whole_number = text::parse_integer;

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

Error gpu_error(std::string_view text, const std::string& why) {
  return Error{ErrorCode::invalid_argument,
               "\"" + std::string(text) + "\": " + why +
                   " (A:B powers of two, A:B:+S steps of S, A:B:xF factors of F, or a list 8,16,48)",
               "--gpus"};
}

Result<std::vector<int64_t>> checked_counts(std::string_view text, std::vector<int64_t> counts) {
  if (counts.empty()) return tl::unexpected(gpu_error(text, "no GPU counts"));
  if (counts.size() > kMaxSizes)
    return tl::unexpected(gpu_error(text, "more than " + std::to_string(kMaxSizes) + " sizes"));
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] < 1 || counts[i] > kMaxGpus)
      return tl::unexpected(gpu_error(text, "GPU counts must be from 1 to " + std::to_string(kMaxGpus)));
    if (i > 0 && counts[i] <= counts[i - 1]) return tl::unexpected(gpu_error(text, "GPU counts must increase"));
  }
  return counts;
}

// The range A:B[:+S|:xF].
Result<std::vector<int64_t>> range_counts(std::string_view text) {
  const auto parts = split(text, ':');
  if (parts.size() > 3) return tl::unexpected(gpu_error(text, "too many ':'"));
  const auto from = whole_number(parts[0]);
  const auto to = whole_number(parts[1]);
  if (!from || !to || *from < 1 || *to < *from || *to > kMaxGpus)
    return tl::unexpected(gpu_error(text, "A:B needs whole numbers 1 ≤ A ≤ B ≤ " + std::to_string(kMaxGpus)));
  char how = 'x';
  int64_t by = 2;
  if (parts.size() == 3) {
    const std::string_view step = parts[2];
    const auto n = step.size() > 1 ? whole_number(step.substr(1)) : std::nullopt;
    if ((step.front() != '+' && step.front() != 'x') || !n || *n < 1 || (step.front() == 'x' && *n < 2))
      return tl::unexpected(gpu_error(text, "the step must be +S (S ≥ 1) or xF (F ≥ 2)"));
    how = step.front();
    by = *n;
  }
  std::vector<int64_t> counts;
  for (int64_t n = *from; n <= *to && counts.size() <= kMaxSizes; n = how == '+' ? n + by : n * by) counts.push_back(n);
  return checked_counts(text, std::move(counts));
}

// Per point: the search at one size, and its best layout or why there is none.
Result<ScalingPoint> scale_point(const ModelSpec& model, TrainingWorkload workload, const ClusterFamily& family,
                                 int64_t gpus, const ScalingRequest& request, int64_t base_batch,
                                 const SearchOptions& options) {
  ScalingPoint point;
  point.gpus = gpus;
  MS_TRY(spec, family_cluster_spec(family, gpus));
  point.cluster = spec;
  const int64_t n0 = request.batch_gpus > 0 ? request.batch_gpus : request.gpu_counts.front();
  point.global_batch = base_batch;
  if (request.mode == ScalingMode::weak) {
    // Weak scaling: sequences per GPU per step fixed, B(N) = B0 · N / N0.
    if ((base_batch * gpus) % n0 != 0) {
      point.error = "the weak-scaling global batch " + std::to_string(base_batch) + " × " + std::to_string(gpus) +
                    " / " + std::to_string(n0) + " is not a whole number of sequences";
      point.global_batch = 0;
      return point;
    }
    point.global_batch = base_batch * gpus / n0;
  }
  workload.global_batch = point.global_batch;
  MS_TRY(cluster, generate_cluster(spec));
  auto result = rank_layouts(model, workload, cluster, options);
  if (!result) {
    if (result.error().message == kSearchCancelled) return tl::unexpected(result.error());
    point.error = result.error().to_string();
    return point;
  }
  if (result->layouts.empty()) {
    point.error = "no valid layout: " + std::to_string(result->evaluated) + " candidates rejected";
    std::vector<std::pair<std::string, int64_t>> reasons(result->rejected.begin(), result->rejected.end());
    std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (reasons.size() > kTopRejections) reasons.resize(kTopRejections);
    point.top_rejections = std::move(reasons);
    return point;
  }
  point.valid = true;
  point.best = result->layouts.front();
  point.tokens_per_s = point.best.tokens_per_s_per_gpu * static_cast<double>(gpus);
  return point;
}

std::string efficiency_definition(const ScalingResult& r) {
  std::ostringstream text;
  if (r.mode == ScalingMode::weak)
    text << "weak scaling: global batch B(N) = " << r.baseline_global_batch << " × N / " << r.baseline_batch_gpus
         << " (sequences per GPU per step fixed); efficiency E(N) = (tokens/s per GPU at N) / (tokens/s per GPU "
            "at the baseline N_b = "
         << r.baseline_gpus << " GPUs, " << r.baseline_tokens_per_s_per_gpu << ")";
  else
    text << "strong scaling: global batch fixed at " << r.baseline_global_batch
         << " sequences; efficiency E(N) = T(N_b) × N_b / (T(N) × N), T the step time, baseline N_b = "
         << r.baseline_gpus << " GPUs (T = " << r.baseline_step_time_s
         << " s); equal to (tokens/s per GPU at N) / (tokens/s per GPU at N_b)";
  return text.str();
}

}  // namespace

Result<ScalingMode> parse_scaling_mode(std::string_view text) {
  if (text == "weak") return ScalingMode::weak;
  if (text == "strong") return ScalingMode::strong;
  return make_error(ErrorCode::invalid_argument, "\"" + std::string(text) + "\" is not weak or strong", "--mode");
}

Result<std::vector<int64_t>> parse_gpu_counts(std::string_view text) {
  if (text.find(':') != std::string_view::npos) return range_counts(text);
  std::vector<int64_t> counts;
  for (const std::string_view item : split(text, ',')) {
    const auto n = whole_number(item);
    if (!n) return tl::unexpected(gpu_error(text, "\"" + std::string(item) + "\" is not a whole number"));
    counts.push_back(*n);
  }
  return checked_counts(text, std::move(counts));
}

Result<ClusterFamily> parse_cluster_family(std::string_view spec) {
  std::error_code ignored;
  if (std::filesystem::exists(std::filesystem::path(std::string(spec)), ignored))
    return make_error(ErrorCode::invalid_argument,
                      "a scaling run needs a cluster generator string (its node count varies), not a cluster file",
                      std::string(spec));
  ClusterFamily family;
  const size_t colon = spec.find(':');
  family.generator = std::string(spec.substr(0, colon));
  family.count_key = family.generator == "gb200-nvl72" ? "racks" : "nodes";
  if (colon != std::string_view::npos) {
    for (const std::string_view item : split(spec.substr(colon + 1), ',')) {
      if (item.empty()) continue;
      const size_t equals = item.find('=');
      const std::string key(item.substr(0, equals));
      if (key == family.count_key) continue;  // the variable
      family.keys.emplace_back(key, equals == std::string_view::npos ? "" : std::string(item.substr(equals + 1)));
    }
  }
  family.gpus_per_unit = 1;  // for family_cluster_spec's unit spec below
  MS_TRY(unit_spec, family_cluster_spec(family, 1));
  MS_TRY(unit, generate_cluster(unit_spec));  // names the bad generator or key
  family.gpus_per_unit = unit.num_gpus();
  if (family.gpus_per_unit < 1)
    return make_error(ErrorCode::invalid_argument, "the generator's node has no GPUs", std::string(spec));
  return family;
}

Result<std::string> family_cluster_spec(const ClusterFamily& family, int64_t gpus) {
  if (gpus < 1 || gpus % family.gpus_per_unit != 0)
    return make_error(ErrorCode::invalid_argument,
                      std::to_string(gpus) + " GPUs is not a multiple of the " + std::to_string(family.gpus_per_unit) +
                          " GPUs per " + (family.count_key == "racks" ? "rack" : "node") + " of " + family.generator,
                      "--gpus");
  std::string spec = family.generator + ":";
  for (const auto& [key, value] : family.keys) spec += key + "=" + value + ",";
  return spec + family.count_key + "=" + std::to_string(gpus / family.gpus_per_unit);
}

Result<ScalingResult> run_scaling(const ModelSpec& model, const TrainingWorkload& workload,
                                  const ScalingRequest& request, const SearchOptions& options) {
  if (request.gpu_counts.empty()) return make_error(ErrorCode::invalid_argument, "no GPU counts", "--gpus");
  MS_TRY(family, parse_cluster_family(request.cluster_family));
  for (const int64_t gpus : request.gpu_counts) {
    MS_TRY(spec, family_cluster_spec(family, gpus));  // every size is checked before any search runs
  }
  SearchOptions search = options;
  search.top = std::max<int64_t>(search.top, 1);
  ScalingResult out;
  out.mode = request.mode;
  out.cluster_family = request.cluster_family;
  out.gpus_per_node = family.gpus_per_unit;
  out.baseline_global_batch = workload.global_batch;
  out.baseline_batch_gpus = request.batch_gpus > 0 ? request.batch_gpus : request.gpu_counts.front();
  std::optional<size_t> previous;  // index of the last valid point
  for (const int64_t gpus : request.gpu_counts) {
    MS_TRY(point, scale_point(model, workload, family, gpus, request, workload.global_batch, search));
    out.points.push_back(std::move(point));
    ScalingPoint& p = out.points.back();
    if (!p.valid) continue;
    if (!out.has_baseline) {
      out.has_baseline = true;
      out.baseline_gpus = p.gpus;
      out.baseline_tokens_per_s_per_gpu = p.best.tokens_per_s_per_gpu;
      out.baseline_step_time_s = p.best.step_time_s;
    }
    p.scaling_efficiency = p.best.tokens_per_s_per_gpu / out.baseline_tokens_per_s_per_gpu;
    if (previous) {
      p.layout_change = layout_change_text(out.points[*previous].best, p.best);
      p.layout_changed = !p.layout_change.empty();
    }
    previous = out.points.size() - 1;
  }
  out.efficiency_definition = efficiency_definition(out);
  return out;
}

Result<ScalingResult> scale_project(const Project& project, ScalingMode mode, const std::vector<int64_t>& gpu_counts,
                                    const std::atomic<bool>* cancel) {
  if (project.mode != Mode::training)
    return make_error(ErrorCode::invalid_argument, "scaling runs training searches: the project is in serving mode");
  if (project.cluster_inline || project.cluster.empty())
    return make_error(ErrorCode::invalid_argument,
                      "scaling needs the project's cluster as a generator string (its node count varies), not an "
                      "inline cluster",
                      "project " + project.name + ": cluster");
  SearchOptions options;
  MS_TRY(estimate, project_estimate_options(project));
  options.estimate = estimate;
  options.top = 1;
  options.cancel = cancel;
  MS_TRY(cluster, project_cluster(project));
  return run_scaling(project.model, project.training,
                     ScalingRequest{project.cluster, gpu_counts, mode, cluster.num_gpus()}, options);
}

Project project_at_scaling_point(Project project, const ScalingPoint& point) {
  project.cluster = point.cluster;
  project.gpu_count = point.gpus;
  project.training.global_batch = point.global_batch;
  return project_with_ranked_layout(std::move(project), point.best);
}

}  // namespace meshscope
