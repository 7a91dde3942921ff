#include "core/session/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "core/model/catalogue.hpp"
#include "core/report/search.hpp"
#include "core/topology/generators.hpp"

namespace meshscope {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr size_t kMaxRangeValues = 100000;

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::optional<int64_t> integer(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  int64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// The values of one key: `A..B`, `A..B:+S`, `A..B:xF`, `a|b|c`, or the value itself.
Result<std::vector<std::string>> expand_value(const std::string& key, const std::string& value) {
  if (value.find('|') != std::string::npos) {
    auto values = split(value, '|');
    for (const auto& v : values)
      if (v.empty()) return make_error(ErrorCode::invalid_argument, "empty alternative in \"" + value + "\"", key);
    return values;
  }
  const size_t dots = value.find("..");
  if (dots == std::string::npos) return std::vector<std::string>{value};
  const std::string bad = "\"" + value + "\" is not a range A..B, A..B:+STEP or A..B:xFACTOR";
  const auto from = integer(std::string_view(value).substr(0, dots));
  std::string_view rest = std::string_view(value).substr(dots + 2);
  std::string_view step_text;
  if (const size_t colon = rest.find(':'); colon != std::string_view::npos) {
    step_text = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  const auto to = integer(rest);
  if (!from || !to || *from > *to) return make_error(ErrorCode::invalid_argument, bad, key);
  bool geometric = false;
  int64_t step = 1;
  if (!step_text.empty()) {
    geometric = step_text.front() == 'x';
    if (step_text.front() != 'x' && step_text.front() != '+') return make_error(ErrorCode::invalid_argument, bad, key);
    const auto amount = integer(step_text.substr(1));
    if (!amount || *amount < (geometric ? 2 : 1) || (geometric && *from < 1))
      return make_error(ErrorCode::invalid_argument, bad + " (a step of 1 or more, a factor of 2 or more from 1 up)",
                        key);
    step = *amount;
  }
  std::vector<std::string> values;
  for (int64_t v = *from; v <= *to; v = geometric ? v * step : v + step) {
    values.push_back(std::to_string(v));
    if (values.size() > kMaxRangeValues)
      return make_error(ErrorCode::invalid_argument, "\"" + value + "\" has more than 100000 values", key);
  }
  return values;
}

uint64_t fnv1a(std::string_view text) {
  uint64_t hash = 1469598103934665603ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

Result<KeyValues> workload_keys(const json& workload, const std::string& location) {
  if (!workload.is_object())
    return make_error(ErrorCode::wrong_type, "a workload is an object of --train keys", location);
  KeyValues keys;
  for (const auto& [key, value] : workload.items()) {
    if (value.is_string())
      keys.emplace_back(key, value.get<std::string>());
    else if (value.is_boolean())
      keys.emplace_back(key, value.get<bool>() ? "true" : "false");
    else if (value.is_number_integer())
      keys.emplace_back(key, std::to_string(value.get<int64_t>()));
    else if (value.is_number())
      keys.emplace_back(key, value.dump());
    else
      return make_error(ErrorCode::wrong_type, "a --train value is a string, number or boolean", location + "." + key);
  }
  return keys;
}

std::string workload_text(const json& workload) {
  std::string text;
  for (const auto& [key, value] : workload.items()) {
    if (!text.empty()) text += ",";
    text += key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return text.empty() ? "defaults" : text;
}

Result<std::vector<std::string>> string_list(const json& doc, const std::string& field, bool required) {
  if (!doc.contains(field)) {
    if (required) return make_error(ErrorCode::missing_field, "a sweep needs a non-empty list", field);
    return std::vector<std::string>{};
  }
  const json& list = doc.at(field);
  if (!list.is_array() || (required && list.empty()))
    return make_error(ErrorCode::wrong_type, "must be a non-empty list of strings", field);
  std::vector<std::string> values;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string() || list[i].get<std::string>().empty())
      return make_error(ErrorCode::wrong_type, "must be a non-empty string", field + "[" + std::to_string(i) + "]");
    values.push_back(list[i].get<std::string>());
  }
  return values;
}

Result<int64_t> count_field(const json& doc, const std::string& field, int64_t fallback, int64_t minimum) {
  if (!doc.contains(field)) return fallback;
  const json& value = doc.at(field);
  if (!value.is_number_integer() || value.get<int64_t>() < minimum)
    return make_error(ErrorCode::wrong_type, "must be an integer of at least " + std::to_string(minimum), field);
  return value.get<int64_t>();
}

std::string with_gpu(const std::string& cluster, const std::string& gpu) {
  if (gpu.empty()) return cluster;
  return cluster + (cluster.find(':') == std::string::npos ? ":gpu=" : ",gpu=") + gpu;
}

// A sweep file's lines: complete ones parsed, a truncated last one reported by its offset.
struct ParsedLines {
  std::vector<std::string> lines;
  std::vector<json> docs;
  size_t good_bytes = 0;  // up to the end of the last complete line
  bool partial_last = false;
};

Result<ParsedLines> read_sweep_lines(const std::string& path, bool allow_partial_last) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::io_error, "cannot read the file", path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string content = buffer.str();
  ParsedLines parsed;
  size_t start = 0;
  int64_t number = 0;
  while (start < content.size()) {
    ++number;
    const size_t end = content.find('\n', start);
    const bool complete = end != std::string::npos;
    std::string line = content.substr(start, complete ? end - start : std::string::npos);
    json doc = json::parse(line, nullptr, /*allow_exceptions=*/false);
    const bool ok = !doc.is_discarded() && doc.is_object() && doc.contains("id") && doc["id"].is_string() &&
                    doc.contains("index") && doc["index"].is_number_integer();
    if (!complete && allow_partial_last) {
      parsed.partial_last = true;  // a killed run's last line, finished or not: rewritten
      break;
    }
    if (!ok)
      return make_error(ErrorCode::parse_error, "not a sweep point line (a JSON object with index and id)",
                        path + ":" + std::to_string(number));
    parsed.lines.push_back(std::move(line));
    parsed.docs.push_back(std::move(doc));
    start = complete ? end + 1 : content.size();
    parsed.good_bytes = start;
  }
  return parsed;
}

}  // namespace

Result<std::vector<std::string>> expand_cluster_ranges(std::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) return std::vector<std::string>{std::string(spec)};
  const std::string name(spec.substr(0, colon));
  std::vector<std::vector<std::string>> choices;  // per key, its "key=value" strings
  for (const std::string& part : split(spec.substr(colon + 1), ',')) {
    const size_t equals = part.find('=');
    if (equals == std::string::npos) {
      choices.push_back({part});  // the generator reports it
      continue;
    }
    const std::string key = part.substr(0, equals);
    MS_TRY(values, expand_value(key, part.substr(equals + 1)));
    std::vector<std::string> options;
    for (const auto& v : values) options.push_back(key + "=" + v);
    choices.push_back(std::move(options));
  }
  std::vector<std::string> expanded = {""};
  for (const auto& options : choices) {
    std::vector<std::string> next;
    for (const auto& prefix : expanded)
      for (const auto& option : options) next.push_back(prefix.empty() ? option : prefix + "," + option);
    if (next.size() > kMaxRangeValues)
      return make_error(ErrorCode::invalid_argument, "expands to more than 100000 clusters", std::string(spec));
    expanded = std::move(next);
  }
  for (auto& e : expanded) e = name + ":" + e;
  return expanded;
}

Result<SweepSpec> parse_sweep_spec(const json& doc) {
  if (!doc.is_object()) return make_error(ErrorCode::wrong_type, "a sweep spec is a JSON object", "spec");
  static const std::set<std::string> known = {"models", "clusters", "gpus", "workloads", "objectives", "top", "refine"};
  for (const auto& [key, value] : doc.items())
    if (!known.count(key))
      return make_error(ErrorCode::invalid_argument,
                        "unknown field (known: models, clusters, gpus, workloads, objectives, top, refine)", key);
  SweepSpec spec;
  MS_TRY(models, string_list(doc, "models", true));
  spec.models = std::move(models);
  MS_TRY(clusters, string_list(doc, "clusters", true));
  for (size_t i = 0; i < clusters.size(); ++i) {
    auto expanded = expand_cluster_ranges(clusters[i]);
    if (!expanded) {
      Error error = expanded.error();
      error.location = "clusters[" + std::to_string(i) + "]" + (error.location.empty() ? "" : "." + error.location);
      return tl::unexpected(error);
    }
    spec.clusters.insert(spec.clusters.end(), expanded->begin(), expanded->end());
  }
  MS_TRY(gpus, string_list(doc, "gpus", false));
  spec.gpus = std::move(gpus);
  if (doc.contains("workloads")) {
    const json& list = doc.at("workloads");
    if (!list.is_array() || list.empty())
      return make_error(ErrorCode::wrong_type, "must be a non-empty list of objects", "workloads");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string location = "workloads[" + std::to_string(i) + "]";
      MS_TRY(keys, workload_keys(list[i], location));
      auto workload = training_from_keys(keys);
      if (!workload) return make_error(workload.error().code, workload.error().to_string(), location);
      spec.workloads.push_back(list[i]);
    }
  } else {
    spec.workloads.push_back(json::object());
  }
  if (doc.contains("objectives")) {
    MS_TRY(names, string_list(doc, "objectives", true));
    spec.objectives.clear();
    for (size_t i = 0; i < names.size(); ++i) {
      RankObjective objective{};
      if (!parse_rank_objective(names[i], objective))
        return make_error(ErrorCode::invalid_argument,
                          "\"" + names[i] + "\" is not throughput, memory-headroom or cost-per-token",
                          "objectives[" + std::to_string(i) + "]");
      spec.objectives.push_back(objective);
    }
  }
  MS_TRY(top, count_field(doc, "top", spec.top, 1));
  MS_TRY(refine, count_field(doc, "refine", spec.refine, 0));
  spec.top = top;
  spec.refine = refine;
  return spec;
}

Result<SweepSpec> parse_sweep_spec_text(std::string_view text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return make_error(ErrorCode::parse_error, "not valid JSON", "spec");
  return parse_sweep_spec(doc);
}

Result<SweepPlan> plan_sweep(const SweepSpec& spec) {
  SweepPlan plan;
  plan.spec = spec;
  for (size_t i = 0; i < spec.models.size(); ++i) {
    auto model = resolve_model(spec.models[i]);
    if (!model) return make_error(model.error().code, model.error().to_string(), "models[" + std::to_string(i) + "]");
    plan.models.push_back(std::move(*model));
  }
  const std::vector<std::string> gpus = spec.gpus.empty() ? std::vector<std::string>{""} : spec.gpus;
  for (size_t i = 0; i < spec.clusters.size(); ++i)
    for (const auto& gpu : gpus) {
      const std::string name = with_gpu(spec.clusters[i], gpu);
      auto cluster = resolve_cluster(name);
      if (!cluster)
        return make_error(cluster.error().code, cluster.error().to_string(),
                          "clusters[" + std::to_string(i) + "] (" + name + ")");
      plan.cluster_names.push_back(name);
      plan.clusters.push_back(std::make_shared<const Cluster>(std::move(*cluster)));
    }
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const std::string location = "workloads[" + std::to_string(i) + "]";
    MS_TRY(keys, workload_keys(spec.workloads[i], location));
    auto workload = training_from_keys(keys);
    if (!workload) return make_error(workload.error().code, workload.error().to_string(), location);
    plan.workloads.push_back(*workload);
  }
  int64_t index = 0;
  for (size_t m = 0; m < plan.models.size(); ++m)
    for (size_t c = 0; c < plan.clusters.size(); ++c)
      for (size_t w = 0; w < plan.workloads.size(); ++w)
        for (const RankObjective objective : spec.objectives) {
          SweepPoint point;
          point.index = index++;
          point.model = m;
          point.cluster = c;
          point.workload = w;
          point.objective = objective;
          const std::string inputs = spec.models[m] + "\n" + plan.cluster_names[c] + "\n" + spec.workloads[w].dump() +
                                     "\n" + std::string(rank_objective_name(objective)) + "\n" +
                                     std::to_string(spec.top) + "\n" + std::to_string(spec.refine);
          char hex[17];
          std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(inputs)));
          point.id = hex;
          plan.points.push_back(std::move(point));
        }
  return plan;
}

std::string sweep_point_label(const SweepPlan& plan, const SweepPoint& point) {
  return plan.spec.models[point.model] + " " + plan.cluster_names[point.cluster] + " " +
         workload_text(plan.spec.workloads[point.workload]) + " " + std::string(rank_objective_name(point.objective));
}

std::string run_sweep_point(const SweepPlan& plan, const SweepPoint& point) {
  const auto started = std::chrono::steady_clock::now();
  SearchOptions options;
  options.objective = point.objective;
  options.top = plan.spec.top;
  options.refine = plan.spec.refine;
  options.threads = 1;  // the sweep's threads are its points (run_sweep)
  auto result =
      rank_layouts(plan.models[point.model], plan.workloads[point.workload], *plan.clusters[point.cluster], options);
  ordered_json line;
  line["index"] = point.index;
  line["id"] = point.id;
  line["model"] = plan.spec.models[point.model];
  line["cluster"] = plan.cluster_names[point.cluster];
  line["workload"] = ordered_json(plan.spec.workloads[point.workload]);
  line["objective"] = std::string(rank_objective_name(point.objective));
  line["top"] = plan.spec.top;
  if (result) {
    json report = ranked_layouts_report(*result, point.objective);
    report.erase("elapsed_s");
    line["result"] = ordered_json(report);
  } else {
    line["error"] = result.error().to_string();
  }
  line["elapsed_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return line.dump();
}

std::vector<SweepPoint> shard_points(const std::vector<SweepPoint>& points, int64_t index, int64_t count) {
  std::vector<SweepPoint> shard;
  for (const auto& p : points)
    if (count <= 1 || p.index % count == index) shard.push_back(p);
  return shard;
}

void run_sweep_points(const SweepPlan& plan, const std::vector<SweepPoint>& points, const SweepRunOptions& options,
                      const std::function<void(const std::string& line)>& write) {
  const size_t n = points.size();
  if (n == 0) return;
  size_t threads = options.threads > 0 ? static_cast<size_t>(options.threads)
                                       : std::max<size_t>(1, std::thread::hardware_concurrency());
  threads = std::min(threads, n);
  struct Slot {
    std::optional<std::string> line;
    double elapsed_s = 0;
  };
  std::vector<Slot> slots(n);
  std::mutex mutex;
  std::condition_variable ready;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  // Workers take points in order and leave each line in its slot; this thread writes them in
  // order, so the output is the same for any number of threads.
  auto worker = [&] {
    for (;;) {
      const size_t i = next.fetch_add(1);
      if (i >= n || stop) return;
      const auto started = std::chrono::steady_clock::now();
      std::string line = run_sweep_point(plan, points[i]);
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      {
        const std::lock_guard lock(mutex);
        slots[i].line = std::move(line);
        slots[i].elapsed_s = elapsed;
      }
      ready.notify_all();
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(threads);
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  try {
    for (size_t i = 0; i < n; ++i) {
      std::string line;
      double elapsed = 0;
      {
        std::unique_lock lock(mutex);
        ready.wait(lock, [&] { return slots[i].line.has_value(); });
        line = std::move(*slots[i].line);
        slots[i].line.reset();
        elapsed = slots[i].elapsed_s;
      }
      write(line);
      if (options.progress)
        options.progress({static_cast<int64_t>(i + 1), static_cast<int64_t>(n), &points[i], elapsed});
    }
  } catch (...) {
    stop = true;  // the workers finish their current point and the jthreads join
    throw;
  }
}

Result<SweepFileSummary> run_sweep_to_file(const SweepPlan& plan, const std::vector<SweepPoint>& points,
                                           const std::string& path, const SweepRunOptions& options) {
  SweepFileSummary summary;
  std::set<std::string> done;
  bool had_lines = false;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    MS_TRY(existing, read_sweep_lines(path, /*allow_partial_last=*/true));
    if (existing.partial_last) {
      std::filesystem::resize_file(path, existing.good_bytes, ec);
      if (ec) return make_error(ErrorCode::io_error, "cannot drop the truncated last line: " + ec.message(), path);
      summary.dropped_partial_line = true;
    }
    for (const auto& doc : existing.docs) done.insert(doc["id"].get<std::string>());
    had_lines = !existing.lines.empty();
  }
  std::vector<SweepPoint> pending;
  for (const auto& p : points) {
    if (done.count(p.id))
      ++summary.skipped;
    else
      pending.push_back(p);
  }
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    if (!out) return make_error(ErrorCode::io_error, "cannot write the file", path);
    bool failed = false;
    run_sweep_points(plan, pending, options, [&](const std::string& line) {
      out << line << '\n';
      out.flush();  // a killed run leaves whole lines and at most one partial one
      failed = failed || !out;
      ++summary.ran;
    });
    if (failed) return make_error(ErrorCode::io_error, "writing failed", path);
  }
  if (had_lines && summary.ran > 0) {
    // A resumed file: put its lines back in point order, as one uninterrupted run writes them.
    MS_TRY(all, read_sweep_lines(path, /*allow_partial_last=*/false));
    std::vector<size_t> order(all.lines.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return all.docs[a]["index"].get<int64_t>() < all.docs[b]["index"].get<int64_t>();
    });
    const std::string temporary = path + ".sorting";
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      for (const size_t i : order) out << all.lines[i] << '\n';
      if (!out) return make_error(ErrorCode::io_error, "cannot write the file", temporary);
    }
    std::filesystem::rename(temporary, path, ec);
    if (ec) return make_error(ErrorCode::io_error, "cannot replace the file: " + ec.message(), path);
  }
  return summary;
}

json sweep_line_without_elapsed(const json& line) {
  json copy = line;
  copy.erase("elapsed_s");
  return copy;
}

Result<std::vector<std::string>> merge_sweep_files(const std::vector<std::string>& paths) {
  struct Entry {
    std::string line;
    json compared;
    std::string source;
  };
  std::map<std::string, Entry> by_id;
  std::map<int64_t, std::string> id_at;  // index → id, ordered
  for (const auto& path : paths) {
    MS_TRY(parsed, read_sweep_lines(path, /*allow_partial_last=*/false));
    for (size_t i = 0; i < parsed.lines.size(); ++i) {
      const json& doc = parsed.docs[i];
      const std::string id = doc["id"].get<std::string>();
      const int64_t index = doc["index"].get<int64_t>();
      const std::string source = path + ":" + std::to_string(i + 1);
      json compared = sweep_line_without_elapsed(doc);
      if (auto it = by_id.find(id); it != by_id.end()) {
        if (it->second.compared != compared)
          return make_error(ErrorCode::invalid_argument,
                            "point " + id + " has a different result in " + it->second.source, source);
        continue;
      }
      if (auto it = id_at.find(index); it != id_at.end())
        return make_error(ErrorCode::invalid_argument,
                          "points " + it->second + " and " + id + " share index " + std::to_string(index) +
                              " (outputs of different specs?)",
                          source);
      id_at[index] = id;
      by_id.emplace(id, Entry{parsed.lines[i], std::move(compared), source});
    }
  }
  std::vector<std::string> lines;
  lines.reserve(id_at.size());
  for (const auto& [index, id] : id_at) lines.push_back(by_id.at(id).line);
  return lines;
}

}  // namespace meshscope
