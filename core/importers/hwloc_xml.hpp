#pragma once
// Importer for hwloc / lstopo XML (`lstopo --of xml`, hwloc 1.x and 2.x/3.x): the object tree
// (Machine, Package, NUMANode, Bridge, PCIDev, OSDev) and the "NVLinkBandwidth" distances matrix.
// One host becomes one cluster node; docs/import-topology.md gives the mapping rules.
#include <string>
#include <string_view>

#include "core/importers/node_import.hpp"

namespace meshscope {

// `origin` names the file in errors ("file:12: ..."). A topology without GPUs (CPU-only machines)
// is an error that says so.
[[nodiscard]] Result<NodeImport> import_hwloc_xml(std::string_view text, const std::string& origin,
                                                  const NodeImportOptions& options);

}  // namespace meshscope
