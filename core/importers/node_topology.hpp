#pragma once
// One entry for the node-topology importers: reads a file, tells the format from its contents
// (`nvidia-smi topo -m` text, `rocm-smi --showtopo` text, hwloc XML <topology>, NCCL topology XML
// <system>; an NCCL graph XML <graphs> is recognised and refused), builds one node and optionally
// copies it onto a rail-optimised fabric (docs/import-topology.md).
#include <cstdint>
#include <string>
#include <string_view>

#include "core/importers/hwloc_xml.hpp"
#include "core/importers/nccl_topo_xml.hpp"
#include "core/importers/node_import.hpp"
#include "core/importers/nvidia_smi_topo.hpp"
#include "core/importers/rocm_smi_topo.hpp"

namespace meshscope {

[[nodiscard]] NodeTopologyFormat detect_node_topology_format(std::string_view text);

// The node (or options.nodes copies of it) with the importer's warnings.
[[nodiscard]] Result<NodeImport> import_node_topology_text(std::string_view text, const std::string& origin,
                                                           const NodeImportOptions& options);
[[nodiscard]] Result<NodeImport> import_node_topology_file(const std::string& path, const NodeImportOptions& options);
// As import_node_topology_file, without the warnings.
[[nodiscard]] Result<Cluster> import_node_topology(const std::string& path, const NodeImportOptions& options);

// `nodes` copies of a one-node cluster (its device and link ids start with "n0."), node k's ids
// starting "nk.", its NICs with a rail (local_index ≥ 0) on a rail-optimised two-level fabric like
// the generators': the rail-r NICs of each group of `nodes_per_leaf` nodes share a leaf, every leaf
// links to every spine, a leaf's uplink capacity is its downlink capacity ÷ oversubscription. The
// result is indexed. nodes == 1 returns the node unchanged.
[[nodiscard]] Result<Cluster> replicate_node(const Cluster& node, int64_t nodes, double nic_gbps,
                                             double oversubscription, LinkKind nic_kind = LinkKind::infiniband,
                                             int32_t nodes_per_leaf = 32);

}  // namespace meshscope
