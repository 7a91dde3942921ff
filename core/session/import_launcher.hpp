#pragma once
// The launcher-config import every front end shares (File → Import, `meshscope-cli import --launcher`, the
// Python module): the importer (core/importers/launcher_config.hpp) reads the file into plain values
// against the base project's model, cluster and sequence length, and the project is built from the base
// with what the file says. On an error nothing is returned.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/result.hpp"
#include "core/importers/launcher_config.hpp"
#include "core/project/project.hpp"
#include "core/report/launcher.hpp"

namespace meshscope {

struct LauncherImportOptions {
  std::optional<int64_t> gpus;  // total GPUs (--gpus); needed where the file leaves it open (dp_shard = -1)
  // What the file does not say (the GPU model and cluster family, and for DeepSpeed the model and
  // sequence length) comes from this project; nullopt: the embedded default project.
  std::optional<Project> base;
};

// The project a launcher config describes: the base project (its GPU, calibration, serving settings and
// axis order kept) as one training run, with the file's model, name, GPU count, layout and workload.
// `origin` names the file in errors and warnings ("train.sh: line 57: --num-layers"); the format is
// detected (detect_launcher_format).
[[nodiscard]] Result<LauncherImport> import_launcher_config(std::string_view text, const std::string& origin,
                                                            const LauncherImportOptions& options = {});
[[nodiscard]] Result<LauncherImport> load_launcher_config(const std::string& path,
                                                          const LauncherImportOptions& options = {});

}  // namespace meshscope
