// The launcher-config import (import_launcher.hpp): the base project in, the importer's plain values
// applied to it.
#include "core/session/import_launcher.hpp"

#include <utility>

#include "core/model/model_io.hpp"

namespace meshscope {
namespace {

// What the importer reads from the base project.
LaunchBase launch_base(const Project& project) {
  LaunchBase base;
  base.model_ref = project.model_ref;
  base.model = project.model;
  base.cluster = project.cluster;
  if (project.cluster_inline) base.inline_cluster = project.cluster_inline->name;
  base.gpu_count = project.gpu_count;
  base.seq_len = project.training.seq_len;
  return base;
}

// The base project as the one training run the launcher config describes: what the base says about
// the run (mode, workload, layout, the app's view) goes, the file's values come in.
Project launch_project(Project project, ImportedLaunch& imported) {
  project.mode = Mode::training;
  project.view = nlohmann::json::object();
  if (imported.model) {
    project.model = std::move(*imported.model);
    project.model_ref = std::move(imported.model_ref);
  }
  project.name = std::move(imported.name);
  project.cluster = std::move(imported.cluster);
  project.gpu_count = imported.gpu_count;
  project.layout = std::move(imported.layout);
  project.training = std::move(imported.training);
  return project;
}

}  // namespace

Result<LauncherImport> import_launcher_config(std::string_view text, const std::string& origin,
                                              const LauncherImportOptions& options) {
  Project base;
  if (options.base) {
    base = *options.base;
  } else {
    MS_TRY(original, default_project());
    base = std::move(original);
  }
  LaunchReadOptions read_options;
  read_options.gpus = options.gpus;
  read_options.base = launch_base(base);
  MS_TRY(imported, read_launcher_config(text, origin, read_options));
  LauncherImport out;
  out.format = imported.format;
  out.ignored = std::move(imported.ignored);
  out.unmodelled = std::move(imported.unmodelled);
  out.warnings = std::move(imported.warnings);
  out.project = launch_project(std::move(base), imported);
  return out;
}

Result<LauncherImport> load_launcher_config(const std::string& path, const LauncherImportOptions& options) {
  MS_TRY(text, read_text_file(path));
  return import_launcher_config(text, path, options);
}

}  // namespace meshscope
