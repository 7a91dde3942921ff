// core/base/text.hpp: the scanning pieces the readers share (nccl-tests and rocm-smi tables, training logs, cluster
// generator options, scaling ranges).
#include <catch2/catch.hpp>

#include "core/base/text.hpp"

using namespace meshscope;

TEST_CASE("text: trim and split take the carriage return of a CRLF line as space, never other bytes") {
  CHECK(text::trim(" \t 8  \r") == "8");
  CHECK(text::trim("\r\n").size() == 1);  // the newline separates lines and is not trimmed
  const auto tokens = text::split_ws("  8388608   2097152  float  sum\r");
  REQUIRE(tokens.size() == 4);
  CHECK(tokens[0] == "8388608");
  CHECK(tokens[3] == "sum");
  CHECK(text::split_ws(" \t ").empty());
}

TEST_CASE("text: numbers are whole tokens, finite, and independent of the locale") {
  CHECK(text::parse_integer("16215") == 16215);
  CHECK(text::parse_integer("+7") == 7);
  CHECK(text::parse_integer("-3") == -3);
  CHECK_FALSE(text::parse_integer("12ab"));
  CHECK_FALSE(text::parse_integer("1.5"));
  CHECK_FALSE(text::parse_integer("+"));
  CHECK_FALSE(text::parse_integer("99999999999999999999"));  // beyond int64
  CHECK(text::parse_number("34.27") == Approx(34.27));
  CHECK(text::parse_number("1.2e+05") == Approx(1.2e5));
  CHECK_FALSE(text::parse_number("1,5"));
  CHECK_FALSE(text::parse_number("inf"));
  CHECK_FALSE(text::parse_number("nan"));
  CHECK_FALSE(text::parse_number("1e999"));
  CHECK(text::lowercase("All_Reduce-PERF") == "all_reduce-perf");
}

TEST_CASE("text: names compare by their letters and digits in lower case") {
  CHECK(text::lowercase_alnum("All_Reduce-perf") == "allreduceperf");
  CHECK(text::lowercase_alnum("c10d::allreduce_") == "c10dallreduce");
  CHECK(text::lowercase_alnum("  ") == "");
}
