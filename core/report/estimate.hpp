#pragma once
// Stable JSON document of one training step's estimate (docs/cli.md). Renaming a field is a breaking change.
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/estimate/step.hpp"

namespace meshscope {

// The JSON of `meshscope-cli estimate --json` (docs/cli.md): step time, throughput, MFU, breakdown,
// assumptions and the per-operation costs.
[[nodiscard]] nlohmann::json estimate_report(const StepEstimate& estimate);

// The text of `estimate` without --json: the step, throughput, MFU, the breakdown and the assumptions.
[[nodiscard]] std::string estimate_text(const std::string& model_name, const std::string& cluster_name,
                                        const StepEstimate& estimate);
}  // namespace meshscope
