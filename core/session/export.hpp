#pragma once
// The ranked tables as CSV, one row per layout in rank order (File → Export → Ranked layouts as
// CSV; docs/cli.md names the columns). Numbers are written to 9 significant digits (bytes as
// integers), text fields quoted as RFC 4180 asks when they hold a comma, a quote or a newline.
#include <string>
#include <string_view>

#include "core/search/search.hpp"
#include "core/serving/serving.hpp"

namespace meshscope {

[[nodiscard]] std::string csv_field(std::string_view text);
[[nodiscard]] std::string ranked_training_csv(const SearchResult& result);
[[nodiscard]] std::string ranked_serving_csv(const ServingRankResult& result);

}  // namespace meshscope
