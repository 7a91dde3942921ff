#pragma once
// The small pieces of text scanning that the readers of logs, tables and option strings share: ASCII whitespace,
// trimming, whitespace tokens, lower case, and whole-token numbers. Numbers go through std::from_chars, not stod or
// strtod, so that the GUI's locale cannot turn "1.5" into an error; lower case is ASCII for the same reason.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshscope::text {

// Space, tab, and the carriage return of CRLF files (with \v and \f); never the newline, which separates lines.
[[nodiscard]] constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
[[nodiscard]] constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

[[nodiscard]] std::string_view trim(std::string_view s);
// The runs of non-space characters, in order.
[[nodiscard]] std::vector<std::string_view> split_ws(std::string_view s);
[[nodiscard]] std::string lowercase(std::string_view s);
// Only the letters and digits, lower case: the canonical spelling under which names are compared
// ("All_Reduce-perf" -> "allreduceperf", "c10d::allreduce_" -> "c10dallreduce").
[[nodiscard]] std::string lowercase_alnum(std::string_view s);

// The whole token as a number (an optional leading '+'); nullopt for anything else, trailing characters included.
[[nodiscard]] std::optional<int64_t> parse_integer(std::string_view s);
// The same for a finite floating-point number ("34.27", "16215", "1.2e+05").
[[nodiscard]] std::optional<double> parse_number(std::string_view s);

}  // namespace meshscope::text
