#pragma once
// What File → Export writes, with no Qt. The ranked tables as CSV, one row per layout in rank order
// (File → Export → Ranked layouts as CSV; docs/cli.md names the columns). Numbers are written to 9 significant digits
// (bytes as integers), text fields quoted as RFC 4180 asks when they hold a comma, a quote or a newline.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/search/search.hpp"
#include "core/serving/serving.hpp"
#include "core/session/evaluate.hpp"

namespace meshscope {

[[nodiscard]] std::string csv_field(std::string_view text);
[[nodiscard]] std::string ranked_training_csv(const SearchResult& result);
[[nodiscard]] std::string ranked_serving_csv(const ServingRankResult& result);

// The current estimate as JSON (File → Export → Estimate as JSON): {"project": the project file's document,
// "memory": memory_report of the budget (valid layouts), "estimate": estimate_report (training)}; the last
// two are left out when the evaluation has none.
[[nodiscard]] nlohmann::json estimate_export_json(const Evaluation& evaluation);

}  // namespace meshscope
