#pragma once
// A meshscope project: model, GPU/cluster, workload and chosen layout in one versioned JSON file
// (docs/formats.md). The app opens the embedded default project on start.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/base/result.hpp"
#include "core/estimate/step.hpp"
#include "core/hardware/hardware.hpp"
#include "core/keys/options.hpp"
#include "core/model/model.hpp"
#include "core/schedule/schedule.hpp"
#include "core/serving/serving.hpp"
#include "core/topology/cluster.hpp"
#include "core/topology/placement.hpp"
#include "core/workload/layout.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

enum class Mode { training, serving };

// Version 2 added the serving layout, the inline cluster (a drawn or edited cluster is saved with the project), the
// pipeline schedule and the app's view state; version 1 files are still read.
inline constexpr int kProjectVersion = 2;

struct Project {
  std::string name;
  std::string model_ref;  // preset name, or empty when the model is stored inline
  ModelSpec model;
  GpuSpec gpu;
  std::string cluster;                    // generator string or cluster file, when not inline
  std::optional<Cluster> cluster_inline;  // the cluster itself ("cluster": {...}); wins over `cluster`
  int64_t gpu_count = 0;                  // total GPUs of the cluster
  Mode mode = Mode::training;
  TrainingWorkload training;
  ServingWorkload serving;
  Layout layout;                 // training
  ServingLayout serving_layout;  // serving: tp × pp × attention-dp instances (EP for MoE), replicas
  // Calibration (meshscope-cli calibrate, or the app's Calibrate): --comm keys (link-kind
  // efficiencies, algorithm) and --efficiency keys (GEMM, attention, memory) applied to every estimate.
  KeyValues comm_keys;
  KeyValues efficiency_keys;
  AxisOrder order = AxisOrder::megatron;           // how ranks are numbered ("axis_order")
  nlohmann::json view = nlohmann::json::object();  // the app's view state, kept as written
  bool operator==(const Project&) const = default;
};

[[nodiscard]] Result<Project> project_from_json(const nlohmann::json& doc, const std::string& origin);
[[nodiscard]] nlohmann::json project_to_json(const Project& project);
[[nodiscard]] Result<Project> default_project();
// The estimate options the project's calibration sets (defaults where it has none).
[[nodiscard]] Result<EstimateOptions> project_estimate_options(const Project& project);
// The project's cluster: the inline one (re-indexed and checked), else the generator string or file.
[[nodiscard]] Result<Cluster> project_cluster(const Project& project);

}  // namespace meshscope
