#include "core/topology/link_defaults.hpp"

#include <array>

namespace meshscope {
namespace {

constexpr double kMicrosecond = 1e-6;

// NCCL's own per-hop latencies (NVIDIA/nccl src/graph/tuning.cc, `hwLat`, Ring/LL column, µs):
// NVLink 0.6, PCI 1.0, network 2.7 per GPU-to-GPU step. In a meshscope cluster one such step is
// two links (GPU → NVSwitch → GPU, GPU → PCIe switch → GPU), so switch ports get half of it.
constexpr std::array<LinkLatencyDefault, 14> kLatencyDefaults{{
    {LinkKind::nvlink, LinkEnds::nvswitch_port, 0.3 * kMicrosecond, "GPU to NVSwitch port",
     "half of NCCL's NVLink step (0.6 µs, nccl src/graph/tuning.cc hwLat)"},
    {LinkKind::nvlink, LinkEnds::any, 0.6 * kMicrosecond, "direct NVLink (GPU to GPU, bridge, NVLink-C2C)",
     "NCCL's NVLink step (0.6 µs, nccl src/graph/tuning.cc hwLat)"},
    {LinkKind::pcie, LinkEnds::any, 0.5 * kMicrosecond, "any PCIe link",
     "half of NCCL's PCI step (1.0 µs, nccl src/graph/tuning.cc hwLat): GPU → switch → GPU is two links"},
    {LinkKind::xgmi, LinkEnds::gpu_end, 0.6 * kMicrosecond, "xGMI between GPUs (Infinity Fabric mesh)",
     "assumed equal to a direct NVLink step; no vendor figure found"},
    {LinkKind::xgmi, LinkEnds::any, 0.1 * kMicrosecond, "xGMI between CPU sockets",
     "assumption: a socket-to-socket hop adds ~0.1 µs (remote minus local DRAM latency class)"},
    {LinkKind::upi, LinkEnds::any, 0.1 * kMicrosecond, "UPI between CPU sockets",
     "assumption: a socket-to-socket hop adds ~0.1 µs (remote minus local DRAM latency class)"},
    {LinkKind::infiniband, LinkEnds::switch_to_switch, 0.13 * kMicrosecond, "InfiniBand switch to switch",
     "NVIDIA Quantum HDR switch (QM8700) port-to-port latency, 130 ns"},
    {LinkKind::roce, LinkEnds::switch_to_switch, 0.5 * kMicrosecond, "RoCE switch to switch",
     "assumption: Ethernet cut-through switch hop, 0.3–0.8 µs class"},
    {LinkKind::ethernet, LinkEnds::switch_to_switch, 0.5 * kMicrosecond, "Ethernet switch to switch",
     "assumption: Ethernet cut-through switch hop, 0.3–0.8 µs class"},
    {LinkKind::infiniband, LinkEnds::nic_end, 1.0 * kMicrosecond, "InfiniBand NIC to switch",
     "NIC + cable: NIC → switch → NIC ≈ 2 µs, under NCCL's network step (2.7 µs, nccl tuning.cc hwLat)"},
    {LinkKind::roce, LinkEnds::nic_end, 1.0 * kMicrosecond, "RoCE NIC to switch", "as InfiniBand NIC to switch"},
    {LinkKind::efa, LinkEnds::switch_to_switch, 0.5 * kMicrosecond, "EFA switch to switch",
     "assumption: Ethernet cut-through switch hop, 0.3–0.8 µs class (AWS does not publish its fabric's)"},
    {LinkKind::efa, LinkEnds::nic_end, 10.0 * kMicrosecond, "EFA NIC to switch",
     "half of the 20 µs two-node RDMA latency AWS's NCCL tuner takes for p5 (aws-ofi-nccl "
     "src/tuner/nccl_ofi_model.cpp, net_lat): EFA's SRD transport runs in the Nitro card"},
    {LinkKind::ethernet, LinkEnds::nic_end, 1.0 * kMicrosecond, "Ethernet NIC to switch",
     "as InfiniBand NIC to switch (RDMA-capable NIC; TCP sockets add tens of µs)"},
}};

bool is_fabric_switch(DeviceKind kind) {
  return kind == DeviceKind::leaf_switch || kind == DeviceKind::spine_switch;
}

bool ends_match(LinkEnds ends, DeviceKind a, DeviceKind b) {
  switch (ends) {
    case LinkEnds::any:
      return true;
    case LinkEnds::nvswitch_port:
      return a == DeviceKind::nvswitch || b == DeviceKind::nvswitch;
    case LinkEnds::gpu_end:
      return a == DeviceKind::gpu || b == DeviceKind::gpu;
    case LinkEnds::nic_end:
      return !(is_fabric_switch(a) && is_fabric_switch(b));
    case LinkEnds::switch_to_switch:
      return is_fabric_switch(a) && is_fabric_switch(b);
  }
  return false;
}

}  // namespace

std::span<const LinkLatencyDefault> link_latency_defaults() {
  return kLatencyDefaults;
}

double default_link_latency_s(LinkKind kind, DeviceKind a, DeviceKind b) {
  for (const auto& row : kLatencyDefaults)
    if (row.kind == kind && ends_match(row.ends, a, b)) return row.latency_s;
  return 1.0 * kMicrosecond;  // unreachable for the kinds in the table
}

}  // namespace meshscope
