#pragma once
// One table of names per enum, written once, from which both directions come: enum_name(value)
// and parse_enum<E>(text). A specialisation of EnumNames<E> lists every enumerator with the name the
// CLI, the project files and the docs use (issue 15: instead of a name function and a parse
// function written by hand for each enum).
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace meshscope {

template <class E>
struct EnumNames;  // static constexpr std::array<std::pair<E, std::string_view>, N> table;

template <class E>
[[nodiscard]] constexpr std::string_view enum_name(E value) {
  for (const auto& [e, name] : EnumNames<E>::table)
    if (e == value) return name;
  return "?";
}

template <class E>
[[nodiscard]] constexpr std::optional<E> parse_enum(std::string_view text) {
  for (const auto& [e, name] : EnumNames<E>::table)
    if (name == text) return e;
  return std::nullopt;
}

// As parse_enum, in any letter case ("ZB-H1" is zb-h1).
template <class E>
[[nodiscard]] constexpr std::optional<E> parse_enum_ignoring_case(std::string_view text) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (const auto& [e, name] : EnumNames<E>::table) {
    if (name.size() != text.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) same = lower(name[i]) == lower(text[i]);
    if (same) return e;
  }
  return std::nullopt;
}

// "a, b or c": the names for an error message.
template <class E>
[[nodiscard]] std::string enum_choices() {
  std::string out;
  const auto& table = EnumNames<E>::table;
  for (size_t i = 0; i < table.size(); ++i) {
    if (i > 0) out += i + 1 == table.size() ? " or " : ", ";
    out += table[i].second;
  }
  return out;
}

}  // namespace meshscope
