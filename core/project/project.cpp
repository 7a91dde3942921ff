#include "core/project/project.hpp"

#include <nlohmann/json.hpp>

#include "core/keys/options.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"

namespace meshscope {

using nlohmann::json;

namespace {

// A {"key": value} object as key=value pairs (numbers and booleans written as text).
Result<KeyValues> object_keys(const json& doc, const char* field, const std::string& origin) {
  KeyValues keys;
  if (!doc.contains(field)) return keys;
  const json& object = doc.at(field);
  if (!object.is_object())
    return make_error(ErrorCode::wrong_type, std::string("\"") + field + "\" must be an object", origin + ": " + field);
  for (const auto& [key, value] : object.items()) {
    if (value.is_string()) {
      keys.emplace_back(key, value.get<std::string>());
    } else if (value.is_boolean()) {
      keys.emplace_back(key, value.get<bool>() ? "true" : "false");
    } else if (value.is_number_integer()) {
      keys.emplace_back(key, value.dump());  // dump, not get<int64_t>: 2^64 - 1 must not turn into -1
    } else if (value.is_number()) {
      keys.emplace_back(key, value.dump());
    } else if (value.is_array()) {
      std::string joined;
      for (const auto& item : value) {
        if (!joined.empty()) joined += ':';
        joined += item.dump();
      }
      keys.emplace_back(key, joined);
    } else {
      return make_error(ErrorCode::wrong_type, "must be a string, number or boolean",
                        origin + ": " + field + "." + key);
    }
  }
  return keys;
}

// An optional string member; absent or null gives the fallback, any other type an error naming the field
// (nlohmann's value() would throw instead).
Result<std::string> string_or(const json& doc, const char* field, const std::string& fallback,
                              const std::string& origin) {
  const auto it = doc.find(field);
  if (it == doc.end() || it->is_null()) return fallback;
  if (!it->is_string())
    return make_error(ErrorCode::wrong_type, std::string("\"") + field + "\" must be a string, got " + it->dump(),
                      origin + ": " + field);
  return it->get<std::string>();
}

json keys_to_object(const KeyValues& keys) {
  json object = json::object();
  for (const auto& [key, value] : keys) object[key] = value;
  return object;
}

Result<TrainingWorkload> with_origin(Result<TrainingWorkload> r, const std::string& origin) {
  if (!r) r.error().location = origin + ": training (" + r.error().location + ")";
  return r;
}

}  // namespace

Result<Project> project_from_json(const json& doc, const std::string& origin) {
  const auto format = doc.is_object() ? doc.find("format") : doc.end();
  if (!doc.is_object() || format == doc.end() || !format->is_string() || *format != "meshscope-project")
    return make_error(ErrorCode::invalid_argument, "not a meshscope project (\"format\" must be \"meshscope-project\")",
                      origin);
  const json* version = doc.contains("version") ? &doc.at("version") : nullptr;
  if (version == nullptr || !version->is_number_integer() || version->get<int64_t>() < 1 ||
      version->get<int64_t>() > kProjectVersion)
    return make_error(ErrorCode::unsupported,
                      "project version must be 1 or " + std::to_string(kProjectVersion) +
                          " (this meshscope reads versions up to " + std::to_string(kProjectVersion) + ")",
                      origin + ": version");
  Project p;
  MS_TRY(name, string_or(doc, "name", "untitled", origin));
  p.name = name;
  if (!doc.contains("model")) return make_error(ErrorCode::missing_field, "\"model\" is missing", origin + ": model");
  if (doc.at("model").is_string()) {
    p.model_ref = doc.at("model").get<std::string>();
    MS_TRY(model, model_preset(p.model_ref));
    p.model = model;
  } else {
    MS_TRY(model, model_from_json(doc.at("model"), origin + ": model"));
    p.model = model;
  }
  if (!doc.contains("gpu") || !doc.at("gpu").is_string())
    return make_error(ErrorCode::missing_field, "\"gpu\" (a catalogue id) is missing", origin + ": gpu");
  MS_TRY(gpu, find_gpu(doc.at("gpu").get<std::string>()));
  p.gpu = gpu;
  if (doc.contains("cluster") && doc.at("cluster").is_object()) {
    MS_TRY(cluster, cluster_from_json(doc.at("cluster"), origin + ": cluster"));
    p.cluster_inline = std::move(cluster);
  } else if (doc.contains("cluster") && !doc.at("cluster").is_string()) {
    return make_error(ErrorCode::wrong_type, "\"cluster\" must be a generator string, a file name or a cluster object",
                      origin + ": cluster");
  } else {
    MS_TRY(cluster, string_or(doc, "cluster", "", origin));
    p.cluster = cluster;
  }
  if (const auto count = doc.find("gpu_count"); count != doc.end() && !count->is_null()) {
    // The saved cluster's GPU count (the app recomputes it from the cluster); 2^31 is far beyond any cluster.
    const bool in_range = count->is_number_unsigned()  ? count->get<uint64_t>() <= (uint64_t{1} << 31)
                          : count->is_number_integer() ? count->get<int64_t>() >= 0
                                                       : false;
    if (!in_range)
      return make_error(ErrorCode::invalid_argument,
                        "\"gpu_count\" must be an integer from 0 to 2^31, got " + count->dump(),
                        origin + ": gpu_count");
    p.gpu_count = count->get<int64_t>();
  }
  MS_TRY(mode, string_or(doc, "mode", "training", origin));
  if (mode != "training" && mode != "serving")
    return make_error(ErrorCode::invalid_argument, "\"mode\" must be \"training\" or \"serving\"", origin + ": mode");
  p.mode = mode == "training" ? Mode::training : Mode::serving;
  MS_TRY(training_keys, object_keys(doc, "training", origin));
  MS_TRY(training, with_origin(training_from_keys(training_keys), origin));
  p.training = training;
  MS_TRY(serving_keys, object_keys(doc, "serving", origin));
  MS_TRY(serving, serving_from_keys(serving_keys));
  p.serving = serving;
  MS_TRY(layout_keys, object_keys(doc, "layout", origin));
  MS_TRY(layout, layout_from_keys(layout_keys));
  p.layout = layout;
  if (doc.contains("serving_layout")) {
    MS_TRY(serving_layout_keys, object_keys(doc, "serving_layout", origin));
    auto serving_layout = serving_layout_from_keys(serving_layout_keys);
    if (!serving_layout) {
      serving_layout.error().location = origin + ": serving_layout (" + serving_layout.error().location + ")";
      return tl::unexpected(serving_layout.error());
    }
    p.serving_layout = *serving_layout;
  } else {
    // Version 1: the serving deployment was the layout's tp × pp instances (EP over tp), dp replicas.
    p.serving_layout.tp = layout.tp;
    p.serving_layout.pp = layout.pp;
    p.serving_layout.ep = layout.ep;
    p.serving_layout.replicas = layout.dp;
  }
  if (doc.contains("calibration")) {
    const json& calibration = doc.at("calibration");
    if (!calibration.is_object())
      return make_error(ErrorCode::wrong_type, "\"calibration\" must be an object", origin + ": calibration");
    MS_TRY(comm_keys, object_keys(calibration, "comm", origin + ": calibration"));
    MS_TRY(efficiency_keys, object_keys(calibration, "efficiency", origin + ": calibration"));
    p.comm_keys = comm_keys;
    p.efficiency_keys = efficiency_keys;
    auto checked = project_estimate_options(p);
    if (!checked) {
      checked.error().location = origin + ": calibration (" + checked.error().location + ")";
      return tl::unexpected(checked.error());
    }
  }
  if (doc.contains("schedule")) {
    const json& schedule = doc.at("schedule");
    const auto parsed =
        schedule.is_string() ? parse_enum_ignoring_case<PipelineSchedule>(schedule.get<std::string>()) : std::nullopt;
    if (!parsed)
      return make_error(ErrorCode::invalid_argument,
                        "\"schedule\" must name a pipeline schedule (gpipe, 1f1b, interleaved, zb-h1, zb-h2, dualpipe)",
                        origin + ": schedule");
    p.training.schedule = *parsed;  // version 2 kept the schedule beside the workload
  }
  if (doc.contains("axis_order")) {
    const json& order = doc.at("axis_order");
    if (!order.is_string() || !parse_axis_order(order.get<std::string>(), p.order))
      return make_error(ErrorCode::invalid_argument, "\"axis_order\" must be megatron, torchtitan or tp-pp-dp",
                        origin + ": axis_order");
  }
  if (doc.contains("view")) {
    if (!doc.at("view").is_object())
      return make_error(ErrorCode::wrong_type, "\"view\" must be an object", origin + ": view");
    p.view = doc.at("view");
  }
  return p;
}

json project_to_json(const Project& p) {
  json doc = {{"format", "meshscope-project"},
              {"version", kProjectVersion},
              {"name", p.name},
              {"gpu", p.gpu.id},
              {"cluster", p.cluster},
              {"gpu_count", p.gpu_count},
              {"mode", p.mode == Mode::training ? "training" : "serving"},
              {"training", keys_to_object(training_to_keys(p.training))},
              {"serving", keys_to_object(serving_to_keys(p.serving))},
              {"layout", keys_to_object(layout_to_keys(p.layout))},
              {"serving_layout", keys_to_object(serving_layout_to_keys(p.serving_layout))}};
  doc["model"] = p.model_ref.empty() ? model_to_json(p.model) : json(p.model_ref);
  if (p.cluster_inline) doc["cluster"] = cluster_to_json(*p.cluster_inline);
  if (!p.comm_keys.empty() || !p.efficiency_keys.empty())
    doc["calibration"] = {{"comm", keys_to_object(p.comm_keys)}, {"efficiency", keys_to_object(p.efficiency_keys)}};
  if (p.order != AxisOrder::megatron) doc["axis_order"] = std::string(axis_order_name(p.order));
  if (!p.view.empty()) doc["view"] = p.view;
  return doc;
}

Result<EstimateOptions> project_estimate_options(const Project& project) {
  EstimateOptions options;
  MS_TRY(constants, comm_constants_from_keys(project.comm_keys));
  MS_TRY(efficiency, compute_efficiency_from_keys(project.efficiency_keys));
  options.comm.constants = constants;
  options.efficiency = efficiency;
  options.order = project.order;
  return options;
}

Result<Cluster> project_cluster(const Project& project) {
  if (project.cluster_inline) {
    Cluster cluster = *project.cluster_inline;
    const std::vector<ClusterProblem> problems = index_cluster(cluster);
    if (!problems.empty()) {
      const ClusterProblem& first = problems.front();
      std::string message = first.message;
      if (problems.size() > 1) message += " (and " + std::to_string(problems.size() - 1) + " more problems)";
      return make_error(ErrorCode::invalid_argument, message,
                        "cluster " + project.cluster_inline->name + ": " + first.id);
    }
    return cluster;
  }
  if (project.cluster.empty())
    return make_error(ErrorCode::missing_field, "the project names no cluster",
                      "project " + project.name + ": cluster");
  return resolve_cluster(project.cluster);
}

Result<Project> default_project() {
  MS_TRY(doc, parse_json_text(default_project_text(), "resources/default_project.json"));
  return project_from_json(doc, "resources/default_project.json");
}

}  // namespace meshscope
