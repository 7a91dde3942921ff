#pragma once
// Ready-made clusters from a generator string `name[:key=value,...]`, e.g. `dgx-h100:nodes=64`,
// `dgx-a100:nodes=4,oversubscription=2`, `gb200-nvl72:racks=2`, `pcie-8gpu:gpu=l40s,nodes=2`,
// `rtx4090-ws` (docs/cluster-format.md lists every generator, its keys and one node's contents).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/topology/cluster.hpp"

namespace meshscope {

struct GeneratorInfo {
  std::string name;               // "dgx-h100"
  std::string summary;            // one node (or rack) in a sentence
  std::vector<std::string> keys;  // the keys it takes
};

[[nodiscard]] const std::vector<GeneratorInfo>& cluster_generators();
[[nodiscard]] std::vector<std::string> generator_names();

// An indexed cluster (index_cluster() found no problems). Unknown generator names, unknown keys
// and bad values are errors that name them and list the valid ones.
[[nodiscard]] Result<Cluster> generate_cluster(std::string_view spec);

// The leaf/spine fabric the generators build (`oversubscription`, `nodes_per_leaf`, `nic_gbps`).
struct FabricOptions {
  int32_t nodes_per_leaf = 32;
  double oversubscription = 1;  // a leaf's downlink ÷ uplink capacity
  LinkKind kind = LinkKind::infiniband;
  double nic_gbps = 400;  // line rate of every NIC–leaf link
};

// Appends a rail-optimised two-level fabric, exactly as the generators do: the NIC of rail r (its
// local index) of node n links to leaf "leaf.r<r>.p<n / nodes_per_leaf>", every leaf to every
// spine ("spine<s>"). Needs two or more nodes with NICs (otherwise adds nothing). The ids it adds
// must not exist yet: remove an existing fabric first. The cluster is left unindexed.
void connect_to_fabric(Cluster& cluster, const FabricOptions& options);

// A cluster file when `file_or_spec` is an existing file, otherwise a generator string.
[[nodiscard]] Result<Cluster> resolve_cluster(const std::string& file_or_spec);

}  // namespace meshscope
