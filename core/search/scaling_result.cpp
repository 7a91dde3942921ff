#include "core/search/scaling_result.hpp"

#include <algorithm>

#include "core/base/enum_names.hpp"
#include "core/keys/options.hpp"
#include "core/topology/placement.hpp"

namespace meshscope {

namespace {

std::string key_value(const std::vector<std::pair<std::string, std::string>>& keys, const std::string& key) {
  for (const auto& [k, v] : keys)
    if (k == key) return v;
  return "default";
}

}  // namespace

std::string_view scaling_mode_name(ScalingMode mode) {
  return mode == ScalingMode::weak ? "weak" : "strong";
}

std::vector<std::pair<std::string, std::string>> ranked_layout_keys(const RankedLayout& r) {
  std::vector<std::pair<std::string, std::string>> keys = layout_to_keys(r.layout);
  keys.emplace_back("recompute", std::string(recompute_name(r.recompute)));
  keys.emplace_back("zero", std::to_string(r.zero_stage));
  keys.emplace_back("schedule", std::string(enum_name(r.schedule)));
  keys.emplace_back("order", std::string(axis_order_name(r.order)));
  keys.emplace_back("tp_comm_overlap", r.tp_comm_overlap ? "true" : "false");
  return keys;
}

std::string layout_change_text(const RankedLayout& before, const RankedLayout& after) {
  const auto a = ranked_layout_keys(before);
  const auto b = ranked_layout_keys(after);
  std::vector<std::string> names;
  for (const auto* side : {&a, &b})
    for (const auto& [key, value] : *side)
      if (key != "dp" && std::find(names.begin(), names.end(), key) == names.end()) names.push_back(key);
  std::string text;
  for (const std::string& key : names) {
    const std::string from = key_value(a, key), to = key_value(b, key);
    if (from != to) text += (text.empty() ? "" : ", ") + key + " " + from + "→" + to;
  }
  return text;
}

}  // namespace meshscope
