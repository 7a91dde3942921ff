// The small subtrees of a Kineto trace that the importer builds as JSON values (distributedInfo, deviceProperties),
// from bytes the cursor (kineto_json_cursor.hpp) has already checked; traceEvents is never built.
#pragma once

#include <nlohmann/json.hpp>

namespace meshscope::kineto_json {

// The JSON value of [begin, end), one complete value. Integers above INT64_MAX become doubles, as the importer has
// always read them. Throws nlohmann::json::exception on bytes that are not one JSON value.
[[nodiscard]] nlohmann::json build_subtree(const char* begin, const char* end);

}  // namespace meshscope::kineto_json
