#pragma once
// Stable JSON documents of the memory budget and of a layout's problems (docs/cli.md).
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/memory/memory.hpp"
#include "core/workload/layout.hpp"

namespace meshscope {

[[nodiscard]] nlohmann::json memory_report(const MemoryBudget& budget);

// The text of `memory` without --json: one column per rank, one row per category, the peak against the
// capacity and, serving, the largest concurrency that fits.
[[nodiscard]] std::string memory_text(const MemoryBudget& budget, const std::string& model_name,
                                      const std::string& gpu_name, bool serving);
}  // namespace meshscope
