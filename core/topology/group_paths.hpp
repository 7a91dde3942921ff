#pragma once
// A group of GPUs as routes: the ring NCCL would build over them (neighbour to neighbour, crossing nodes on one
// rail) and the nodes it spans. The collective cost model (core/comm/collective.hpp) times collectives over it;
// placement (placement.hpp) reads which tier its slowest edge runs on.
#include <cstdint>
#include <vector>

#include "core/topology/cluster.hpp"
#include "core/topology/routing.hpp"

namespace meshscope {

// The bandwidth-relevant structure of a group: its ring (ranks in the given order), the routes
// between neighbours, and the nodes it spans.
struct GroupPaths {
  std::vector<DeviceId> ring;
  std::vector<Route> ring_routes;  // ring[i] → ring[i+1 mod n]
  int64_t nodes = 0;
  int64_t max_ranks_per_node = 0;
  PathTier worst_tier = PathTier::same_gpu;
};

[[nodiscard]] GroupPaths group_paths(const Router& router, const std::vector<DeviceId>& ranks);

}  // namespace meshscope
