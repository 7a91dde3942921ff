// Lesson files: loading, the steps' cumulative edits and the placeholders of their text
// (core/session/lesson.hpp; docs/lessons.md). The figures themselves: lesson_figures.cpp.
#include "core/session/lesson.hpp"

#include <algorithm>
#include <filesystem>

#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/serving/serving.hpp"
#include "core/session/tradeoff.hpp"
#include "core/topology/generators.hpp"
#include "resources/embedded.hpp"

namespace meshscope {

namespace {

using nlohmann::json;
constexpr std::string_view kLessonPrefix = "lessons/";
constexpr std::string_view kJsonSuffix = ".json";

// A key's value as the key=value parsers read it: strings as written, numbers and booleans printed.
Result<std::string> value_text(const json& value, const std::string& where) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return std::string(value.get<bool>() ? "true" : "false");
  if (value.is_number()) return value.dump();
  return make_error(ErrorCode::wrong_type, "must be a string, a number or a boolean", where);
}

Result<KeyValues> key_values(const json& object, const std::string& where) {
  if (!object.is_object()) return make_error(ErrorCode::wrong_type, "must be an object of key: value", where);
  KeyValues keys;
  for (const auto& [key, value] : object.items()) {
    MS_TRY(text, value_text(value, where + "." + key));
    keys.emplace_back(key, text);
  }
  return keys;
}

// Re-locates a key parser's error under the step: "lesson.json: step 2: layout: unknown key ...".
Error at(const Error& error, const std::string& where) {
  return Error{error.code, error.to_string(), where};
}

Result<Project> apply_keys(Project project, const std::string& scope, const json& value, const std::string& where) {
  MS_TRY(keys, key_values(value, where + ": " + scope));
  const std::string here = where + ": " + scope;
  if (scope == "train") {
    auto training = training_from_keys(keys, project.training);
    if (!training) return tl::unexpected(at(training.error(), here));
    project.training = *training;
  } else if (scope == "serve") {
    auto serving = serving_from_keys(keys, project.serving);
    if (!serving) return tl::unexpected(at(serving.error(), here));
    project.serving = *serving;
  } else if (scope == "layout") {
    auto layout = layout_from_keys(keys, project.layout);
    if (!layout) return tl::unexpected(at(layout.error(), here));
    project.layout = *layout;
  } else {
    auto layout = serving_layout_from_keys(keys, project.serving_layout);
    if (!layout) return tl::unexpected(at(layout.error(), here));
    project.serving_layout = *layout;
  }
  return project;
}

Result<std::string> string_field(const json& doc, const char* key, const std::string& where, bool required) {
  if (!doc.contains(key)) {
    if (required) return make_error(ErrorCode::missing_field, std::string("\"") + key + "\" is missing", where);
    return std::string();
  }
  if (!doc.at(key).is_string())
    return make_error(ErrorCode::wrong_type, std::string("\"") + key + "\" must be a string", where + ": " + key);
  return doc.at(key).get<std::string>();
}

Result<LessonStep> step_from_json(const json& doc, const Project& before, const std::string& where) {
  if (!doc.is_object()) return make_error(ErrorCode::wrong_type, "a step must be an object", where);
  for (const auto& [key, value] : doc.items())
    if (key != "text" && key != "edits" && key != "view" && key != "axis")
      return make_error(ErrorCode::invalid_argument, "unknown key \"" + key + "\" (text, edits, view, axis)",
                        where + ": " + key);
  LessonStep step;
  MS_TRY(text, string_field(doc, "text", where, true));
  MS_TRY(view, string_field(doc, "view", where, true));
  MS_TRY(axis, string_field(doc, "axis", where, false));
  const auto& views = lesson_view_names();
  if (std::find(views.begin(), views.end(), view) == views.end()) {
    std::string known;
    for (const auto v : views) known += (known.empty() ? "" : ", ") + std::string(v);
    return make_error(ErrorCode::invalid_argument, "unknown view \"" + view + "\" (" + known + ")", where + ": view");
  }
  // The trade-off view's axis ("pp"), or two for its heat map ("tp,pp"): core/session/tradeoff.hpp's names.
  if (!axis.empty()) {
    if (view != "tradeoff")
      return make_error(ErrorCode::invalid_argument, "an axis is for the tradeoff view, not \"" + view + "\"",
                        where + ": axis");
    if (auto axes = parse_tradeoff_axes(axis); !axes)
      return make_error(ErrorCode::invalid_argument, axes.error().message, where + ": axis");
  }
  step.text = std::move(text);
  step.view = std::move(view);
  step.axis = std::move(axis);
  step.edits = doc.value("edits", json::object());
  MS_TRY(project, apply_lesson_edits(before, step.edits, where));
  step.project = std::move(project);
  MS_TRY(placeholders, lesson_placeholders(step.text, where + ": text"));
  for (const std::string& name : placeholders) {
    const std::string_view plain =
        std::string_view(name).starts_with("prev.") ? std::string_view(name).substr(5) : name;
    if (!is_lesson_figure(plain))
      return make_error(ErrorCode::invalid_argument,
                        "unknown placeholder {" + name + "} (docs/lessons.md lists the figures)", where + ": text");
  }
  step.placeholders = std::move(placeholders);
  return step;
}

std::string lesson_stem(std::string_view path) {
  std::string_view stem = path.substr(path.find_last_of('/') + 1);
  if (stem.ends_with(kJsonSuffix)) stem.remove_suffix(kJsonSuffix.size());
  return std::string(stem);
}

// "01-two-memory-budgets" → "two-memory-budgets".
std::string_view without_prefix(std::string_view name) {
  const size_t dash = name.find('-');
  if (dash == std::string_view::npos || dash == 0) return name;
  for (size_t i = 0; i < dash; ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(dash + 1);
}

}  // namespace

const std::vector<std::string_view>& lesson_view_names() {
  static const std::vector<std::string_view> names = {"memory",   "pipeline", "communication", "topology",
                                                      "ranked",   "compare",  "serving",       "explain",
                                                      "workload", "profile",  "tradeoff",      "scaling"};
  return names;
}

Result<Project> apply_lesson_edits(const Project& project, const json& edits, const std::string& where) {
  if (!edits.is_object()) return make_error(ErrorCode::wrong_type, "\"edits\" must be an object", where + ": edits");
  Project out = project;
  // The model and the cluster first, so that the keys apply to the new ones.
  for (const auto& [key, value] : edits.items()) {
    const std::string here = where + ": " + key;
    if (key == "model") {
      if (!value.is_string()) return make_error(ErrorCode::wrong_type, "must be a preset name or a model file", here);
      auto model = resolve_model(value.get<std::string>());
      if (!model) return tl::unexpected(at(model.error(), here));
      out.model = *model;
      out.model_ref = model_preset(value.get<std::string>()) ? value.get<std::string>() : std::string();
    } else if (key == "cluster") {
      if (!value.is_string()) return make_error(ErrorCode::wrong_type, "must be a generator string or a file", here);
      auto cluster = resolve_cluster(value.get<std::string>());
      if (!cluster) return tl::unexpected(at(cluster.error(), here));
      out.cluster = value.get<std::string>();
      out.cluster_inline.reset();
      out.gpu_count = cluster->num_gpus();
      out.gpu = cluster_gpu(*cluster);
    } else if (key == "mode") {
      if (value != "training" && value != "serving")
        return make_error(ErrorCode::invalid_argument, "must be \"training\" or \"serving\"", here);
      out.mode = value == "training" ? Mode::training : Mode::serving;
    } else if (key != "train" && key != "serve" && key != "layout" && key != "serving_layout") {
      return make_error(ErrorCode::invalid_argument,
                        "unknown edit \"" + key + "\" (train, serve, layout, serving_layout, model, cluster, mode)",
                        here);
    }
  }
  for (const char* scope : {"train", "serve", "layout", "serving_layout"}) {
    if (!edits.contains(scope)) continue;
    MS_TRY(next, apply_keys(std::move(out), scope, edits.at(scope), where));
    out = std::move(next);
  }
  return out;
}

Result<std::vector<std::string>> lesson_placeholders(std::string_view text, const std::string& where) {
  std::vector<std::string> names;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '}') return make_error(ErrorCode::parse_error, "a \"}\" without its \"{\"", where);
    if (text[i] != '{') continue;
    const size_t close = text.find('}', i);
    if (close == std::string_view::npos) return make_error(ErrorCode::parse_error, "a \"{\" without its \"}\"", where);
    names.emplace_back(text.substr(i + 1, close - i - 1));
    i = close;
  }
  return names;
}

Result<Lesson> lesson_from_json(const json& doc, const std::string& origin) {
  if (!doc.is_object()) return make_error(ErrorCode::wrong_type, "a lesson must be a JSON object", origin);
  for (const auto& [key, value] : doc.items())
    if (key != "format" && key != "title" && key != "summary" && key != "project" && key != "start" && key != "steps")
      return make_error(ErrorCode::invalid_argument,
                        "unknown key \"" + key + "\" (format, title, summary, project, start, steps)",
                        origin + ": " + key);
  if (doc.value("format", std::string()) != "meshscope-lesson")
    return make_error(ErrorCode::invalid_argument, "\"format\" must be \"meshscope-lesson\"", origin + ": format");
  Lesson lesson;
  lesson.origin = origin;
  lesson.name = lesson_stem(origin);
  MS_TRY(title, string_field(doc, "title", origin, true));
  MS_TRY(summary, string_field(doc, "summary", origin, false));
  lesson.title = std::move(title);
  lesson.summary = std::move(summary);
  // The base: an inline project document (core/project/project.cpp), else the embedded default project.
  if (doc.contains("project")) {
    MS_TRY(project, project_from_json(doc.at("project"), origin + ": project"));
    lesson.base = std::move(project);
  } else {
    MS_TRY(project, default_project());
    lesson.base = std::move(project);
  }
  if (doc.contains("start")) {
    MS_TRY(started, apply_lesson_edits(lesson.base, doc.at("start"), origin + ": start"));
    lesson.base = std::move(started);
  }
  if (!doc.contains("steps") || !doc.at("steps").is_array() || doc.at("steps").empty())
    return make_error(ErrorCode::missing_field, "\"steps\" must be a non-empty array", origin + ": steps");
  lesson.base.name = lesson.title;
  const Project* before = &lesson.base;
  for (size_t i = 0; i < doc.at("steps").size(); ++i) {
    MS_TRY(step, step_from_json(doc.at("steps")[i], *before, origin + ": step " + std::to_string(i + 1)));
    lesson.steps.push_back(std::move(step));
    before = &lesson.steps.back().project;
  }
  return lesson;
}

std::vector<std::string> lesson_names() {
  std::vector<std::string> names;
  for (const auto& file : embedded_files())
    if (file.path.starts_with(kLessonPrefix) && file.path.ends_with(kJsonSuffix))
      names.push_back(lesson_stem(file.path));
  std::sort(names.begin(), names.end());
  return names;
}

Result<Lesson> load_lesson(const std::string& name_or_path) {
  for (const auto& file : embedded_files()) {
    if (!file.path.starts_with(kLessonPrefix) || !file.path.ends_with(kJsonSuffix)) continue;
    const std::string stem = lesson_stem(file.path);
    if (stem != name_or_path && without_prefix(stem) != name_or_path) continue;
    const std::string origin = "resources/" + std::string(file.path);
    MS_TRY(doc, parse_json_text(file.content, origin));
    return lesson_from_json(doc, origin);
  }
  std::error_code ec;
  if (!std::filesystem::exists(name_or_path, ec)) {
    std::string known;
    for (const auto& name : lesson_names()) known += (known.empty() ? "" : ", ") + name;
    return make_error(ErrorCode::io_error,
                      "\"" + name_or_path + "\" is neither an embedded lesson nor a readable file; lessons: " + known,
                      "lesson");
  }
  MS_TRY(text, read_text_file(name_or_path));
  MS_TRY(doc, parse_json_text(text, name_or_path));
  return lesson_from_json(doc, name_or_path);
}

}  // namespace meshscope
