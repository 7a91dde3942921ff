#include "core/session/sweep_results.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/serving/serving.hpp"
#include "core/topology/generators.hpp"

namespace meshscope {

namespace {

using nlohmann::json;

// A key's value as the key=value parsers read it.
std::string value_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump();
}

tl::unexpected<Error> line_error(const std::string& origin, int64_t line, const std::string& message) {
  return make_error(ErrorCode::parse_error, message, origin + ":" + std::to_string(line));
}

Result<SweepResultPoint> point_of(const json& doc, const std::string& origin, int64_t line) {
  SweepResultPoint p;
  for (const char* field : {"index", "id", "model", "cluster"})
    if (!doc.contains(field)) return line_error(origin, line, std::string("a sweep line needs \"") + field + "\"");
  if (!doc.at("index").is_number_integer() || !doc.at("id").is_string() || !doc.at("model").is_string() ||
      !doc.at("cluster").is_string())
    return line_error(origin, line, "index must be an integer and id, model and cluster strings");
  p.index = doc.at("index").get<int64_t>();
  p.id = doc.at("id").get<std::string>();
  p.model = doc.at("model").get<std::string>();
  p.cluster = doc.at("cluster").get<std::string>();
  if (const auto w = doc.find("workload"); w != doc.end() && w->is_object())
    for (const auto& [key, value] : w->items()) p.workload.emplace_back(key, value_text(value));
  if (const auto o = doc.find("objective"); o != doc.end() && o->is_string()) p.objective = o->get<std::string>();
  if (const auto e = doc.find("error"); e != doc.end()) p.error = value_text(*e);
  const auto result = doc.find("result");
  if (result == doc.end() || !result->is_object()) return p;
  p.valid = result->value("valid", int64_t{0});
  if (const auto rejected = result->find("rejected"); rejected != result->end() && rejected->is_object()) {
    std::vector<std::pair<int64_t, std::string>> reasons;
    for (const auto& [reason, count] : rejected->items())
      reasons.emplace_back(count.is_number_integer() ? count.get<int64_t>() : 0, reason);
    std::sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < std::min<size_t>(3, reasons.size()); ++i) p.top_rejected.push_back(reasons[i].second);
  }
  const auto layouts = result->find("layouts");
  if (layouts == result->end() || !layouts->is_array() || layouts->empty()) return p;
  const json& best = layouts->front();
  if (!best.is_object() || !best.contains("layout") || !best.at("layout").is_object())
    return line_error(origin, line, "a ranked layout needs a \"layout\" object");
  for (const auto& [key, value] : best.at("layout").items()) {
    if (key == "recompute" || key == "zero" || key == "schedule" || key == "tp_comm_overlap")
      p.layout_choices.emplace_back(key, value_text(value));
    else if (key != "order")
      p.layout.emplace_back(key, value_text(value));
  }
  auto layout = layout_from_keys(p.layout);
  if (!layout) return line_error(origin, line, "the best layout: " + layout.error().message);
  p.has_layout = true;
  p.gpus = layout->world_size();
  p.step_time_s = best.value("step_time_s", 0.0);
  p.tokens_per_s_per_gpu = best.value("tokens_per_s_per_gpu", 0.0);
  p.mfu = best.value("mfu", 0.0);
  p.peak_memory_bytes = best.value("peak_memory_bytes", 0.0);
  p.cost_per_million_tokens = best.value("cost_per_million_tokens", 0.0);
  return p;
}

}  // namespace

std::string SweepResultPoint::series() const {
  // "dgx-h100:nodes=4,gpu=h200-sxm" → "dgx-h100:gpu=h200-sxm": the family without its size.
  std::string family = cluster.substr(0, cluster.find(':'));
  std::string rest;
  if (const size_t colon = cluster.find(':'); colon != std::string::npos) {
    size_t start = colon + 1;
    while (start <= cluster.size()) {
      const size_t comma = cluster.find(',', start);
      const std::string item = cluster.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!item.empty() && !item.starts_with("nodes=")) rest += (rest.empty() ? "" : ",") + item;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return model + " · " + family + (rest.empty() ? "" : ":" + rest);
}

Result<SweepResults> parse_sweep_results(std::string_view text, const std::string& origin) {
  SweepResults out;
  int64_t line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    ++line_number;
    const size_t end = text.find('\n', start);
    const bool last_unterminated = end == std::string_view::npos;
    const std::string_view line = text.substr(start, last_unterminated ? std::string_view::npos : end - start);
    start = last_unterminated ? text.size() : end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json doc = json::parse(line, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      if (last_unterminated) {
        out.warnings.push_back(origin + ":" + std::to_string(line_number) +
                               ": the last line is cut off (a sweep still running, or killed) and is left out");
        break;
      }
      return line_error(origin, line_number, "not a JSON object: a sweep's output has one point per line");
    }
    MS_TRY(point, point_of(doc, origin, line_number));
    out.points.push_back(std::move(point));
  }
  if (out.points.empty()) return make_error(ErrorCode::parse_error, "no sweep points in the file", origin);
  std::stable_sort(out.points.begin(), out.points.end(),
                   [](const SweepResultPoint& a, const SweepResultPoint& b) { return a.index < b.index; });
  return out;
}

Result<SweepResults> load_sweep_results(const std::string& path) {
  MS_TRY(text, read_text_file(path));
  return parse_sweep_results(text, path);
}

Result<Project> project_from_sweep_point(const Project& base, const SweepResultPoint& point) {
  Project project = base;
  MS_TRY(model, resolve_model(point.model));
  project.model = std::move(model);
  project.model_ref = model_preset(point.model) ? point.model : std::string();
  MS_TRY(cluster, resolve_cluster(point.cluster));
  project.cluster = point.cluster;
  project.cluster_inline.reset();
  project.gpu_count = cluster.num_gpus();
  project.gpu = cluster_gpu(cluster);
  project.mode = Mode::training;
  KeyValues keys = point.workload;
  keys.insert(keys.end(), point.layout_choices.begin(), point.layout_choices.end());
  MS_TRY(training, training_from_keys(keys));
  project.training = std::move(training);
  if (point.has_layout) {
    MS_TRY(layout, layout_from_keys(point.layout));
    project.layout = std::move(layout);
  }
  return project;
}

std::vector<size_t> sweep_pareto_front(const std::vector<SweepResultPoint>& points) {
  std::vector<size_t> front;
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepResultPoint& p = points[i];
    if (!p.has_layout) continue;
    bool dominated = false;
    for (size_t j = 0; j < points.size() && !dominated; ++j) {
      const SweepResultPoint& q = points[j];
      if (j == i || !q.has_layout || q.model != p.model || q.workload != p.workload) continue;
      const bool at_least = q.tokens_per_s() >= p.tokens_per_s() && q.tokens_per_s_per_gpu >= p.tokens_per_s_per_gpu;
      const bool better = q.tokens_per_s() > p.tokens_per_s() || q.tokens_per_s_per_gpu > p.tokens_per_s_per_gpu;
      dominated = at_least && better;
    }
    if (!dominated) front.push_back(i);
  }
  std::sort(front.begin(), front.end(), [&](size_t a, size_t b) { return points[a].gpus < points[b].gpus; });
  return front;
}

}  // namespace meshscope
