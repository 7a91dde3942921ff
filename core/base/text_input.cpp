#include "core/base/text_input.hpp"

namespace meshscope {

std::optional<Error> check_text_encoding(std::string_view text, const std::string& origin) {
  auto refuse = [&](const std::string& encoding) {
    return Error{ErrorCode::parse_error,
                 "the file is " + encoding + "; meshscope reads UTF-8: save it as UTF-8 (e.g. iconv -f " + encoding +
                     " -t UTF-8 FILE)",
                 origin};
  };
  auto starts = [&](std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; };
  using namespace std::string_view_literals;
  if (starts("\x00\x00\xFE\xFF"sv)) return refuse("UTF-32BE");
  if (starts("\xFF\xFE\x00\x00"sv)) return refuse("UTF-32LE");
  if (starts("\xFE\xFF"sv)) return refuse("UTF-16BE");
  if (starts("\xFF\xFE"sv)) return refuse("UTF-16LE");
  // No byte-order mark: ASCII text in UTF-16 has a NUL in every other byte of its first characters.
  if (text.size() >= 2 && text[0] != '\0' && text[1] == '\0') return refuse("UTF-16LE");
  if (text.size() >= 2 && text[0] == '\0' && text[1] != '\0') return refuse("UTF-16BE");
  return std::nullopt;
}

}  // namespace meshscope
