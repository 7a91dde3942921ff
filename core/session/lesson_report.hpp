#pragma once
// The document `meshscope-cli lesson` prints (docs/cli.md, "lesson"): a lesson's steps rendered,
// each with its text (figures filled), its view and its project's keys.
#include <vector>

#include <nlohmann/json.hpp>

#include "core/session/lesson.hpp"

namespace meshscope {

[[nodiscard]] nlohmann::json lesson_step_report(const Lesson& lesson, const RenderedLessonStep& step);
[[nodiscard]] nlohmann::json lesson_report(const Lesson& lesson, const std::vector<RenderedLessonStep>& steps);
// The embedded lessons (meshscope-cli lesson with no file): name and title, in order.
[[nodiscard]] nlohmann::json lesson_list_report();

}  // namespace meshscope
