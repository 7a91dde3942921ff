#pragma once
// The key=value surface of workloads and layouts, shared by the CLI ("--train seq=8192,zero=1")
// and project files ({"training": {"seq": 8192}}). docs/cli.md lists every key.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/layout.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"

namespace meshscope {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// "a=1,b=2" → {{"a","1"},{"b","2"}}; `option` names the flag in errors.
[[nodiscard]] Result<KeyValues> split_key_values(std::string_view text, const std::string& option);

// Apply keys in order, after any convention= key (so explicit dtypes override the convention).
[[nodiscard]] Result<TrainingWorkload> training_from_keys(const KeyValues& keys, TrainingWorkload base = {});
[[nodiscard]] Result<ServingWorkload> serving_from_keys(const KeyValues& keys, ServingWorkload base = {});
[[nodiscard]] Result<Layout> layout_from_keys(const KeyValues& keys, Layout base = {});

// Keys that describe a workload/layout, for writing project files and the GUI.
[[nodiscard]] KeyValues training_to_keys(const TrainingWorkload& workload);
[[nodiscard]] KeyValues serving_to_keys(const ServingWorkload& workload);
[[nodiscard]] KeyValues layout_to_keys(const Layout& layout);

}  // namespace meshscope
