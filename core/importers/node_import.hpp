#pragma once
// What the node-topology importers (nvidia_smi_topo, rocm_smi_topo, hwloc_xml, nccl_topo_xml, node_topology)
// share: the options, the result with its warnings, and the builder that turns what a format says
// about one host into cluster devices and links (docs/import-topology.md gives the mapping rules).
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/base/enum_names.hpp"
#include "core/base/result.hpp"
#include "core/topology/cluster.hpp"

namespace meshscope {

enum class NodeTopologyFormat { unknown, nvidia_smi_topo, rocm_smi_topo, hwloc_xml, nccl_topo_xml, nccl_graph_xml };

template <>
struct EnumNames<NodeTopologyFormat> {
  static constexpr std::array<std::pair<NodeTopologyFormat, std::string_view>, 6> table{
      {{NodeTopologyFormat::unknown, "unknown"},
       {NodeTopologyFormat::nvidia_smi_topo, "nvidia-smi topo -m"},
       {NodeTopologyFormat::rocm_smi_topo, "rocm-smi --showtopo"},
       {NodeTopologyFormat::hwloc_xml, "hwloc XML"},
       {NodeTopologyFormat::nccl_topo_xml, "NCCL topology XML"},
       {NodeTopologyFormat::nccl_graph_xml, "NCCL graph XML"}}};
};
[[nodiscard]] std::string_view node_topology_format_name(NodeTopologyFormat format);

// How NVLink peers become links. automatic: an NVSwitch fabric when some GPU's NVLink counts to its
// peers add up to more than 18 (the most NVLinks any NVIDIA GPU has, H100/B200), since only switches
// can give that; direct GPU–GPU links otherwise.
enum class NvlinkModel { automatic, direct, nvswitch };

struct NodeImportOptions {
  std::string gpu_model;          // catalogue id given to every GPU ("a100-80gb-sxm"); empty: none
  int32_t nvlink_generation = 0;  // 0: from gpu_model or the file (SM, GPU name), else 3
  NvlinkModel nvlink = NvlinkModel::automatic;
  int32_t pcie_generation = 0;  // PCIe links the file gives no speed for; 0: from gpu_model, else 4
  // Replication (import_node_topology): nodes > 1 copies the node onto a rail-optimised fabric.
  int64_t nodes = 1;
  double nic_gbps = 0;  // NIC line rate; 0: from the file (NCCL net speed), else 200
  LinkKind nic_kind = LinkKind::infiniband;
  double oversubscription = 1;
  int32_t nodes_per_leaf = 32;
};

// Something the importer read but could not use as is; data for the caller, never printed here.
struct ImportWarning {
  std::string location;  // "file:12" or "file: <pci busid=...>"
  std::string message;
};

struct NodeImport {
  Cluster cluster;  // indexed (index_cluster() found no problems)
  NodeTopologyFormat format = NodeTopologyFormat::unknown;
  std::vector<ImportWarning> warnings;
};

namespace node_import {

// NVLink per link per direction; generation 1 (P100) is 20 GB/s, 2–4 25 GB/s, 5 50 GB/s.
[[nodiscard]] double nvlink_link_bytes_per_s(int32_t generation);
// A guess from a catalogue id or a device name ("Tesla P100-SXM2-16GB", "a100-80gb-sxm"): 0 if none.
[[nodiscard]] int32_t nvlink_generation_of(std::string_view gpu_name);
[[nodiscard]] int32_t pcie_generation_of(std::string_view gpu_name);
// Text copied from a terminal, an issue or a chat, made plain: ANSI escape sequences (ESC [ ... m
// and other CSI/OSC sequences, their caret form ^[[4m, and SGR codes whose ESC byte was lost on
// the way, [4m), a UTF-8 byte-order mark and no-break spaces (as spaces) are removed. Line breaks
// are kept, so line numbers still point into the pasted text.
[[nodiscard]] std::string clean_pasted_text(std::string_view text);
// Splits text into lines (without "\n" or a trailing "\r"); the views point into `text`.
[[nodiscard]] std::vector<std::string_view> split_lines(std::string_view text);
// Whitespace-separated tokens (spaces and tabs) of one line.
[[nodiscard]] std::vector<std::string_view> tokens_of(std::string_view line);
// 1-based line number of byte `offset` in `text`.
[[nodiscard]] int64_t line_of(std::string_view text, size_t offset);
// The parse error for an XML document that pugixml rejected: its description at "origin:line".
[[nodiscard]] tl::unexpected<Error> xml_syntax_error(std::string_view text, const std::string& origin,
                                                     const char* description, std::ptrdiff_t offset);

// Disjoint sets of device indices (path halving): the NUMA domains and sockets the text-format
// importers group devices into.
struct UnionFind {
  std::vector<size_t> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), size_t{0}); }
  size_t find(size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(size_t a, size_t b) { parent[find(a)] = find(b); }
};

struct NvlinkPair {
  int32_t a = 0, b = 0;  // the GPUs' local indices
  int32_t count = 0;     // links (0: give bytes_per_s)
  double bytes_per_s = 0;
};

// Builds one host ("n0.") with ids like the generators': n0.gpu3, n0.nic1, n0.cpu0, n0.pcie2, n0.nvsw.
class NodeBuilder {
 public:
  NodeBuilder(const NodeImportOptions& options, std::string origin);

  DeviceId cpu(int32_t numa, std::string name, bool amd);
  DeviceId pcie_switch(int32_t numa, std::string name);
  DeviceId gpu(int32_t local_index, int32_t numa, std::string name);
  DeviceId nic(int32_t local_index, int32_t numa, std::string name);

  // A PCIe link; generation 0 takes the default; bytes_per_s > 0 gives the bandwidth instead (the
  // generation and lanes are kept when some x1..x16 Gen1..6 link has that bandwidth, within 1%).
  void pcie(DeviceId a, DeviceId b, int32_t generation, int32_t lanes, double bytes_per_s = 0);
  void nvlink(DeviceId a, DeviceId b, int32_t generation, int32_t count, double bytes_per_s = 0);
  // An xGMI (AMD Infinity Fabric) link between two GPUs, bytes_per_s per direction.
  void xgmi(DeviceId a, DeviceId b, double bytes_per_s);
  // NVLink between GPUs, direct or through one NVSwitch fabric device (see NvlinkModel); returns
  // true when a fabric was built.
  bool nvlink_peers(const std::vector<NvlinkPair>& pairs, int32_t generation);
  // One NVSwitch fabric device (n0.nvsw) with `count` links from each GPU (by local index).
  DeviceId nvswitch_fabric(const std::map<int32_t, int32_t>& links_per_gpu, int32_t generation);
  // Every CPU to every other: xGMI at 144 GB/s per direction when any CPU is AMD, else UPI at
  // 62.4 GB/s (docs/import-topology.md gives the sources).
  void join_cpus();

  [[nodiscard]] DeviceId cpu_of_numa(int32_t numa) const;  // the first CPU when none has that NUMA
  [[nodiscard]] const std::vector<DeviceId>& gpus() const { return gpus_; }
  [[nodiscard]] const std::vector<DeviceId>& nics() const { return nics_; }
  [[nodiscard]] const std::vector<DeviceId>& cpus() const { return cpus_; }
  [[nodiscard]] Cluster& cluster() { return c_; }
  [[nodiscard]] int32_t nvlink_generation(int32_t from_file) const;

  void warn(std::string location, std::string message);

  // Checks for GPUs, attaches anything with no path to a CPU by PCIe (root complex), indexes and
  // returns the node; `name` names the cluster.
  Result<NodeImport> finish(NodeTopologyFormat format, std::string name);

 private:
  DeviceId add(std::string id, DeviceKind kind, std::string name, int32_t numa, int32_t local_index);
  Link& link(DeviceId a, DeviceId b, LinkKind kind, double bytes_per_s);

  NodeImportOptions options_;
  std::string origin_;
  Cluster c_;
  std::vector<DeviceId> gpus_, nics_, cpus_;
  int32_t switches_ = 0;
  bool amd_ = false;
  int32_t pcie_generation_ = 4;
  std::unordered_set<std::string> link_ids_;
  std::vector<ImportWarning> warnings_;
};

}  // namespace node_import
}  // namespace meshscope
