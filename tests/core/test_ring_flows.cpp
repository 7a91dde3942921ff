// Link traffic of rings that span nodes: NCCL runs one ring per channel and spreads the channels
// over the NICs of the group's GPUs, so the bytes of an inter-node ring divide evenly among them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "core/comm/link_load.hpp"
#include "core/keys/options.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/generators.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

Cluster make(const char* spec) {
  auto cluster = generate_cluster(spec);
  REQUIRE(cluster);
  return std::move(*cluster);
}

LinkId link_named(const Cluster& c, const std::string& id) {
  for (size_t i = 0; i < c.links.size(); ++i)
    if (c.links[i].id == id) return LinkId{static_cast<int32_t>(i)};
  FAIL("no link " << id);
  return {};
}

const LinkTraffic* traffic_on(const AxisLinkTraffic& axis, LinkId link) {
  for (const LinkTraffic& t : axis.links)
    if (t.link == link) return &t;
  return nullptr;
}

double busy_s(const Cluster& c, const LinkTraffic& t) {
  return std::max(t.bytes_per_step[0], t.bytes_per_step[1]) / c.link(t.link).bandwidth_bytes_per_s;
}

const AxisLinkTraffic& axis_of(const std::vector<AxisLinkTraffic>& per_axis, MeshAxis axis) {
  const auto it = std::find_if(per_axis.begin(), per_axis.end(), [&](const auto& a) { return a.axis == axis; });
  REQUIRE(it != per_axis.end());
  return *it;
}

const AxisComm& plan_axis(const CommPlan& plan, MeshAxis axis) {
  const auto it = std::find_if(plan.axes.begin(), plan.axes.end(), [&](const auto& a) { return a.axis == axis; });
  REQUIRE(it != plan.axes.end());
  return *it;
}

// The default project's best layout: Llama-3.1-70B on 8 DGX H100, ZeRO-3, tp=2 pp=4 vpp=5 cp=2 dp=4.
struct DefaultProject {
  Cluster cluster = make("dgx-h100:nodes=8");
  Router router{cluster};
  Layout layout;
  TrainingWorkload workload;
  ModelSpec model;
  DefaultProject() {
    auto train = split_key_values("seq=8192,global_batch=512,recompute=none,zero=3", "--train");
    REQUIRE(train);
    auto w = training_from_keys(*train);
    REQUIRE(w);
    workload = *w;
    auto keys = split_key_values("tp=2,pp=4,vpp=5,cp=2,dp=4,sp=true", "--layout");
    REQUIRE(keys);
    auto l = layout_from_keys(*keys);
    REQUIRE(l);
    layout = *l;
    auto m = model_preset("llama3.1-70b");
    REQUIRE(m);
    model = *m;
  }
};

}  // namespace

TEST_CASE("ring flows: a ZeRO-3 group of 4 GPUs per node spreads its inter-node bytes over their 4 NICs") {
  // DP × CP = 8 ranks on two nodes, GPUs 0, 2, 4, 6 (or 1, 3, 5, 7) of each. NCCL builds one ring
  // per channel and, on a rail-optimised fabric, each channel leaves a node through a different
  // GPU's NIC (NVIDIA/nccl src/graph/search.cc, ncclTopoCompute: one NET per channel, same NET in
  // and out unless NCCL_CROSS_NIC); the collective model times the all-gather on all four NICs,
  // so each NIC carries a quarter of the bytes and is busy no longer than the DP axis itself.
  DefaultProject p;
  const auto placement = place_layout(p.layout, p.cluster, p.router);
  REQUIRE(placement);
  const CommPlan plan = plan_communication(p.model, p.workload, p.layout, p.cluster, p.router, *placement);
  const auto per_axis = link_traffic_per_axis(plan, p.layout, p.cluster, p.router, *placement);
  const AxisLinkTraffic& dp = axis_of(per_axis, MeshAxis::dp);
  const AxisComm& dp_plan = plan_axis(plan, MeshAxis::dp);

  double busiest = 0;
  std::string busiest_link;
  for (const AxisLinkTraffic& axis : per_axis)
    for (const LinkTraffic& t : axis.links)
      if (busy_s(p.cluster, t) > busiest) {
        busiest = busy_s(p.cluster, t);
        busiest_link = p.cluster.link(t.link).id;
      }
  // Before the rings were split into channels, n0.nic6 carried the whole DP ring: 162.75 s per step.
  INFO("busiest link " << busiest_link << ": " << busiest << " s per step; DP " << dp_plan.time_per_step_s << " s");
  CHECK(busiest <= dp_plan.time_per_step_s);
  // No link of any axis is busier than the axis's own communication time allows.
  for (const AxisLinkTraffic& axis : per_axis)
    for (const LinkTraffic& t : axis.links) {
      INFO(mesh_axis_name(axis.axis) << " on " << p.cluster.link(t.link).id);
      CHECK(busy_s(p.cluster, t) <= plan_axis(plan, axis.axis).time_per_step_s);
    }

  for (const int first : {0, 1}) {
    std::vector<double> nic_bytes;
    for (int gpu = first; gpu < 8; gpu += 2) {
      const std::string id = "n0.nic" + std::to_string(gpu) + "-leaf.r" + std::to_string(gpu) + ".p0";
      const LinkTraffic* t = traffic_on(dp, link_named(p.cluster, id));
      REQUIRE(t);
      nic_bytes.push_back(t->bytes_per_step[0]);
      CHECK_THAT(t->bytes_per_step[1], WithinRel(t->bytes_per_step[0], 0.01));
      CHECK(busy_s(p.cluster, *t) <= dp_plan.time_per_step_s);
    }
    for (const double bytes : nic_bytes) CHECK_THAT(bytes, WithinRel(nic_bytes.front(), 0.01));
  }
  // Rail-aligned channels never climb to a spine.
  for (const LinkTraffic& t : dp.links)
    CHECK(p.cluster.device(p.cluster.link(t.link).b).kind != DeviceKind::spine_switch);
}

TEST_CASE("ring flows: one GPU per node puts all of a DP ring's bytes on that GPU's rail NIC") {
  // TP 8 fills each node, DP 4 across four nodes: the DP group of local rank i is GPU i of every
  // node, one channel that leaves each node through NIC i to the rail-i leaf; an all-reduce ring of
  // 4 sends 2(n−1)/n·S = 1.5·S per rank (nccl-tests PERFORMANCE.md).
  const Cluster c = make("dgx-h100:nodes=4");
  const Router router(c);
  Layout layout;
  layout.tp = 8;
  layout.dp = 4;
  const auto placement = place_layout(layout, c, router);
  REQUIRE(placement);
  CommPlan plan;
  AxisComm dp;
  dp.axis = MeshAxis::dp;
  dp.group_size = 4;
  PlannedCollective call;
  call.op = CollectiveOp::all_reduce;
  call.count_per_step = 1;
  call.bytes = 1e9;
  dp.collectives.push_back(call);
  plan.axes.push_back(dp);
  const auto per_axis = link_traffic_per_axis(plan, layout, c, router, *placement);
  REQUIRE(per_axis.size() == 1);
  for (int node = 0; node < 4; ++node)
    for (int rail = 0; rail < 8; ++rail) {
      const std::string id =
          "n" + std::to_string(node) + ".nic" + std::to_string(rail) + "-leaf.r" + std::to_string(rail) + ".p0";
      const LinkTraffic* t = traffic_on(per_axis[0], link_named(c, id));
      REQUIRE(t);
      CHECK_THAT(t->bytes_per_step[0], WithinRel(1.5e9, 1e-12));
      CHECK_THAT(t->bytes_per_step[1], WithinRel(1.5e9, 1e-12));
      CHECK(t->flows[0] == 1);
    }
  // No NVLink hop: each GPU is alone in its node within its group.
  for (const LinkTraffic& t : per_axis[0].links) CHECK(c.link(t.link).kind != LinkKind::nvlink);
}

TEST_CASE("ring flows: each channel of a group spanning nodes enters every node on its own rail") {
  // GPUs 0, 2, 4, 6 of two DGX nodes: four channels, each a quarter of the bytes, channel c
  // crossing between the nodes on the rail of the group's c-th GPU and on no other.
  const Cluster c = make("dgx-h100:nodes=2");
  const Router router(c);
  std::vector<DeviceId> ring;
  for (int node = 0; node < 2; ++node)
    for (int gpu = 0; gpu < 8; gpu += 2) ring.push_back(c.gpus[static_cast<size_t>(8 * node + gpu)]);
  const auto channels = ring_channels(router, ring);
  REQUIRE(channels.size() == 4);
  for (size_t channel = 0; channel < channels.size(); ++channel) {
    CHECK_THAT(channels[channel].share, WithinRel(0.25, 1e-12));
    int crossings = 0;
    for (size_t hop = 0; hop < channels[channel].routes.size(); ++hop) {
      const Route& r = channels[channel].routes[hop];
      if (r.tier != PathTier::same_leaf && r.tier != PathTier::spine) continue;
      ++crossings;
      CHECK(r.tier == PathTier::same_leaf);
      CHECK(c.device(channels[channel].senders[hop]).local_index == static_cast<int32_t>(2 * channel));
    }
    CHECK(crossings == 2);  // out of each node once
  }
}
