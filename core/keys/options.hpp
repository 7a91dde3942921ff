#pragma once
// The key=value surface of workloads and layouts, shared by the CLI ("--train seq=8192,zero=1"),
// project files ({"training": {"seq": 8192}}) and the app's forms. One table per scope (key_table)
// names every key with its type, unit, default, choices, meaning and source; the parsers below,
// the forms (ui/panels/workload_panel.cpp) and the key tables of docs/cli.md all come from it
// (key_table_markdown; tests/core/test_key_table.cpp fails when the docs and the table disagree).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/result.hpp"
#include "core/workload/layout.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// layout: a training mesh; serving_layout: serving instances (`serve --layout`).
enum class KeyScope { train, serve, layout, serving_layout };
enum class KeyType { integer, number, boolean, choice, dtype, text };

struct KeyInfo {
  std::string_view name;
  std::string_view alias;  // another accepted name ("gbs" for global_batch); empty: none
  KeyType type = KeyType::text;
  std::vector<std::string> choices;  // choice and dtype keys: the values offered (the forms' combo boxes)
  std::string_view values;           // the values in words, for the docs (empty: from type, choices and unit)
  std::string_view unit;             // tokens, sequences, GiB, …; empty: none
  std::string_view default_text;     // the default as the docs state it
  std::string_view help;             // what the key means (Markdown)
  std::string_view source;           // where its meaning and default come from
};

[[nodiscard]] const std::vector<KeyInfo>& key_table(KeyScope scope);
[[nodiscard]] const KeyInfo* find_key(KeyScope scope, std::string_view name);  // by name or alias
// The scope's table as docs/cli.md shows it: | key | values | default | meaning | source |.
[[nodiscard]] std::string key_table_markdown(KeyScope scope);

// "a=1,b=2" → {{"a","1"},{"b","2"}}; `option` names the flag in errors.
[[nodiscard]] Result<KeyValues> split_key_values(std::string_view text, const std::string& option);

// Apply keys in order, after any convention= key (so explicit dtypes override the convention).
[[nodiscard]] Result<TrainingWorkload> training_from_keys(const KeyValues& keys, TrainingWorkload base = {});
[[nodiscard]] Result<ServingWorkload> serving_from_keys(const KeyValues& keys, ServingWorkload base = {});
[[nodiscard]] Result<Layout> layout_from_keys(const KeyValues& keys, Layout base = {});
[[nodiscard]] Result<ServingLayout> serving_layout_from_keys(const KeyValues& keys, ServingLayout base = {});

// Keys that describe a workload/layout, for writing project files and the GUI: the keys always
// shown, and every other key whose value differs from its default (so that nothing set is lost).
[[nodiscard]] KeyValues training_to_keys(const TrainingWorkload& workload);
[[nodiscard]] KeyValues serving_to_keys(const ServingWorkload& workload);
[[nodiscard]] KeyValues layout_to_keys(const Layout& layout);
[[nodiscard]] KeyValues serving_layout_to_keys(const ServingLayout& layout);

}  // namespace meshscope
