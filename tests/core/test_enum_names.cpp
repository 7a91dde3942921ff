// EnumNames<E> (core/base/enum_names.hpp): each enum's one table gives its names and parses them back,
// and the --train parser's messages list the table's choices.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "core/keys/options.hpp"
#include "core/workload/workload.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;

namespace {

template <class E>
void check_round_trip() {
  std::set<std::string_view> names;
  for (const auto& [value, name] : EnumNames<E>::table) {
    INFO(name);
    CHECK(enum_name(value) == name);
    CHECK(parse_enum<E>(name) == value);
    CHECK(names.insert(name).second);  // no name twice
  }
  CHECK_FALSE(parse_enum<E>("no-such-name"));
  CHECK_FALSE(parse_enum<E>(""));
}

}  // namespace

TEST_CASE("enum names: every workload enum's names parse back to the same value") {
  check_round_trip<RecomputeMode>();
  check_round_trip<MemoryFramework>();
  check_round_trip<PipelineSchedule>();
  check_round_trip<ReshardAfterForward>();
  // The names the CLI, the project files and docs/cli.md use.
  CHECK(enum_name(PipelineSchedule::one_f_one_b) == "1f1b");
  CHECK(memory_framework_name(MemoryFramework::automatic) == "auto");
  CHECK(recompute_name(RecomputeMode::op) == "op");
  CHECK(enum_choices<PipelineSchedule>() == "gpipe, 1f1b, interleaved, zb-h1, zb-h2 or dualpipe");
}

TEST_CASE("enum names: --train parses names through the tables and lists them when one is wrong") {
  auto keys = split_key_values("schedule=zb-h2,recompute=op,memory_framework=fsdp2", "--train");
  REQUIRE(keys);
  auto w = training_from_keys(*keys);
  REQUIRE(w);
  CHECK(w->schedule == PipelineSchedule::zb_h2);
  CHECK(w->recompute == RecomputeMode::op);
  CHECK(w->memory_framework == MemoryFramework::fsdp2);
  // "layers" is the mode a number selects, not a value of the key.
  auto layers = split_key_values("recompute=layers", "--train");
  REQUIRE(layers);
  CHECK_FALSE(training_from_keys(*layers));
  auto four = split_key_values("recompute=4", "--train");
  REQUIRE(four);
  auto n = training_from_keys(*four);
  REQUIRE(n);
  CHECK(n->recompute == RecomputeMode::layers);
  CHECK(n->recompute_layers == 4);
  auto bad = split_key_values("schedule=1f2b", "--train");
  REQUIRE(bad);
  auto refused = training_from_keys(*bad);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Contains("gpipe, 1f1b, interleaved, zb-h1, zb-h2 or dualpipe"));
}
