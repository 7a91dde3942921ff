#pragma once
// Stable JSON of `meshscope-cli import --launcher FILE` (docs/cli.md, docs/launchers.md): the project the
// launcher config becomes, and what of it was not used.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/importers/launcher_config.hpp"
#include "core/project/project.hpp"
#include "core/report/launcher_export.hpp"

namespace meshscope {

// A launcher config imported as a project (core/session/import_launcher.hpp builds it from the importer's
// ImportedLaunch): what this document prints.
struct LauncherImport {
  LauncherFormat format = LauncherFormat::megatron;
  Project project;
  std::vector<std::string> ignored;     // flags read but without effect on the prediction
  std::vector<std::string> unmodelled;  // flags that change the prediction but are not modelled, each with why
  std::vector<std::string> warnings;    // assumptions and placeholders ("line 15: CHECKPOINT_PATH is $1 ...")
};

// {"format", "project": the project document (docs/formats.md), "ignored", "unmodelled", "warnings"}.
[[nodiscard]] nlohmann::json launcher_import_report(const LauncherImport& imported);
// The text without --json: the model, GPUs, layout and workload keys, then the three lists.
[[nodiscard]] std::string launcher_import_text(const LauncherImport& imported);
// `export --format F --json`: {"format", "text", "placeholders", "warnings"}.
[[nodiscard]] nlohmann::json launcher_export_report(const LauncherExport& exported, LauncherFormat format);

}  // namespace meshscope
