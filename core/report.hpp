#pragma once
// Stable JSON documents of the CLI (docs/cli.md). Renaming a field is a breaking change.
#include <nlohmann/json_fwd.hpp>

#include "core/estimate/step.hpp"
#include "core/flops.hpp"
#include "core/layout.hpp"
#include "core/memory.hpp"
#include "core/model.hpp"

namespace meshscope {

[[nodiscard]] nlohmann::json params_report(const ModelSpec& model);
[[nodiscard]] nlohmann::json flops_report(const FlopsPerToken& flops, int64_t seq_len, bool causal);
[[nodiscard]] nlohmann::json memory_report(const MemoryBudget& budget);
[[nodiscard]] nlohmann::json problems_report(const std::vector<LayoutProblem>& problems);
// The JSON of `meshscope-cli estimate --json` (docs/cli.md): step time, throughput, MFU, breakdown,
// assumptions and the per-operation costs.
[[nodiscard]] nlohmann::json estimate_report(const StepEstimate& estimate);

}  // namespace meshscope
