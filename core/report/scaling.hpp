#pragma once
// Stable JSON document and text table of `meshscope-cli scaling` (docs/cli.md "scaling").
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/search/scaling_result.hpp"

namespace meshscope {

[[nodiscard]] nlohmann::json scaling_report(const ScalingResult& result);
// The text of `scaling` without --json: the definition, then one line per GPU count.
[[nodiscard]] std::string scaling_text(const ScalingResult& result);

}  // namespace meshscope
