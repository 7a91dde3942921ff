#pragma once
// Routing between GPUs the way NCCL chooses paths (NCCL topology search, src/graph/paths.cc):
// NVLink (direct, or through an NVSwitch fabric) first; then PCIe peer-to-peer under PCIe
// switches (PIX/PXB); then through the host bridge of one CPU (PHB, same NUMA domain); then
// across CPU sockets (SYS); between hosts, through the NIC nearest to each GPU and the network
// (same leaf switch, or up through the spine).
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/base/enum_names.hpp"
#include "core/topology/cluster.hpp"

namespace meshscope {

enum class PathTier { same_gpu, nvlink, pcie_switch, numa, cross_socket, same_leaf, spine };

template <>
struct EnumNames<PathTier> {
  static constexpr std::array<std::pair<PathTier, std::string_view>, 7> table{{{PathTier::same_gpu, "same-gpu"},
                                                                               {PathTier::nvlink, "nvlink"},
                                                                               {PathTier::pcie_switch, "pcie-switch"},
                                                                               {PathTier::numa, "numa"},
                                                                               {PathTier::cross_socket, "cross-socket"},
                                                                               {PathTier::same_leaf, "same-leaf"},
                                                                               {PathTier::spine, "spine"}}};
};
[[nodiscard]] std::string_view path_tier_name(PathTier tier);  // "nvlink", "pcie-switch", ...

struct Route {
  bool reachable = true;  // false: no path (the cluster is cut)
  PathTier tier = PathTier::same_gpu;
  std::vector<LinkId> links;          // in order from source to destination
  double bottleneck_bytes_per_s = 0;  // nominal bandwidth of the narrowest link (per direction)
  LinkId bottleneck;
  double latency_s = 0;  // sum of the links' latencies
};

class Router {
 public:
  explicit Router(const Cluster& cluster);
  // Across nodes the route leaves and enters through the `nic_slot`-th of each GPU's nearest NICs
  // (modulo their count): a ring channel's NIC, where a GPU has several (nearest_nics).
  [[nodiscard]] Route route(DeviceId from_gpu, DeviceId to_gpu, size_t nic_slot = 0) const;
  // The NIC NCCL would use for a GPU: fewest PCIe hops, without crossing a CPU if possible;
  // ties go to the NIC whose rail (local index) matches the GPU's.
  [[nodiscard]] DeviceId nearest_nic(DeviceId gpu) const;
  // Every NIC as near to the GPU as its nearest (same CPU crossings and PCIe hops): NCCL spreads
  // a GPU's channels over all of them (an AWS p5's four 100 Gb/s EFA NICs under each GPU's switch).
  [[nodiscard]] const std::vector<DeviceId>& nearest_nics(DeviceId gpu) const;
  [[nodiscard]] const Cluster& cluster() const { return cluster_; }

 private:
  enum class Stage { nvlink, pcie_switch, one_cpu, any_cpu };
  bool search(DeviceId from, DeviceId to, Stage stage, std::vector<LinkId>& path) const;
  bool network_path(DeviceId from_nic, DeviceId to_nic, std::vector<LinkId>& path) const;
  // BFS distances over the switch graph from `source` (computed on first use, under the lock: one
  // router serves every thread of a layout search).
  [[nodiscard]] const std::vector<int32_t>& switch_distances(DeviceId source) const;

  const Cluster& cluster_;
  // Per device index (GPUs only): the nearest NIC first (nearest_nic), then the equally near ones.
  std::vector<std::vector<DeviceId>> nearest_nics_;
  std::vector<LinkId> nic_uplink_;  // per device index: the NIC's link into the fabric
  // BFS distances over the switch graph, by source switch (computed on first use, once: the lock
  // guards the map, each entry's once_flag its BFS, so threads route from different switches at once).
  struct SwitchDistances {
    std::once_flag once;
    std::vector<int32_t> dist;
  };
  mutable std::unordered_map<int32_t, std::unique_ptr<SwitchDistances>> switch_distances_;
  std::unique_ptr<std::mutex> switch_distances_lock_ = std::make_unique<std::mutex>();
};

}  // namespace meshscope
