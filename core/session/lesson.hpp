#pragma once
// Guided lessons (docs/lessons.md): a base project and a list of steps, each a short text, the
// edits that step makes (the project file's and the CLI's own key tables: --train, --serve,
// --layout, --serving-layout keys, a model, a cluster, a mode) and the view it shows. Steps are
// cumulative: step k's project is the base with the edits of steps 1..k applied in order, so going
// back is exact. A step's text quotes numbers only through placeholders ({peak_memory_gib},
// {prev.step_time_ms}, ...) that are computed live from evaluate_project / search_project of the
// step's project; lessons never type a figure. Everything that can be wrong in a lesson file (a
// key, a value, a view, a placeholder) is an error at load time naming the file, the step and the key.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/result.hpp"
#include "core/project/project.hpp"
#include "core/session/evaluate.hpp"

namespace meshscope {

struct LessonStep {
  std::string text;                       // markdown-light, figures as {placeholders}
  std::string view;                       // the dock to raise: one of lesson_view_names()
  std::string axis;                       // the tradeoff view's axis ("tp"); empty: none
  nlohmann::json edits;                   // as written (an object; empty: none)
  Project project;                        // the base plus the edits of this step and every earlier one
  std::vector<std::string> placeholders;  // the figures its text quotes, in order (with "prev." kept)
};

struct Lesson {
  std::string name;    // the file's stem ("01-two-memory-budgets")
  std::string origin;  // the file, for messages ("resources/lessons/01-two-memory-budgets.json")
  std::string title, summary;
  Project base;
  std::vector<LessonStep> steps;  // at least one
};

// The views a step may show: the app's docks, and the tradeoff and scaling views.
[[nodiscard]] const std::vector<std::string_view>& lesson_view_names();

// `doc` as read from `origin`. Every step's edits are applied (so a bad key or value is an error
// "origin: step 3: layout.tp: ...") and every placeholder is checked against lesson_figures().
[[nodiscard]] Result<Lesson> lesson_from_json(const nlohmann::json& doc, const std::string& origin);
// An embedded lesson by name (with or without its numeric prefix: "01-two-memory-budgets" or
// "two-memory-budgets"), else a lesson file.
[[nodiscard]] Result<Lesson> load_lesson(const std::string& name_or_path);
// The embedded lessons' names, in the practitioner's order (their numeric prefix).
[[nodiscard]] std::vector<std::string> lesson_names();

// Applies one step's edits to `project`; `where` prefixes errors ("lesson.json: step 2").
[[nodiscard]] Result<Project> apply_lesson_edits(const Project& project, const nlohmann::json& edits,
                                                 const std::string& where);

// ---- Figures ---------------------------------------------------------------------------------------

// One placeholder: its name (a trailing ".<axis>" or ".<category>" where `family` is set), the
// unit it renders with, what it is and which convention. docs/lessons.md's table comes from here.
// Where a figure comes from: the project itself, evaluate_project's training or serving estimate
// (or its memory budget), or search_project's ranking.
enum class LessonFigureSource { project, training, serving, search };
struct LessonFigureInfo {
  std::string_view name;     // "peak_memory_gib", "exposed_comm_ms.<axis>"
  std::string_view unit;     // "GiB" (binary), "GB" (decimal), "%", "ms", ...; empty: a word or a count
  std::string_view meaning;  // what it is, computed from what
  LessonFigureSource source = LessonFigureSource::project;
};
[[nodiscard]] const std::vector<LessonFigureInfo>& lesson_figures();
[[nodiscard]] std::string lesson_figures_markdown();  // | placeholder | unit | meaning |
// True when `name` (without "prev.") is a known figure: a plain name, or a family with a known suffix.
[[nodiscard]] bool is_lesson_figure(std::string_view name);

// The figures of one project, rendered as text with their unit ("61.2 GiB", "DP 8 × TP 8").
using LessonFigureValues = std::map<std::string, std::string>;
// Computes what `names` ask for (without "prev."); a figure that does not apply to the project (a
// training figure in serving mode, an estimate of an invalid layout) is an error naming it and why.
[[nodiscard]] Result<LessonFigureValues> compute_lesson_figures(const Project& project,
                                                                const std::vector<std::string>& names,
                                                                ClusterCache& cache);

struct RenderedLessonStep {
  int index = 0;  // 1-based
  int count = 0;
  std::string text;  // every placeholder filled
  std::string view, axis;
  LessonFigureValues figures;  // name (with "prev." where quoted) → text
};
// Step `index` (1-based) with its figures filled; "prev." figures are those of step index − 1 (the
// base project for step 1).
[[nodiscard]] Result<RenderedLessonStep> render_lesson_step(const Lesson& lesson, int index, ClusterCache& cache);
// As render_lesson_step, the figures of `current` (the app's project, edited since the step was
// applied) instead of the step's own project; "prev." figures stay the previous step's.
[[nodiscard]] Result<RenderedLessonStep> render_lesson_step_for(const Lesson& lesson, int index, const Project& current,
                                                                ClusterCache& cache);

// The placeholders of `text` in order ("{a} and {prev.b}" → a, prev.b); an unclosed brace is an error.
[[nodiscard]] Result<std::vector<std::string>> lesson_placeholders(std::string_view text, const std::string& where);

}  // namespace meshscope
