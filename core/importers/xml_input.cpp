#include "core/importers/xml_input.hpp"

#include "core/importers/node_import.hpp"

namespace meshscope::node_import {
namespace {

std::string at_line(std::string_view text, const std::string& origin, const pugi::xml_node& node) {
  const std::ptrdiff_t offset = node.offset_debug();
  return offset >= 0 ? origin + ":" + std::to_string(line_of(text, static_cast<size_t>(offset))) : origin;
}

}  // namespace

std::optional<Error> load_xml(pugi::xml_document& doc, std::string_view text, const std::string& origin) {
  if (auto encoding = check_text_encoding(text, origin)) return encoding;
  // pugixml parses without recursion; encoding_utf8, so that it never transcodes what check_text_encoding let by.
  const auto parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) return xml_syntax_error(text, origin, parsed.description(), parsed.offset).value();
  // Depth and size without recursion: walk the tree by first child, next sibling and parent.
  size_t depth = 0;
  size_t elements = 0;
  pugi::xml_node node = doc.first_child();
  while (node) {
    if (node.type() == pugi::node_element && ++elements > kMaxXmlElements)
      return Error{
          ErrorCode::parse_error,
          "the file has more than " + std::to_string(kMaxXmlElements) + " elements, far more than any node topology",
          at_line(text, origin, node)};
    if (node.first_child()) {
      if (++depth > kMaxXmlDepth)
        return Error{ErrorCode::parse_error,
                     "elements are nested more than " + std::to_string(kMaxXmlDepth) +
                         " deep, far deeper than any node topology",
                     at_line(text, origin, node)};
      node = node.first_child();
      continue;
    }
    while (node && !node.next_sibling()) {
      node = node.parent();
      if (node == doc) return std::nullopt;
      --depth;
    }
    if (node) node = node.next_sibling();
  }
  return std::nullopt;
}

}  // namespace meshscope::node_import
