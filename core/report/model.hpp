#pragma once
// Stable JSON documents of the model subcommands (params, flops, presets; docs/cli.md). Renaming a field is a
// breaking change.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/hardware/hardware.hpp"
#include "core/model/model.hpp"
#include "core/workload/flops.hpp"

namespace meshscope {

[[nodiscard]] nlohmann::json params_report(const ModelSpec& model);
[[nodiscard]] nlohmann::json flops_report(const FlopsPerToken& flops, int64_t seq_len, bool causal);
// `meshscope-cli presets --json`: the model preset names and the GPU catalogue.
[[nodiscard]] nlohmann::json presets_report(const std::vector<std::string>& models, const std::vector<GpuSpec>& gpus);

}  // namespace meshscope
