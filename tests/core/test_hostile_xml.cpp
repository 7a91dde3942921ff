// Hostile XML: the hwloc and NCCL topology importers on broken or malicious variants of the real files in
// ../shared/data/hwloc_xml and ../shared/data/nccl_topo_xml, derived here. Every one must give an error naming the
// file and line, or a warning with the value it left out; never a crash, a stack overflow, an overflow or an
// allocation sized by a number from the file.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "core/base/text_input.hpp"
#include "core/importers/node_topology.hpp"
#include "core/importers/xml_input.hpp"
#include "core/model/model_io.hpp"
#include "tests/support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string kPower8 = "data/hwloc_xml/hwloc_power8_4xP100_nvlink.xml";
const std::string kNdv4 = "data/nccl_topo_xml/azure_ndv4-topo.xml";

std::string text_of(const std::string& relative) {
  auto text = read_text_file(test::shared_path(relative));
  REQUIRE(text);
  return *text;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

std::string utf16(const std::string& ascii, bool little_endian) {
  std::string out = little_endian ? "\xFF\xFE" : "\xFE\xFF";
  for (const char ch : ascii) {
    out += little_endian ? ch : '\0';
    out += little_endian ? '\0' : ch;
  }
  return out;
}

NodeImport imported(const std::string& text, const std::string& origin) {
  auto node = import_node_topology_text(text, origin, {});
  INFO((node ? std::string() : node.error().to_string()));
  REQUIRE(node);
  return *node;
}

Error refused(const std::string& text, const std::string& origin) {
  auto node = import_node_topology_text(text, origin, {});
  REQUIRE_FALSE(node);
  return node.error();
}

size_t links_of(const Cluster& c, LinkKind kind) {
  return static_cast<size_t>(
      std::count_if(c.links.begin(), c.links.end(), [&](const Link& l) { return l.kind == kind; }));
}
size_t devices_of(const Cluster& c, DeviceKind kind) {
  return static_cast<size_t>(
      std::count_if(c.devices.begin(), c.devices.end(), [&](const Device& d) { return d.kind == kind; }));
}

bool warned(const NodeImport& node, const std::string& text) {
  return std::any_of(node.warnings.begin(), node.warnings.end(),
                     [&](const ImportWarning& w) { return w.message.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("hostile xml: a UTF-8 byte-order mark before real hwloc and NCCL files reads as the files themselves") {
  const std::string file = GENERATE(kPower8, kNdv4);
  CAPTURE(file);
  const std::string text = text_of(file);
  const NodeImport plain = imported(text, "plain.xml");
  const NodeImport with_bom = imported("\xEF\xBB\xBF" + text, "bom.xml");
  CHECK(with_bom.format == plain.format);
  CHECK(with_bom.cluster.devices.size() == plain.cluster.devices.size());
  CHECK(with_bom.cluster.links.size() == plain.cluster.links.size());
}

TEST_CASE("hostile xml: UTF-16 hwloc and NCCL files are refused with a save-as-UTF-8 error, not transcoded") {
  const std::string file = GENERATE(kPower8, kNdv4);
  const bool little_endian = GENERATE(true, false);
  CAPTURE(file, little_endian);
  const std::string text = utf16(text_of(file), little_endian);
  const std::string name = little_endian ? "UTF-16LE" : "UTF-16BE";
  const Error e = refused(text, "utf16.xml");
  CHECK(e.code == ErrorCode::parse_error);
  CHECK(e.location == "utf16.xml");
  CHECK_THAT(e.message, StartsWith("the file is " + name + "; meshscope reads UTF-8: save it as UTF-8"));
  // The importers themselves refuse it too (pugixml would transcode it silently).
  auto direct = file == kPower8 ? import_hwloc_xml(text, "utf16.xml", {}) : import_nccl_topo_xml(text, "utf16.xml", {});
  REQUIRE_FALSE(direct);
  CHECK_THAT(direct.error().message, StartsWith("the file is " + name));
}

TEST_CASE("hostile xml: 100,000 nested hwloc objects are an error with the line, not a stack overflow") {
  std::string deep = "\n";
  for (int i = 0; i < 100'000; ++i) deep += "<object type=\"Group\">";
  for (int i = 0; i < 100'000; ++i) deep += "</object>";
  const std::string text =
      replaced(text_of(kPower8), "\n      <object type=\"NUMANode\"", deep + "\n      <object type=\"NUMANode\"");
  const Error e = refused(text, "deep.xml");
  CHECK(e.code == ErrorCode::parse_error);
  CHECK(e.message ==
        "elements are nested more than " + std::to_string(kMaxXmlDepth) + " deep, far deeper than any node topology");
  CHECK(e.location == "deep.xml:" + line_of(text, "<object type=\"Group\">"));
}

TEST_CASE("hostile xml: 100,000 nested NCCL <pci> elements are an error with the line, not a stack overflow") {
  std::string deep = "\n";
  for (int i = 0; i < 100'000; ++i) deep += "<pci busid=\"ffff:ff:01.0\" class=\"0x060400\">";
  for (int i = 0; i < 100'000; ++i) deep += "</pci>";
  const std::string text =
      replaced(text_of(kNdv4), "\n    <pci busid=\"ffff:ff:01.0\"", deep + "\n    <pci busid=\"ffff:ff:01.0\"");
  const Error e = refused(text, "deep.xml");
  CHECK_THAT(e.message, StartsWith("elements are nested more than"));
  CHECK(e.location == "deep.xml:" + line_of(text, "<pci busid=\"ffff:ff:01.0\" class=\"0x060400\"><pci"));
}

TEST_CASE("hostile xml: an hwloc host of 300 NUMA nodes is refused before its CPUs are joined pairwise") {
  const std::string good = text_of(kPower8);
  const std::string numa0 = "<object type=\"NUMANode\" os_index=\"0\"";
  std::string extra;
  for (int k = 2; k < 302; ++k) extra += "<object type=\"NUMANode\" os_index=\"" + std::to_string(k) + "\"/>\n";
  const std::string text = replaced(good, numa0, extra + numa0);
  const Error e = refused(text, "numa.xml");
  CHECK(e.code == ErrorCode::unsupported);
  CHECK(e.message == "more than " + std::to_string(node_import::kMaxCpusPerNode) +
                         " NUMA nodes: not one host that meshscope can model");
  CHECK_THAT(e.location, StartsWith("numa.xml:"));
}

TEST_CASE("hostile xml: an hwloc NUMA node with os_index 2^31-1 is warned about and left out, not a CPU") {
  const std::string text =
      replaced(text_of(kPower8), "type=\"NUMANode\" os_index=\"1\"", "type=\"NUMANode\" os_index=\"2147483647\"");
  const NodeImport node = imported(text, "numa.xml");
  CHECK(warned(node, "NUMANode os_index 2147483647 is out of range (0 to 4095): ignored"));
  CHECK(devices_of(node.cluster, DeviceKind::cpu) == 1);
  CHECK(node.cluster.num_gpus() == 4);
}

TEST_CASE("hostile xml: hwloc NVLinkBandwidth values of 1e300, NaN and -1 MB/s are warned about, not made links") {
  // The real file's first row: GPU0 (OSDev:332) has 40,000 MB/s to GPU1 (OSDev:333); 6 NVLink links in all.
  const std::string good = text_of(kPower8);
  REQUIRE(links_of(imported(good, "good.xml").cluster, LinkKind::nvlink) == 6);
  const std::string value = GENERATE(as<std::string>{}, "1e300", "nan", "inf", "-1");
  CAPTURE(value);
  const std::string text =
      replaced(good, "<u64values length=\"44\">1000000 40000 ", "<u64values length=\"44\">1000000 " + value + " ");
  const NodeImport node = imported(text, "nvlink.xml");
  CHECK(warned(node, "NVLinkBandwidth between OSDev:332 and OSDev:333 is"));
  CHECK(warned(node, "not a bandwidth: ignored"));
  CHECK(links_of(node.cluster, LinkKind::nvlink) == 5);
}

TEST_CASE("hostile xml: an hwloc pci_link_speed of 1e400 or inf GB/s is warned about and the link keeps its default") {
  const std::string good = text_of(kPower8);
  const std::string value = GENERATE(as<std::string>{}, "1e400", "inf", "-5");
  CAPTURE(value);
  const std::string text = replaced(good, "pci_link_speed=\"15.753846\"", "pci_link_speed=\"" + value + "\"");
  const NodeImport node = imported(text, "speed.xml");
  CHECK(warned(node, "pci_link_speed=\"" + value + "\" is not a link speed in GB/s: ignored"));
  for (const Link& l : node.cluster.links) {
    CHECK(std::isfinite(l.bandwidth_bytes_per_s));
    CHECK(l.bandwidth_bytes_per_s < 1e13);
  }
}

TEST_CASE("hostile xml: an hwloc matrix that declares nbobjs=10^9 reads as the objects it lists") {
  const std::string good = text_of(kPower8);
  const std::string text = replaced(good, "<distances2hetero nbobjs=\"6\"", "<distances2hetero nbobjs=\"1000000000\"");
  const NodeImport node = imported(text, "nbobjs.xml");
  CHECK(links_of(node.cluster, LinkKind::nvlink) == 6);
  CHECK(node.cluster.devices.size() == imported(good, "good.xml").cluster.devices.size());
}

TEST_CASE("hostile xml: NCCL NVLink counts of 2^31-1 and 0 are warned about and left out, not summed into overflow") {
  const std::string count = GENERATE(as<std::string>{}, "2147483647", "0", "-3");
  CAPTURE(count);
  const std::string gpu = "<pci busid=\"0003:00:00.0\" class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"16\"";
  const std::string nvlinks = "<gpu dev=\"0\" sm=\"80\"><nvlink target=\"fffffff:ffff:ff\" count=\"" + count +
                              "\" tclass=\"0x068000\"/><nvlink target=\"fffffff:ffff:ff\" count=\"" + count +
                              "\" tclass=\"0x068000\"/></gpu></pci>";
  const std::string text = replaced(text_of(kNdv4), gpu + "/>", gpu + ">" + nvlinks);
  const NodeImport node = imported(text, "nvlink.xml");
  CHECK(warned(node, "NVLink count " + count + " is not a number of links (1 to 64): ignored"));
  CHECK(devices_of(node.cluster, DeviceKind::nvswitch) == 0);
  CHECK(node.cluster.num_gpus() == 8);
}

TEST_CASE("hostile xml: an NCCL numaid of 2^31-1 and a link width of 10^9 are warned about, not overflowed") {
  std::string text = replaced(text_of(kNdv4), "<cpu numaid=\"1\"", "<cpu numaid=\"2147483647\"");
  text = replaced(text, "class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"16\"",
                  "class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"1000000000\"");
  const NodeImport node = imported(text, "numa.xml");
  CHECK(warned(node, "numaid 2147483647 is out of range (0 to 4095): numbered 1"));
  CHECK(warned(node, "link_width 1000000000 is not a PCIe width (1 to 32): x16 assumed"));
  for (const Device& d : node.cluster.devices) CHECK(d.numa <= 4095);
  for (const Link& l : node.cluster.links)
    if (l.kind == LinkKind::pcie) CHECK(l.pcie_lanes <= 16);
}

TEST_CASE("hostile xml: an NCCL host of 300 <cpu> elements is refused before its CPUs are joined pairwise") {
  const std::string good = text_of(kNdv4);
  std::string extra;
  for (int k = 0; k < 300; ++k) extra += "<cpu numaid=\"" + std::to_string(k + 10) + "\" vendor=\"GenuineIntel\"/>\n";
  const Error e = refused(replaced(good, "</system>", extra + "</system>"), "cpus.xml");
  CHECK(e.code == ErrorCode::unsupported);
  CHECK_THAT(e.message, StartsWith("more than 256 <cpu> elements"));
  CHECK_THAT(e.location, StartsWith("cpus.xml:"));
}

TEST_CASE("hostile xml: an NCCL NIC speed of 1e400 Mb/s does not become an infinite fabric") {
  const std::string text =
      "<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"0000:01:00.0\" class=\"0x020700\">"
      "<nic><net name=\"mlx5_0\" speed=\"1e400\"/></nic></pci></cpu></system>";
  CHECK(nccl_topo_nic_gbps(text) == 0);
  CHECK(nccl_topo_nic_gbps(replaced(text, "1e400", "400000")) == 400);
}
