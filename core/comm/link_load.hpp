#pragma once
// Link traffic of one mesh axis at a time. CommPlan::links sums every axis; the communication map
// shows one axis (TP, DP, ...) on the drawn topology, so it needs the share of each.
//
// A group's ring is laid out the way NCCL lays out its channels: a group inside one node is one
// ring; a group that spans nodes with k GPUs in a node runs k rings (channels), each leaving and
// entering every node through a different GPU's NIC, on one rail, and each carrying 1/k of the
// bytes. That is the bandwidth the collective model (core/comm/collective.cpp) times the
// collective at, so the bytes on every link stay within what its time allows.
#include <cstdint>
#include <vector>

#include "core/comm/comm_plan.hpp"
#include "core/topology/cluster.hpp"
#include "core/topology/placement.hpp"
#include "core/topology/routing.hpp"
#include "core/workload/layout.hpp"

namespace meshscope {

struct AxisLinkTraffic {
  MeshAxis axis = MeshAxis::tp;
  std::vector<LinkTraffic> links;  // links that carry this axis's traffic, by link index
};

// For every axis of `plan` (in its order): the bytes each link carries per step in each direction
// when all groups of the axis run their ring collectives, and the concurrent ring flows (one per
// channel). Groups are those plan_communication times; the DP axis reduces over DP × CP ranks as
// Megatron does. Summing the axes gives CommPlan::links.
// `cluster`, `router`, `placement` and `layout` must be the ones the plan was made from.
[[nodiscard]] std::vector<AxisLinkTraffic> link_traffic_per_axis(const CommPlan& plan, const Layout& layout,
                                                                 const Cluster& cluster, const Router& router,
                                                                 const Placement& placement);

// The link traffic of one axis whose groups (GPUs in ring order) all run `axis.collectives`.
[[nodiscard]] AxisLinkTraffic axis_link_traffic(const AxisComm& axis, const Router& router,
                                                const std::vector<std::vector<DeviceId>>& groups);

// One ring of a group, as one NCCL channel runs it: hop i goes from senders[i] over routes[i];
// the channel carries `share` of every ring edge's bytes.
struct RingChannel {
  std::vector<DeviceId> senders;
  std::vector<Route> routes;
  double share = 1;
};

// The channels of a group's ring (GPUs in rank order). Inside one node: one ring in the given
// order, or, where the group's GPUs are joined by direct links (an xGMI or NVLink mesh), the
// channel search's rings (core/comm/channels.hpp), each with its share of the bytes. Across nodes: one channel per
// GPU of the largest node share k; channel c enters and leaves each node through the NIC of the group's GPU on c's rail
// (NCCL_CROSS_NIC=0: the same NIC in and out, rail to rail), visiting the node's other GPUs over NVLink in between, the
// last one handing its data to that GPU over NVLink (PXN); on a mesh node it follows channel c's ring of the search
// from there. Each carries 1/k of the bytes.
[[nodiscard]] std::vector<RingChannel> ring_channels(const Router& router, const std::vector<DeviceId>& ring);

// Ranks that differ only in the DP and CP coordinates: Megatron reduces gradients over the
// "data parallel group with context parallel" (megatron/core/parallel_state.py). Ranks as
// place_layout numbers them under `order` (mesh_rank).
[[nodiscard]] std::vector<std::vector<int32_t>> dp_cp_groups(const Layout& layout, AxisOrder order);

// Bytes one ring edge carries per call, as a multiple of the call's nccl-tests size S, for a ring
// of n ranks (NCCL ring algorithm, docs/PERFORMANCE.md of nccl-tests): all-reduce 2(n−1)/n·S
// (reduce-scatter then all-gather), all-gather and reduce-scatter (n−1)/n·S, all-to-all (n−1)/n·S
// (each rank sends all but its own share); point-to-point S.
[[nodiscard]] double ring_edge_bytes_share(CollectiveOp op, int64_t ranks);

}  // namespace meshscope
