// connect_to_fabric: the generators' leaf/spine fabric, exposed for the topology editor.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"

using namespace meshscope;

TEST_CASE("fabric: connecting the bare hosts of a generated cluster rebuilds its fabric exactly") {
  const auto [spec, options] = GENERATE(table<const char*, FabricOptions>({
      {"dgx-h100:nodes=8", FabricOptions{}},
      {"dgx-a100:nodes=5,nodes_per_leaf=2,oversubscription=2",
       FabricOptions{.nodes_per_leaf = 2, .oversubscription = 2, .kind = LinkKind::infiniband, .nic_gbps = 200}},
      {"mi300x:nodes=3", FabricOptions{.kind = LinkKind::roce, .nic_gbps = 400}},
  }));
  auto generated = generate_cluster(spec);
  REQUIRE(generated);
  // The generators add the fabric last: cut its switches and every link that touches them.
  Cluster hosts = *generated;
  while (!hosts.devices.empty() && (hosts.devices.back().kind == DeviceKind::leaf_switch ||
                                    hosts.devices.back().kind == DeviceKind::spine_switch))
    hosts.devices.pop_back();
  std::erase_if(hosts.links, [&](const Link& l) {
    return l.a.index() >= hosts.devices.size() || l.b.index() >= hosts.devices.size();
  });
  REQUIRE(hosts.devices.size() < generated->devices.size());
  connect_to_fabric(hosts, options);
  CHECK(index_cluster(hosts).empty());
  CHECK(cluster_to_json(hosts) == cluster_to_json(*generated));
}

TEST_CASE("fabric: a single node gets no fabric") {
  auto one = generate_cluster("dgx-h100:nodes=1");
  REQUIRE(one);
  Cluster c = *one;
  connect_to_fabric(c, FabricOptions{});
  CHECK(c.devices.size() == one->devices.size());
  CHECK(c.links.size() == one->links.size());
}
