#include "core/topology/routing.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <tuple>

namespace meshscope {

std::string_view path_tier_name(PathTier tier) {
  return enum_name(tier);
}

namespace {

// NVLink-C2C (Grace Hopper, GB200): a GPU reaches its CPU — and the NICs behind the CPU's PCIe —
// over an NVLink link to the CPU. NCCL's LINK_C2C / PATH_C2C (src/graph/topo.h, NCCL 2.20+): a
// host path like PCIe for the GPU-to-NIC route, never a GPU-to-GPU NVLink path.
bool is_c2c(const Cluster& c, LinkId l) {
  const Link& link = c.link(l);
  if (link.kind != LinkKind::nvlink) return false;
  const DeviceKind a = c.device(link.a).kind, b = c.device(link.b).kind;
  return (a == DeviceKind::gpu && b == DeviceKind::cpu) || (a == DeviceKind::cpu && b == DeviceKind::gpu);
}

bool is_switch(DeviceKind kind) {
  return kind == DeviceKind::leaf_switch || kind == DeviceKind::spine_switch;
}

// Scratch for breadth-first searches; small searches touch few entries, so entries are stamped
// with a generation instead of being cleared.
struct Scratch {
  std::vector<uint32_t> stamp;
  std::vector<LinkId> via;
  uint32_t generation = 0;
  void reset(size_t devices) {
    if (stamp.size() != devices) {
      stamp.assign(devices, 0);
      via.assign(devices, LinkId{});
      generation = 0;
    }
    if (++generation == 0) {
      std::fill(stamp.begin(), stamp.end(), 0);
      generation = 1;
    }
  }
  bool seen(DeviceId d) const { return stamp[d.index()] == generation; }
  void mark(DeviceId d, LinkId l) {
    stamp[d.index()] = generation;
    via[d.index()] = l;
  }
};

thread_local Scratch scratch;

uint64_t mix(uint64_t x) {  // splitmix64: a deterministic ECMP hash
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

Router::Router(const Cluster& cluster) : cluster_(cluster) {
  const size_t n = cluster.devices.size();
  nic_uplink_.assign(n, LinkId{});
  for (size_t i = 0; i < n; ++i) {
    const DeviceId d{static_cast<int32_t>(i)};
    if (cluster.device(d).kind != DeviceKind::nic) continue;
    cluster.for_each_link(d, [&](LinkId l) {
      if (!nic_uplink_[i].valid() && is_network_link(cluster.link(l).kind)) nic_uplink_[i] = l;
    });
  }
  // Nearest NIC per GPU: breadth-first over PCIe and inter-socket links within the host,
  // preferring paths that stay under PCIe switches (no CPU), then fewer hops, then the GPU's rail.
  nearest_nics_.assign(n, {});
  for (const DeviceId gpu : cluster.gpus) {
    scratch.reset(n);
    scratch.mark(gpu, LinkId{});
    struct Item {
      DeviceId device;
      int cpus;
      int hops;
    };
    std::deque<Item> frontier{{gpu, 0, 0}};
    std::tuple<int, int, int> best{std::numeric_limits<int>::max(), 0, 0};
    DeviceId best_nic;
    std::vector<std::pair<std::pair<int, int>, DeviceId>> found;  // (CPU crossings, hops), NIC
    const int32_t rail = cluster.device(gpu).local_index;
    while (!frontier.empty()) {
      const Item item = frontier.front();
      frontier.pop_front();
      cluster.for_each_link(item.device, [&](LinkId l) {
        const Link& link = cluster.link(l);
        if (link.kind != LinkKind::pcie && link.kind != LinkKind::upi && link.kind != LinkKind::xgmi &&
            !is_c2c(cluster, l))
          return;
        const DeviceId next = cluster.other_end(l, item.device);
        if (scratch.seen(next)) return;
        const Device& dev = cluster.device(next);
        if (dev.node != cluster.device(gpu).node) return;
        scratch.mark(next, l);
        const int cpus = item.cpus + (dev.kind == DeviceKind::cpu ? 1 : 0);
        if (dev.kind == DeviceKind::nic) {
          const std::tuple<int, int, int> key{cpus, item.hops + 1, dev.local_index == rail ? 0 : 1};
          found.push_back({{cpus, item.hops + 1}, next});
          if (key < best) {
            best = key;
            best_nic = next;
          }
        } else if (dev.kind == DeviceKind::pcie_switch || dev.kind == DeviceKind::cpu) {
          frontier.push_back({next, cpus, item.hops + 1});
        }
      });
    }
    std::vector<DeviceId>& nearest = nearest_nics_[gpu.index()];
    if (best_nic.valid()) nearest.push_back(best_nic);
    for (const auto& [key, nic] : found)
      if (key == std::pair{std::get<0>(best), std::get<1>(best)} && nic != best_nic) nearest.push_back(nic);
  }
  // A NIC that is another GPU's nearest stays that GPU's (a DGX H100 switch's two GPUs use a NIC
  // each, and groups of one GPU per node run side by side on them); the GPU keeps the equally near
  // NICs no GPU has as its own.
  std::vector<bool> claimed(n, false);
  for (const DeviceId gpu : cluster.gpus)
    if (const DeviceId nic = nearest_nic(gpu); nic.valid()) claimed[nic.index()] = true;
  for (const DeviceId gpu : cluster.gpus) {
    std::vector<DeviceId>& nearest = nearest_nics_[gpu.index()];
    if (nearest.size() > 1)
      nearest.erase(
          std::remove_if(nearest.begin() + 1, nearest.end(), [&](DeviceId nic) { return claimed[nic.index()]; }),
          nearest.end());
  }
}

DeviceId Router::nearest_nic(DeviceId gpu) const {
  const std::vector<DeviceId>& nics = nearest_nics_[gpu.index()];
  return nics.empty() ? DeviceId{} : nics.front();
}

const std::vector<DeviceId>& Router::nearest_nics(DeviceId gpu) const {
  return nearest_nics_[gpu.index()];
}

bool Router::search(DeviceId from, DeviceId to, Stage stage, std::vector<LinkId>& path) const {
  const Cluster& c = cluster_;
  scratch.reset(c.devices.size());
  scratch.mark(from, LinkId{});
  std::deque<DeviceId> frontier{from};
  auto allowed_link = [&](LinkKind kind) {
    switch (stage) {
      case Stage::nvlink:
        return kind == LinkKind::nvlink || kind == LinkKind::xgmi;
      case Stage::pcie_switch:
      case Stage::one_cpu:
        return kind == LinkKind::pcie;
      case Stage::any_cpu:
        return kind == LinkKind::pcie || kind == LinkKind::upi || kind == LinkKind::xgmi;
    }
    return false;
  };
  auto may_pass = [&](const Device& d) {
    switch (stage) {
      case Stage::nvlink:
        return d.kind == DeviceKind::nvswitch;
      case Stage::pcie_switch:
        return d.kind == DeviceKind::pcie_switch;
      case Stage::one_cpu:
      case Stage::any_cpu:
        return d.kind == DeviceKind::pcie_switch || d.kind == DeviceKind::cpu;
    }
    return false;
  };
  bool found = false;
  while (!frontier.empty() && !found) {
    const DeviceId d = frontier.front();
    frontier.pop_front();
    c.for_each_link(d, [&](LinkId l) {
      if (found) return;
      const DeviceId next = c.other_end(l, d);
      if (!allowed_link(c.link(l).kind) && !(stage != Stage::nvlink && is_c2c(c, l))) return;
      if (scratch.seen(next)) return;
      // xGMI between GPUs is a GPU link; between CPUs only the any_cpu stage may use it.
      if (stage == Stage::nvlink && c.link(l).kind == LinkKind::xgmi &&
          (c.device(d).kind == DeviceKind::cpu || c.device(next).kind == DeviceKind::cpu))
        return;
      scratch.mark(next, l);
      if (next == to) {
        found = true;
        return;
      }
      if (may_pass(c.device(next))) frontier.push_back(next);
    });
  }
  if (!found) return false;
  const size_t start = path.size();
  for (DeviceId d = to; d != from;) {
    const LinkId l = scratch.via[d.index()];
    path.push_back(l);
    d = c.other_end(l, d);
  }
  std::reverse(path.begin() + static_cast<std::ptrdiff_t>(start), path.end());
  return true;
}

const std::vector<int32_t>& Router::switch_distances(DeviceId source) const {
  SwitchDistances* entry = nullptr;
  {
    const std::lock_guard lock(*switch_distances_lock_);
    auto& slot = switch_distances_[source.value];
    if (!slot) slot = std::make_unique<SwitchDistances>();
    entry = slot.get();  // the entry stays where it is as the map grows
  }
  std::call_once(entry->once, [&] {
    const Cluster& c = cluster_;
    std::vector<int32_t>& dist = entry->dist;
    dist.assign(c.devices.size(), -1);
    dist[source.index()] = 0;
    std::deque<DeviceId> frontier{source};
    while (!frontier.empty()) {
      const DeviceId d = frontier.front();
      frontier.pop_front();
      c.for_each_link(d, [&](LinkId l) {
        const DeviceId next = c.other_end(l, d);
        if (dist[next.index()] >= 0 || !is_switch(c.device(next).kind)) return;
        dist[next.index()] = dist[d.index()] + 1;
        frontier.push_back(next);
      });
    }
  });
  return entry->dist;
}

bool Router::network_path(DeviceId from_nic, DeviceId to_nic, std::vector<LinkId>& path) const {
  const Cluster& c = cluster_;
  const LinkId up = nic_uplink_[from_nic.index()];
  const LinkId down = nic_uplink_[to_nic.index()];
  if (!up.valid() || !down.valid()) return false;
  const DeviceId src = c.other_end(up, from_nic);
  const DeviceId dst = c.other_end(down, to_nic);
  if (src == to_nic) {  // back-to-back NICs
    path.push_back(up);
    return true;
  }
  path.push_back(up);
  if (src != dst) {
    if (!is_switch(c.device(src).kind) || !is_switch(c.device(dst).kind)) return false;
    const std::vector<int32_t>& dist = switch_distances(src);
    if (dist[dst.index()] < 0) return false;
    // Walk back from the destination; among equal-cost predecessors pick one by a hash of the
    // NIC pair (ECMP), so that flows spread over the spines.
    std::vector<LinkId> reverse;
    const uint64_t flow = mix((static_cast<uint64_t>(from_nic.value) << 32) ^ static_cast<uint64_t>(to_nic.value));
    for (DeviceId d = dst; d != src;) {
      std::vector<LinkId> candidates;
      c.for_each_link(d, [&](LinkId l) {
        const DeviceId prev = c.other_end(l, d);
        if (is_switch(c.device(prev).kind) && dist[prev.index()] == dist[d.index()] - 1) candidates.push_back(l);
      });
      if (candidates.empty()) return false;
      const LinkId l = candidates[mix(flow + static_cast<uint64_t>(dist[d.index()])) % candidates.size()];
      reverse.push_back(l);
      d = c.other_end(l, d);
    }
    path.insert(path.end(), reverse.rbegin(), reverse.rend());
  }
  path.push_back(down);
  return true;
}

Route Router::route(DeviceId from, DeviceId to, size_t nic_slot) const {
  Route r;
  if (from == to) return r;
  const Cluster& c = cluster_;
  const bool same_node = c.device(from).node == c.device(to).node && c.device(from).node >= 0;
  if (search(from, to, Stage::nvlink, r.links)) {
    r.tier = PathTier::nvlink;
  } else if (same_node && search(from, to, Stage::pcie_switch, r.links)) {
    r.tier = PathTier::pcie_switch;
  } else if (same_node && search(from, to, Stage::one_cpu, r.links)) {
    r.tier = PathTier::numa;
  } else if (same_node && search(from, to, Stage::any_cpu, r.links)) {
    r.tier = PathTier::cross_socket;
  } else {
    const auto nic_of = [&](DeviceId gpu) {
      const std::vector<DeviceId>& nics = nearest_nics(gpu);
      return nics.empty() ? DeviceId{} : nics[nic_slot % nics.size()];
    };
    const DeviceId nic_from = nic_of(from);
    const DeviceId nic_to = nic_of(to);
    r.links.clear();
    Route unreachable;
    unreachable.reachable = false;
    if (!nic_from.valid() || !nic_to.valid() || !search(from, nic_from, Stage::any_cpu, r.links)) return unreachable;
    const size_t network_start = r.links.size();
    if (!network_path(nic_from, nic_to, r.links)) return unreachable;
    const size_t network_links = r.links.size() - network_start;
    std::vector<LinkId> tail;
    if (!search(nic_to, to, Stage::any_cpu, tail)) return unreachable;
    r.links.insert(r.links.end(), tail.begin(), tail.end());
    r.tier = network_links <= 2 ? PathTier::same_leaf : PathTier::spine;
  }
  r.bottleneck_bytes_per_s = std::numeric_limits<double>::infinity();
  for (const LinkId l : r.links) {
    const Link& link = c.link(l);
    r.latency_s += link.latency_s;
    if (link.bandwidth_bytes_per_s < r.bottleneck_bytes_per_s) {
      r.bottleneck_bytes_per_s = link.bandwidth_bytes_per_s;
      r.bottleneck = l;
    }
  }
  return r;
}

}  // namespace meshscope
