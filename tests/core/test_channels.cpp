// The channel search (core/comm/channels.cpp) on hand-drawn meshes whose max-flow is worked
// out by hand in each test, on the generators' meshes and on the irregular sample cluster.
#include <catch2/catch.hpp>

#include <cstdio>
#include <set>
#include <string>

#include "core/comm/channels.hpp"
#include "core/comm/collective.hpp"
#include "core/comm/link_load.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

constexpr double GB = 1e9;

// GPUs "g0".."g<n-1>" on one node, joined by the given GPU–GPU links (bandwidth per direction).
struct Drawn {
  Cluster cluster;
  explicit Drawn(int gpus) {
    cluster.name = "drawn";
    cluster.node_names = {"n0"};
    for (int g = 0; g < gpus; ++g) {
      Device d;
      d.id = "g" + std::to_string(g);
      d.kind = DeviceKind::gpu;
      d.node = 0;
      d.local_index = g;
      d.gpu_model = "h100-sxm";
      cluster.devices.push_back(d);
    }
  }
  Drawn& link(int a, int b, double gbytes_per_s, LinkKind kind = LinkKind::nvlink) {
    Link l;
    l.id = "g" + std::to_string(a) + "-g" + std::to_string(b) + "#" + std::to_string(cluster.links.size());
    l.a = DeviceId{a};
    l.b = DeviceId{b};
    l.kind = kind;
    l.bandwidth_bytes_per_s = gbytes_per_s * GB;
    cluster.links.push_back(l);
    return *this;
  }
  Cluster done() {
    const auto problems = index_cluster(cluster);
    for (const auto& p : problems) INFO(p.id << ": " << p.message);
    REQUIRE(problems.empty());
    return cluster;
  }
};

// Nominal capacity (efficiency 1), so the hand-computed max-flows read in GB/s of the drawing.
ChannelPlan plan_of(const Cluster& c, const std::vector<DeviceId>& gpus) {
  const Router router(c);
  return search_channels(router, gpus, [&](LinkId l, int) { return c.link(l).bandwidth_bytes_per_s; });
}

std::vector<DeviceId> first(const Cluster& c, size_t n) {
  return {c.gpus.begin(), c.gpus.begin() + static_cast<std::ptrdiff_t>(n)};
}

// Bytes/s each ring puts on every link direction, summed over the rings: never above capacity.
void check_rings_fit(const Cluster& c, const ChannelPlan& plan) {
  std::vector<double> load(2 * c.links.size(), 0.0);
  for (const ChannelRing& ring : plan.rings) {
    REQUIRE(ring.order.size() == ring.routes.size());
    std::set<int32_t> seen;
    for (const DeviceId d : ring.order) seen.insert(d.value);
    CHECK(seen.size() == ring.order.size());  // a Hamiltonian cycle: every GPU once
    for (size_t i = 0; i < ring.routes.size(); ++i) {
      DeviceId at = ring.order[i];
      for (const LinkId l : ring.routes[i].links) {
        load[2 * l.index() + (c.link(l).a == at ? 0 : 1)] += ring.bandwidth;
        at = c.other_end(l, at);
      }
      CHECK(at == ring.order[(i + 1) % ring.order.size()]);
    }
  }
  for (size_t s = 0; s < load.size(); ++s) CHECK(load[s] <= c.links[s / 2].bandwidth_bytes_per_s * (1 + 1e-9));
}

}  // namespace

TEST_CASE("channels: a 4-GPU full mesh carries three links' worth per GPU") {
  // K4, 50 GB/s per direction on each of its 6 links. Max-flow: 3 links leave each GPU, so at
  // most 150 GB/s. K4 has 3 undirected Hamiltonian cycles (0-1-2-3, 0-1-3-2, 0-2-1-3), each
  // edge in two of them; run each both ways at x and every link direction carries 2x, so
  // x = 25 GB/s and the 6 rings carry 150 GB/s. (Three rings at 50 would need directed K4 to
  // split into 3 Hamiltonian cycles, which it cannot: Tillson 1980.)
  Drawn d(4);
  d.link(0, 1, 50).link(0, 2, 50).link(0, 3, 50).link(1, 2, 50).link(1, 3, 50).link(2, 3, 50);
  const Cluster c = d.done();
  const ChannelPlan plan = plan_of(c, c.gpus);
  CHECK_THAT(plan.bound, WithinRel(150 * GB, 1e-9));
  CHECK_THAT(plan.bandwidth, WithinRel(150 * GB, 1e-9));
  check_rings_fit(c, plan);
}

TEST_CASE("channels: a plain 4-GPU ring of links carries one link each way") {
  // Square 0–1–2–3–0, 40 GB/s per direction. Each GPU has 2 links: bound 80 GB/s. The only
  // Hamiltonian cycles are the square in its two directions, each using one direction of every
  // link, so the rings carry 40 + 40 = 80 GB/s.
  Drawn d(4);
  d.link(0, 1, 40).link(1, 2, 40).link(2, 3, 40).link(3, 0, 40);
  const Cluster c = d.done();
  const ChannelPlan plan = plan_of(c, c.gpus);
  CHECK_THAT(plan.bandwidth, WithinRel(80 * GB, 1e-9));
  CHECK(plan.rings.size() == 2);
  check_rings_fit(c, plan);
}

TEST_CASE("channels: a partial mesh is held to its narrowest cut, not its busiest GPU") {
  // Two triangles {0,1,2} and {3,4,5} (60 GB/s links) joined by one bridge 2–3 of 20 GB/s and
  // one 0–5 of 20 GB/s. GPU bound: GPUs 1 and 4 have two 60 GB/s links = 120 GB/s. Cut between
  // the triangles: 2–3 and 5–0, 20 GB/s each per direction; every ring crosses the cut once
  // each way, and both bridges point one way per ring direction, so the rings carry at most
  // 40 GB/s (20 + 20 in each direction): the max-flow across the cut, not 120.
  Drawn d(6);
  d.link(0, 1, 60).link(1, 2, 60).link(2, 0, 60).link(3, 4, 60).link(4, 5, 60).link(5, 3, 60);
  d.link(2, 3, 20).link(0, 5, 20);
  const Cluster c = d.done();
  const ChannelPlan plan = plan_of(c, c.gpus);
  CHECK_THAT(plan.bound, WithinRel(120 * GB, 1e-9));
  CHECK_THAT(plan.bandwidth, WithinRel(40 * GB, 1e-9));
  check_rings_fit(c, plan);
}

TEST_CASE("channels: an 8-GPU full mesh (MI300X xGMI) uses all seven links of every GPU") {
  // mi300x generator: 28 xGMI links of 64 GB/s per direction. Bound: 7 × 64 = 448 GB/s per GPU.
  // Directed K8 decomposes into 7 directed Hamiltonian cycles (Tillson 1980: K*_n for n ≠ 4, 6),
  // and RCCL's own MI300X model uses 14 rings over the 56 link directions, two on each
  // (ROCm/rccl src/graph/rome_models.cc rome_model_79). Either way every direction is full.
  auto cluster = generate_cluster("mi300x:nodes=1");
  REQUIRE(cluster);
  const Cluster& c = *cluster;
  const ChannelPlan plan = plan_of(c, c.gpus);
  CHECK_THAT(plan.bandwidth, WithinRel(448 * GB, 1e-9));
  check_rings_fit(c, plan);
  std::set<int32_t> used;
  for (const ChannelRing& ring : plan.rings)
    for (const Route& r : ring.routes)
      for (const LinkId l : r.links) used.insert(l.value);
  size_t xgmi_between_gpus = 0;
  for (const Link& l : c.links)
    if (l.kind == LinkKind::xgmi && c.device(l.a).kind == DeviceKind::gpu) ++xgmi_between_gpus;
  CHECK(xgmi_between_gpus == 28);
  CHECK(used.size() == 28);
  // Two GPUs of the mesh: one direct link, nothing else (RCCL does not route rings through a
  // third GPU of a fully connected node).
  const ChannelPlan pair = plan_of(c, first(c, 2));
  CHECK_THAT(pair.bandwidth, WithinRel(64 * GB, 1e-9));
  // Four GPUs: 3 links each, K4 as above: 192 GB/s.
  CHECK_THAT(plan_of(c, first(c, 4)).bandwidth, WithinRel(192 * GB, 1e-9));
}

TEST_CASE("channels: DGX-1 V100 hybrid cube-mesh reaches six NVLinks per GPU") {
  // The nvidia-smi topo -m of the shared V100 log: NV1/NV2 between GPUs (NV2 = two bonded
  // NVLink2 links, 50 GB/s per direction; NV1 = 25). Every GPU has six links (150 GB/s out).
  // Cut between the quads {0,1,2,3} and {4,5,6,7}: 0–6 (NV2), 1–7 (NV2), 2–4 (NV1), 3–5 (NV1)
  // = 150 GB/s per direction, equal to the GPU bound, so the max-flow is 150 GB/s, and three
  // undirected Hamiltonian cycles over the doubled multigraph, run both ways, reach it.
  Drawn d(8);
  const int nv1[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}, {6, 7}};
  const int nv2[][2] = {{0, 3}, {0, 6}, {1, 2}, {1, 7}, {2, 3}, {4, 5}, {4, 7}, {5, 6}};
  for (const auto& p : nv1) d.link(p[0], p[1], 25);
  for (const auto& p : nv2) d.link(p[0], p[1], 50);
  const Cluster c = d.done();
  const ChannelPlan plan = plan_of(c, c.gpus);
  CHECK_THAT(plan.bound, WithinRel(150 * GB, 1e-9));
  CHECK_THAT(plan.bandwidth, WithinRel(150 * GB, 1e-9));
  check_rings_fit(c, plan);
}

TEST_CASE("channels: the irregular sample cluster is held by its narrowest PCIe GPU") {
  // sample_clusters/irregular-mixed.json: gpu0–gpu1 NVLink bridge (12 × NVLink4 = 300 GB/s),
  // gpu2 on a PCIe Gen3 x16 switch (16 × 0.985 = 15.760 GB/s), gpu3 on a Gen4 x8 CPU port
  // (8 × 1.969 = 15.752 GB/s). Every ring enters and leaves gpu3 over its one link: the four
  // GPUs' max-flow is 15.752 GB/s per direction. The pair gpu0–gpu1 alone has the bridge.
  auto cluster = load_cluster_file(std::string(MESHSCOPE_SOURCE_DIR) + "/sample_clusters/irregular-mixed.json");
  REQUIRE(cluster);
  const Cluster& c = *cluster;
  const ChannelPlan all = plan_of(c, c.gpus);
  CHECK_THAT(all.bandwidth, WithinRel(pcie_bandwidth(4, 8), 1e-9));
  CHECK_THAT(all.bound, WithinRel(pcie_bandwidth(4, 8), 1e-9));
  check_rings_fit(c, all);
  CHECK(has_direct_mesh(c, c.gpus));
  CHECK_THAT(plan_of(c, first(c, 2)).bandwidth, WithinRel(nvlink_bandwidth(4, 12), 1e-9));
}

TEST_CASE("channels: a switch fabric needs no search") {
  auto cluster = generate_cluster("dgx-h100:nodes=1");
  REQUIRE(cluster);
  CHECK_FALSE(has_direct_mesh(*cluster, cluster->gpus));
  auto mesh = generate_cluster("mi300x:nodes=1");
  REQUIRE(mesh);
  CHECK(has_direct_mesh(*mesh, mesh->gpus));
}

TEST_CASE("channels: the map of an 8×MI300X group loads all 28 links, 1/7 of the ring edge each way") {
  // The communication map follows the model's rings (link_load.cpp ring_channels): over the
  // fully connected node each link direction carries the same share of a ring edge's bytes,
  // 1/7 (seven links out of every GPU share its sends evenly), where one ring would load 8 of
  // the 28 links with all of it.
  auto cluster = generate_cluster("mi300x:nodes=1");
  REQUIRE(cluster);
  const Cluster& c = *cluster;
  const Router router(c);
  const auto channels = ring_channels(router, c.gpus);
  REQUIRE(channels.size() > 1);
  std::vector<double> share(2 * c.links.size(), 0.0);
  double total = 0;
  for (const RingChannel& channel : channels) {
    total += channel.share;
    for (size_t hop = 0; hop < channel.routes.size(); ++hop) {
      DeviceId at = channel.senders[hop];
      for (const LinkId l : channel.routes[hop].links) {
        share[2 * l.index() + (c.link(l).a == at ? 0 : 1)] += channel.share;
        at = c.other_end(l, at);
      }
    }
  }
  CHECK_THAT(total, WithinRel(1.0, 1e-9));
  int loaded = 0;
  for (size_t l = 0; l < c.links.size(); ++l) {
    const Link& link = c.links[l];
    if (link.kind != LinkKind::xgmi || c.device(link.a).kind != DeviceKind::gpu) {
      CHECK(share[2 * l] == 0);  // no PCIe or CPU link carries ring traffic
      continue;
    }
    for (int d = 0; d < 2; ++d) CHECK_THAT(share[2 * l + static_cast<size_t>(d)], WithinRel(1.0 / 7, 1e-9));
    ++loaded;
  }
  CHECK(loaded == 28);
}

TEST_CASE("channels: two MI300X nodes over RoCE keep the mesh inside each node") {
  // The hierarchical path inherits the mesh: a 16-GPU group on two mi300x nodes is bounded by
  // the eight 400 Gb/s NICs of a node (8 × 50 GB/s × 0.92 = 368 GB/s, more than the mesh's
  // 7 × 64 × 0.75 = 336 GB/s), so the intra-node part — the rings over all seven links — is
  // what the ring runs at, not one 48 GB/s link.
  auto cluster = generate_cluster("mi300x:nodes=2");
  REQUIRE(cluster);
  const Router router(*cluster);
  const GroupPaths group = group_paths(router, cluster->gpus);
  const GroupBandwidth b = group_bandwidth(router, group, CommConstants::defaults());
  CHECK_THAT(b.intra, WithinRel(336e9, 1e-9));
  CHECK(b.mesh_channels > 1);
  CHECK_THAT(b.ring, WithinRel(336e9, 1e-9));
  const auto e =
      estimate_collective(router, group, CollectiveOp::all_reduce, 8.0 * (1 << 30), CommConstants::defaults());
  CHECK(e.busbw_bytes_per_s > 250e9);
}
