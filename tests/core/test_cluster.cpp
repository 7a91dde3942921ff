// Cluster files (sample_clusters/, broken variants derived from them here) and the cluster
// generators, with the vendor figures each generator encodes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/model/model_io.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/link_defaults.hpp"
#include "core/topology/routing.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;
using nlohmann::json;

namespace {

std::string sample(const std::string& file) {
  // From the source tree, wherever the build directory is (__FILE__ is relative to it under Ninja).
  return (std::filesystem::path(MESHSCOPE_SOURCE_DIR) / "sample_clusters" / file).lexically_normal().string();
}

json load_json(const std::string& path) {
  auto text = read_text_file(path);
  REQUIRE(text);
  auto doc = parse_json_text(*text, path);
  REQUIRE(doc);
  return *doc;
}

Cluster generate(const std::string& spec) {
  auto cluster = generate_cluster(spec);
  INFO(spec << ": " << (cluster ? std::string() : cluster.error().to_string()));
  REQUIRE(cluster);
  return *cluster;
}

const Link& link(const Cluster& c, const std::string& id) {
  const auto it = std::find_if(c.links.begin(), c.links.end(), [&](const Link& l) { return l.id == id; });
  INFO("link " << id);
  REQUIRE(it != c.links.end());
  return *it;
}

const Device& device(const Cluster& c, const std::string& id) {
  const auto it = c.by_id.find(id);
  INFO("device " << id);
  REQUIRE(it != c.by_id.end());
  return c.device(it->second);
}

size_t count(const Cluster& c, DeviceKind kind) {
  return static_cast<size_t>(
      std::count_if(c.devices.begin(), c.devices.end(), [&](const Device& d) { return d.kind == kind; }));
}

size_t count_links(const Cluster& c, LinkKind kind, DeviceKind a, DeviceKind b) {
  return static_cast<size_t>(std::count_if(c.links.begin(), c.links.end(), [&](const Link& l) {
    const DeviceKind x = c.device(l.a).kind, y = c.device(l.b).kind;
    return l.kind == kind && ((x == a && y == b) || (x == b && y == a));
  }));
}

double leaf_uplink_bytes_per_s(const Cluster& c) {
  double total = 0;
  for (const Link& l : c.links)
    if (c.device(l.a).kind == DeviceKind::leaf_switch && c.device(l.b).kind == DeviceKind::spine_switch)
      total += l.bandwidth_bytes_per_s;
  return total;
}

const std::string kTeaching = sample("teaching-2x4.json");

// The error from loading the teaching cluster after `edit`.
Error broken_teaching(const std::function<void(json&)>& edit) {
  json doc = load_json(kTeaching);
  edit(doc);
  auto cluster = cluster_from_json(doc, kTeaching);
  REQUIRE_FALSE(cluster);
  return cluster.error();
}

}  // namespace

// ---- Sample files ---------------------------------------------------------------------------------

TEST_CASE("cluster: every sample cluster loads, indexed, with its GPU count") {
  const auto [file, gpus] = GENERATE(table<std::string, int64_t>({
      {"dgx-a100-2nodes.json", 16},
      {"dgx-h100-8nodes.json", 64},
      {"hgx-h200-4nodes.json", 32},
      {"dgx-b200-2nodes.json", 16},
      {"gb200-nvl72-1rack.json", 72},
      {"mi300x-2nodes.json", 16},
      {"pcie-8gpu-l40s.json", 8},
      {"rtx4090-workstation.json", 4},
      {"teaching-2x4.json", 8},
      {"irregular-mixed.json", 4},
  }));
  INFO(file);
  auto cluster = load_cluster_file(sample(file));
  if (!cluster) FAIL(cluster.error().to_string());
  CHECK(cluster->num_gpus() == gpus);
  CHECK(cluster->adjacency_offsets.size() == cluster->devices.size() + 1);
  CHECK(cluster->by_id.size() == cluster->devices.size());
  CHECK_FALSE(cluster->name.empty());
}

TEST_CASE("cluster: generated sample files are what their generator writes today") {
  const std::string file =
      GENERATE("dgx-a100-2nodes.json", "dgx-h100-8nodes.json", "hgx-h200-4nodes.json", "dgx-b200-2nodes.json",
               "gb200-nvl72-1rack.json", "mi300x-2nodes.json", "pcie-8gpu-l40s.json", "rtx4090-workstation.json");
  INFO(file);
  const json doc = load_json(sample(file));
  const Cluster regenerated = generate(doc.at("generator").get<std::string>());
  CHECK(doc == cluster_to_json(regenerated));
}

TEST_CASE("cluster: the teaching cluster reads host names, NVLink and network specifications") {
  auto c = load_cluster_file(kTeaching);
  REQUIRE(c);
  CHECK(c->num_nodes() == 2);
  CHECK(device(*c, "b.gpu2").node == 1);  // "node": "teach-b"
  CHECK(c->device(c->gpus[4]).id == "b.gpu0");
  // NVLink 4 × 6 links = 150 GB/s per direction (H100: 25 GB/s per link per direction).
  CHECK_THAT(link(*c, "a.gpu0-gpu1").bandwidth_bytes_per_s, WithinRel(150e9, 1e-12));
  CHECK(link(*c, "a.gpu0-gpu1").nvlink_count == 6);
  CHECK_THAT(link(*c, "a.nic0-leaf").bandwidth_bytes_per_s, WithinRel(25e9, 1e-12));       // 200 Gb/s
  CHECK_THAT(link(*c, "a.gpu0-pcie0").bandwidth_bytes_per_s, WithinRel(63.008e9, 1e-12));  // Gen5 x16
  // Latencies left out take the table's defaults.
  CHECK_THAT(link(*c, "a.gpu0-gpu1").latency_s, WithinRel(0.6e-6, 1e-12));
  CHECK_THAT(link(*c, "a.nic0-leaf").latency_s, WithinRel(1.0e-6, 1e-12));
}

TEST_CASE("cluster: the irregular host keeps its NVLink bridge and mixed PCIe generations and widths") {
  auto c = load_cluster_file(sample("irregular-mixed.json"));
  REQUIRE(c);
  CHECK(c->num_nodes() == 1);
  CHECK_THAT(link(*c, "gpu0-gpu1-bridge").bandwidth_bytes_per_s, WithinRel(300e9, 1e-12));
  CHECK_THAT(link(*c, "gpu2-pcie-b").bandwidth_bytes_per_s, WithinRel(pcie_bandwidth(3, 16), 1e-12));
  CHECK_THAT(link(*c, "gpu3-cpu1").bandwidth_bytes_per_s, WithinRel(pcie_bandwidth(4, 8), 1e-12));
  CHECK_THAT(link(*c, "cpu0-cpu1").bandwidth_bytes_per_s, WithinRel(67.2e9, 1e-12));
  CHECK(link(*c, "cpu0-cpu1").kind == LinkKind::upi);
  CHECK(device(*c, "gpu3").numa == 1);
}

TEST_CASE("cluster: to_json then from_json gives the same devices and links") {
  const std::string source = GENERATE("dgx-a100:nodes=3,oversubscription=3", "gb200-nvl72:racks=2", "mi300x:nodes=2",
                                      "rtx4090-ws", "teaching", "irregular");
  INFO(source);
  Cluster original;
  if (source == "teaching" || source == "irregular") {
    auto loaded = load_cluster_file(sample(source == "teaching" ? "teaching-2x4.json" : "irregular-mixed.json"));
    REQUIRE(loaded);
    original = *loaded;
    original.links.front().latency_s = 7.5e-6;  // a latency that is not the default survives too
  } else {
    original = generate(source);
  }
  const json doc = cluster_to_json(original);
  auto back = cluster_from_json(json::parse(cluster_to_json_text(original)), "round trip");
  if (!back) FAIL(back.error().to_string());
  CHECK(cluster_to_json(*back) == doc);
  CHECK(back->name == original.name);
  CHECK(back->generator == original.generator);
  CHECK(back->node_names == original.node_names);
  CHECK(back->rack_names == original.rack_names);
  REQUIRE(back->devices.size() == original.devices.size());
  for (size_t i = 0; i < original.devices.size(); ++i) {
    const Device &x = original.devices[i], &y = back->devices[i];
    INFO(x.id);
    CHECK(y.id == x.id);
    CHECK(y.kind == x.kind);
    CHECK(y.name == x.name);
    CHECK(y.node == x.node);
    CHECK(y.rack == x.rack);
    CHECK(y.numa == x.numa);
    CHECK(y.local_index == x.local_index);
    CHECK(y.gpu_model == x.gpu_model);
    CHECK(y.chips == x.chips);
  }
  REQUIRE(back->links.size() == original.links.size());
  for (size_t i = 0; i < original.links.size(); ++i) {
    const Link &x = original.links[i], &y = back->links[i];
    INFO(x.id);
    CHECK(y.id == x.id);
    CHECK(y.a == x.a);
    CHECK(y.b == x.b);
    CHECK(y.kind == x.kind);
    CHECK_THAT(y.bandwidth_bytes_per_s, WithinRel(x.bandwidth_bytes_per_s, 1e-12));
    CHECK_THAT(y.latency_s, WithinRel(x.latency_s, 1e-12));
    CHECK(y.nvlink_generation == x.nvlink_generation);
    CHECK(y.nvlink_count == x.nvlink_count);
    CHECK(y.pcie_generation == x.pcie_generation);
    CHECK(y.pcie_lanes == x.pcie_lanes);
    CHECK(y.gbits_per_s == x.gbits_per_s);
  }
}

// ---- Broken files ---------------------------------------------------------------------------------

TEST_CASE("cluster: a link to a device that does not exist is an error naming the link and the endpoint") {
  const Error e = broken_teaching([](json& doc) { doc["links"][0]["b"] = "a.gpu9"; });
  CHECK_THAT(e.to_string(), Contains("teaching-2x4.json") && Contains("a.gpu0-gpu1") && Contains("a.gpu9"));
}

TEST_CASE("cluster: a duplicate device id is an error naming it") {
  const Error e = broken_teaching([](json& doc) { doc["devices"][1]["id"] = "a.gpu0"; });
  CHECK_THAT(e.message, Contains("duplicate") && Contains("\"a.gpu0\""));
}

TEST_CASE("cluster: a duplicate link id is an error naming it") {
  const Error e = broken_teaching([](json& doc) { doc["links"][1]["id"] = "a.gpu0-gpu1"; });
  CHECK_THAT(e.message, Contains("duplicate link id") && Contains("a.gpu0-gpu1"));
}

TEST_CASE("cluster: zero or negative bandwidth is an error naming the link") {
  const double bandwidth = GENERATE(0.0, -5.0);
  const Error e = broken_teaching([&](json& doc) {
    json& nic_link = doc["links"][28];  // a.nic0-leaf
    nic_link.erase("gbps");
    nic_link["bandwidth_GBps"] = bandwidth;
  });
  CHECK_THAT(e.message, Contains("a.nic0-leaf") && Contains("positive bandwidth"));
}

TEST_CASE("cluster: a GPU cut off from the others is an error naming it") {
  const Error e = broken_teaching([](json& doc) {
    json kept = json::array();
    for (const json& l : doc["links"])
      if (l["a"] != "b.gpu3" && l["b"] != "b.gpu3") kept.push_back(l);
    doc["links"] = kept;
  });
  CHECK_THAT(e.message, Contains("b.gpu3") && Contains("no path"));
}

TEST_CASE("cluster: a field of the wrong JSON type is an error naming the field and the device or link") {
  Error e = broken_teaching([](json& doc) { doc["devices"][2]["numa"] = "0"; });
  CHECK(e.code == ErrorCode::wrong_type);
  CHECK_THAT(e.message, Contains("device #2") && Contains("a.gpu2") && Contains("\"numa\""));
  e = broken_teaching([](json& doc) { doc["links"][3]["count"] = "six"; });
  CHECK_THAT(e.message, Contains("link #3") && Contains("a.gpu1-gpu2") && Contains("\"count\""));
  e = broken_teaching([](json& doc) { doc["devices"][0]["id"] = 7; });
  CHECK_THAT(e.message, Contains("device #0") && Contains("\"id\""));
  e = broken_teaching([](json& doc) { doc["devices"] = json::object(); });
  CHECK(e.code == ErrorCode::wrong_type);
  CHECK_THAT(e.to_string(), Contains("devices"));
}

TEST_CASE("cluster: unknown device and link kinds are errors naming them and listing the kinds") {
  Error e = broken_teaching([](json& doc) { doc["devices"][0]["kind"] = "tpu"; });
  CHECK_THAT(e.message, Contains("a.gpu0") && Contains("\"tpu\"") && Contains("pcie-switch"));
  e = broken_teaching([](json& doc) { doc["links"][0]["kind"] = "nvlink5"; });
  CHECK_THAT(e.message, Contains("a.gpu0-gpu1") && Contains("\"nvlink5\"") && Contains("infiniband"));
}

TEST_CASE("cluster: a link specification must fit its kind and come alone") {
  Error e = broken_teaching([](json& doc) { doc["links"][0]["lanes"] = 16; });
  CHECK_THAT(e.message, Contains("a.gpu0-gpu1") && Contains("\"lanes\"") && Contains("nvlink"));
  e = broken_teaching([](json& doc) { doc["links"][0]["bandwidth_GBps"] = 150; });
  CHECK_THAT(e.message, Contains("a.gpu0-gpu1") && Contains("not both"));
  e = broken_teaching([](json& doc) { doc["links"][0].erase("count"); });
  CHECK(e.code == ErrorCode::missing_field);
  CHECK_THAT(e.message, Contains("a.gpu0-gpu1") && Contains("\"count\""));
  e = broken_teaching([](json& doc) { doc["links"][0]["generation"] = 9; });
  CHECK_THAT(e.message, Contains("NVLink generation"));
}

TEST_CASE("cluster: a GPU model missing from the catalogue is an error naming it") {
  const Error e = broken_teaching([](json& doc) { doc["devices"][0]["gpu_model"] = "h900"; });
  CHECK_THAT(e.message, Contains("a.gpu0") && Contains("h900") && Contains("h100-sxm"));
}

TEST_CASE("cluster: a node name not in the node list is an error") {
  const Error e = broken_teaching([](json& doc) { doc["devices"][0]["node"] = "teach-z"; });
  CHECK_THAT(e.message, Contains("a.gpu0") && Contains("teach-z"));
}

TEST_CASE("cluster: every problem of a file is reported in one error") {
  const Error e = broken_teaching([](json& doc) {
    doc["devices"][2]["numa"] = "0";
    doc["links"][0]["b"] = "a.gpu9";
    doc["devices"][9]["kind"] = "tpu";
  });
  CHECK_THAT(e.message, Contains("3 problems") && Contains("a.gpu2") && Contains("a.gpu9") && Contains("tpu"));
}

TEST_CASE("cluster: a file with many problems lists twenty and counts the rest") {
  const Error e = broken_teaching([](json& doc) {
    for (json& l : doc["links"]) l["kind"] = "bogus";
  });
  CHECK_THAT(e.message, Contains("32 problems") && Contains("and 12 more"));
  CHECK(std::count(e.message.begin(), e.message.end(), '\n') == 21);
}

TEST_CASE("cluster: a wrong format or version is refused") {
  Error e = broken_teaching([](json& doc) { doc["version"] = 2; });
  CHECK(e.code == ErrorCode::unsupported);
  CHECK_THAT(e.to_string(), Contains("version"));
  e = broken_teaching([](json& doc) { doc["format"] = "meshscope-model"; });
  CHECK_THAT(e.to_string(), Contains("format"));
}

TEST_CASE("cluster: a truncated file is a parse error naming the file") {
  auto text = read_text_file(kTeaching);
  REQUIRE(text);
  const auto path = (std::filesystem::temp_directory_path() / "meshscope-truncated-cluster.json").string();
  std::ofstream(path) << text->substr(0, text->size() / 2);
  auto cluster = load_cluster_file(path);
  std::filesystem::remove(path);
  REQUIRE_FALSE(cluster);
  CHECK(cluster.error().code == ErrorCode::parse_error);
  CHECK_THAT(cluster.error().to_string(), Contains("meshscope-truncated-cluster.json"));
}

// ---- Generators -----------------------------------------------------------------------------------

TEST_CASE("generators: every generator gives an indexed cluster at one and several nodes") {
  const auto [spec, gpus] = GENERATE(table<std::string, int64_t>({
      {"dgx-a100", 8},
      {"dgx-a100:nodes=3", 24},
      {"dgx-h100:nodes=40", 320},
      {"hgx-h200:nodes=2", 16},
      {"dgx-b200:nodes=5", 40},
      {"dgx-b300:nodes=2", 16},
      {"gb200-nvl72", 72},
      {"gb200-nvl72:racks=3", 216},
      {"gb200-nvl72:racks=4,trays=16", 256},  // a Slurm job in segments of 16 trays
      {"mi300x", 8},
      {"mi300x:nodes=33", 264},
      {"pcie-8gpu", 8},
      {"pcie-8gpu:gpu=h100-pcie,nodes=2", 16},
      {"rtx4090-ws", 4},
      {"rtx4090-ws:nodes=3", 12},
      {"dgx-h100:nodes=9,nodes_per_leaf=4,oversubscription=1.5", 72},
  }));
  INFO(spec);
  Cluster c = generate(spec);
  CHECK(c.num_gpus() == gpus);
  CHECK(c.generator == spec);
  CHECK(index_cluster(c).empty());
}

TEST_CASE("generators: trays= keeps a job's trays of each NVL72 rack in that rack's NVLink domain") {
  const Cluster c = generate("gb200-nvl72:racks=4,trays=16");
  CHECK(c.num_nodes() == 64);
  CHECK(c.rack_names.size() == 4);
  // GPU 64 is the first of the second rack: node 16, not the 17th tray of rack 0.
  CHECK(c.device(c.gpus[64]).rack == 1);
  CHECK(c.device(c.gpus[63]).rack == 0);
  CHECK_THAT(generate_cluster("gb200-nvl72:trays=19").error().message, Contains("from 1 to 18"));
  CHECK_THAT(generate_cluster("dgx-h100:trays=16").error().message, Contains("no key \"trays\""));
}

TEST_CASE("generators: every name in the list generates") {
  const auto names = generator_names();
  CHECK(names.size() == 12);
  for (const auto& name : names) CHECK(generate_cluster(name));
  CHECK(cluster_generators().size() == names.size());
}

TEST_CASE("generators: DGX H100 — 450 GB/s NVSwitch links, 50 GB/s NICs, rail-optimised leaves and spines") {
  const Cluster c = generate("dgx-h100:nodes=64");
  CHECK(c.num_gpus() == 512);
  CHECK(c.num_nodes() == 64);
  CHECK(c.node_names[3] == "node003");
  // DGX H100: 18 NVLink 4 links per GPU, 900 GB/s both ways (NVIDIA DGX H100 user guide).
  CHECK_THAT(link(c, "n3.gpu5-nvsw").bandwidth_bytes_per_s, WithinRel(450e9, 1e-12));
  CHECK(device(c, "n3.nvsw").chips == 4);
  CHECK(device(c, "n3.gpu5").gpu_model == "h100-sxm");
  CHECK(device(c, "n3.gpu5").numa == 1);
  CHECK(device(c, "n3.nic5").local_index == 5);
  // ConnectX-7 400 Gb/s = 50 GB/s per direction, NIC on the GPU's PCIe Gen5 switch.
  CHECK_THAT(link(c, "n3.nic5-leaf.r5.p0").bandwidth_bytes_per_s, WithinRel(50e9, 1e-12));
  CHECK_THAT(link(c, "n3.gpu5-pcie2").bandwidth_bytes_per_s, WithinRel(pcie_bandwidth(5, 16), 1e-12));
  CHECK(link(c, "n3.nic5-pcie2").kind == LinkKind::pcie);
  CHECK_THAT(link(c, "n3.cpu0-cpu1").bandwidth_bytes_per_s, WithinRel(128e9, 1e-12));  // 4 UPI × 16 GT/s
  // 64 nodes, 32 per leaf: 2 groups × 8 rails = 16 leaves; 32 uplink ports → 16 spines; each
  // leaf–spine link carries 32 × 400 / 16 = 800 Gb/s.
  CHECK(count(c, DeviceKind::leaf_switch) == 16);
  CHECK(count(c, DeviceKind::spine_switch) == 16);
  CHECK(device(c, "leaf.r5.p1").node == -1);
  CHECK_THAT(link(c, "leaf.r5.p1-spine7").bandwidth_bytes_per_s, WithinRel(100e9, 1e-12));
  CHECK(count_links(c, LinkKind::infiniband, DeviceKind::leaf_switch, DeviceKind::spine_switch) == 256);
  // Latency defaults: half an NCCL NVLink step to the NVSwitch, a Quantum switch hop between switches.
  CHECK_THAT(link(c, "n3.gpu5-nvsw").latency_s, WithinRel(0.3e-6, 1e-12));
  CHECK_THAT(link(c, "leaf.r5.p1-spine7").latency_s, WithinRel(0.13e-6, 1e-12));
}

TEST_CASE("generators: DGX A100 — 300 GB/s NVLink 3, six NVSwitch chips, 200 Gb/s HDR, xGMI between sockets") {
  const Cluster c = generate("dgx-a100:nodes=2");
  CHECK_THAT(link(c, "n1.gpu0-nvsw").bandwidth_bytes_per_s, WithinRel(300e9, 1e-12));
  CHECK(device(c, "n1.nvsw").chips == 6);
  CHECK(device(c, "n1.gpu0").gpu_model == "a100-80gb-sxm");
  CHECK_THAT(link(c, "n1.nic0-leaf.r0.p0").bandwidth_bytes_per_s, WithinRel(25e9, 1e-12));
  CHECK_THAT(link(c, "n1.gpu0-pcie0").bandwidth_bytes_per_s, WithinRel(31.504e9, 1e-12));  // Gen4 x16
  CHECK(link(c, "n1.cpu0-cpu1").kind == LinkKind::xgmi);
  CHECK(count(c, DeviceKind::pcie_switch) == 8);
  CHECK(count(c, DeviceKind::nic) == 16);
  CHECK(count(c, DeviceKind::cpu) == 4);
  CHECK(device(generate("dgx-a100:gpu=a100-40gb-sxm"), "n0.gpu0").gpu_model == "a100-40gb-sxm");
}

TEST_CASE("generators: HGX H200 and DGX B200 — H200 GPUs; 900 GB/s NVLink 5 on two NVSwitch chips") {
  const Cluster h200 = generate("hgx-h200");
  CHECK(h200.device(h200.gpus[7]).gpu_model == "h200-sxm");
  CHECK_THAT(link(h200, "n0.gpu7-nvsw").bandwidth_bytes_per_s, WithinRel(450e9, 1e-12));
  const Cluster b200 = generate("dgx-b200:nodes=2");
  CHECK_THAT(link(b200, "n0.gpu7-nvsw").bandwidth_bytes_per_s, WithinRel(900e9, 1e-12));
  CHECK(device(b200, "n0.nvsw").chips == 2);
  CHECK(b200.device(b200.gpus[0]).gpu_model == "b200");
  CHECK_THAT(link(b200, "n1.nic7-leaf.r7.p0").bandwidth_bytes_per_s, WithinRel(50e9, 1e-12));
}

TEST_CASE("generators: GB200 NVL72 — one 18-chip NVSwitch fabric per rack joins its 72 GPUs") {
  const Cluster c = generate("gb200-nvl72:racks=2");
  CHECK(c.num_gpus() == 144);
  CHECK(c.num_nodes() == 36);
  CHECK(c.rack_names.size() == 2);
  CHECK(count(c, DeviceKind::nvswitch) == 2);
  const Device& fabric = device(c, "r1.nvsw");
  CHECK(fabric.chips == 18);
  CHECK(fabric.node == -1);
  CHECK(fabric.rack == 1);
  CHECK(device(c, "n20.gpu3").rack == 1);
  CHECK_THAT(link(c, "n20.gpu3-r1.nvsw").bandwidth_bytes_per_s, WithinRel(900e9, 1e-12));  // 18 × NVLink 5
  CHECK(link(c, "n20.gpu3-cpu1").kind == LinkKind::nvlink);                                // NVLink-C2C
  CHECK_THAT(link(c, "n20.gpu3-cpu1").bandwidth_bytes_per_s, WithinRel(450e9, 1e-12));
  CHECK(count(c, DeviceKind::cpu) == 72);
  CHECK(count(c, DeviceKind::nic) == 144);
  CHECK(count(c, DeviceKind::leaf_switch) == 8);  // 4 rails × 2 groups of ≤ 32 trays
  CHECK(count_links(c, LinkKind::nvlink, DeviceKind::gpu, DeviceKind::nvswitch) == 144);
}

TEST_CASE("generators: dgx-b300 is a DGX B200 host with B300 GPUs and 800 Gb/s ConnectX-8 NICs") {
  // NVIDIA HGX page: HGX B300 networking 1.6 TB/s per board = 8 × 800 Gb/s; HGX B200 0.8 TB/s.
  const Cluster b300 = generate("dgx-b300:nodes=2");
  const Cluster b200 = generate("dgx-b200:nodes=2");
  for (const DeviceId g : b300.gpus) CHECK(b300.device(g).gpu_model == "b300");
  CHECK(b300.links.size() == b200.links.size());
  int nics = 0;
  for (const Link& l : b300.links)
    if ((b300.device(l.a).kind == DeviceKind::nic && b300.device(l.b).kind == DeviceKind::leaf_switch) ||
        (b300.device(l.b).kind == DeviceKind::nic && b300.device(l.a).kind == DeviceKind::leaf_switch)) {
      CHECK_THAT(l.bandwidth_bytes_per_s, WithinRel(100e9, 1e-12));
      ++nics;
    }
  CHECK(nics == 16);
}

TEST_CASE("generators: gpu=gb300 makes the rack a GB300 NVL72 — Blackwell Ultra GPUs, 800 Gb/s ConnectX-8 NICs") {
  const Cluster gb200 = generate("gb200-nvl72");
  const Cluster gb300 = generate("gb200-nvl72:gpu=gb300");
  CHECK(gb300.num_gpus() == 72);
  for (const DeviceId g : gb300.gpus) CHECK(gb300.device(g).gpu_model == "gb300");
  CHECK(gb200.device(gb200.gpus.front()).gpu_model == "gb200");
  // The NICs' fabric links: ConnectX-8 SuperNIC 800 Gb/s on GB300 trays, ConnectX-7 400 Gb/s on GB200's.
  const auto nic_link_rates = [](const Cluster& c) {
    std::vector<double> rates;
    for (const Link& l : c.links)
      if ((c.device(l.a).kind == DeviceKind::nic && c.device(l.b).kind == DeviceKind::leaf_switch) ||
          (c.device(l.b).kind == DeviceKind::nic && c.device(l.a).kind == DeviceKind::leaf_switch))
        rates.push_back(l.bandwidth_bytes_per_s);
    return rates;
  };
  const auto rates300 = nic_link_rates(gb300);
  REQUIRE(rates300.size() == 72);
  for (const double r : rates300) CHECK_THAT(r, WithinRel(100e9, 1e-12));
  for (const double r : nic_link_rates(gb200)) CHECK_THAT(r, WithinRel(50e9, 1e-12));
  CHECK(generate("gb200-nvl72:gpu=gb300,nic_gbps=400").links.size() == gb300.links.size());
  CHECK_FALSE(generate_cluster("gb200-nvl72:gpu=gb900"));
}

TEST_CASE("generators: MI300X — every GPU pair on its own 64 GB/s xGMI link, 1 GPU + 1 NIC per PCIe switch") {
  const Cluster c = generate("mi300x:nodes=2");
  CHECK(count_links(c, LinkKind::xgmi, DeviceKind::gpu, DeviceKind::gpu) == 56);  // 28 pairs per node
  CHECK_THAT(link(c, "n1.gpu2-gpu6").bandwidth_bytes_per_s, WithinRel(64e9, 1e-12));
  CHECK(count(c, DeviceKind::pcie_switch) == 16);
  CHECK(count(c, DeviceKind::nvswitch) == 0);
  CHECK(link(c, "n1.nic6-pcie6").kind == LinkKind::pcie);
  CHECK(link(c, "n1.nic6-leaf.r6.p0").kind == LinkKind::roce);
}

TEST_CASE("generators: AWS p4d/p4de and p5 — the PCIe layouts of AWS's own NCCL topology files, EFA NICs") {
  // aws-ofi-nccl topology/p5.48xl-topo.xml: 8 PCIe switches, each with 1 H100 and 4 EFA NICs of
  // 100 Gb/s (speed="100000"); topology/p4d-24xl-topo.xml: 4 switches of 2 A100s and 1 NIC.
  // Every PCIe switch holds `gpus` GPUs and `nics` NICs.
  const auto check_switches = [](const Cluster& c, int gpus, int nics) {
    const auto neighbours = [&](DeviceId of, DeviceKind kind) {
      int n = 0;
      c.for_each_link(of, [&](LinkId l) { n += c.device(c.other_end(l, of)).kind == kind ? 1 : 0; });
      return n;
    };
    for (size_t i = 0; i < c.devices.size(); ++i) {
      const DeviceId d{static_cast<int32_t>(i)};
      if (c.device(d).kind != DeviceKind::pcie_switch) continue;
      CHECK(neighbours(d, DeviceKind::gpu) == gpus);
      CHECK(neighbours(d, DeviceKind::nic) == nics);
    }
  };
  const Cluster p5 = generate("aws-p5:nodes=2");
  CHECK(p5.num_gpus() == 16);
  CHECK(device(p5, "n1.gpu7").gpu_model == "h100-sxm");
  CHECK(count(p5, DeviceKind::pcie_switch) == 16);
  CHECK(count(p5, DeviceKind::nic) == 64);
  check_switches(p5, 1, 4);
  // Every NIC's link into the fabric is EFA at its line rate.
  CHECK(count_links(p5, LinkKind::efa, DeviceKind::nic, DeviceKind::leaf_switch) == 64);
  CHECK_THAT(link(p5, "n1.nic31-leaf.r31.p0").bandwidth_bytes_per_s, WithinRel(12.5e9, 1e-12));
  // NCCL spreads a GPU's channels over all four NICs under its switch; on a DGX H100, where a
  // switch's two GPUs use a NIC each, every GPU keeps its own.
  const Router p5_router(p5);
  CHECK(p5_router.nearest_nics(p5.gpus[3]).size() == 4);
  const Cluster dgx = generate("dgx-h100:nodes=2");
  CHECK(Router(dgx).nearest_nics(dgx.gpus[3]).size() == 1);

  const Cluster p4d = generate("aws-p4d");
  CHECK(device(p4d, "n0.gpu0").gpu_model == "a100-40gb-sxm");
  CHECK(device(generate("aws-p4de"), "n0.gpu0").gpu_model == "a100-80gb-sxm");
  CHECK(count(p4d, DeviceKind::pcie_switch) == 4);
  CHECK(count(p4d, DeviceKind::nic) == 4);
  check_switches(p4d, 2, 1);
}

TEST_CASE("generators: an 8-GPU PCIe server has no NVLink and two NUMA domains") {
  const Cluster c = generate("pcie-8gpu:gpu=h100-pcie");
  CHECK(c.device(c.gpus[0]).gpu_model == "h100-pcie");
  CHECK(count_links(c, LinkKind::nvlink, DeviceKind::gpu, DeviceKind::gpu) == 0);
  CHECK(count(c, DeviceKind::nvswitch) == 0);
  CHECK(count(c, DeviceKind::cpu) == 2);
  CHECK(count(c, DeviceKind::pcie_switch) == 4);
  CHECK(link(c, "n0.cpu0-cpu1").kind == LinkKind::upi);
  CHECK(device(c, "n0.gpu5").numa == 1);
  CHECK(device(c, "n0.nic1").numa == 1);
  CHECK_THAT(link(c, "n0.nic1-cpu1").bandwidth_bytes_per_s, WithinRel(pcie_bandwidth(4, 16), 1e-12));
  CHECK(device(generate("pcie-8gpu"), "n0.gpu0").gpu_model == "l40s");
}

TEST_CASE("generators: the RTX 4090 workstation puts every GPU on a CPU root port") {
  const Cluster c = generate("rtx4090-ws");
  CHECK(c.num_gpus() == 4);
  CHECK(count(c, DeviceKind::pcie_switch) == 0);
  CHECK_THAT(link(c, "n0.gpu3-cpu0").bandwidth_bytes_per_s, WithinRel(pcie_bandwidth(4, 16), 1e-12));
  CHECK(count(c, DeviceKind::nic) == 1);
  const Cluster three = generate("rtx4090-ws:nodes=3");
  CHECK(count(three, DeviceKind::leaf_switch) == 1);  // one rail, one leaf, no spine
  CHECK(count(three, DeviceKind::spine_switch) == 0);
  CHECK(link(three, "n2.nic0-leaf.r0.p0").kind == LinkKind::ethernet);
}

TEST_CASE("generators: oversubscription 2 halves the leaf uplink capacity") {
  const Cluster full = generate("dgx-a100:nodes=4");
  const Cluster half = generate("dgx-a100:nodes=4,oversubscription=2");
  // Full: 8 leaves × 4 nodes × 25 GB/s up. Halved: the same leaves with half the capacity.
  CHECK_THAT(leaf_uplink_bytes_per_s(full), WithinRel(8 * 4 * 25e9, 1e-12));
  CHECK_THAT(leaf_uplink_bytes_per_s(half), WithinRel(leaf_uplink_bytes_per_s(full) / 2, 1e-12));
  CHECK(count(full, DeviceKind::spine_switch) == 4);
  CHECK(count(half, DeviceKind::spine_switch) == 2);
}

TEST_CASE("generators: nodes_per_leaf groups the nodes of each rail and nic_gbps sets the line rate") {
  const Cluster c = generate("dgx-h100:nodes=10,nodes_per_leaf=4,nic_gbps=200");
  CHECK(count(c, DeviceKind::leaf_switch) == 24);  // 3 groups × 8 rails
  CHECK(count(c, DeviceKind::spine_switch) == 4);
  CHECK(link(c, "n9.nic0-leaf.r0.p2").gbits_per_s == 200);
  // The last group has 2 nodes: 2 × 200 Gb/s over 4 spines = 100 Gb/s per link.
  CHECK(link(c, "leaf.r0.p2-spine3").gbits_per_s == 100);
  CHECK(link(c, "leaf.r0.p0-spine3").gbits_per_s == 200);
}

TEST_CASE("generators: 16,384 GPUs (dgx-h100:nodes=2048) generate without quadratic work") {
  const auto start = std::chrono::steady_clock::now();
  const Cluster c = generate("dgx-h100:nodes=2048");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(c.num_gpus() == 16384);
  CHECK(count(c, DeviceKind::leaf_switch) == 512);
  CHECK(c.node_names.back() == "node2047");
  CHECK(seconds < 5.0);  // ~0.05 s in a release build; a quadratic step would take minutes
}

TEST_CASE("generators: unknown names, keys and bad values are errors naming them and the valid ones") {
  auto e = generate_cluster("dgx-h1000");
  REQUIRE_FALSE(e);
  CHECK_THAT(e.error().message, Contains("dgx-h1000") && Contains("dgx-h100") && Contains("rtx4090-ws"));
  e = generate_cluster("dgx-h100:rack=2");
  REQUIRE_FALSE(e);
  CHECK_THAT(e.error().message, Contains("\"rack\"") && Contains("nodes_per_leaf"));
  e = generate_cluster("gb200-nvl72:nodes=2");
  REQUIRE_FALSE(e);
  CHECK_THAT(e.error().message, Contains("\"nodes\"") && Contains("racks"));
  const std::string bad = GENERATE("dgx-h100:nodes=0", "dgx-h100:nodes=abc", "dgx-h100:nodes=2.5",
                                   "dgx-a100:oversubscription=0.5", "dgx-h100:gpu=tpu-v5", "dgx-h100:nic_gbps=-1",
                                   "dgx-h100:nodes", "dgx-h100:nodes=2,nodes=3", "dgx-h100:nodes_per_leaf=0");
  INFO(bad);
  auto result = generate_cluster(bad);
  REQUIRE_FALSE(result);
  CHECK(result.error().code == ErrorCode::invalid_argument);
  CHECK_THAT(result.error().to_string(), Contains(bad));
}

TEST_CASE("generators: resolve_cluster takes a cluster file or a generator string") {
  auto from_file = resolve_cluster(kTeaching);
  REQUIRE(from_file);
  CHECK(from_file->num_gpus() == 8);
  auto generated = resolve_cluster("dgx-b200:nodes=2");
  REQUIRE(generated);
  CHECK(generated->num_gpus() == 16);
  auto missing = resolve_cluster("no/such/cluster.json");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::io_error);
  auto neither = resolve_cluster("dgx-h2000");
  REQUIRE_FALSE(neither);
  CHECK_THAT(neither.error().message, Contains("generators:") && Contains("no file"));
}

TEST_CASE("cluster: every link kind has a documented default latency") {
  for (auto kind : {LinkKind::nvlink, LinkKind::pcie, LinkKind::xgmi, LinkKind::upi, LinkKind::infiniband,
                    LinkKind::roce, LinkKind::ethernet, LinkKind::efa}) {
    INFO(link_kind_name(kind));
    CHECK(std::any_of(link_latency_defaults().begin(), link_latency_defaults().end(),
                      [&](const LinkLatencyDefault& row) { return row.kind == kind && !row.source.empty(); }));
    CHECK(default_link_latency_s(kind, DeviceKind::nic, DeviceKind::leaf_switch) > 0);
  }
  CHECK_THAT(default_link_latency_s(LinkKind::pcie, DeviceKind::gpu, DeviceKind::pcie_switch),
             WithinRel(0.5e-6, 1e-12));
  CHECK_THAT(default_link_latency_s(LinkKind::xgmi, DeviceKind::gpu, DeviceKind::gpu), WithinRel(0.6e-6, 1e-12));
  CHECK_THAT(default_link_latency_s(LinkKind::xgmi, DeviceKind::cpu, DeviceKind::cpu), WithinRel(0.1e-6, 1e-12));
}
