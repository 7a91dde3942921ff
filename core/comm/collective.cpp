#include "core/comm/collective.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <unordered_map>

#include "core/model/catalogue.hpp"

namespace meshscope {

std::string_view algorithm_name(CollectiveAlgorithm algorithm) {
  return enum_name(algorithm);
}

std::optional<CollectiveAlgorithm> parse_algorithm(std::string_view name) {
  return parse_enum<CollectiveAlgorithm>(name);
}

std::string_view protocol_name(Protocol protocol) {
  return enum_name(protocol);
}

const std::vector<LinkEfficiencySource>& link_efficiency_sources() {
  static const std::vector<LinkEfficiencySource> sources = {
      {LinkKind::nvlink, 0.78,
       "NCCL tuning.cc caps sm80 NVLink busBw at 235 GB/s of 300 GB/s (12 NVLink3 x 25 GB/s); NCCL maintainer: "
       "~230 GB/s expected all-reduce busbw on 8xA100 (nccl-tests issue #149)"},
      {LinkKind::pcie, 0.76, "NCCL topo.h PCI_BW: 12 GB/s usable on a 15.75 GB/s gen3 x16 link"},
      {LinkKind::xgmi, 0.75,
       "RCCL src/graph/topo.h GFX94X_XGMI_WIDTH: 48 GB/s per MI300X xGMI link of 64 GB/s per direction (the "
       "bandwidth RCCL's channel search gives each link); applied to CPU xGMI as well"},
      {LinkKind::upi, 0.48, "NCCL topo.h SKL_QPI_BW: 10 GB/s usable across a ~20.8 GB/s Skylake UPI link"},
      {LinkKind::infiniband, 0.92,
       "assumption: NCCL's LL128 payload ratio (120/128 bytes, tuning.cc) as the achievable share of line rate; "
       "calibrate from nccl-tests"},
      {LinkKind::roce, 0.92, "as InfiniBand (assumption)"},
      {LinkKind::ethernet, 0.85, "assumption: TCP/socket transport overheads above RDMA's"},
      {LinkKind::efa, 0.92,
       "as InfiniBand (assumption); AWS's own NCCL tuner (aws-ofi-nccl src/tuner/nccl_ofi_model.cpp) models a "
       "100 Gb/s EFA rail at its full line rate"},
  };
  return sources;
}

CommConstants CommConstants::defaults() {
  CommConstants c;
  for (const auto& s : link_efficiency_sources()) c.link_efficiency[static_cast<size_t>(s.kind)] = s.efficiency;
  c.low_latency_protocols.fill(true);
  c.low_latency_protocols[static_cast<size_t>(LinkKind::ethernet)] = false;
  // NVIDIA/nccl src/graph/tuning.cc @01afd20 ("Latencies in us"): Tree {LL, LL128, Simple}, Ring {...}.
  const double base[2][3] = {{4.4, 4.4, 0.0}, {3.6, 10.0, 8.4}};
  const double hw[3][2][3] = {{{0.52, 1.2, 28.0}, {0.47, 1.9, 3.4}},  // NVLink
                              {{1.0, 1.9, 28.0}, {1.0, 2.5, 5.7}},    // PCI
                              {{5.0, 8.5, 50.0}, {2.7, 4.0, 9.6}}};   // NET
  const double tree_correction[3][22] = {
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7, .8, .9, .9, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9}};
  std::copy(&tree_correction[0][0], &tree_correction[0][0] + 66, &c.tree_correction[0][0]);
  std::copy(&base[0][0], &base[0][0] + 6, &c.base_latency_us[0][0]);
  std::copy(&hw[0][0][0], &hw[0][0][0] + 18, &c.hw_latency_us[0][0][0]);
  // Per-call start-up of the pipelined protocols (LL128, Simple), beyond the tables: from 64 MiB
  // to 256 MiB every nccl-tests collective on 8 × A100 NVSwitch runs 90–150 µs longer than
  // bytes / its own large-message busbw, where the tables give 32–56 µs (the tables rank
  // algorithms; they are not a stopwatch). 113.6 µs is the minimax fit over the rows ≥ 64 MiB of
  // the public 8 × A100 NVSwitch sources (superbench's six SXM4 logs, Azure ND A100 v4's curve);
  // the binding rows are the superbench reduce at 64 MiB (−14.9 %) and Azure's all-reduce at
  // 128 MiB (+14.9 %), two measurements of the same node class that
  // disagree with each other by 16 % at that size. tests/core/test_collective_fidelity.cpp prints
  // every row. LL gets none: its measured floor (34 µs on 8 × A100 against 7–10 µs in the tables)
  // is the harness's launch cost — nccl-tests -g 8 launches eight kernels from one thread —
  // which a training step, one process per GPU with launches queued ahead, does not pay.
  // `calibrate` refits both on the user's own logs; --comm overhead_*_us sets them.
  c.call_overhead_us[0] = 0.0;
  c.call_overhead_us[1] = 113.6;
  c.call_overhead_us[2] = 113.6;
  c.nvlink_generation_efficiency[2] = 0.80;  // NCCL topo.h SM70_NVLINK_BW 20 of 25 GB/s (V100)
  return c;
}

double CommConstants::efficiency(const Link& link) const {
  if (link.kind == LinkKind::nvlink && link.nvlink_generation > 0 && link.nvlink_generation < 6) {
    const double by_generation = nvlink_generation_efficiency[link.nvlink_generation];
    if (by_generation > 0) return by_generation;
  }
  return efficiency(link.kind);
}

Result<CommConstants> comm_constants_from_keys(const KeyValues& keys, CommConstants c) {
  for (const auto& entry : keys) {
    const std::string& key = entry.first;
    const std::string& value = entry.second;
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    const bool is_fraction = !value.empty() && end == value.c_str() + value.size() && number > 0 && number <= 1;
    auto bad = [&](const std::string& expected) {
      return make_error(ErrorCode::invalid_argument,
                        "\"" + value + "\" is not valid for " + key + ": expected " + expected, "--comm " + key);
    };
    if (key.size() > 11 && key.ends_with("_efficiency")) {
      LinkKind kind{};
      if (!parse_link_kind(key.substr(0, key.size() - 11), kind))
        return make_error(ErrorCode::invalid_argument,
                          "unknown link kind in \"" + key + "\" (nvlink, pcie, xgmi, upi, infiniband, roce, ethernet)",
                          "--comm");
      if (!is_fraction) return bad("a fraction in (0, 1]");
      c.link_efficiency[static_cast<size_t>(kind)] = number;
      if (kind == LinkKind::nvlink)
        std::fill(std::begin(c.nvlink_generation_efficiency), std::end(c.nvlink_generation_efficiency), 0.0);
    } else if (key == "algorithm") {
      if (value == "auto") {
        c.algorithm.reset();
      } else if (auto a = parse_algorithm(value)) {
        c.algorithm = *a;
      } else {
        return bad("auto, ring, tree, hierarchical, nvls or nvls_tree");
      }
    } else if (key == "tree_factor" || key == "ll128_factor") {
      if (!is_fraction) return bad("a fraction in (0, 1]");
      (key == "tree_factor" ? c.tree_bandwidth_factor : c.ll128_factor) = number;
    } else if (key == "latency_scale") {
      if (value.empty() || end != value.c_str() + value.size() || !(number > 0 && number <= 100))
        return bad("a number in (0, 100]");
      c.latency_scale = number;
    } else if (key == "nvls") {
      if (value != "0" && value != "1") return bad("0 or 1");
      c.nvls = value == "1";
    } else if (key == "overhead_ll_us" || key == "overhead_ll128_us" || key == "overhead_simple_us") {
      if (value.empty() || end != value.c_str() + value.size() || !(number >= 0 && number <= 10000))
        return bad("microseconds in [0, 10000]");
      const int protocol = key == "overhead_ll_us" ? 0 : key == "overhead_ll128_us" ? 1 : 2;
      c.call_overhead_us[protocol] = c.rccl_call_overhead_us[protocol] = number;
    } else {
      return make_error(ErrorCode::invalid_argument,
                        "unknown key \"" + key +
                            "\"; known keys: <link kind>_efficiency, algorithm, tree_factor, ll128_factor, "
                            "latency_scale, overhead_ll_us, overhead_ll128_us, overhead_simple_us, nvls",
                        "--comm");
    }
  }
  return c;
}

namespace {

constexpr int kTree = 0, kRing = 1;
constexpr int kNvlinkHw = 0, kPciHw = 1, kNetHw = 2;

bool crosses_network(PathTier tier) {
  return tier == PathTier::same_leaf || tier == PathTier::spine;
}

// Direction of a link as traversed by a route starting at `from`.
struct Hop {
  LinkId link;
  int direction;  // 0: a→b, 1: b→a
};

void hops_of(const Cluster& c, DeviceId from, const Route& route, std::vector<Hop>& hops) {
  hops.clear();
  DeviceId at = from;
  for (const LinkId l : route.links) {
    const int direction = c.link(l).a == at ? 0 : 1;
    hops.push_back({l, direction});
    at = c.other_end(l, at);
  }
}

std::vector<Hop> hops_of(const Cluster& c, DeviceId from, const Route& route) {
  std::vector<Hop> hops;
  hops.reserve(route.links.size());
  hops_of(c, from, route, hops);
  return hops;
}

int flows_on(const LinkLoad* load, Hop hop) {
  if (load == nullptr || load->flows.empty()) return 1;
  return std::max(1, load->flows[2 * hop.link.index() + static_cast<size_t>(hop.direction)]);
}

double usable(const Cluster& c, const CommConstants& k, Hop hop, const LinkLoad* load) {
  const Link& link = c.link(hop.link);
  return link.bandwidth_bytes_per_s * k.efficiency(link) / flows_on(load, hop);
}

// RCCL runs on AMD GPUs: the catalogue's vendor, or an Instinct model id ("mi300x").
bool amd_gpu(const Device& d) {
  if (d.gpu_model.empty()) return false;
  if (auto spec = find_gpu(d.gpu_model)) return spec->vendor == "AMD";
  return d.gpu_model.rfind("mi", 0) == 0;
}

// The links of some routes, all NVLink with at least one through an NVSwitch: the lowest NVLink
// generation among them (what NVLS and NVLSTree need), 0 otherwise.
struct NvSwitchScan {
  bool all_nvlink = true, through_switch = false;
  int generation = std::numeric_limits<int>::max();

  void add(const Cluster& c, const Route& r) {
    for (const LinkId l : r.links) {
      const Link& link = c.link(l);
      all_nvlink = all_nvlink && link.kind == LinkKind::nvlink;
      generation = std::min(generation, static_cast<int>(link.nvlink_generation));
      through_switch = through_switch || c.device(link.a).kind == DeviceKind::nvswitch ||
                       c.device(link.b).kind == DeviceKind::nvswitch;
    }
  }
  [[nodiscard]] int switched_generation() const { return all_nvlink && through_switch ? generation : 0; }
};

}  // namespace

std::vector<std::vector<DeviceId>> gpus_per_node(const Cluster& c, const std::vector<DeviceId>& ranks) {
  std::vector<std::vector<DeviceId>> out;
  std::vector<int32_t> nodes;
  for (const DeviceId d : ranks) {
    const int32_t node = c.device(d).node;
    const auto at = std::find(nodes.begin(), nodes.end(), node);
    if (at == nodes.end()) {
      nodes.push_back(node);
      out.push_back({d});
    } else {
      out[static_cast<size_t>(at - nodes.begin())].push_back(d);
    }
  }
  return out;
}

LinkCapacity group_link_capacity(const Cluster& c, const CommConstants& k, const LinkLoad* load, const GroupPaths& g) {
  // This group's own flows: the ring edges of its rank-order ring, which add_ring_flows put in
  // `load`; the other groups' flows are the rest.
  std::vector<int32_t> own;
  if (load != nullptr && !load->flows.empty()) {
    own.assign(load->flows.size(), 0);
    std::vector<Hop> hops;
    for (size_t i = 0; i < g.ring_routes.size(); ++i) {
      hops_of(c, g.ring[i], g.ring_routes[i], hops);
      for (const Hop& hop : hops) own[2 * hop.link.index() + static_cast<size_t>(hop.direction)] += 1;
    }
  }
  return [&c, k, load, own = std::move(own)](LinkId l, int direction) {
    const Link& link = c.link(l);
    double others = 0;
    if (!own.empty()) {
      const size_t slot = 2 * l.index() + static_cast<size_t>(direction);
      others = std::max(0, load->flows[slot] - own[slot]);
    }
    return link.bandwidth_bytes_per_s * k.efficiency(link) / (1.0 + others);
  };
}

std::string_view tier_name(PathTier tier, LinkKind bottleneck_kind) {
  return tier == PathTier::nvlink && bottleneck_kind == LinkKind::xgmi ? "xgmi" : path_tier_name(tier);
}

std::string_view tier_name(const Cluster& c, PathTier tier, LinkId bottleneck) {
  return tier_name(tier, bottleneck.valid() ? c.link(bottleneck).kind : LinkKind::nvlink);
}

namespace {

// A node's NICs that the group can use: NCCL spreads channels over the NICs nearest to the group's GPUs.
struct NodeNics {
  int32_t node = -1;
  double bandwidth = 0;  // their usable bandwidth, summed
  int count = 0;
};

// What every phase of group_bandwidth reads: the group on its cluster, the constants and the load.
struct GroupScan {
  const Router& router;
  const Cluster& c;
  const GroupPaths& g;
  const CommConstants& k;
  const LinkLoad* load;
};

// Per node of the group (sorted by node): the usable bandwidth and the count of the NICs nearest
// to the group's GPUs.
std::vector<NodeNics> nics_per_node(const GroupScan& scan) {
  const Cluster& c = scan.c;
  std::vector<NodeNics> node_nics;
  // (NIC, node) of every GPU of the group, each NIC once.
  std::vector<std::pair<int32_t, int32_t>> nics;
  nics.reserve(scan.g.ring.size());
  for (const DeviceId gpu : scan.g.ring)
    for (const DeviceId nic : scan.router.nearest_nics(gpu)) nics.emplace_back(nic.value, c.device(gpu).node);
  std::sort(nics.begin(), nics.end());
  nics.erase(std::unique(nics.begin(), nics.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
             nics.end());
  std::sort(nics.begin(), nics.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  for (const auto& [nic_value, node] : nics) {
    const DeviceId nic{nic_value};
    double best = 0;
    c.for_each_link(nic, [&](LinkId l) {
      if (!is_network_link(c.link(l).kind)) return;
      const int direction = c.link(l).a == nic ? 0 : 1;
      best = std::max(best, usable(c, scan.k, {l, direction}, scan.load));
    });
    if (node_nics.empty() || node_nics.back().node != node) node_nics.push_back({node, 0.0, 0});
    node_nics.back().bandwidth += best;
    node_nics.back().count += 1;
  }
  return node_nics;
}

// A node's entry of nics_per_node (none: no NIC).
NodeNics nics_of(const std::vector<NodeNics>& node_nics, int32_t node) {
  const auto at = std::lower_bound(node_nics.begin(), node_nics.end(), node,
                                   [](const NodeNics& n, int32_t value) { return n.node < value; });
  return at != node_nics.end() && at->node == node ? *at : NodeNics{node, 0.0, 0};
}

// Nodes where the group's GPUs form a mesh: the channel search's rings carry that part of the
// ring (NCCL/RCCL open several channels, each a different ring, so every direct link carries
// traffic); their ring edges are not timed one by one.
struct MeshRings {
  std::vector<int32_t> nodes;
  double bandwidth = std::numeric_limits<double>::infinity();  // the narrowest node's rings
  LinkId bottleneck;
  bool nvlink = true;  // every ring hop over NVLink
};

// The channel search on every meshed node of the group; sets b.mesh_channels and the tier the rings cross.
MeshRings mesh_rings(const GroupScan& scan, const LinkCapacity& capacity, GroupBandwidth& b) {
  const Cluster& c = scan.c;
  MeshRings mesh;
  // Nodes built alike (generators, replicated imports) give the same rings: one search per
  // distinct node shape — each GPU's rail and, link by link, what it reaches and at what
  // capacity — rather than one per node (a DP group spans hundreds of nodes).
  std::map<std::vector<double>, ChannelPlan> searched;
  for (const auto& local : gpus_per_node(c, scan.g.ring)) {
    if (!has_direct_mesh(c, local)) continue;
    std::vector<double> shape;
    for (const DeviceId gpu : local) {
      shape.push_back(c.device(gpu).local_index);
      c.for_each_link(gpu, [&](LinkId l) {
        const DeviceId other = c.other_end(l, gpu);
        const auto member = std::find(local.begin(), local.end(), other);
        const int direction = c.link(l).a == gpu ? 0 : 1;
        shape.insert(shape.end(), {static_cast<double>(c.link(l).kind), static_cast<double>(c.device(other).kind),
                                   member == local.end() ? -1.0 : static_cast<double>(member - local.begin()),
                                   capacity(l, direction), capacity(l, 1 - direction)});
      });
    }
    auto found = searched.find(shape);
    if (found == searched.end())
      found = searched.emplace(std::move(shape), search_channels(scan.router, local, capacity)).first;
    const ChannelPlan& plan = found->second;
    if (plan.empty()) continue;  // no ring at all: the rank-order edges time it
    mesh.nodes.push_back(c.device(local.front()).node);
    b.mesh_channels = std::max(b.mesh_channels, static_cast<int>(plan.rings.size()));
    for (const ChannelRing& ring : plan.rings)
      for (const Route& r : ring.routes) {
        b.tier = std::max(b.tier, r.tier);
        if (r.tier != PathTier::nvlink) mesh.nvlink = false;
      }
    if (plan.bandwidth < mesh.bandwidth) {
      mesh.bandwidth = plan.bandwidth;
      mesh.bottleneck = plan.bottleneck;
    }
  }
  return mesh;
}

// Network domains: hosts whose ring edges do not cross the network are one NVLink clique (NCCL
// 2.19+ multi-node NVLink, a GB200 NVL72 rack's trays): one "node" of the rings and trees across
// the network, whose channels leave through the NICs of all its hosts.
struct NetworkDomains {
  std::map<int32_t, int32_t> domain_of;     // host → its domain's first host (union-find)
  std::map<int32_t, NodeNics> domain_nics;  // domain → its hosts' NICs
  [[nodiscard]] NodeNics nics_of(int32_t node) const { return domain_nics.at(domain_of.at(node)); }
};

// The group's network domains; sets b.network_domains, b.domain_network and b.max_ranks_per_domain.
NetworkDomains network_domains(const GroupScan& scan, const std::vector<NodeNics>& node_nics, GroupBandwidth& b) {
  const Cluster& c = scan.c;
  const GroupPaths& g = scan.g;
  NetworkDomains domains;
  std::map<int32_t, int32_t>& domain_of = domains.domain_of;
  std::map<int32_t, NodeNics>& domain_nics = domains.domain_nics;
  std::map<int32_t, int64_t> ranks_on;
  for (const DeviceId d : g.ring) {
    domain_of.emplace(c.device(d).node, c.device(d).node);
    ranks_on[c.device(d).node] += 1;
  }
  const auto root = [&](int32_t node) {
    while (domain_of.at(node) != node) node = domain_of[node] = domain_of.at(domain_of.at(node));
    return node;
  };
  for (size_t i = 0; i < g.ring_routes.size(); ++i) {
    const int32_t from = c.device(g.ring[i]).node, to = c.device(g.ring[(i + 1) % g.ring.size()]).node;
    if (from != to && !crosses_network(g.ring_routes[i].tier)) domain_of[root(from)] = root(to);
  }
  std::map<int32_t, int64_t> domain_ranks;
  for (const auto& [node, ranks] : ranks_on) {
    const int32_t r = root(node);
    domain_of[node] = r;
    NodeNics& total = domain_nics[r];
    const NodeNics own = nics_of(node_nics, node);
    total.node = r;
    total.bandwidth += own.bandwidth;
    total.count += own.count;
    domain_ranks[r] += ranks;
  }
  b.network_domains = static_cast<int64_t>(domain_ranks.size());
  for (const auto& [r, ranks] : domain_ranks) {
    if (domain_nics[r].bandwidth > 0) b.domain_network = std::min(b.domain_network, domain_nics[r].bandwidth);
    b.max_ranks_per_domain = std::max(b.max_ranks_per_domain, ranks);
  }
  return domains;
}

// The rank-order ring's edges outside the meshes, one by one: the narrowest edge (ring), the
// narrowest inside a node (intra) and the narrowest node's NIC total (node_network).
void time_ring_edges(const GroupScan& scan, const std::vector<NodeNics>& node_nics, const NetworkDomains& domains,
                     const MeshRings& mesh, GroupBandwidth& b) {
  const Cluster& c = scan.c;
  const GroupPaths& g = scan.g;
  const auto in_mesh = [&](DeviceId d) {
    return std::find(mesh.nodes.begin(), mesh.nodes.end(), c.device(d).node) != mesh.nodes.end();
  };
  std::vector<Hop> hops;
  for (size_t i = 0; i < g.ring_routes.size(); ++i) {
    const Route& r = g.ring_routes[i];
    const DeviceId from = g.ring[i];
    hops_of(c, from, r, hops);
    double edge = std::numeric_limits<double>::infinity();
    LinkId edge_bottleneck;
    if (crosses_network(r.tier)) {
      // Inter-node edge: every NIC of both (domains') nodes carries a channel; the fabric and PCIe hops
      // are repeated once per channel.
      const int32_t src_node = c.device(from).node;
      const int32_t dst_node = c.device(g.ring[(i + 1) % g.ring.size()]).node;
      const NodeNics src = domains.nics_of(src_node), dst = domains.nics_of(dst_node);
      const int channels = std::max(1, src.count);
      edge = std::min(src.bandwidth, dst.bandwidth);
      b.node_network =
          std::min({b.node_network, nics_of(node_nics, src_node).bandwidth, nics_of(node_nics, dst_node).bandwidth});
      for (const Hop& hop : hops) {
        const double per_channel = usable(c, scan.k, hop, scan.load) * channels;
        if (per_channel < edge) {
          edge = per_channel;
          edge_bottleneck = hop.link;
        }
      }
      if (!edge_bottleneck.valid() && !hops.empty()) {
        for (const Hop& hop : hops)
          if (is_network_link(c.link(hop.link).kind)) edge_bottleneck = hop.link;
      }
    } else if (in_mesh(from)) {
      continue;  // timed by the node's channel rings
    } else {
      for (const Hop& hop : hops) {
        const double bw = usable(c, scan.k, hop, scan.load);
        if (bw < edge) {
          edge = bw;
          edge_bottleneck = hop.link;
        }
      }
      if (edge < b.intra) {
        b.intra = edge;
        b.intra_bottleneck = edge_bottleneck;
      }
      if (r.tier != PathTier::nvlink) b.intra_nvlink = false;
    }
    b.tier = std::max(b.tier, r.tier);
    if (edge < b.ring) {
      b.ring = edge;
      b.ring_bottleneck = edge_bottleneck;
    }
  }
}

// The meshed nodes' rings, where narrower than the edges timed one by one.
void add_mesh_rings(const MeshRings& mesh, GroupBandwidth& b) {
  if (mesh.nodes.empty()) return;
  if (!mesh.nvlink) b.intra_nvlink = false;
  if (mesh.bandwidth < b.intra) {
    b.intra = mesh.bandwidth;
    b.intra_bottleneck = mesh.bottleneck;
  }
  if (mesh.bandwidth < b.ring) {
    b.ring = mesh.bandwidth;
    b.ring_bottleneck = mesh.bottleneck;
  }
}

// The NVSwitch generations NVLS (the whole ring) and NVLSTree (inside every node) would run on.
void nvswitch_generations(const GroupScan& scan, GroupBandwidth& b) {
  const Cluster& c = scan.c;
  const GroupPaths& g = scan.g;
  if (g.worst_tier == PathTier::nvlink) {
    NvSwitchScan nvswitch;
    for (const Route& r : g.ring_routes) nvswitch.add(c, r);
    b.nvswitch_generation = nvswitch.switched_generation();
  }
  if (g.nodes > 1 && g.max_ranks_per_node >= 2 && crosses_network(g.worst_tier)) {
    // NVLSTree's domains: every edge between two nodes crosses the network (hosts joined by
    // NVLink, as a GB200 NVL72 rack's trays, are not separate NVLS domains), every edge inside a
    // node runs over NVLink through its NVSwitch.
    bool between_nodes_on_network = true;
    NvSwitchScan inside_nodes;
    for (size_t i = 0; i < g.ring_routes.size() && between_nodes_on_network; ++i) {
      const Route& r = g.ring_routes[i];
      if (c.device(g.ring[i]).node == c.device(g.ring[(i + 1) % g.ring.size()]).node)
        inside_nodes.add(c, r);
      else
        between_nodes_on_network = crosses_network(r.tier);
    }
    if (between_nodes_on_network) b.node_nvswitch_generation = inside_nodes.switched_generation();
  }
}

}  // namespace

GroupBandwidth group_bandwidth(const Router& router, const GroupPaths& g, const CommConstants& k,
                               const LinkLoad* load) {
  const Cluster& c = router.cluster();
  const GroupScan scan{router, c, g, k, load};
  GroupBandwidth b;
  const std::vector<NodeNics> node_nics = nics_per_node(scan);
  b.rccl =
      !g.ring.empty() && std::all_of(g.ring.begin(), g.ring.end(), [&](DeviceId d) { return amd_gpu(c.device(d)); });
  const LinkCapacity capacity = group_link_capacity(c, k, load, g);
  const MeshRings mesh = mesh_rings(scan, capacity, b);
  const NetworkDomains domains = network_domains(scan, node_nics, b);
  time_ring_edges(scan, node_nics, domains, mesh, b);
  add_mesh_rings(mesh, b);
  nvswitch_generations(scan, b);
  return b;
}

void add_ring_flows(const Cluster& cluster, const GroupPaths& group, LinkLoad& load) {
  if (load.flows.size() != 2 * cluster.links.size()) load.flows.assign(2 * cluster.links.size(), 0);
  for (size_t i = 0; i < group.ring_routes.size(); ++i)
    for (const Hop& hop : hops_of(cluster, group.ring[i], group.ring_routes[i]))
      load.flows[2 * hop.link.index() + static_cast<size_t>(hop.direction)] += 1;
}

CollectiveModel prepare_collective(const Router& router, const GroupPaths& g, CollectiveOp op, const CommConstants& k,
                                   const LinkLoad* load) {
  return prepare_collective(router, g, op, k, group_bandwidth(router, g, k, load));
}

namespace {

// Whether NCCL may run its low-latency protocols (LL, LL128) on every network link of the ring.
bool low_latency_allowed(const Cluster& c, const GroupPaths& g, const CommConstants& k) {
  for (const Route& r : g.ring_routes)
    for (const LinkId l : r.links) {
      const LinkKind kind = c.link(l).kind;
      if (is_network_link(kind) && !k.low_latency_protocols[static_cast<size_t>(kind)]) return false;
    }
  return true;
}

// The candidates of one protocol on one group (NCCL tuning.cc: per algorithm, a latency from the
// base and hardware tables and a bandwidth from the group's links), added to `candidates`.
struct ProtocolCandidates {
  const CommConstants& k;
  const GroupBandwidth& b;
  const GroupPaths& g;
  CollectiveModel& model;
  std::vector<CollectiveModel::Candidate>& candidates;
  Protocol protocol;
  int p;                                // the protocol's index into the tables
  double n, nodes, ppn;                 // ranks, nodes, most ranks on one node
  int intra_hw, ring_hw;                // kNvlinkHw, kPciHw or kNetHw
  int nvls_generation;                  // of the ring's NVSwitches, 0 without NVLS
  double intra_lat = 0, inter_lat = 0;  // µs per ring step inside a node and across the network

  // RCCL's tables inside a node of AMD GPUs (CommConstants::rccl_*), NCCL's otherwise.
  [[nodiscard]] double hw_us(int hw, int algorithm, int protocol_index) const {
    if (b.rccl && hw != kNetHw) return k.rccl_hw_latency_us[hw][algorithm][protocol_index];
    return k.hw_latency_us[hw][algorithm][protocol_index];
  }
  [[nodiscard]] double base_us(int algorithm, int protocol_index) const {
    return b.rccl ? k.rccl_base_latency_us[protocol_index] : k.base_latency_us[algorithm][protocol_index];
  }
  [[nodiscard]] double protocol_bw(double busbw, bool tree) const {
    if (b.rccl && protocol == Protocol::ll) return busbw * k.rccl_ll_factor;  // tuning_model_5 bwRatio
    if (b.rccl && protocol == Protocol::ll128) return busbw * k.rccl_ll128_factor;
    if (protocol == Protocol::ll) return busbw * (tree ? 1.0 / 3.8 : k.ll_ring_factor);
    if (protocol == Protocol::ll128) return busbw * k.ll128_factor;
    return busbw;
  }

  void add(CollectiveOp op) {
    switch (op) {
      case CollectiveOp::all_reduce:
        all_reduce();
        break;
      case CollectiveOp::all_gather:
      case CollectiveOp::reduce_scatter:
        gather_or_scatter();
        break;
      case CollectiveOp::broadcast:
      case CollectiveOp::reduce:
        broadcast_or_reduce();
        break;
      case CollectiveOp::all_to_all:
      case CollectiveOp::send_recv:
        if (protocol == Protocol::simple) pairwise(op);
        break;
    }
  }

  // All-reduce: the ring, NVLS inside one NVLink domain, and across the network the trees and the 2-D algorithm.
  void all_reduce() {
    // Ring: 2(n−1) steps, busBw = the narrowest edge, algBw = busBw · n / (2(n−1)).
    const double steps = 2 * (n - 1), inter_steps = 2 * (nodes - 1);
    const double lat = base_us(kRing, p) + (steps - inter_steps) * intra_lat + inter_steps * inter_lat;
    // tuning.cc "plateau effect of ring": multi-node Simple all-reduce latency × 1.9 from
    // n/16 × 64 KiB up (applied in evaluate_collective, it depends on the size).
    const bool plateau = protocol == Protocol::simple && g.nodes > 1;
    candidates.push_back(
        {lat * 1e-6, protocol_bw(b.ring, false) * n / steps, CollectiveAlgorithm::ring, protocol, p, false, plateau});
    if (nvls_generation > 0 && protocol == Protocol::simple) {
      // NVLS (Simple only): each GPU has the switch reduce its 1/n of the buffer from every
      // GPU (multimem.ld_reduce) and multicast the result back (multimem.st): it sends S and
      // S/n and receives S/n and S, so algBw = link × nvlsEfficiency × n / (n + 1).
      const double efficiency = k.nvls_efficiency[nvls_generation >= 5 ? 1 : 0];
      candidates.push_back({k.nvls_latency_us * 1e-6, b.intra * efficiency * n / (n + 1), CollectiveAlgorithm::nvls,
                            protocol, p, false, false});
    }
    // Across the network only: hosts joined by NVLink (GB200 NVL72 trays) form one NVLink
    // domain, where NCCL runs rings and NVLS.
    if (g.nodes > 1 && crosses_network(g.worst_tier)) all_reduce_across_network();
  }

  // All-reduce across the network: the double binary tree, NVLSTree and the hierarchical (2-D) algorithm.
  void all_reduce_across_network() {
    // Double binary tree across the nodes (NCCL src/graph/trees.cc ncclGetDtree): each tree
    // carries half the buffer up (reduce) and down (broadcast). A node's NICs send, per
    // direction, S with 2 nodes (root of one tree, leaf of the other), 1.5·S with 3 (the
    // trees are chains: interior in one, leaf in the other) and 2·S from 4 nodes (an
    // interior node sends S/2 up and S/2 to each of its two children, plus S/2 up as a leaf
    // of the other tree). Measured (NVIDIA/nccl issue #1801, GB200 partitions on three
    // racks, IB only, NCCL_ALGO=Tree): 128 and 253 GB/s algBw on 4 and 8 × 400 Gb/s NICs
    // per partition = 1.5·S at 0.96 and 0.95 of line rate.
    // Hosts joined by NVLink (a GB200 NVL72 rack's trays) are one domain of the tree.
    const int64_t domains = b.network_domains;
    const double per_direction = domains == 2 ? 1.0 : domains == 3 ? 1.5 : 2.0;
    const double domain_network = std::isfinite(b.domain_network) ? b.domain_network : b.node_network;
    const double network_bw = domain_network / per_direction;
    // Inside a node each tree is a chain: every GPU sends its partial sums up and the result
    // down, 2·S over its NVLink ports in all, so the chain bounds algBw at intra / 2 (NCCL
    // tuning.cc: tree algBw = busBw × 0.5, busBw = nChannels × bwIntra up to two nodes).
    const double tree_bw = k.tree_bandwidth_factor * std::min(b.intra / 2.0, network_bw);
    model.tree_bottleneck = network_bw <= b.intra / 2.0 ? b.ring_bottleneck : b.intra_bottleneck;
    const auto chain = static_cast<double>(b.max_ranks_per_domain - 1);
    const double tree_lat = base_us(kTree, p) + 2 * (chain * hw_us(intra_hw, kTree, p) +
                                                     std::log2(static_cast<double>(domains)) * hw_us(kNetHw, kTree, p));
    candidates.push_back(
        {tree_lat * 1e-6, protocol_bw(tree_bw, true), CollectiveAlgorithm::tree, protocol, p, true, false});
    const int node_nvls = k.nvls && b.node_nvswitch_generation >= 4 ? b.node_nvswitch_generation : 0;
    if (node_nvls > 0 && protocol == Protocol::simple) {
      // NVLSTree (NCCL 2.18+, Simple only; src/tuning/nvls.cc): inside each node the switch
      // reduces and multicasts as in NVLS (the NVLS bound above, over the node's ranks);
      // across nodes the double binary tree runs from each GPU's own NIC, with the network
      // share above. algBw = min(NVLS inside, tree across) (nvls.cc: bw = min(intraBw,
      // interBw), interBw doubled for two nodes as here). Two nodes of 8 × H100 with
      // 8 × 400 Gb/s each: the NVLS part binds.
      const double efficiency = k.nvls_efficiency[node_nvls >= 5 ? 1 : 0];
      const double nvls_inside = b.intra * efficiency * ppn / (ppn + 1);
      const double nvls_tree_bw = std::min(nvls_inside, network_bw);
      model.nvls_tree_bottleneck = network_bw <= nvls_inside ? b.ring_bottleneck : b.intra_bottleneck;
      const double nvls_tree_lat = k.nvls_latency_us + 2 * std::log2(nodes) * hw_us(kNetHw, kTree, p);
      candidates.push_back(
          {nvls_tree_lat * 1e-6, nvls_tree_bw, CollectiveAlgorithm::nvls_tree, protocol, p, false, false});
    }
    // Hierarchical (2-D): reduce-scatter over the node's ranks, all-reduce of S/ppn across
    // the nodes on every rail at once, all-gather over the node's ranks.
    const double per_byte = 2 * (ppn - 1) / ppn / b.intra + 2 * (nodes - 1) / nodes / b.node_network;
    const double hier_lat = base_us(kRing, p) + 2 * (ppn - 1) * intra_lat + 2 * (nodes - 1) * inter_lat;
    candidates.push_back({hier_lat * 1e-6, protocol_bw(1.0 / per_byte, false), CollectiveAlgorithm::hierarchical,
                          protocol, p, false, false});
  }

  // All-gather and reduce-scatter: the ring's n − 1 steps.
  void gather_or_scatter() {
    const double steps = n - 1, inter_steps = nodes - 1;
    const double lat = base_us(kRing, p) + (steps - inter_steps) * intra_lat + inter_steps * inter_lat;
    candidates.push_back(
        {lat * 1e-6, protocol_bw(b.ring, false) * n / steps, CollectiveAlgorithm::ring, protocol, p, false, false});
  }

  // Broadcast and reduce: a pipelined ring, the whole buffer over the narrowest edge.
  void broadcast_or_reduce() {
    const double lat = base_us(kRing, p) + n * hw_us(ring_hw, kRing, p);
    candidates.push_back(
        {lat * 1e-6, protocol_bw(b.ring, false), CollectiveAlgorithm::ring, protocol, p, false, false});
  }

  // All-to-all and send/recv (Simple only).
  void pairwise(CollectiveOp op) {
    // Pairwise exchange: each rank sends S/n to every peer, over its own links inside the
    // node and over the node's NICs (shared by its ranks) to other nodes. Hosts joined by
    // NVLink (a GB200 NVL72 rack's trays) are one NVLink domain: every peer is reached through
    // the rank's own NVLink ports, the same links as inside a tray.
    const bool one_domain = g.nodes > 1 && !crosses_network(g.worst_tier);
    const double domain_ranks = one_domain ? n : ppn;
    const double intra_share = (domain_ranks - 1) / n, inter_share = (n - domain_ranks) / n;
    double time_per_byte = 0;
    if (intra_share > 0 && std::isfinite(b.intra)) time_per_byte = std::max(time_per_byte, intra_share / b.intra);
    if (inter_share > 0 && std::isfinite(b.node_network))
      time_per_byte = std::max(time_per_byte, inter_share * ppn / b.node_network);
    if (op == CollectiveOp::send_recv) time_per_byte = 1.0 / b.ring;
    // NCCL runs the grouped sends and receives of an all-to-all as n − 1 rounds of one peer
    // pair each (enqueue.cc p2pSchedule), so the exchange latency is paid per round: the
    // 8 × A100 nccl-tests all-to-all floor is 87 µs against 34 µs for the ring collectives.
    // DeepEP/HybridEP (k.all_to_all_one_kernel) reach every peer from one kernel: one round.
    const bool rounds_per_peer = op == CollectiveOp::all_to_all && !k.all_to_all_one_kernel;
    const double rounds = rounds_per_peer ? n - 1 : 1.0;
    // Across the trays of one NVLink domain no message crosses the network.
    const double lat = rounds * (base_us(kRing, p) + hw_us(intra_hw, kRing, p)) +
                       (g.nodes > 1 && !one_domain ? (rounds_per_peer ? nodes - 1 : 1.0) * inter_lat : 0.0);
    candidates.push_back(
        {lat * 1e-6, time_per_byte > 0 ? 1.0 / time_per_byte : b.ring,
         op == CollectiveOp::send_recv ? CollectiveAlgorithm::point_to_point : CollectiveAlgorithm::pairwise, protocol,
         p, false, false});
  }
};

}  // namespace

CollectiveModel prepare_collective(const Router& router, const GroupPaths& g, CollectiveOp op, const CommConstants& k,
                                   const GroupBandwidth& b) {
  CollectiveModel model;
  CollectiveEstimate& e = model.base;
  e.op = op;
  e.ranks = static_cast<int64_t>(g.ring.size());
  e.nodes = g.nodes;
  e.tier = b.mesh_channels > 0 ? b.tier : g.worst_tier;
  model.rccl = b.rccl;
  if (e.ranks < 2) return model;
  for (const Route& r : g.ring_routes)
    if (!r.reachable) {
      model.unreachable = true;
      return model;
    }
  e.bottleneck = b.ring_bottleneck;
  if (e.bottleneck.valid()) e.bottleneck_kind = router.cluster().link(e.bottleneck).kind;
  model.tree_bottleneck = b.node_network <= b.intra ? b.ring_bottleneck : b.intra_bottleneck;
  model.plateau_bytes = static_cast<double>(e.ranks) / 16.0 * 65536;
  const auto n = static_cast<double>(e.ranks);
  const auto nodes = static_cast<double>(g.nodes);
  const auto ppn = static_cast<double>(g.max_ranks_per_node);
  const int intra_hw = b.intra_nvlink ? kNvlinkHw : kPciHw;
  const int ring_hw = g.nodes == 1 ? intra_hw : kNetHw;
  // NVLS: every ring edge over NVLink through an NVSwitch of NVLink generation 4 or later.
  const int nvls_generation = k.nvls && b.nvswitch_generation >= 4 ? b.nvswitch_generation : 0;
  const bool low_latency = low_latency_allowed(router.cluster(), g, k);
  const Protocol protocols[] = {Protocol::ll, Protocol::ll128, Protocol::simple};
  for (int p = 0; p < 3; ++p) {
    const Protocol protocol = protocols[p];
    if (protocol == Protocol::ll128 && !b.intra_nvlink) continue;  // NCCL enables LL128 on NVLink systems only
    if (protocol != Protocol::simple && !low_latency) continue;
    ProtocolCandidates candidates{k, b,     g,   model,    model.candidates, protocol,       p,
                                  n, nodes, ppn, intra_hw, ring_hw,          nvls_generation};
    candidates.intra_lat = candidates.hw_us(intra_hw, kRing, p);
    if (g.nodes > 1 && protocol == Protocol::ll) candidates.intra_lat *= 1.8;  // tuning.cc
    candidates.inter_lat = candidates.hw_us(kNetHw, kRing, p);
    candidates.add(op);
  }
  // NCCL's own choice never includes the 2-D algorithm; an explicit request runs only that one
  // (when it applies to this collective and group).
  model.forced = k.algorithm && std::any_of(model.candidates.begin(), model.candidates.end(),
                                            [&](const auto& c) { return c.algorithm == *k.algorithm; });
  model.forced_algorithm = k.algorithm.value_or(CollectiveAlgorithm::ring);
  return model;
}

CollectiveEstimate evaluate_collective(const CollectiveModel& model, double bytes, const CommConstants& k) {
  CollectiveEstimate e = model.base;
  e.bytes = bytes;
  if (e.ranks < 2 || bytes <= 0) return e;
  if (model.unreachable) {
    e.time_s = std::numeric_limits<double>::infinity();
    return e;
  }
  double best = std::numeric_limits<double>::infinity();
  int log_size = -1;  // log2(bytes / 64) for the tree correction, computed once when needed
  for (const auto& candidate : model.candidates) {
    if (!(candidate.bandwidth > 0)) continue;
    if (model.forced ? candidate.algorithm != model.forced_algorithm
                     : candidate.algorithm == CollectiveAlgorithm::hierarchical)
      continue;
    double bandwidth = candidate.bandwidth;
    if (candidate.tree) {
      if (log_size < 0) log_size = static_cast<int>(std::floor(std::log2(std::max(bytes / 64.0, 1.0))));
      if (log_size < 22) bandwidth *= k.tree_correction[candidate.protocol_index][log_size];
    }
    double latency = candidate.latency_s * k.latency_scale;
    if (candidate.plateau && bytes >= model.plateau_bytes) latency *= k.ring_plateau_latency_factor;
    latency += 1e-6 * (model.rccl ? k.rccl_call_overhead_us : k.call_overhead_us)[candidate.protocol_index];
    const double t = latency + bytes / bandwidth;
    if (t < best) {
      best = t;
      e.latency_s = latency;
      e.bandwidth_bytes_per_s = bandwidth;
      e.algorithm = candidate.algorithm;
      e.protocol = candidate.protocol;
    }
  }
  e.time_s = best;
  e.algbw_bytes_per_s = bytes / best;
  e.busbw_bytes_per_s = e.algbw_bytes_per_s * bus_bandwidth_factor(e.op, e.ranks);
  if (e.algorithm == CollectiveAlgorithm::tree) e.bottleneck = model.tree_bottleneck;
  if (e.algorithm == CollectiveAlgorithm::nvls_tree) e.bottleneck = model.nvls_tree_bottleneck;
  return e;
}

CollectiveEstimate estimate_collective(const Router& router, const GroupPaths& g, CollectiveOp op, double bytes,
                                       const CommConstants& k, const LinkLoad* load) {
  return evaluate_collective(prepare_collective(router, g, op, k, load), bytes, k);
}

}  // namespace meshscope
