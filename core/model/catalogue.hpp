#pragma once
// Built-in presets (resources/models/*.json, resources/gpus.json), embedded in the binary.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/base/result.hpp"
#include "core/hardware/hardware.hpp"
#include "core/model/model.hpp"

namespace meshscope {

[[nodiscard]] std::vector<std::string> model_preset_names();
[[nodiscard]] Result<ModelSpec> model_preset(std::string_view name);
// A preset name, a Hugging Face config.json path or a meshscope model file path.
[[nodiscard]] Result<ModelSpec> resolve_model(const std::string& name_or_path);

[[nodiscard]] Result<std::vector<GpuSpec>> gpus_from_json(const nlohmann::json& doc, const std::string& origin);
[[nodiscard]] const std::vector<GpuSpec>& gpu_catalogue();
[[nodiscard]] Result<GpuSpec> find_gpu(std::string_view id);

// The embedded default project (resources/default_project.json).
[[nodiscard]] std::string_view default_project_text();

// The sample clusters of sample_clusters/, embedded: file name ("teaching-2x4.json") and text.
struct SampleCluster {
  std::string_view file;
  std::string_view text;
};
[[nodiscard]] std::vector<SampleCluster> sample_clusters();

}  // namespace meshscope
