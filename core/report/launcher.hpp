#pragma once
// Stable JSON of `meshscope-cli import --launcher FILE` (docs/cli.md, docs/launchers.md): the project the
// launcher config becomes, and what of it was not used.
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/importers/launcher_config.hpp"
#include "core/report/launcher_export.hpp"

namespace meshscope {

// {"format", "project": the project document (docs/formats.md), "ignored", "unmodelled", "warnings"}.
[[nodiscard]] nlohmann::json launcher_import_report(const LauncherImport& imported);
// The text without --json: the model, GPUs, layout and workload keys, then the three lists.
[[nodiscard]] std::string launcher_import_text(const LauncherImport& imported);
// `export --format F --json`: {"format", "text", "placeholders", "warnings"}.
[[nodiscard]] nlohmann::json launcher_export_report(const LauncherExport& exported, LauncherFormat format);

}  // namespace meshscope
