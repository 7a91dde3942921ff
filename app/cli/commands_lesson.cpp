// meshscope-cli lesson: a guided lesson's steps rendered, every figure computed (docs/lessons.md).
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "core/session/lesson.hpp"
#include "core/session/lesson_report.hpp"

namespace meshscope::cli {

namespace {

void print_list() {
  const nlohmann::json doc = lesson_list_report();
  std::cout << "Embedded lessons (meshscope-cli lesson NAME):\n";
  for (const auto& row : doc.at("lessons"))
    std::cout << "  " << row.at("name").get<std::string>() << "  " << row.value("title", row.value("error", ""))
              << "\n";
}

void print_step(const RenderedLessonStep& step) {
  std::cout << "\nStep " << step.index << " of " << step.count << "  [view: " << step.view
            << (step.axis.empty() ? "" : ", axis " + step.axis) << "]\n  " << step.text << "\n";
}

}  // namespace

int cmd_lesson(int argc, char** argv) {
  std::string source;
  int step_index = 0;  // 0: every step
  bool json = false;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      json = true;
    } else if (arg == "--figures") {  // the placeholder table of docs/lessons.md
      std::cout << lesson_figures_markdown();
      return 0;
    } else if (arg == "--step") {
      if (i + 1 >= argc) return fail("--step needs a value");
      const std::string value = argv[++i];
      try {
        size_t used = 0;
        step_index = std::stoi(value, &used);
        if (used != value.size() || step_index < 1) throw std::invalid_argument(value);
      } catch (const std::exception&) {
        return fail("--step must be a step number (1, 2, ...), not \"" + value + "\"");
      }
    } else if (arg.starts_with("--")) {
      return fail("unknown option " + arg + " for lesson (see --help)");
    } else if (source.empty()) {
      source = arg;
    } else {
      return fail("lesson takes one lesson (a name or a file), not also \"" + arg + "\"");
    }
  }
  if (source.empty()) {
    if (json)
      std::cout << lesson_list_report().dump(2) << "\n";
    else
      print_list();
    return 0;
  }
  auto lesson = load_lesson(source);
  if (!lesson) return fail(lesson.error());
  ClusterCache cache;
  std::vector<RenderedLessonStep> steps;
  const int first = step_index > 0 ? step_index : 1;
  const int last = step_index > 0 ? step_index : static_cast<int>(lesson->steps.size());
  for (int k = first; k <= last; ++k) {
    auto rendered = render_lesson_step(*lesson, k, cache);
    if (!rendered) return fail(rendered.error());
    steps.push_back(std::move(*rendered));
  }
  if (json) {
    std::cout << lesson_report(*lesson, steps).dump(2) << "\n";
    return 0;
  }
  std::cout << lesson->title << "\n" << lesson->summary << "\n";
  for (const auto& step : steps) print_step(step);
  return 0;
}

}  // namespace meshscope::cli
