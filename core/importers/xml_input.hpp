#pragma once
// What the XML importers (hwloc_xml, nccl_topo_xml) check before they walk a document: its encoding (UTF-8 only,
// text_input.hpp) before pugixml reads it, and after, its nesting depth (the importers walk the tree recursively; a
// 100,000-deep file must be an error, not a stack overflow) and its size in elements.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <pugixml.hpp>

#include "core/base/result.hpp"
#include "core/base/text_input.hpp"

namespace meshscope::node_import {

// The most elements a node-topology XML file may have (the largest real hwloc file, a 2-socket EPYC 9654 with every
// PCI device, has under 3,000).
inline constexpr size_t kMaxXmlElements = 1'000'000;
// The most CPUs (NUMA domains) and GPUs one imported node may have: CPUs are joined pairwise, and no real host has
// more than a few dozen NUMA domains or 16 GPUs.
inline constexpr size_t kMaxCpusPerNode = 256;
inline constexpr size_t kMaxGpusPerNode = 1024;

// Parses `text` (after check_text_encoding) into `doc`; a syntax error, nesting deeper than kMaxXmlDepth or more
// than kMaxXmlElements elements is an error naming the origin and the line.
[[nodiscard]] std::optional<Error> load_xml(pugi::xml_document& doc, std::string_view text, const std::string& origin);

}  // namespace meshscope::node_import
