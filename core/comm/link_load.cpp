#include "core/comm/link_load.hpp"

#include <algorithm>

#include "core/topology/collective.hpp"

namespace meshscope {
namespace {

// Ranks that differ only in the DP and CP coordinates: Megatron reduces gradients over the
// "data parallel group with context parallel" (megatron/core/parallel_state.py). Rank order as in
// plan_communication: TP fastest, then CP, DP, PP.
std::vector<std::vector<int32_t>> dp_cp_groups(const Layout& l) {
  std::vector<std::vector<int32_t>> groups;
  for (int64_t pp = 0; pp < l.pp; ++pp)
    for (int64_t tp = 0; tp < l.tp; ++tp) {
      std::vector<int32_t> g;
      for (int64_t dp = 0; dp < l.dp; ++dp)
        for (int64_t cp = 0; cp < l.cp; ++cp)
          g.push_back(static_cast<int32_t>(tp + l.tp * (cp + l.cp * (dp + l.dp * pp))));
      groups.push_back(std::move(g));
    }
  return groups;
}

}  // namespace

double ring_edge_bytes_share(CollectiveOp op, int64_t ranks) {
  const auto n = static_cast<double>(std::max<int64_t>(ranks, 1));
  switch (op) {
    case CollectiveOp::all_reduce:
      return 2.0 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all:
      return (n - 1) / n;
    default:
      return 1.0;
  }
}

std::vector<AxisLinkTraffic> link_traffic_per_axis(const CommPlan& plan, const Layout& layout, const Cluster& cluster,
                                                   const Router& router, const Placement& placement) {
  std::vector<AxisLinkTraffic> result;
  for (const AxisComm& axis : plan.axes) {
    std::vector<std::vector<int32_t>> groups;
    if (axis.axis == MeshAxis::dp)
      groups = dp_cp_groups(layout);
    else if (const AxisGroups* g = placement.axis(axis.axis))
      groups = g->groups;
    LinkLoad load(cluster.links.size());
    for (const auto& ranks : groups) add_ring_flows(cluster, group_paths(router, placement.gpus_of(ranks)), load);
    std::vector<double> traffic(load.flows.size(), 0.0);
    for (const PlannedCollective& c : axis.collectives) {
      const double share = ring_edge_bytes_share(c.op, axis.group_size) * c.bytes_per_step();
      for (size_t i = 0; i < load.flows.size(); ++i)
        if (load.flows[i] > 0) traffic[i] += share * load.flows[i];
    }
    AxisLinkTraffic out;
    out.axis = axis.axis;
    for (size_t link = 0; link < cluster.links.size(); ++link) {
      if (traffic[2 * link] <= 0 && traffic[2 * link + 1] <= 0) continue;
      LinkTraffic t;
      t.link = LinkId{static_cast<int32_t>(link)};
      t.bytes_per_step[0] = traffic[2 * link];
      t.bytes_per_step[1] = traffic[2 * link + 1];
      t.flows[0] = load.flows[2 * link];
      t.flows[1] = load.flows[2 * link + 1];
      out.links.push_back(t);
    }
    result.push_back(std::move(out));
  }
  return result;
}

}  // namespace meshscope
