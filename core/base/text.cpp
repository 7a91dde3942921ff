#include "core/base/text.hpp"

#include <charconv>
#include <cmath>

namespace meshscope::text {

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    const size_t start = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > start) tokens.push_back(s.substr(start, i - start));
  }
  return tokens;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string lowercase_alnum(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if ((c >= 'a' && c <= 'z') || is_digit(c)) out += c;
    if (c >= 'A' && c <= 'Z') out += static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

namespace {

// The whole token through from_chars, after an optional '+' (which from_chars does not take).
template <typename T>
std::optional<T> whole_token(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  T value{};
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<int64_t> parse_integer(std::string_view s) {
  return whole_token<int64_t>(s);
}

std::optional<double> parse_number(std::string_view s) {
  const auto value = whole_token<double>(s);
  if (value && !std::isfinite(*value)) return std::nullopt;
  return value;
}

}  // namespace meshscope::text
