#include "core/topology/group_paths.hpp"

#include <algorithm>
#include <unordered_map>

namespace meshscope {

GroupPaths group_paths(const Router& router, const std::vector<DeviceId>& ranks) {
  GroupPaths g;
  g.ring = ranks;
  const Cluster& c = router.cluster();
  std::unordered_map<int32_t, int64_t> per_node;
  for (const DeviceId d : ranks) per_node[c.device(d).node] += 1;
  g.nodes = static_cast<int64_t>(per_node.size());
  for (const auto& [node, count] : per_node) g.max_ranks_per_node = std::max(g.max_ranks_per_node, count);
  if (ranks.size() < 2) return g;
  g.ring_routes.reserve(ranks.size());
  // NCCL builds its rings so that they cross between nodes on one rail (the ring leaves a node
  // through NIC k and enters the next one through NIC k, PXN moving data over NVLink to the GPU
  // next to the NIC): an edge between nodes is routed to the group's GPU on the same rail there.
  std::unordered_map<int64_t, DeviceId> by_node_and_rail;
  for (const DeviceId d : ranks)
    by_node_and_rail.emplace(static_cast<int64_t>(c.device(d).node) * 65536 + c.device(d).local_index, d);
  for (size_t i = 0; i < ranks.size(); ++i) {
    const DeviceId from = ranks[i];
    DeviceId to = ranks[(i + 1) % ranks.size()];
    if (c.device(from).node != c.device(to).node) {
      const auto aligned =
          by_node_and_rail.find(static_cast<int64_t>(c.device(to).node) * 65536 + c.device(from).local_index);
      if (aligned != by_node_and_rail.end()) to = aligned->second;
    }
    g.ring_routes.push_back(router.route(from, to));
    g.worst_tier = std::max(g.worst_tier, g.ring_routes.back().tier);
  }
  return g;
}

}  // namespace meshscope
