#include "core/topology/cluster.hpp"

#include <algorithm>
#include <array>
#include <queue>
#include <utility>

namespace meshscope {
std::string_view device_kind_name(DeviceKind kind) {
  return enum_name(kind);
}

std::string_view link_kind_name(LinkKind kind) {
  return enum_name(kind);
}

bool parse_device_kind(std::string_view name, DeviceKind& kind) {
  const auto parsed = parse_enum<DeviceKind>(name);
  if (parsed) kind = *parsed;
  return parsed.has_value();
}

bool parse_link_kind(std::string_view name, LinkKind& kind) {
  const auto parsed = parse_enum<LinkKind>(name);
  if (parsed) kind = *parsed;
  return parsed.has_value();
}

bool is_network_link(LinkKind kind) {
  return kind == LinkKind::infiniband || kind == LinkKind::roce || kind == LinkKind::ethernet || kind == LinkKind::efa;
}

double nvlink_bandwidth(int32_t generation, int32_t links) {
  const double per_link = generation >= 5 ? 50e9 : 25e9;
  return per_link * static_cast<double>(links);
}

double pcie_bandwidth(int32_t generation, int32_t lanes) {
  double per_lane = 0.985e9;  // gen3: 8 GT/s, 128b/130b
  if (generation == 1) per_lane = 0.25e9;
  if (generation == 2) per_lane = 0.5e9;
  if (generation == 4) per_lane = 1.969e9;
  if (generation == 5) per_lane = 3.938e9;
  if (generation >= 6) per_lane = 7.877e9;
  return per_lane * static_cast<double>(lanes);
}

double network_bandwidth(double gbits_per_s) {
  return gbits_per_s * 1e9 / 8.0;
}

std::string host_cpu_name(const Cluster& c) {
  if (c.gpus.empty()) return {};
  const int32_t node = c.device(c.gpus.front()).node;
  for (const Device& d : c.devices)
    if (d.kind == DeviceKind::cpu && d.node == node) return d.name;
  return {};
}

std::vector<ClusterProblem> index_cluster(Cluster& c) {
  std::vector<ClusterProblem> problems;
  c.by_id.clear();
  c.by_id.reserve(c.devices.size());
  for (size_t i = 0; i < c.devices.size(); ++i) {
    const Device& d = c.devices[i];
    if (d.id.empty()) {
      problems.push_back({"", "device #" + std::to_string(i) + " has no id"});
      continue;
    }
    if (!c.by_id.emplace(d.id, DeviceId{static_cast<int32_t>(i)}).second)
      problems.push_back({d.id, "duplicate device id \"" + d.id + "\""});
  }
  std::unordered_map<std::string, int> link_ids;
  std::vector<int32_t> degree(c.devices.size() + 1, 0);
  for (const Link& l : c.links) {
    if (!l.id.empty() && ++link_ids[l.id] == 2) problems.push_back({l.id, "duplicate link id \"" + l.id + "\""});
    const bool ends_valid =
        l.a.valid() && l.b.valid() && l.a.index() < c.devices.size() && l.b.index() < c.devices.size();
    if (!ends_valid) {
      problems.push_back({l.id, "link \"" + l.id + "\" has an endpoint that is not a device of the cluster"});
      continue;
    }
    if (l.a == l.b)
      problems.push_back({l.id, "link \"" + l.id + "\" connects device \"" + c.device(l.a).id + "\" to itself"});
    if (!(l.bandwidth_bytes_per_s > 0))
      problems.push_back({l.id, "link \"" + l.id + "\" must have a positive bandwidth"});
    if (l.latency_s < 0) problems.push_back({l.id, "link \"" + l.id + "\" has a negative latency"});
    ++degree[l.a.index() + 1];
    ++degree[l.b.index() + 1];
  }
  // CSR adjacency over the valid links.
  c.adjacency_offsets.assign(c.devices.size() + 1, 0);
  for (size_t i = 1; i < degree.size(); ++i) c.adjacency_offsets[i] = c.adjacency_offsets[i - 1] + degree[i];
  c.adjacency.assign(static_cast<size_t>(c.adjacency_offsets.back()), LinkId{});
  std::vector<int32_t> fill(c.adjacency_offsets.begin(), c.adjacency_offsets.end() - 1);
  for (size_t i = 0; i < c.links.size(); ++i) {
    const Link& l = c.links[i];
    if (!l.a.valid() || !l.b.valid() || l.a.index() >= c.devices.size() || l.b.index() >= c.devices.size()) continue;
    c.adjacency[static_cast<size_t>(fill[l.a.index()]++)] = LinkId{static_cast<int32_t>(i)};
    c.adjacency[static_cast<size_t>(fill[l.b.index()]++)] = LinkId{static_cast<int32_t>(i)};
  }
  // GPUs in rank order: by node, then local index, then position in the file.
  c.gpus.clear();
  for (size_t i = 0; i < c.devices.size(); ++i)
    if (c.devices[i].kind == DeviceKind::gpu) c.gpus.push_back(DeviceId{static_cast<int32_t>(i)});
  std::stable_sort(c.gpus.begin(), c.gpus.end(), [&](DeviceId a, DeviceId b) {
    const Device& x = c.device(a);
    const Device& y = c.device(b);
    return std::pair(x.node, x.local_index) < std::pair(y.node, y.local_index);
  });
  // Every GPU must reach every other GPU.
  if (c.gpus.size() > 1) {
    std::vector<char> seen(c.devices.size(), 0);
    std::queue<DeviceId> frontier;
    frontier.push(c.gpus.front());
    seen[c.gpus.front().index()] = 1;
    while (!frontier.empty()) {
      const DeviceId d = frontier.front();
      frontier.pop();
      c.for_each_link(d, [&](LinkId l) {
        const DeviceId next = c.other_end(l, d);
        if (!seen[next.index()]) {
          seen[next.index()] = 1;
          frontier.push(next);
        }
      });
    }
    int reported = 0;
    for (const DeviceId g : c.gpus) {
      if (seen[g.index()]) continue;
      if (reported++ < 8)
        problems.push_back({c.device(g).id, "GPU \"" + c.device(g).id + "\" has no path to GPU \"" +
                                                c.device(c.gpus.front()).id + "\""});
    }
    if (reported > 8)
      problems.push_back({"", std::to_string(reported - 8) + " more GPUs are cut off from the first GPU"});
  }
  return problems;
}

}  // namespace meshscope
