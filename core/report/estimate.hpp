#pragma once
// Stable JSON document of one training step's estimate (docs/cli.md). Renaming a field is a breaking change.
#include <nlohmann/json_fwd.hpp>

#include "core/estimate/step.hpp"

namespace meshscope {

// The JSON of `meshscope-cli estimate --json` (docs/cli.md): step time, throughput, MFU, breakdown,
// assumptions and the per-operation costs.
[[nodiscard]] nlohmann::json estimate_report(const StepEstimate& estimate);

}  // namespace meshscope
