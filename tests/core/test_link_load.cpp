// Link traffic per mesh axis (the communication map of the topology editor).
#include <catch2/catch.hpp>

#include "core/comm/link_load.hpp"
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

const LinkTraffic* traffic_on(const AxisLinkTraffic& axis, LinkId link) {
  for (const LinkTraffic& t : axis.links)
    if (t.link == link) return &t;
  return nullptr;
}

LinkId link_named(const Cluster& c, const std::string& id) {
  for (size_t i = 0; i < c.links.size(); ++i)
    if (c.links[i].id == id) return LinkId{static_cast<int32_t>(i)};
  FAIL("no link " << id);
  return {};
}

// One axis issuing `count` calls of `bytes` per step.
CommPlan one_collective(MeshAxis axis, int64_t group_size, CollectiveOp op, double count, double bytes) {
  CommPlan plan;
  AxisComm a;
  a.axis = axis;
  a.group_size = group_size;
  PlannedCollective c;
  c.op = op;
  c.count_per_step = count;
  c.bytes = bytes;
  a.collectives.push_back(c);
  plan.axes.push_back(a);
  return plan;
}

}  // namespace

TEST_CASE("link load: a ring all-reduce sends 2(n−1)/n·S per rank over each GPU's NVSwitch link") {
  // NCCL ring all-reduce (nccl-tests docs/PERFORMANCE.md, "bus bandwidth"): every rank sends
  // 2(n−1)/n·S to its ring successor. Inside a DGX H100 the edge gpu_i → gpu_i+1 runs
  // gpu_i → NVSwitch → gpu_i+1, so each GPU's link carries that much in each direction.
  const Cluster c = make("dgx-h100:nodes=1");
  const Router router(c);
  Layout layout;
  layout.tp = 8;
  const auto placement = place_layout(layout, c, router);
  REQUIRE(placement);
  const double bytes = 64e6, calls = 10;
  const auto per_axis = link_traffic_per_axis(one_collective(MeshAxis::tp, 8, CollectiveOp::all_reduce, calls, bytes),
                                              layout, c, router, *placement);
  REQUIRE(per_axis.size() == 1);
  CHECK(per_axis[0].axis == MeshAxis::tp);
  CHECK(per_axis[0].links.size() == 8);  // the eight GPU–NVSwitch links, nothing else
  const double expected = 2.0 * 7 / 8 * bytes * calls;
  for (int g = 0; g < 8; ++g) {
    const LinkTraffic* t = traffic_on(per_axis[0], link_named(c, "n0.gpu" + std::to_string(g) + "-nvsw"));
    REQUIRE(t);
    CHECK_THAT(t->bytes_per_step[0], WithinRel(expected, 1e-12));
    CHECK_THAT(t->bytes_per_step[1], WithinRel(expected, 1e-12));
    CHECK(t->flows[0] == 1);
    CHECK(t->flows[1] == 1);
  }
}

TEST_CASE("link load: DP across two DGX nodes sends (n−1)/n·S per reduce-scatter over each rail's NIC") {
  // TP 8 inside each node, DP 2 across: the DP group of local rank i is {n0.gpu i, n1.gpu i}, a
  // ring of two that leaves each node through NIC i (rail i) to the shared rail-i leaf.
  // Reduce-scatter on a ring of n ranks: (n−1)/n·S per rank (nccl-tests PERFORMANCE.md) = S/2.
  const Cluster c = make("dgx-h100:nodes=2");
  const Router router(c);
  Layout layout;
  layout.tp = 8;
  layout.dp = 2;
  const auto placement = place_layout(layout, c, router);
  REQUIRE(placement);
  const double bytes = 1e9;
  const auto per_axis = link_traffic_per_axis(one_collective(MeshAxis::dp, 2, CollectiveOp::reduce_scatter, 1, bytes),
                                              layout, c, router, *placement);
  REQUIRE(per_axis.size() == 1);
  for (int rail = 0; rail < 8; ++rail)
    for (int node = 0; node < 2; ++node) {
      const std::string id =
          "n" + std::to_string(node) + ".nic" + std::to_string(rail) + "-leaf.r" + std::to_string(rail) + ".p0";
      const LinkTraffic* t = traffic_on(per_axis[0], link_named(c, id));
      REQUIRE(t);
      CHECK_THAT(t->bytes_per_step[0], WithinRel(bytes / 2, 1e-12));
      CHECK_THAT(t->bytes_per_step[1], WithinRel(bytes / 2, 1e-12));
    }
  // Rail-aligned rings never climb to a spine.
  for (const LinkTraffic& t : per_axis[0].links) CHECK(c.device(c.link(t.link).b).kind != DeviceKind::spine_switch);
}

TEST_CASE("link load: the axes of a real plan add up to the plan's link traffic") {
  const Cluster c = make("dgx-h100:nodes=4");
  const Router router(c);
  Layout layout;
  layout.tp = 8;
  layout.pp = 2;
  layout.dp = 2;
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 64;
  const auto placement = place_layout(layout, c, router);
  REQUIRE(placement);
  const auto model = model_preset("llama3-70b");
  REQUIRE(model);
  const CommPlan plan = plan_communication(*model, w, layout, c, router, *placement);
  const auto per_axis = link_traffic_per_axis(plan, layout, c, router, *placement);
  REQUIRE(per_axis.size() == plan.axes.size());
  std::vector<double> summed(2 * c.links.size(), 0.0);
  for (const AxisLinkTraffic& axis : per_axis)
    for (const LinkTraffic& t : axis.links) {
      summed[2 * t.link.index()] += t.bytes_per_step[0];
      summed[2 * t.link.index() + 1] += t.bytes_per_step[1];
    }
  REQUIRE_FALSE(plan.links.empty());
  for (const LinkTraffic& t : plan.links) {
    CHECK_THAT(summed[2 * t.link.index()], WithinRel(t.bytes_per_step[0], 1e-9));
    CHECK_THAT(summed[2 * t.link.index() + 1], WithinRel(t.bytes_per_step[1], 1e-9));
  }
}
