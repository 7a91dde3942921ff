#include "core/comm/link_load.hpp"

#include <algorithm>
#include <unordered_map>

#include "core/comm/channels.hpp"
#include "core/comm/collective.hpp"

namespace meshscope {
namespace {

// Routes between GPUs, computed once per pair and NIC slot: the channels of a group share most of
// their hops.
class RouteCache {
 public:
  explicit RouteCache(const Router& router) : router_(router) {}
  [[nodiscard]] const Router& router() const { return router_; }
  const Route& operator()(DeviceId from, DeviceId to, size_t nic_slot = 0) {
    const uint64_t key =
        (static_cast<uint64_t>(static_cast<uint32_t>(from.value)) << 32) | static_cast<uint32_t>(to.value);
    std::vector<Route>& slots = routes_[key];
    while (slots.size() <= nic_slot) slots.push_back(router_.route(from, to, slots.size()));
    return slots[nic_slot];
  }

 private:
  const Router& router_;
  std::unordered_map<uint64_t, std::vector<Route>> routes_;
};

std::vector<RingChannel> channels_of(RouteCache& route, const Cluster& c, const std::vector<DeviceId>& ring) {
  // The group's GPUs per node, nodes and GPUs in ring order.
  std::vector<int32_t> nodes;
  std::unordered_map<int32_t, std::vector<DeviceId>> local;
  for (const DeviceId d : ring) {
    auto& gpus = local[c.device(d).node];
    if (gpus.empty()) nodes.push_back(c.device(d).node);
    gpus.push_back(d);
  }
  if (ring.size() < 2) return {};
  // Nodes whose GPUs of the group form a mesh run the channel search's rings there, the same
  // rings the collective model times (group_bandwidth), at the default link efficiencies.
  const CommConstants defaults = CommConstants::defaults();
  std::unordered_map<int32_t, ChannelPlan> mesh;
  for (const int32_t node : nodes) {
    const std::vector<DeviceId>& gpus = local[node];
    if (!has_direct_mesh(c, gpus)) continue;
    ChannelPlan plan = search_channels(route.router(), gpus, [&](LinkId l, int) {
      return c.link(l).bandwidth_bytes_per_s * defaults.efficiency(c.link(l));
    });
    if (!plan.empty()) mesh.emplace(node, std::move(plan));
  }
  if (nodes.size() == 1 && !mesh.empty()) {
    const ChannelPlan& plan = mesh.begin()->second;
    std::vector<RingChannel> result;
    for (const ChannelRing& r : plan.rings) {
      RingChannel channel;
      channel.senders = r.order;
      channel.routes = r.routes;
      channel.share = r.bandwidth / plan.bandwidth;
      result.push_back(std::move(channel));
    }
    return result;
  }
  if (nodes.size() == 1) {
    RingChannel single;
    for (size_t i = 0; i < ring.size(); ++i) {
      single.senders.push_back(ring[i]);
      single.routes.push_back(route(ring[i], ring[(i + 1) % ring.size()]));
    }
    return {single};
  }
  // One channel per NIC the node's GPUs reach first (nearest_nics): a DGX H100 GPU has one, an AWS
  // p5 GPU four, so a group of one GPU per p5 node runs four channels, one on each of its NICs.
  size_t channels = 0;
  for (const auto& entry : local) {
    size_t nics = 0;
    for (const DeviceId gpu : entry.second) nics += std::max<size_t>(1, route.router().nearest_nics(gpu).size());
    channels = std::max(channels, nics);
  }
  std::vector<RingChannel> result(channels);
  for (size_t channel = 0; channel < channels; ++channel) {
    RingChannel& out = result[channel];
    out.share = 1.0 / static_cast<double>(channels);
    // NCCL's ring search (NVIDIA/nccl src/graph/search.cc, ncclTopoCompute) gives each channel one
    // NET, the same for the way in and the way out unless NCCL_CROSS_NIC=1, and spreads the
    // channels over the NICs; on a rail-optimised fabric the rings stay on one rail. Every node
    // is entered at the group's GPU on the channel's rail (or, in a node without one, at its
    // channel-th GPU), which is also where the channel leaves it.
    const std::vector<DeviceId>& first = local[nodes.front()];
    const int32_t rail = c.device(first[channel % first.size()]).local_index;
    std::vector<size_t> entry(nodes.size());
    for (size_t n = 0; n < nodes.size(); ++n) {
      const std::vector<DeviceId>& gpus = local[nodes[n]];
      const auto on_rail =
          std::find_if(gpus.begin(), gpus.end(), [&](DeviceId d) { return c.device(d).local_index == rail; });
      entry[n] = on_rail != gpus.end() ? static_cast<size_t>(on_rail - gpus.begin()) : channel % gpus.size();
    }
    for (size_t n = 0; n < nodes.size(); ++n) {
      const std::vector<DeviceId>& gpus = local[nodes[n]];
      const DeviceId in = gpus[entry[n]];
      // The node's GPUs from `in` on: in rank order, or along one of the mesh's rings.
      std::vector<DeviceId> visit(gpus.size());
      const auto plan = mesh.find(nodes[n]);
      const std::vector<DeviceId>& order =
          plan != mesh.end() ? plan->second.rings[channel % plan->second.rings.size()].order : gpus;
      const size_t start = static_cast<size_t>(std::find(order.begin(), order.end(), in) - order.begin());
      for (size_t step = 0; step < order.size(); ++step) visit[step] = order[(start + step) % order.size()];
      DeviceId at = in;
      for (size_t step = 1; step < visit.size(); ++step) {
        const DeviceId next = visit[step];
        out.senders.push_back(at);
        out.routes.push_back(route(at, next));
        at = next;
      }
      // PXN (NCCL ≥ 2.12; NCCL_PXN_DISABLE "disable inter-node communication using a non-local
      // NIC, using NVLink and an intermediate GPU"): the node's last GPU hands the data over
      // NVLink to the GPU next to the channel's NIC, which sends it to the next node.
      if (at != in) {
        out.senders.push_back(at);
        out.routes.push_back(route(at, in));
      }
      const std::vector<DeviceId>& next_gpus = local[nodes[(n + 1) % nodes.size()]];
      out.senders.push_back(in);
      out.routes.push_back(route(in, next_gpus[entry[(n + 1) % nodes.size()]], channel / first.size()));
    }
  }
  return result;
}

}  // namespace

std::vector<std::vector<int32_t>> dp_cp_groups(const Layout& l, AxisOrder order) {
  std::vector<std::vector<int32_t>> groups;
  for (int64_t pp = 0; pp < l.pp; ++pp)
    for (int64_t tp = 0; tp < l.tp; ++tp) {
      std::vector<int32_t> g;
      for (int64_t dp = 0; dp < l.dp; ++dp)
        for (int64_t cp = 0; cp < l.cp; ++cp) g.push_back(static_cast<int32_t>(mesh_rank(l, order, tp, cp, dp, pp)));
      groups.push_back(std::move(g));
    }
  return groups;
}

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

std::vector<RingChannel> ring_channels(const Router& router, const std::vector<DeviceId>& ring) {
  RouteCache cache(router);
  return channels_of(cache, router.cluster(), ring);
}

AxisLinkTraffic axis_link_traffic(const AxisComm& axis, const Router& router,
                                  const std::vector<std::vector<DeviceId>>& groups) {
  const Cluster& c = router.cluster();
  // Per link direction (2·link + direction, a→b: 0): ring edges' worth of bytes, and channels.
  std::vector<double> edges(2 * c.links.size(), 0.0);
  std::vector<int32_t> flows(2 * c.links.size(), 0);
  RouteCache cache(router);
  for (const auto& group : groups)
    for (const RingChannel& channel : channels_of(cache, c, group))
      for (size_t hop = 0; hop < channel.routes.size(); ++hop) {
        DeviceId at = channel.senders[hop];
        for (const LinkId l : channel.routes[hop].links) {
          const size_t slot = 2 * l.index() + (c.link(l).a == at ? 0 : 1);
          edges[slot] += channel.share;
          flows[slot] += 1;
          at = c.other_end(l, at);
        }
      }
  double edge_bytes = 0;  // bytes per step one whole ring edge carries
  for (const PlannedCollective& call : axis.collectives)
    edge_bytes += ring_edge_bytes_share(call.op, axis.group_size) * call.bytes_per_step();
  AxisLinkTraffic out;
  out.axis = axis.axis;
  if (edge_bytes <= 0) return out;
  for (size_t link = 0; link < c.links.size(); ++link) {
    if (edges[2 * link] <= 0 && edges[2 * link + 1] <= 0) continue;
    LinkTraffic t;
    t.link = LinkId{static_cast<int32_t>(link)};
    for (size_t d = 0; d < 2; ++d) {
      t.bytes_per_step[d] = edges[2 * link + d] * edge_bytes;
      t.flows[d] = flows[2 * link + d];
    }
    out.links.push_back(t);
  }
  return out;
}

std::vector<AxisLinkTraffic> link_traffic_per_axis(const CommPlan& plan, const Layout& layout,
                                                   const Cluster& /*cluster: the router's*/, const Router& router,
                                                   const Placement& placement) {
  std::vector<AxisLinkTraffic> result;
  for (const AxisComm& axis : plan.axes) {
    std::vector<std::vector<int32_t>> groups;
    if (axis.axis == MeshAxis::dp)
      groups = dp_cp_groups(layout, placement.order);
    else if (const AxisGroups* g = placement.axis(axis.axis))
      groups = g->groups;
    std::vector<std::vector<DeviceId>> gpus;
    gpus.reserve(groups.size());
    for (const auto& ranks : groups) gpus.push_back(placement.gpus_of(ranks));
    result.push_back(axis_link_traffic(axis, router, gpus));
  }
  return result;
}

}  // namespace meshscope
