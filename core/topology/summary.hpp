#pragma once
// A cluster at a glance: GPUs, nodes, the domains of each tier, and its bisection bandwidth.
#include <cstdint>
#include <vector>

#include "core/topology/cluster.hpp"

namespace meshscope {

struct ClusterSummary {
  int64_t gpus = 0;
  int64_t nodes = 0;
  int64_t racks = 0;
  int64_t nvlink_domains = 0;  // sets of GPUs connected by NVLink/xGMI (directly or via NVSwitch)
  int64_t largest_nvlink_domain = 0;
  int64_t pcie_switches = 0;
  int64_t numa_domains = 0;  // CPU devices
  int64_t nics = 0;
  int64_t leaf_switches = 0;
  int64_t spine_switches = 0;
  // Max-flow from the first half of the GPUs (in rank order) to the second, per direction:
  // the bandwidth a worst-case half-to-half exchange can use (nominal link bandwidths).
  double bisection_bytes_per_s = 0;
};

[[nodiscard]] ClusterSummary summarize_cluster(const Cluster& cluster);

// Maximum flow between two GPU sets over the links' per-direction bandwidths (Dinic's algorithm).
[[nodiscard]] double max_flow_bytes_per_s(const Cluster& cluster, const std::vector<DeviceId>& from,
                                          const std::vector<DeviceId>& to);

}  // namespace meshscope
