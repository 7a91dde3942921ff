#pragma once
// A meshscope project: model, GPU/cluster, workload and chosen layout in one versioned JSON file
// (docs/formats.md). The app opens the embedded default project on start.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/hardware.hpp"
#include "core/layout.hpp"
#include "core/model.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace meshscope {

enum class Mode { training, serving };

struct Project {
  std::string name;
  std::string model_ref;  // preset name, or empty when the model is stored inline
  ModelSpec model;
  GpuSpec gpu;
  std::string cluster;    // generator string or cluster file (topology issue); informational here
  int64_t gpu_count = 0;  // total GPUs of the cluster
  Mode mode = Mode::training;
  TrainingWorkload training;
  ServingWorkload serving;
  Layout layout;
};

[[nodiscard]] Result<Project> project_from_json(const nlohmann::json& doc, const std::string& origin);
[[nodiscard]] nlohmann::json project_to_json(const Project& project);
[[nodiscard]] Result<Project> default_project();

}  // namespace meshscope
