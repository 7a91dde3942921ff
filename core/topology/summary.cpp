#include "core/topology/summary.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <numeric>
#include <unordered_set>

namespace meshscope {
namespace {

// Dinic's max-flow over a directed graph with two arcs per link (one per direction).
class MaxFlow {
 public:
  explicit MaxFlow(size_t nodes) : head_(nodes, -1), level_(nodes), next_arc_(nodes) {}

  void add_edge(int32_t u, int32_t v, double capacity_uv, double capacity_vu) {
    arcs_.push_back({v, head_[static_cast<size_t>(u)], capacity_uv});
    head_[static_cast<size_t>(u)] = static_cast<int32_t>(arcs_.size() - 1);
    arcs_.push_back({u, head_[static_cast<size_t>(v)], capacity_vu});
    head_[static_cast<size_t>(v)] = static_cast<int32_t>(arcs_.size() - 1);
  }

  double run(int32_t source, int32_t sink) {
    double flow = 0;
    while (bfs(source, sink)) {
      std::copy(head_.begin(), head_.end(), next_arc_.begin());
      while (true) {
        const double pushed = dfs(source, sink, std::numeric_limits<double>::infinity());
        if (pushed <= 0) break;
        flow += pushed;
      }
    }
    return flow;
  }

 private:
  struct Arc {
    int32_t to;
    int32_t next;
    double capacity;
  };

  bool bfs(int32_t source, int32_t sink) {
    std::fill(level_.begin(), level_.end(), -1);
    level_[static_cast<size_t>(source)] = 0;
    std::deque<int32_t> queue{source};
    while (!queue.empty()) {
      const int32_t u = queue.front();
      queue.pop_front();
      for (int32_t a = head_[static_cast<size_t>(u)]; a >= 0; a = arcs_[static_cast<size_t>(a)].next) {
        const Arc& arc = arcs_[static_cast<size_t>(a)];
        if (arc.capacity > kEpsilon && level_[static_cast<size_t>(arc.to)] < 0) {
          level_[static_cast<size_t>(arc.to)] = level_[static_cast<size_t>(u)] + 1;
          queue.push_back(arc.to);
        }
      }
    }
    return level_[static_cast<size_t>(sink)] >= 0;
  }

  // Iterative-depth DFS is bounded by the BFS levels (a few hops here), so recursion is shallow.
  double dfs(int32_t u, int32_t sink, double limit) {
    if (u == sink) return limit;
    for (int32_t& a = next_arc_[static_cast<size_t>(u)]; a >= 0; a = arcs_[static_cast<size_t>(a)].next) {
      Arc& arc = arcs_[static_cast<size_t>(a)];
      if (arc.capacity <= kEpsilon || level_[static_cast<size_t>(arc.to)] != level_[static_cast<size_t>(u)] + 1)
        continue;
      const double pushed = dfs(arc.to, sink, std::min(limit, arc.capacity));
      if (pushed > 0) {
        arc.capacity -= pushed;
        arcs_[static_cast<size_t>(a ^ 1)].capacity += pushed;
        return pushed;
      }
    }
    return 0;
  }

  static constexpr double kEpsilon = 1e-3;  // bytes/s
  std::vector<int32_t> head_;
  std::vector<Arc> arcs_;
  std::vector<int32_t> level_;
  std::vector<int32_t> next_arc_;
};

}  // namespace

double max_flow_bytes_per_s(const Cluster& c, const std::vector<DeviceId>& from, const std::vector<DeviceId>& to) {
  const auto devices = static_cast<int32_t>(c.devices.size());
  MaxFlow flow(static_cast<size_t>(devices) + 2);
  const int32_t source = devices, sink = devices + 1;
  for (const Link& l : c.links) {
    if (!l.a.valid() || !l.b.valid()) continue;
    flow.add_edge(l.a.value, l.b.value, l.bandwidth_bytes_per_s, l.bandwidth_bytes_per_s);
  }
  const double unlimited = 1e30;
  for (const DeviceId d : from) flow.add_edge(source, d.value, unlimited, 0);
  for (const DeviceId d : to) flow.add_edge(d.value, sink, unlimited, 0);
  return flow.run(source, sink);
}

ClusterSummary summarize_cluster(const Cluster& c) {
  ClusterSummary s;
  s.gpus = c.num_gpus();
  s.nodes = c.num_nodes();
  s.racks = static_cast<int64_t>(c.rack_names.size());
  for (const Device& d : c.devices) {
    switch (d.kind) {
      case DeviceKind::pcie_switch:
        ++s.pcie_switches;
        break;
      case DeviceKind::cpu:
        ++s.numa_domains;
        break;
      case DeviceKind::nic:
        ++s.nics;
        break;
      case DeviceKind::leaf_switch:
        ++s.leaf_switches;
        break;
      case DeviceKind::spine_switch:
        ++s.spine_switches;
        break;
      default:
        break;
    }
  }
  // NVLink domains: union-find over GPU–GPU and GPU–NVSwitch NVLink/xGMI links.
  std::vector<int32_t> parent(c.devices.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int32_t x) {
    while (parent[static_cast<size_t>(x)] != x)
      x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    return x;
  };
  for (const Link& l : c.links) {
    if (l.kind != LinkKind::nvlink && l.kind != LinkKind::xgmi) continue;
    const DeviceKind ka = c.device(l.a).kind, kb = c.device(l.b).kind;
    const bool gpu_fabric =
        (ka == DeviceKind::gpu || ka == DeviceKind::nvswitch) && (kb == DeviceKind::gpu || kb == DeviceKind::nvswitch);
    if (gpu_fabric) parent[static_cast<size_t>(find(l.a.value))] = find(l.b.value);
  }
  std::vector<int64_t> domain_size(c.devices.size(), 0);
  for (const DeviceId g : c.gpus) ++domain_size[static_cast<size_t>(find(g.value))];
  for (const int64_t size : domain_size) {
    if (size == 0) continue;
    ++s.nvlink_domains;
    s.largest_nvlink_domain = std::max(s.largest_nvlink_domain, size);
  }
  if (c.gpus.size() >= 2) {
    const auto half = static_cast<std::ptrdiff_t>(c.gpus.size() / 2);
    const std::vector<DeviceId> first(c.gpus.begin(), c.gpus.begin() + half);
    const std::vector<DeviceId> second(c.gpus.begin() + half, c.gpus.end());
    s.bisection_bytes_per_s = max_flow_bytes_per_s(c, first, second);
  }
  return s;
}

}  // namespace meshscope
