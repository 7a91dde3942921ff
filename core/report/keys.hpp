#pragma once
// `meshscope-cli keys --json`: the key table of a scope (core/keys/options.hpp) as a stable document.
#include <nlohmann/json_fwd.hpp>

#include <string_view>
#include <vector>

#include "core/keys/options.hpp"

namespace meshscope {

// {"scope": "train", "keys": [{"name", "alias", "type", "choices", "values", "unit", "default", "meaning",
// "source"}, ...]}
[[nodiscard]] nlohmann::json key_table_report(KeyScope scope);
// Several scopes: an array of key_table_report's documents.
[[nodiscard]] nlohmann::json key_tables_report(const std::vector<KeyScope>& scopes);
[[nodiscard]] std::string_view key_scope_name(KeyScope scope);

}  // namespace meshscope
