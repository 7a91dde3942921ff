#pragma once
// Stable JSON documents of the memory budget and of a layout's problems (docs/cli.md).
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "core/layout.hpp"
#include "core/memory.hpp"

namespace meshscope {

[[nodiscard]] nlohmann::json memory_report(const MemoryBudget& budget);
[[nodiscard]] nlohmann::json problems_report(const std::vector<LayoutProblem>& problems);

}  // namespace meshscope
