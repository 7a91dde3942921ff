#include "core/session/lesson_report.hpp"

#include "core/keys/options.hpp"

namespace meshscope {

namespace {

nlohmann::json keys_object(const KeyValues& keys) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : keys) out[key] = value;
  return out;
}

}  // namespace

nlohmann::json lesson_step_report(const Lesson& lesson, const RenderedLessonStep& step) {
  const Project& p = lesson.steps.at(static_cast<size_t>(step.index - 1)).project;
  nlohmann::json project = {{"model", p.model_ref.empty() ? p.model.name : p.model_ref},
                            {"cluster", p.cluster_inline ? p.cluster_inline->name : p.cluster},
                            {"gpus", p.gpu_count},
                            {"mode", p.mode == Mode::training ? "training" : "serving"}};
  if (p.mode == Mode::training) {
    project["train"] = keys_object(training_to_keys(p.training));
    project["layout"] = keys_object(layout_to_keys(p.layout));
  } else {
    project["serve"] = keys_object(serving_to_keys(p.serving));
    project["serving_layout"] = keys_object(serving_layout_to_keys(p.serving_layout));
  }
  nlohmann::json doc = {{"step", step.index}, {"of", step.count},        {"text", step.text},
                        {"view", step.view},  {"figures", step.figures}, {"project", project}};
  if (!step.axis.empty()) doc["axis"] = step.axis;
  return doc;
}

nlohmann::json lesson_report(const Lesson& lesson, const std::vector<RenderedLessonStep>& steps) {
  nlohmann::json out = {{"lesson", lesson.name},
                        {"title", lesson.title},
                        {"summary", lesson.summary},
                        {"steps", nlohmann::json::array()}};
  for (const auto& step : steps) out["steps"].push_back(lesson_step_report(lesson, step));
  return out;
}

nlohmann::json lesson_list_report() {
  nlohmann::json out = {{"lessons", nlohmann::json::array()}};
  for (const std::string& name : lesson_names()) {
    auto lesson = load_lesson(name);
    nlohmann::json row = {{"name", name}};
    if (lesson) {
      row["title"] = lesson->title;
      row["steps"] = lesson->steps.size();
    } else {
      row["error"] = lesson.error().to_string();
    }
    out["lessons"].push_back(row);
  }
  return out;
}

}  // namespace meshscope
