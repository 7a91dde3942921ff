#pragma once
// Stable JSON documents of `meshscope-cli serve` and `serve-rank` (docs/serving.md, docs/cli.md).
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "core/serving/serving.hpp"

namespace meshscope {

// A serving layout as its keys with integer values: {"tp": 2, "pp": 1, ...}.
[[nodiscard]] nlohmann::json serving_layout_report(const ServingLayout& layout);
// `serve --json`: the operating point, the step's cost, the throughput–latency curve and, when the traffic
// gives a number of requests, the offline run of them (`offline` is per replica; the document scales it).
[[nodiscard]] nlohmann::json serving_report(const ServingLayout& layout, const ServingEstimate& estimate,
                                            const std::optional<OfflineRun>& offline);
// `serve --prefill-layout ... --decode-layout ... --json`.
[[nodiscard]] nlohmann::json disaggregated_serving_report(const DisaggregatedLayout& layout,
                                                          const DisaggregatedEstimate& estimate);
// `serve-rank --json`: the layouts meeting `target`, best first, and why the others were rejected.
[[nodiscard]] nlohmann::json serving_rank_report(const ServingRankResult& result, const ServingTarget& target);

// The texts of `serve`, `serve` disaggregated and `serve-rank` without --json.
[[nodiscard]] std::string serving_text(const std::string& model_name, const std::string& cluster_name,
                                       const ServingLayout& layout, const ServingEstimate& estimate,
                                       const std::optional<OfflineRun>& offline);
[[nodiscard]] std::string disaggregated_serving_text(const std::string& model_name, const std::string& cluster_name,
                                                     const DisaggregatedLayout& layout,
                                                     const DisaggregatedEstimate& estimate);
[[nodiscard]] std::string serving_rank_text(const std::string& model_name, const std::string& cluster_name,
                                            const ServingRankResult& result);
}  // namespace meshscope
