// meshscope-cli export: a project (or one of its ranked layouts) as a launcher config (docs/launchers.md).
//   export --project P.json [--rank K] [--format torchtitan|megatron|deepspeed] [--out FILE] [--json]
//   (without --format: the project's framework's own config)
#include <atomic>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/report/launcher.hpp"
#include "core/report/launcher_export.hpp"
#include "core/session/evaluate.hpp"

namespace meshscope::cli {

int cmd_export(const Args& args) {
  if (!args.has("--project")) return fail("export needs --project P.json");
  auto project = project_file_arg(args);
  if (!project) return fail(project.error());
  // Without --format, the project's target framework names its launcher config.
  std::optional<LauncherFormat> format;
  if (args.has("--format")) {
    format = parse_launcher_format(args.get("--format"));
    if (!format)
      return fail("--format must be torchtitan, megatron or deepspeed, got \"" + args.get("--format") + "\"");
  } else {
    format = launcher_format_of(project->training.framework);
    if (!format)
      return fail("export needs --format torchtitan, megatron or deepspeed (the project's framework is \"any\")");
  }
  if (args.has("--rank")) {
    const std::string& text = args.get("--rank");
    char* end = nullptr;
    const long long rank = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || rank < 1)
      return fail("--rank must be a positive integer, got \"" + text + "\"");
    if (project->mode != Mode::training) return fail("--rank ranks training layouts: the project is in serving mode");
    const std::atomic<bool> cancel{false};
    const SearchEvaluation search = search_project(*project, ServingTarget{}, cancel);
    if (!search.error.empty()) return fail(search.error);
    if (!search.training || static_cast<long long>(search.training->layouts.size()) < rank)
      return fail("--rank " + text + ": the search found " +
                  std::to_string(search.training ? search.training->layouts.size() : 0) + " valid layouts");
    *project = project_with_ranked_layout(*project, search.training->layouts[static_cast<size_t>(rank - 1)]);
  }
  auto exported = export_launcher_config(*project, *format);
  if (!exported) return fail(exported.error());
  for (const auto& warning : exported->warnings) std::cerr << "warning: " << warning << "\n";
  if (args.json) {
    std::cout << launcher_export_report(*exported, *format).dump(2) << "\n";
    return 0;
  }
  if (args.has("--out")) {
    std::ofstream file(args.get("--out"), std::ios::binary);
    file << exported->text;
    if (!file) return fail(Error{ErrorCode::io_error, "cannot write the file", args.get("--out")});
    std::cerr << "wrote " << args.get("--out") << "; fill in:";
    for (const auto& p : exported->placeholders) std::cerr << "\n  " << p;
    std::cerr << "\n";
    return 0;
  }
  std::cout << exported->text;
  return 0;
}

}  // namespace meshscope::cli
