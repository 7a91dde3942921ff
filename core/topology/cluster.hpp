#pragma once
// The cluster a user draws: devices (GPUs, CPU sockets/NUMA domains, PCIe switches, NVSwitch
// fabrics, NICs, leaf and spine switches) and links (NVLink, PCIe, xGMI, UPI, InfiniBand, RoCE,
// Ethernet) with bandwidth per direction and latency, grouped into nodes (hosts) and racks.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/base/enum_names.hpp"
#include "core/base/result.hpp"

namespace meshscope {

// A strong index into one of the cluster's vectors (heaptrack's Index<Tag>): a DeviceId cannot be
// passed where a LinkId is expected.
template <typename Tag>
struct Index {
  int32_t value = -1;
  [[nodiscard]] bool valid() const { return value >= 0; }
  [[nodiscard]] size_t index() const { return static_cast<size_t>(value); }
  friend bool operator==(Index a, Index b) { return a.value == b.value; }
  friend bool operator!=(Index a, Index b) { return a.value != b.value; }
  friend bool operator<(Index a, Index b) { return a.value < b.value; }
};
using DeviceId = Index<struct DeviceTag>;
using LinkId = Index<struct LinkTag>;

enum class DeviceKind { gpu, cpu, pcie_switch, nvswitch, nic, leaf_switch, spine_switch };

template <>
struct EnumNames<DeviceKind> {
  static constexpr std::array<std::pair<DeviceKind, std::string_view>, 7> table{
      {{DeviceKind::gpu, "gpu"},
       {DeviceKind::cpu, "cpu"},
       {DeviceKind::pcie_switch, "pcie-switch"},
       {DeviceKind::nvswitch, "nvswitch"},
       {DeviceKind::nic, "nic"},
       {DeviceKind::leaf_switch, "leaf-switch"},
       {DeviceKind::spine_switch, "spine-switch"}}};
};
enum class LinkKind { nvlink, pcie, xgmi, upi, infiniband, roce, ethernet, efa };

template <>
struct EnumNames<LinkKind> {
  static constexpr std::array<std::pair<LinkKind, std::string_view>, 8> table{{{LinkKind::nvlink, "nvlink"},
                                                                               {LinkKind::pcie, "pcie"},
                                                                               {LinkKind::xgmi, "xgmi"},
                                                                               {LinkKind::upi, "upi"},
                                                                               {LinkKind::infiniband, "infiniband"},
                                                                               {LinkKind::roce, "roce"},
                                                                               {LinkKind::ethernet, "ethernet"},
                                                                               {LinkKind::efa, "efa"}}};
};

[[nodiscard]] std::string_view device_kind_name(DeviceKind kind);  // "gpu", "cpu", "pcie-switch", ...
[[nodiscard]] std::string_view link_kind_name(LinkKind kind);      // "nvlink", "pcie", ...
[[nodiscard]] bool parse_device_kind(std::string_view name, DeviceKind& kind);
[[nodiscard]] bool parse_link_kind(std::string_view name, LinkKind& kind);
[[nodiscard]] bool is_network_link(LinkKind kind);  // infiniband, roce, ethernet

struct Device {
  std::string id;  // unique in the cluster, e.g. "n3.gpu5"
  DeviceKind kind = DeviceKind::gpu;
  std::string name;   // shown in the editor; defaults to the id
  int32_t node = -1;  // host index (-1: outside hosts, e.g. fabric switches)
  int32_t rack = -1;
  int32_t numa = -1;         // NUMA domain within the node (CPU: its own; GPU/NIC: where attached)
  int32_t local_index = -1;  // index of a GPU or NIC within its node (NCCL's device / rail order)
  std::string gpu_model;     // catalogue id, GPUs only ("h100-sxm")
  int32_t chips = 1;         // NVSwitch fabric: switch chips it stands for
  bool operator==(const Device&) const = default;
};

struct Link {
  std::string id;
  DeviceId a, b;
  LinkKind kind = LinkKind::pcie;
  double bandwidth_bytes_per_s = 0;  // per direction
  double latency_s = 0;              // one hop
  // Specification the bandwidth came from (0 when given directly).
  int32_t nvlink_generation = 0, nvlink_count = 0;
  int32_t pcie_generation = 0, pcie_lanes = 0;
  double gbits_per_s = 0;  // network links: line rate
  bool operator==(const Link&) const = default;
};

struct Cluster {
  std::string name;
  std::string generator;  // the generator string that produced it, if any
  std::vector<Device> devices;
  std::vector<Link> links;
  std::vector<std::string> node_names;  // node index → host name
  std::vector<std::string> rack_names;

  // Derived by index(): GPUs in rank order (node, then local index), adjacency, id lookup.
  std::vector<DeviceId> gpus;
  std::vector<int32_t> adjacency_offsets;  // CSR: links of device d are adjacency[offsets[d]..offsets[d+1])
  std::vector<LinkId> adjacency;
  std::unordered_map<std::string, DeviceId> by_id;

  [[nodiscard]] const Device& device(DeviceId id) const { return devices[id.index()]; }
  [[nodiscard]] const Link& link(LinkId id) const { return links[id.index()]; }
  [[nodiscard]] DeviceId other_end(LinkId link_id, DeviceId from) const {
    const Link& l = link(link_id);
    return l.a == from ? l.b : l.a;
  }
  template <typename F>
  void for_each_link(DeviceId d, F&& f) const {
    for (int32_t i = adjacency_offsets[d.index()]; i < adjacency_offsets[d.index() + 1]; ++i)
      f(adjacency[static_cast<size_t>(i)]);
  }
  [[nodiscard]] int64_t num_nodes() const { return static_cast<int64_t>(node_names.size()); }
  [[nodiscard]] int64_t num_gpus() const { return static_cast<int64_t>(gpus.size()); }
  bool operator==(const Cluster&) const = default;
};

// One problem with a cluster, naming the device or link by id.
struct ClusterProblem {
  std::string id;  // device or link id ("" for whole-cluster problems)
  std::string message;
};

// Builds the derived fields (GPU order, adjacency, id lookup) and checks the cluster: duplicate
// ids, dangling link endpoints, zero/negative bandwidth or negative latency, links from a device
// to itself, GPUs with no path to each other. Returns every problem found.
[[nodiscard]] std::vector<ClusterProblem> index_cluster(Cluster& cluster);

// The name of the CPU in the node of the cluster's first GPU (the host that issues its kernels);
// empty when that node has no CPU drawn.
[[nodiscard]] std::string host_cpu_name(const Cluster& cluster);

// Bandwidth per direction from a link specification.
//   NVLink: 25 GB/s per link per direction for generations 2–4 (V100 6 links = 150 GB/s,
//   A100 12 = 300, H100 18 = 450 per direction) and 50 GB/s for generation 5 (B200 18 = 900)
//   — NVIDIA V100/A100/H100/B200 datasheets (300/600/900/1800 GB/s total bidirectional).
//   PCIe: per lane per direction after 128b/130b encoding, gen3 0.985, gen4 1.969, gen5 3.938,
//   gen6 7.877 GB/s (PCI-SIG) — x16 gen4 = 31.5 GB/s, gen5 = 63 GB/s.
//   Network: line rate in Gb/s ÷ 8.
[[nodiscard]] double nvlink_bandwidth(int32_t generation, int32_t links);
[[nodiscard]] double pcie_bandwidth(int32_t generation, int32_t lanes);
[[nodiscard]] double network_bandwidth(double gbits_per_s);

}  // namespace meshscope
