// The key table (core/keys/options.hpp): one row per --train/--serve/--layout key, from which the
// parsers, the writers, the app's forms and docs/cli.md come. These tests hold the four together.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "core/keys/options.hpp"
#include "core/model/model_io.hpp"
#include "core/report/keys.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;

namespace {

const KeyScope kScopes[] = {KeyScope::train, KeyScope::serve, KeyScope::layout, KeyScope::serving_layout};

// The first word of a documented default, without Markdown: "`bf16`" → bf16, "true (PyTorch …)" → true.
std::string default_token(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '`') continue;
    if (c == ' ') break;
    out += c;
  }
  return out;
}

template <class T>
Result<T> parse(KeyScope scope, const KeyValues& keys) {
  if constexpr (std::is_same_v<T, TrainingWorkload>) {
    (void)scope;
    return training_from_keys(keys);
  } else if constexpr (std::is_same_v<T, ServingWorkload>) {
    return serving_from_keys(keys);
  } else if constexpr (std::is_same_v<T, Layout>) {
    return layout_from_keys(keys);
  } else {
    return serving_layout_from_keys(keys);
  }
}

template <class T>
KeyValues write(const T& value) {
  if constexpr (std::is_same_v<T, TrainingWorkload>) {
    return training_to_keys(value);
  } else if constexpr (std::is_same_v<T, ServingWorkload>) {
    return serving_to_keys(value);
  } else if constexpr (std::is_same_v<T, Layout>) {
    return layout_to_keys(value);
  } else {
    return serving_layout_to_keys(value);
  }
}

// A value of the key other than its default, in the key's own terms.
std::string other_value(const KeyInfo& info) {
  const std::string fallback = default_token(info.default_text);
  switch (info.type) {
    case KeyType::boolean:
      return fallback == "true" ? "false" : "true";
    case KeyType::integer:
      return std::to_string(std::stoll(fallback) + (info.name == "zero" ? 2 : 3));
    case KeyType::number:
      return info.name == "memory_fraction" || info.name == "allocator_fraction" ? "0.5" : "7.5";
    case KeyType::choice:
    case KeyType::dtype:
      for (const std::string& choice : info.choices)
        if (choice != fallback) return choice;
      return fallback;
    case KeyType::text:
      if (info.name == "recompute") return "full";
      if (info.name == "recompute_modules") return "core_attn+moe_act";
      if (info.name == "master") return "none";
      if (info.name == "reshard_after_forward") return "always";
      if (info.name == "stages") return "3:5";
      if (info.name == "pp_layout") return "Et*3|(tt|)*29m|L";
      return fallback;
  }
  return fallback;
}

template <class T>
void check_scope(KeyScope scope) {
  const T defaults{};
  const KeyValues written = write(defaults);
  for (const KeyInfo& info : key_table(scope)) {
    INFO(std::string(key_scope_name(scope)) + " key " + std::string(info.name));
    // Every key is found by its name and its alias.
    CHECK(find_key(scope, info.name) == &info);
    if (!info.alias.empty()) CHECK(find_key(scope, info.alias) == &info);
    CHECK_FALSE(info.help.empty());
    CHECK_FALSE(info.default_text.empty());
    // The documented default is the default: writing the default struct says it, and parsing it
    // changes nothing (for defaults that are values, not "from the convention").
    const std::string token = default_token(info.default_text);
    const auto it = std::find_if(written.begin(), written.end(), [&](const auto& kv) { return kv.first == info.name; });
    if (auto parsed = parse<T>(scope, {{std::string(info.name), token}}); parsed) {
      CHECK(*parsed == defaults);
      if (it != written.end()) CHECK(it->second == token);
    }
    // A value other than the default survives writing and reading again (nothing set is lost).
    std::vector<std::string> candidates = {other_value(info)};
    if (info.type == KeyType::choice || info.type == KeyType::dtype) candidates = info.choices;
    Result<T> changed = defaults;
    for (const std::string& value : candidates) {
      KeyValues keys = {{std::string(info.name), value}};
      if (info.name == "overlap_param_gather") keys.insert(keys.begin(), {"overlap_grad_reduce", "true"});
      changed = parse<T>(scope, keys);
      REQUIRE(changed);
      if (!(*changed == defaults)) break;
    }
    CHECK_FALSE(*changed == defaults);
    auto again = parse<T>(scope, write(*changed));
    REQUIRE(again);
    CHECK(*again == *changed);
    // By the alias too.
    if (!info.alias.empty()) {
      const KeyValues changed_keys = write(*changed);
      const auto name =
          std::find_if(changed_keys.begin(), changed_keys.end(), [&](const auto& kv) { return kv.first == info.name; });
      REQUIRE(name != changed_keys.end());
      auto aliased = parse<T>(scope, {{std::string(info.alias), name->second}});
      REQUIRE(aliased);
      CHECK(*aliased == *changed);
    }
  }
}

}  // namespace

TEST_CASE("key table: every key's default, alias and round trip are as the table says") {
  check_scope<TrainingWorkload>(KeyScope::train);
  check_scope<ServingWorkload>(KeyScope::serve);
  check_scope<Layout>(KeyScope::layout);
  check_scope<ServingLayout>(KeyScope::serving_layout);
}

TEST_CASE("key table: an unknown key is an error that lists every key of the scope") {
  for (const KeyScope scope : kScopes) {
    std::string message;
    if (scope == KeyScope::train) message = training_from_keys({{"no_such_key", "1"}}).error().to_string();
    if (scope == KeyScope::serve) message = serving_from_keys({{"no_such_key", "1"}}).error().to_string();
    if (scope == KeyScope::layout) message = layout_from_keys({{"no_such_key", "1"}}).error().to_string();
    if (scope == KeyScope::serving_layout)
      message = serving_layout_from_keys({{"no_such_key", "1"}}).error().to_string();
    CHECK_THAT(message, Contains("no_such_key") && Contains("known keys"));
    for (const KeyInfo& info : key_table(scope)) CHECK_THAT(message, Contains(std::string(info.name)));
  }
}

TEST_CASE("key table: a bad value names the key and what it expects, from the key's type") {
  auto w = training_from_keys({{"seq", "long"}});
  REQUIRE_FALSE(w);
  CHECK_THAT(w.error().to_string(), Contains("seq") && Contains("an integer ≥ 1"));
  w = training_from_keys({{"schedule", "2f2b"}});
  REQUIRE_FALSE(w);
  CHECK_THAT(w.error().to_string(), Contains("gpipe, 1f1b, interleaved, zb-h1, zb-h2 or dualpipe"));
  w = training_from_keys({{"allocator_fraction", "2"}});
  REQUIRE_FALSE(w);
  CHECK_THAT(w.error().to_string(), Contains("a number in [0, 1]"));
  auto s = serving_from_keys({{"kv", "fp64"}});
  REQUIRE_FALSE(s);
  CHECK_THAT(s.error().to_string(), Contains("kv") && Contains("fp64"));
}

TEST_CASE("key table: docs/cli.md's key tables are the table (meshscope-cli keys)") {
  auto docs = read_text_file(std::string(MESHSCOPE_SOURCE_DIR) + "/docs/cli.md");
  REQUIRE(docs);
  for (const KeyScope scope : kScopes) {
    const std::string begin = "<!-- key-table " + std::string(key_scope_name(scope)) + " -->\n";
    const size_t start = docs->find(begin);
    INFO("docs/cli.md needs a section " + begin + "(regenerate it with meshscope-cli keys --scope ...)");
    REQUIRE(start != std::string::npos);
    const size_t end = docs->find("<!-- /key-table -->", start);
    REQUIRE(end != std::string::npos);
    CHECK(docs->substr(start + begin.size(), end - start - begin.size()) == key_table_markdown(scope));
  }
}
