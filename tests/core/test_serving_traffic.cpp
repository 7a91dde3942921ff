// The communication map of a serving deployment: per decode iteration, every link's bytes from the
// instance's TP all-reduces, PP send/recv and EP all-to-alls, routed as NCCL rings.
#include <catch2/catch.hpp>

#include "core/model/catalogue.hpp"
#include "core/serving/serving_traffic.hpp"
#include "core/topology/generators.hpp"

using namespace meshscope;

TEST_CASE("serving traffic: TP 8 on one NVSwitch node carries the ring all-reduce bytes on every GPU link") {
  auto cluster = generate_cluster("hgx-h200:nodes=1");
  REQUIRE(cluster);
  const Router router(*cluster);
  auto model = model_preset("llama3.1-70b");
  REQUIRE(model);
  ServingWorkload workload;  // bf16 activations
  ServingLayout layout;
  layout.tp = 8;
  auto map = serving_traffic(*model, workload, layout, 64, *cluster, router);
  REQUIRE(map);
  REQUIRE(map->loads.size() == 1);
  CHECK(map->loads.front().axis == MeshAxis::tp);
  // NCCL ring all-reduce: each rank sends 2(n − 1)/n · S to its successor (nccl-tests
  // PERFORMANCE.md); S = 64 tokens × 8192 hidden × 2 B; 2 all-reduces × 80 layers per iteration.
  const double s = 64.0 * 8192 * 2;
  const double expected = 2.0 * 7 / 8 * s * 2 * 80;
  int gpu_links = 0;
  for (const LinkTraffic& traffic : map->loads.front().links) {
    const Link& link = cluster->link(traffic.link);
    const bool gpu_end =
        cluster->device(link.a).kind == DeviceKind::gpu || cluster->device(link.b).kind == DeviceKind::gpu;
    if (!gpu_end) continue;
    ++gpu_links;
    CHECK(traffic.bytes_per_step[0] == Approx(expected).epsilon(1e-9));
    CHECK(traffic.bytes_per_step[1] == Approx(expected).epsilon(1e-9));
  }
  CHECK(gpu_links == 8);
}

TEST_CASE("serving traffic: replicas do not talk to each other; EP all-to-alls load an MoE deployment") {
  auto cluster = generate_cluster("hgx-h200:nodes=2");
  REQUIRE(cluster);
  const Router router(*cluster);
  ServingWorkload workload;
  // Two TP 8 replicas of a dense model: no link between the nodes carries anything.
  auto dense = model_preset("llama3.1-70b");
  REQUIRE(dense);
  ServingLayout replicas;
  replicas.tp = 8;
  replicas.replicas = 2;
  auto map = serving_traffic(*dense, workload, replicas, 64, *cluster, router);
  REQUIRE(map);
  for (const AxisLinkTraffic& axis : map->loads)
    for (const LinkTraffic& traffic : axis.links) CHECK_FALSE(is_network_link(cluster->link(traffic.link).kind));
  // DeepSeek-V3 with EP 16 across both nodes: the expert all-to-alls cross the network.
  auto moe = model_preset("deepseek-v3");
  REQUIRE(moe);
  ServingLayout ep;
  ep.tp = 16;
  ep.ep = 16;
  auto moe_map = serving_traffic(*moe, workload, ep, 128, *cluster, router);
  REQUIRE(moe_map);
  bool network = false;
  for (const AxisLinkTraffic& axis : moe_map->loads)
    if (axis.axis == MeshAxis::ep)
      for (const LinkTraffic& traffic : axis.links) network |= is_network_link(cluster->link(traffic.link).kind);
  CHECK(network);
}
