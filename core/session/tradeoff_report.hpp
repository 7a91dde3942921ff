#pragma once
// Stable JSON and text of `meshscope-cli tradeoff` (docs/cli.md): one point per value along an axis, or
// the grid of two axes. Renaming a field is a breaking change.
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/session/tradeoff.hpp"

namespace meshscope {

[[nodiscard]] nlohmann::json tradeoff_point_json(const TradeoffPoint& point, TradeoffAxis axis);
[[nodiscard]] nlohmann::json tradeoff_report(const TradeoffCurve& curve);
[[nodiscard]] nlohmann::json tradeoff_grid_report(const TradeoffGrid& grid);

// The tables `tradeoff` prints without --json: one row per value (per cell for a grid).
[[nodiscard]] std::string tradeoff_text(const std::string& title, const TradeoffCurve& curve);
[[nodiscard]] std::string tradeoff_grid_text(const std::string& title, const TradeoffGrid& grid);

}  // namespace meshscope
