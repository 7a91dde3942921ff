#pragma once
// Importer for NCCL's topology XML (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE, root <system>): <cpu>
// (numaid, affinity, arch, vendor) holding <pci> (busid, class, link_speed, link_width; nested for
// PCIe switches) with <gpu> (dev, sm, <nvlink target count tclass>) and <nic> (<net name speed>)
// children. NCCL_GRAPH_FILE (root <graphs>: the rings and trees NCCL chose) is not a topology and
// is refused with an error that says so. docs/import-topology.md gives the mapping rules.
#include <string>
#include <string_view>

#include "core/importers/node_import.hpp"

namespace meshscope {

[[nodiscard]] Result<NodeImport> import_nccl_topo_xml(std::string_view text, const std::string& origin,
                                                      const NodeImportOptions& options);

// The NIC line rate the file gives (<net speed> in Mb/s, the largest), 0 if none.
[[nodiscard]] double nccl_topo_nic_gbps(std::string_view text);

}  // namespace meshscope
