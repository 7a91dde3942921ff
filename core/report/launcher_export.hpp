#pragma once
// Launcher configs out: a project (its model, workload and layout, or a ranked layout applied to it) as a
// torchtitan TOML job config, a Megatron-LM launch script (bash arrays, as examples/*/train_*.sh are
// written) or a DeepSpeed JSON config. What meshscope does not know (data and tokenizer paths, learning
// rate, steps) is written as a marked placeholder, <LIKE_THIS>, that the launcher refuses until it is
// filled in; what the format cannot express is returned as a warning (docs/launchers.md).
#include <string>
#include <vector>

#include "core/importers/launcher_config.hpp"
#include "core/project/project.hpp"
#include "core/search/search.hpp"

namespace meshscope {

struct LauncherExport {
  std::string text;
  std::vector<std::string> placeholders;  // "<DATA_PATH>: the dataset prefix (--data-path)"
  std::vector<std::string> warnings;      // what the format cannot express ("ZeRO-1 is not a torchtitan option")
};

[[nodiscard]] LauncherExport export_torchtitan_toml(const Project& project);
[[nodiscard]] LauncherExport export_megatron_args(const Project& project);
[[nodiscard]] LauncherExport export_deepspeed_json(const Project& project);
// Training projects only (a serving project is an error).
[[nodiscard]] Result<LauncherExport> export_launcher_config(const Project& project, LauncherFormat format);

// The project with a ranked layout and the choices the search made for it (recompute, ZeRO stage,
// schedule, axis order, TP overlap).
[[nodiscard]] Project project_with_ranked_layout(Project project, const RankedLayout& ranked);

}  // namespace meshscope
