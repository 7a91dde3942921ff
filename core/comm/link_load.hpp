#pragma once
// Link traffic of one mesh axis at a time. CommPlan::links sums every axis; the communication map
// shows one axis (TP, DP, ...) on the drawn topology, so it needs the share of each.
#include <vector>

#include "core/comm/comm_plan.hpp"
#include "core/layout.hpp"
#include "core/topology/cluster.hpp"
#include "core/topology/placement.hpp"
#include "core/topology/routing.hpp"

namespace meshscope {

struct AxisLinkTraffic {
  MeshAxis axis = MeshAxis::tp;
  std::vector<LinkTraffic> links;  // links that carry this axis's traffic, by link index
};

// For every axis of `plan` (in its order): the bytes each link carries per step in each direction
// when all groups of the axis run their ring collectives, and the concurrent ring flows. Groups
// are routed exactly as plan_communication routes them (group_paths, add_ring_flows); the DP axis
// reduces over DP × CP ranks as Megatron does. Summing the axes gives CommPlan::links.
// `cluster`, `router`, `placement` and `layout` must be the ones the plan was made from.
[[nodiscard]] std::vector<AxisLinkTraffic> link_traffic_per_axis(const CommPlan& plan, const Layout& layout,
                                                                 const Cluster& cluster, const Router& router,
                                                                 const Placement& placement);

// Bytes one ring edge carries per call, as a multiple of the call's nccl-tests size S, for a ring
// of n ranks (NCCL ring algorithm, docs/PERFORMANCE.md of nccl-tests): all-reduce 2(n−1)/n·S
// (reduce-scatter then all-gather), all-gather and reduce-scatter (n−1)/n·S, all-to-all (n−1)/n·S
// (each rank sends all but its own share); point-to-point S.
[[nodiscard]] double ring_edge_bytes_share(CollectiveOp op, int64_t ranks);

}  // namespace meshscope
