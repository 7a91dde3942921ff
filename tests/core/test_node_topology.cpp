// Node-topology importers (nvidia-smi topo -m, hwloc XML, NCCL topology XML) on the real files in
// ../shared/data, and broken variants derived from them here.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "core/importers/node_topology.hpp"
#include "core/model/model_io.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/routing.hpp"
#include "tests/support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;

namespace {

const std::string kA100 = "data/nvidia_smi_topo/repo_blog_8xA100_NV12_17NIC_bond.txt";
const std::string kA10 = "data/nvidia_smi_topo/repo_blog_4xA10_PCIe_SYS_2NIC.txt";
const std::string kPower8 = "data/hwloc_xml/hwloc_power8_4xP100_nvlink.xml";
const std::string kSupermicro = "data/hwloc_xml/hwloc_SupermicroX9DRG-HF_2socket_gpu_wholeio.xml";
const std::string kG4dn = "data/hwloc_xml/mpibind_aws_g4dn.metal_8xT4.xml";
const std::string kEpyc = "data/hwloc_xml/hwloc_2xEPYC9654_zen4.xml";
const std::string kAmd64 = "data/hwloc_xml/hwloc_16amd64_4distances.xml";
const std::string kNdv4 = "data/nccl_topo_xml/azure_ndv4-topo.xml";
const std::string kNcv4Graph = "data/nccl_topo_xml/azure_ncv4-graph.xml";

std::string text_of(const std::string& relative) {
  auto text = read_text_file(test::shared_path(relative));
  REQUIRE(text);
  return *text;
}

NodeImport import_file(const std::string& relative, const NodeImportOptions& options = {}) {
  auto node = import_node_topology_file(test::shared_path(relative), options);
  INFO(relative << ": " << (node ? std::string() : node.error().to_string()));
  REQUIRE(node);
  return *node;
}

Error import_error(const std::string& text, const std::string& origin, const NodeImportOptions& options = {}) {
  auto node = import_node_topology_text(text, origin, options);
  REQUIRE_FALSE(node);
  return node.error();
}

size_t count(const Cluster& c, DeviceKind kind) {
  return static_cast<size_t>(
      std::count_if(c.devices.begin(), c.devices.end(), [&](const Device& d) { return d.kind == kind; }));
}

size_t count(const Cluster& c, LinkKind kind) {
  return static_cast<size_t>(
      std::count_if(c.links.begin(), c.links.end(), [&](const Link& l) { return l.kind == kind; }));
}

DeviceId id_of(const Cluster& c, const std::string& id) {
  const auto it = c.by_id.find(id);
  INFO("device " << id);
  REQUIRE(it != c.by_id.end());
  return it->second;
}

PathTier tier(const Cluster& c, const std::string& a, const std::string& b) {
  const Router r(c);
  const Route route = r.route(id_of(c, a), id_of(c, b));
  REQUIRE(route.reachable);
  return route.tier;
}

size_t numa_domains(const Cluster& c) {
  return count(c, DeviceKind::cpu);
}

// Every import must survive a cluster-file round trip unchanged.
void check_round_trip(const Cluster& c) {
  const auto doc = cluster_to_json(c);
  auto back = cluster_from_json(doc, "round trip");
  INFO((back ? std::string() : back.error().to_string()));
  REQUIRE(back);
  CHECK(cluster_to_json(*back) == doc);
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("node topology: formats are told apart by their contents") {
  CHECK(detect_node_topology_format(text_of(kA100)) == NodeTopologyFormat::nvidia_smi_topo);
  CHECK(detect_node_topology_format(text_of(kA10)) == NodeTopologyFormat::nvidia_smi_topo);
  CHECK(detect_node_topology_format(text_of(kPower8)) == NodeTopologyFormat::hwloc_xml);
  CHECK(detect_node_topology_format(text_of(kG4dn)) == NodeTopologyFormat::hwloc_xml);
  CHECK(detect_node_topology_format(text_of(kNdv4)) == NodeTopologyFormat::nccl_topo_xml);
  CHECK(detect_node_topology_format(text_of(kNcv4Graph)) == NodeTopologyFormat::nccl_graph_xml);
  CHECK(detect_node_topology_format("hello") == NodeTopologyFormat::unknown);
}

TEST_CASE("node topology: nvidia-smi 8x A100 NV12 becomes an NVSwitch fabric with 4 PCIe switches") {
  const NodeImport node = import_file(kA100);
  const Cluster& c = node.cluster;
  CHECK(node.format == NodeTopologyFormat::nvidia_smi_topo);
  CHECK(c.num_gpus() == 8);
  CHECK(count(c, DeviceKind::nic) == 17);
  CHECK(numa_domains(c) == 1);                    // every GPU reports NUMA affinity 0
  CHECK(count(c, DeviceKind::pcie_switch) == 4);  // 2 GPUs + 4 NICs each (PXB)
  // NV12 to all 7 peers is 84 links a GPU, which only NVSwitch gives: one fabric, 12 links a GPU.
  REQUIRE(count(c, DeviceKind::nvswitch) == 1);
  CHECK(count(c, LinkKind::nvlink) == 8);
  for (const Link& l : c.links)
    if (l.kind == LinkKind::nvlink) {
      CHECK(l.nvlink_count == 12);
      CHECK(l.nvlink_generation == 3);
      CHECK(l.bandwidth_bytes_per_s == 300e9);
    }
  CHECK(tier(c, "n0.gpu0", "n0.gpu1") == PathTier::nvlink);
  CHECK(tier(c, "n0.gpu0", "n0.gpu7") == PathTier::nvlink);
  // NIC names from the NIC Legend; the bond keeps no rail; GPU0's nearest NIC is under its switch.
  CHECK_THAT(c.device(id_of(c, "n0.nic0")).name, Contains("mlx5_2"));
  CHECK(c.device(id_of(c, "n0.nic16")).local_index == -1);
  const Router r(c);
  const DeviceId nic = r.nearest_nic(id_of(c, "n0.gpu2"));
  REQUIRE(nic.valid());
  CHECK(c.device(nic).local_index >= 4);
  CHECK(c.device(nic).local_index <= 7);
  // SYS between GPUs the affinity puts on one NUMA node is reported, not hidden.
  CHECK(std::any_of(node.warnings.begin(), node.warnings.end(),
                    [](const ImportWarning& w) { return w.message.find("SYS") != std::string::npos; }));
  check_round_trip(c);
}

TEST_CASE("node topology: nvidia-smi NVLink can be kept as direct GPU pairs on request") {
  NodeImportOptions options;
  options.nvlink = NvlinkModel::direct;
  options.gpu_model = "a100-80gb-sxm";
  const Cluster c = import_file(kA100, options).cluster;
  CHECK(count(c, DeviceKind::nvswitch) == 0);
  CHECK(count(c, LinkKind::nvlink) == 28);
  CHECK(c.device(c.gpus[0]).gpu_model == "a100-80gb-sxm");
  CHECK(tier(c, "n0.gpu3", "n0.gpu6") == PathTier::nvlink);
  check_round_trip(c);
}

TEST_CASE("node topology: nvidia-smi 4x A10 all SYS has no NVLink and one NUMA domain") {
  const NodeImport node = import_file(kA10);
  const Cluster& c = node.cluster;
  CHECK(c.num_gpus() == 4);
  CHECK(count(c, DeviceKind::nic) == 2);
  CHECK(count(c, LinkKind::nvlink) == 0);
  CHECK(count(c, DeviceKind::pcie_switch) == 1);  // NIC0–NIC1 are PIX (one dual-port card)
  CHECK(numa_domains(c) == 1);
  CHECK_THAT(c.device(id_of(c, "n0.nic1")).name, Contains("mlx5_1"));
  // SYS within one reported NUMA node (a VM): the affinity wins, the route goes through that CPU.
  CHECK(tier(c, "n0.gpu0", "n0.gpu3") == PathTier::numa);
  CHECK_FALSE(node.warnings.empty());
  check_round_trip(c);
}

TEST_CASE("node topology: nvidia-smi matrix tiers follow NV#, PIX/PXB, NODE and SYS") {
  // A made-up 2-socket host: GPU0/1 NV4, GPU0/2 PIX (one switch), GPU3 on socket 1.
  const std::string text =
      "\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tNV4\tPIX\tSYS\tNODE\t0-15\t0\t\tN/A\n"
      "GPU1\tNV4\t X \tNODE\tSYS\tNODE\t0-15\t0\t\tN/A\n"
      "GPU2\tPIX\tNODE\t X \tSYS\tNODE\t0-15\t0\t\tN/A\n"
      "GPU3\tSYS\tSYS\tSYS\t X \tSYS\t16-31\t1\t\tN/A\n"
      "NIC0\tNODE\tNODE\tNODE\tSYS\t X \n"
      "\nLegend:\n\n  X    = Self\n\nNIC Legend:\n\n  NIC0: mlx5_0\n";
  auto node = import_node_topology_text(text, "two-socket.txt", {});
  INFO((node ? std::string() : node.error().to_string()));
  REQUIRE(node);
  const Cluster& c = node->cluster;
  CHECK(numa_domains(c) == 2);
  CHECK(count(c, DeviceKind::pcie_switch) == 1);
  CHECK(count(c, DeviceKind::nvswitch) == 0);
  CHECK(tier(c, "n0.gpu0", "n0.gpu1") == PathTier::nvlink);
  CHECK(tier(c, "n0.gpu0", "n0.gpu2") == PathTier::pcie_switch);
  CHECK(tier(c, "n0.gpu1", "n0.gpu2") == PathTier::numa);
  CHECK(tier(c, "n0.gpu0", "n0.gpu3") == PathTier::cross_socket);
  CHECK(c.device(id_of(c, "n0.gpu3")).numa == 1);
  CHECK(c.device(id_of(c, "n0.nic0")).numa == 0);
  CHECK(node->warnings.empty());
  check_round_trip(c);
}

TEST_CASE("node topology: broken nvidia-smi output gives errors with file and line") {
  const std::string good = text_of(kA10);
  SECTION("truncated inside the matrix") {
    const std::string cut = good.substr(0, good.find("GPU3    SYS"));
    const Error e = import_error(cut, "cut.txt");
    CHECK_THAT(e.location, Contains("cut.txt:6"));
    CHECK_THAT(e.message, Contains("truncated"));
  }
  SECTION("a row cut short") {
    const std::string cut = replace_once(good, "GPU2    SYS     SYS      X      SYS     SYS", "GPU2    SYS     SYS");
    const Error e = import_error(cut, "short.txt");
    CHECK_THAT(e.location, Contains("short.txt:5"));
    CHECK_THAT(e.message, Contains("GPU2"));
  }
  SECTION("garbage in a cell") {
    const Error e =
        import_error(replace_once(good, "GPU1    SYS      X      SYS", "GPU1    S#S      X      SYS"), "bad.txt");
    CHECK_THAT(e.location, Contains("bad.txt:4"));
    CHECK_THAT(e.message, Contains("S#S"));
  }
  SECTION("a row label that is not the next device") {
    const Error e =
        import_error(replace_once(good, "GPU2    SYS     SYS      X", "GPU5    SYS     SYS      X"), "label.txt");
    CHECK_THAT(e.location, Contains("label.txt:5"));
    CHECK_THAT(e.message, Contains("expected the row of GPU2"));
  }
  SECTION("a column named twice") {
    const Error e = import_error(replace_once(good, "GPU2    GPU3", "GPU2    GPU2"), "twice.txt");
    CHECK_THAT(e.location, Contains("twice.txt:2"));
    CHECK_THAT(e.message, Contains("appears twice"));
  }
  SECTION("an asymmetric matrix") {
    const Error e = import_error(replace_once(good, "NIC0    SYS     SYS     SYS     SYS      X      PIX",
                                              "NIC0    SYS     SYS     SYS     SYS      X      SYS"),
                                 "asym.txt");
    CHECK_THAT(e.message, Contains("symmetric"));
  }
  SECTION("random bytes") {
    const Error e = import_error(std::string("\x01\x02garbage\nGPU7 foo\n", 20), "junk.bin");
    CHECK_THAT(e.location, Contains("junk.bin"));
  }
  SECTION("empty") {
    CHECK_THAT(import_error("", "empty.txt").location, Contains("empty.txt"));
  }
}

TEST_CASE("node topology: hwloc POWER8 4x P100 NVLink pairs and GPU-CPU NVLink") {
  const NodeImport node = import_file(kPower8);
  const Cluster& c = node.cluster;
  CHECK(node.format == NodeTopologyFormat::hwloc_xml);
  CHECK(c.num_gpus() == 4);
  CHECK(count(c, DeviceKind::nic) == 0);
  CHECK(numa_domains(c) == 2);
  CHECK(count(c, DeviceKind::pcie_switch) == 0);  // every GPU on its own root port
  CHECK(count(c, DeviceKind::nvswitch) == 0);
  CHECK(count(c, LinkKind::nvlink) == 6);  // GPU0–GPU1, GPU2–GPU3, and each GPU to its POWER8
  for (const Link& l : c.links)
    if (l.kind == LinkKind::nvlink) CHECK(l.bandwidth_bytes_per_s == 40e9);  // 2 NVLink 1.0 links
  CHECK_THAT(c.device(c.gpus[0]).name, Contains("P100"));
  CHECK(tier(c, "n0.gpu0", "n0.gpu1") == PathTier::nvlink);
  CHECK(tier(c, "n0.gpu2", "n0.gpu3") == PathTier::nvlink);
  CHECK(tier(c, "n0.gpu0", "n0.gpu2") == PathTier::cross_socket);
  check_round_trip(c);
}

TEST_CASE("node topology: hwloc Supermicro 2-socket has one CUDA GPU beside a ConnectX-4") {
  const NodeImport node = import_file(kSupermicro);
  const Cluster& c = node.cluster;
  CHECK(c.num_gpus() == 1);  // the other PCI display controllers have no CUDA device: warned about
  CHECK(numa_domains(c) == 2);
  CHECK(count(c, DeviceKind::nic) == 3);  // 2× I350 + ConnectX-4
  CHECK(c.device(c.gpus[0]).numa == 1);
  CHECK(count(c, DeviceKind::pcie_switch) == 2);  // the I350 pair and the GPU + ConnectX-4 bridge
  CHECK(std::any_of(node.warnings.begin(), node.warnings.end(),
                    [](const ImportWarning& w) { return w.message.find("not a GPU") != std::string::npos; }));
  check_round_trip(c);
}

TEST_CASE("node topology: hwloc AWS g4dn.metal 8x T4 on root ports, EFA + ENA behind one switch") {
  const Cluster c = import_file(kG4dn).cluster;
  CHECK(c.num_gpus() == 8);
  CHECK(count(c, DeviceKind::nic) == 2);
  CHECK(numa_domains(c) == 2);
  CHECK(count(c, DeviceKind::pcie_switch) == 1);
  CHECK(count(c, LinkKind::nvlink) == 0);
  CHECK(c.device(id_of(c, "n0.gpu0")).numa == 0);
  CHECK(c.device(id_of(c, "n0.gpu4")).numa == 1);
  // T4 links: PCIe Gen3 x16 from pci_link_speed (15.75 GB/s).
  for (const Link& l : c.links)
    if (l.kind == LinkKind::pcie && (c.device(l.a).kind == DeviceKind::gpu)) {
      CHECK(l.pcie_generation == 3);
      CHECK(l.pcie_lanes == 16);
    }
  CHECK(tier(c, "n0.gpu0", "n0.gpu1") == PathTier::numa);  // PHB: two root ports of one host bridge
  CHECK(tier(c, "n0.gpu0", "n0.gpu4") == PathTier::cross_socket);
  check_round_trip(c);
}

TEST_CASE("node topology: hwloc CPU-only machines are refused clearly") {
  for (const auto& file : {kEpyc, kAmd64}) {
    auto node = import_node_topology_file(test::shared_path(file), {});
    REQUIRE_FALSE(node);
    CHECK_THAT(node.error().message, Contains("no GPU in this topology"));
    CHECK_THAT(node.error().location, Contains(file));
  }
}

TEST_CASE("node topology: broken hwloc XML gives errors with file and line") {
  const std::string good = text_of(kPower8);
  SECTION("syntax error") {
    const Error e = import_error(
        replace_once(good, "<object type=\"Package\" os_index=\"1\"", "<object type=\"Package os_index=\"1\""),
        "broken.xml");
    CHECK_THAT(e.message, Contains("XML syntax error"));
    CHECK_THAT(e.location, Contains("broken.xml:"));
  }
  SECTION("truncated") {
    const Error e = import_error(good.substr(0, good.size() / 2), "half.xml");
    CHECK_THAT(e.location, Contains("half.xml:"));
  }
  SECTION("a wrong root") {
    const Error e = import_error("<?xml version=\"1.0\"?>\n<machine/>\n", "other.xml");
    CHECK_THAT(e.message, Contains("<machine>"));
  }
}

TEST_CASE("node topology: NCCL Azure NDv4 topology has 4 NUMA domains with 2 GPUs + 2 NICs per switch") {
  const NodeImport node = import_file(kNdv4);
  const Cluster& c = node.cluster;
  CHECK(node.format == NodeTopologyFormat::nccl_topo_xml);
  CHECK(c.num_gpus() == 8);
  CHECK(count(c, DeviceKind::nic) == 8);
  CHECK(numa_domains(c) == 4);
  CHECK(count(c, DeviceKind::pcie_switch) == 4);
  CHECK(count(c, LinkKind::nvlink) == 0);  // the file gives no <gpu>/<nvlink>
  CHECK(count(c, LinkKind::xgmi) == 6);    // AuthenticAMD: every NUMA domain to every other
  // PCI bus id order: 0001, 0002 (NUMA 1), 0003, 0004 (NUMA 0), ...
  CHECK(c.device(id_of(c, "n0.gpu0")).numa == 1);
  CHECK(c.device(id_of(c, "n0.gpu2")).numa == 0);
  for (const Link& l : c.links)
    if (l.kind == LinkKind::pcie) {
      CHECK(l.pcie_generation == 4);  // "16 GT/s"
      CHECK(l.pcie_lanes == 16);
    }
  CHECK(tier(c, "n0.gpu0", "n0.gpu1") == PathTier::pcie_switch);
  CHECK(tier(c, "n0.gpu0", "n0.gpu2") == PathTier::cross_socket);
  const Router r(c);
  CHECK(c.device(r.nearest_nic(id_of(c, "n0.gpu0"))).numa == 1);
  check_round_trip(c);
}

TEST_CASE("node topology: an NCCL graph file is refused as no topology") {
  auto node = import_node_topology_file(test::shared_path(kNcv4Graph), {});
  REQUIRE_FALSE(node);
  CHECK_THAT(node.error().message, Contains("NCCL_GRAPH_FILE"));
  CHECK_THAT(node.error().message, Contains("<system>"));
}

TEST_CASE("node topology: broken NCCL XML gives errors with file and line") {
  const std::string good = text_of(kNdv4);
  const Error e = import_error(replace_once(good, "<cpu numaid=\"2\"", "<cpu numaid=2"), "ndv4.xml");
  CHECK_THAT(e.message, Contains("XML syntax error"));
  CHECK_THAT(e.location, Contains("ndv4.xml:18"));
  const Error truncated = import_error(good.substr(0, good.size() - 40), "cut.xml");
  CHECK_THAT(truncated.location, Contains("cut.xml:"));
}

TEST_CASE("node topology: NCCL nvlink elements become NVLink or an NVSwitch fabric") {
  const std::string text = R"(<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel">
    <pci busid="0000:01:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="90" rank="0" gdr="1"><nvlink target="fffffff:ffff:ff" count="18" tclass="0x068000"/></gpu>
    </pci>
    <pci busid="0000:02:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="90" rank="1" gdr="1"><nvlink target="fffffff:ffff:ff" count="18" tclass="0x068000"/></gpu>
    </pci>
    <pci busid="0000:03:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16">
      <nic><net name="mlx5_0" dev="0" speed="400000" port="1"/></nic>
    </pci>
  </cpu>
</system>)";
  auto node = import_node_topology_text(text, "h100.xml", {});
  INFO((node ? std::string() : node.error().to_string()));
  REQUIRE(node);
  const Cluster& c = node->cluster;
  CHECK(count(c, DeviceKind::nvswitch) == 1);
  CHECK(c.device(id_of(c, "n0.nvsw")).chips == 4);
  CHECK(tier(c, "n0.gpu0", "n0.gpu1") == PathTier::nvlink);
  CHECK_THAT(c.device(id_of(c, "n0.nic0")).name, Contains("mlx5_0"));
  // --nodes: the NIC's 400 Gb/s from <net speed> when no rate is given.
  NodeImportOptions options;
  options.nodes = 2;
  auto two = import_node_topology_text(text, "h100.xml", options);
  REQUIRE(two);
  for (const Link& l : two->cluster.links)
    if (l.kind == LinkKind::infiniband) CHECK(l.gbits_per_s == 400);
}

TEST_CASE("node topology: --nodes copies the node onto a rail-optimised fabric") {
  NodeImportOptions options;
  options.nodes = 4;
  options.nic_gbps = 200;
  const Cluster c = import_file(kNdv4, options).cluster;
  CHECK(c.num_nodes() == 4);
  CHECK(c.num_gpus() == 32);
  CHECK(count(c, DeviceKind::leaf_switch) == 8);  // one per rail
  CHECK(count(c, DeviceKind::spine_switch) == 4);
  CHECK(c.device(id_of(c, "n3.gpu7")).node == 3);
  CHECK(tier(c, "n0.gpu0", "n1.gpu0") == PathTier::same_leaf);
  CHECK(tier(c, "n0.gpu0", "n1.gpu5") == PathTier::spine);
  CHECK(tier(c, "n2.gpu0", "n2.gpu1") == PathTier::pcie_switch);
  check_round_trip(c);
  // The A100 node: 16 rails (the bond has none).
  NodeImportOptions a100;
  a100.nodes = 2;
  const Cluster d = import_file(kA100, a100).cluster;
  CHECK(count(d, DeviceKind::leaf_switch) == 16);
  CHECK(tier(d, "n0.gpu0", "n1.gpu0") == PathTier::same_leaf);
  check_round_trip(d);
  // Bad options are errors.
  NodeImportOptions bad;
  bad.nodes = 0;
  CHECK_FALSE(import_node_topology(test::shared_path(kNdv4), bad));
  CHECK_FALSE(replicate_node(c, 2, 200, 1));  // not a one-node cluster
}

TEST_CASE("node topology: a file that does not exist or is no topology names itself") {
  auto missing = import_node_topology("/nonexistent/topo.txt", {});
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().to_string(), Contains("/nonexistent/topo.txt"));
  const Error e = import_error("just some text\n", "notes.txt");
  CHECK_THAT(e.message, Contains("nvidia-smi topo -m"));
}
