#include "core/importers/nccl_topo_xml.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <pugixml.hpp>

#include "core/base/text.hpp"
#include "core/importers/xml_input.hpp"

namespace meshscope {
namespace {

using node_import::NodeBuilder;
using node_import::NvlinkPair;

std::optional<int64_t> hex(std::string_view text) {
  if (text.substr(0, 2) == "0x" || text.substr(0, 2) == "0X") text.remove_prefix(2);
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

// "16 GT/s" or "16.0 GT/s PCIe" → generation 4 (2.5 → 1, 5 → 2, 8 → 3, 16 → 4, 32 → 5, 64 → 6).
int32_t pcie_generation(std::string_view speed) {
  const double gt = std::atof(std::string(speed).c_str());
  if (gt <= 0) return 0;
  int32_t generation = 1;
  for (double s = 2.5; s * 1.5 < gt && generation < 6; s *= 2) ++generation;
  return generation;
}

// NVLink generation from the SM version: 60 (P100) 1, 70 (V100) 2, 80 (A100) 3, 90 (H100) 4, 100+ 5.
int32_t nvlink_generation_of_sm(int64_t sm) {
  if (sm >= 100) return 5;
  if (sm >= 90) return 4;
  if (sm >= 80) return 3;
  if (sm >= 70) return 2;
  if (sm >= 60) return 1;
  return 0;
}

constexpr auto lower = text::lowercase;

// Beyond these a value is not a description of real hardware (and would overflow what is derived from it).
constexpr double kMaxNicGbps = 1e5;
constexpr int32_t kMaxNumaIndex = 4095;
constexpr int32_t kMaxNvlinksPerTarget = 64;
constexpr int32_t kMaxPcieLanes = 32;

struct Importer {
  NodeBuilder& b;
  std::string_view text;
  const std::string& origin;
  std::map<std::string, DeviceId> by_busid;  // lower-case bus id → GPU

  std::string where(const pugi::xml_node& e) const {
    const ptrdiff_t offset = e.offset_debug();
    std::string at = origin;
    if (offset >= 0) at += ":" + std::to_string(node_import::line_of(text, static_cast<size_t>(offset)));
    return at + ": <" + e.name() +
           (e.attribute("busid") ? " busid=\"" + std::string(e.attribute("busid").value()) + "\"" : "") + ">";
  }

  static bool is_gpu(const pugi::xml_node& pci) {
    if (pci.child("gpu")) return true;
    const auto c = hex(pci.attribute("class").value());
    return c && (*c >> 16) == 0x03 && !pci.child("nic");
  }
  static bool is_nic(const pugi::xml_node& pci) {
    if (pci.child("nic")) return true;
    const auto c = hex(pci.attribute("class").value());
    return c && (*c >> 16) == 0x02;
  }
  static int32_t relevant(const pugi::xml_node& e) {
    if (std::string_view(e.name()) == "nic") return 1;
    if (std::string_view(e.name()) != "pci") return 0;
    if (is_gpu(e) || is_nic(e)) return 1;
    int32_t n = 0;
    for (const auto& c : e.children()) n += relevant(c);
    return n;
  }

  void pcie(DeviceId d, DeviceId up, const pugi::xml_node& e) {
    int32_t lanes = e.attribute("link_width").as_int(0);
    if (lanes < 0 || lanes > kMaxPcieLanes) {
      b.warn(where(e), "link_width " + std::to_string(lanes) + " is not a PCIe width (1 to 32): x16 assumed");
      lanes = 16;
    }
    b.pcie(d, up, pcie_generation(e.attribute("link_speed").value()), lanes);
  }

  std::string nic_name(const pugi::xml_node& holder) const {
    const pugi::xml_node net = holder.child("nic").child("net");
    std::string name = net.attribute("name").value();
    if (name.empty()) name = std::string("NIC ") + holder.attribute("busid").value();
    return name;
  }

  void place(const pugi::xml_node& e, DeviceId up, int32_t numa) {
    const std::string_view tag = e.name();
    if (tag == "nic") {  // a NIC NCCL found no PCI path for: on the CPU
      const DeviceId d = b.nic(static_cast<int32_t>(b.nics().size()), numa, e.child("net").attribute("name").value());
      b.pcie(d, up, 0, 16);
      return;
    }
    if (tag != "pci") return;
    if (is_gpu(e)) {
      gpu_up.push_back({e, up, numa});
      return;
    }
    if (is_nic(e)) {
      nic_up.push_back({e, up, numa});
      return;
    }
    const int32_t below = relevant(e);
    if (below == 0) return;
    bool chain = false;
    for (const auto& c : e.children())
      if (relevant(c) == below) chain = true;
    if (below >= 2 && !chain) {
      const DeviceId sw = b.pcie_switch(numa, std::string("PCIe switch ") + e.attribute("busid").value());
      pcie(sw, up, e);
      up = sw;
    }
    for (const auto& c : e.children()) place(c, up, numa);
  }

  struct Pending {
    pugi::xml_node e;
    DeviceId up;
    int32_t numa;
  };
  std::vector<Pending> gpu_up, nic_up;
};

}  // namespace

double nccl_topo_nic_gbps(std::string_view text) {
  pugi::xml_document doc;
  if (node_import::load_xml(doc, text, "")) return 0;
  double best = 0;
  for (const auto& x : doc.select_nodes("//net")) {
    const double gbps = x.node().attribute("speed").as_double(0) / 1000;  // NCCL writes Mb/s
    if (std::isfinite(gbps) && gbps <= kMaxNicGbps) best = std::max(best, gbps);
  }
  return best;
}

Result<NodeImport> import_nccl_topo_xml(std::string_view text, const std::string& origin,
                                        const NodeImportOptions& options) {
  pugi::xml_document doc;
  if (auto error = node_import::load_xml(doc, text, origin)) return tl::unexpected(*error);
  const pugi::xml_node root = doc.document_element();
  const std::string_view root_name = root.name();
  if (root_name == "graphs" || root_name == "graph")
    return make_error(ErrorCode::unsupported,
                      "this is an NCCL graph file (NCCL_GRAPH_FILE / NCCL_GRAPH_DUMP_FILE, root <graphs>): the rings "
                      "and trees NCCL chose over a topology, not the topology itself; import the NCCL_TOPO_DUMP_FILE "
                      "(root <system>) of the same run instead",
                      origin);
  if (root_name != "system")
    return make_error(ErrorCode::parse_error,
                      "root element <" + std::string(root_name) + "> is not NCCL's <system> (NCCL_TOPO_FILE)", origin);
  NodeBuilder b(options, origin);
  Importer im{b, text, origin, {}, {}, {}};

  int32_t next_numa = 0;
  for (const auto& cpu : root.children("cpu")) {
    if (b.cpus().size() >= node_import::kMaxCpusPerNode)
      return make_error(ErrorCode::unsupported,
                        "more than " + std::to_string(node_import::kMaxCpusPerNode) +
                            " <cpu> elements: not one host that meshscope can model",
                        im.where(cpu));
    int32_t numa = cpu.attribute("numaid") ? cpu.attribute("numaid").as_int() : next_numa;
    if (numa < 0 || numa > kMaxNumaIndex) {
      b.warn(im.where(cpu), "numaid " + std::string(cpu.attribute("numaid").value()) + " is out of range (0 to " +
                                std::to_string(kMaxNumaIndex) + "): numbered " + std::to_string(next_numa));
      numa = next_numa;
    }
    next_numa = std::max(next_numa, numa + 1);
    const std::string vendor = cpu.attribute("vendor").value();
    const std::string arch = cpu.attribute("arch").value();
    std::string name = vendor == "AuthenticAMD" ? "AMD" : vendor == "GenuineIntel" ? "Intel" : vendor;
    if (!arch.empty()) name += (name.empty() ? "" : " ") + arch;
    if (cpu.attribute("familyid")) name += std::string(" family ") + cpu.attribute("familyid").value();
    if (cpu.attribute("modelid")) name += std::string(" model ") + cpu.attribute("modelid").value();
    name = (name.empty() ? "CPU" : name) + " (NUMA " + std::to_string(numa) + ")";
    const DeviceId c = b.cpu(numa, name, vendor == "AuthenticAMD");
    for (const auto& child : cpu.children()) im.place(child, c, numa);
  }
  for (const auto& child : root.children())
    if (std::string_view(child.name()) == "pci" || std::string_view(child.name()) == "nic")
      b.warn(im.where(child), "outside any <cpu>: ignored");

  // GPUs in device order: <gpu dev>, else PCI bus id order (CUDA_DEVICE_ORDER=PCI_BUS_ID).
  auto busid = [](const pugi::xml_node& e) { return lower(e.attribute("busid").value()); };
  std::stable_sort(im.gpu_up.begin(), im.gpu_up.end(), [&](const auto& x, const auto& y) {
    const int64_t dx = x.e.child("gpu").attribute("dev").as_llong(-1);
    const int64_t dy = y.e.child("gpu").attribute("dev").as_llong(-1);
    if (dx >= 0 && dy >= 0 && dx != dy) return dx < dy;
    return busid(x.e) < busid(y.e);
  });
  if (im.gpu_up.size() > node_import::kMaxGpusPerNode)
    return make_error(ErrorCode::unsupported,
                      std::to_string(im.gpu_up.size()) + " GPUs: more than the " +
                          std::to_string(node_import::kMaxGpusPerNode) + " one imported node may have",
                      im.where(im.gpu_up[node_import::kMaxGpusPerNode].e));
  int32_t sm = 0;
  for (size_t k = 0; k < im.gpu_up.size(); ++k) {
    const auto& p = im.gpu_up[k];
    const pugi::xml_node g = p.e.child("gpu");
    sm = std::max(sm, g.attribute("sm").as_int(0));
    const DeviceId d = b.gpu(static_cast<int32_t>(k), p.numa, std::string("GPU ") + p.e.attribute("busid").value());
    im.by_busid[busid(p.e)] = d;
    im.pcie(d, p.up, p.e);
  }
  std::stable_sort(im.nic_up.begin(), im.nic_up.end(),
                   [&](const auto& x, const auto& y) { return busid(x.e) < busid(y.e); });
  for (const auto& p : im.nic_up) {
    const DeviceId d = b.nic(static_cast<int32_t>(b.nics().size()), p.numa, im.nic_name(p.e));
    im.pcie(d, p.up, p.e);
  }

  // NVLink: <nvlink target count tclass>; a target that is no GPU here (class 0x068000) is an
  // NVSwitch, a CPU target (POWER) is a GPU–CPU link.
  const int32_t generation = b.nvlink_generation(nvlink_generation_of_sm(sm));
  std::vector<NvlinkPair> pairs;
  std::map<int32_t, int32_t> to_switch;
  for (const auto& p : im.gpu_up) {
    const DeviceId from = im.by_busid.at(busid(p.e));
    const int32_t a = b.cluster().device(from).local_index;
    for (const auto& link : p.e.child("gpu").children("nvlink")) {
      const int32_t count = link.attribute("count").as_int(1);
      if (count < 1 || count > kMaxNvlinksPerTarget) {
        b.warn(im.where(link), "NVLink count " + std::string(link.attribute("count").value()) +
                                   " is not a number of links (1 to " + std::to_string(kMaxNvlinksPerTarget) +
                                   "): ignored");
        continue;
      }
      const std::string target = lower(link.attribute("target").value());
      const auto tclass = hex(link.attribute("tclass").value());
      if (const auto it = im.by_busid.find(target); it != im.by_busid.end()) {
        const int32_t other = b.cluster().device(it->second).local_index;
        if (a < other) pairs.push_back({a, other, count, 0});
      } else if (tclass && (*tclass >> 8) == 0x0680) {
        to_switch[a] += count;
      } else if (tclass && (*tclass >> 16) == 0x06) {
        b.nvlink(from, b.cpu_of_numa(b.cluster().device(from).numa), generation, count);
      } else {
        b.warn(im.where(link), "NVLink target " + target + " is neither a GPU of this file nor an NVSwitch: ignored");
      }
    }
  }
  if (to_switch.empty()) {
    b.nvlink_peers(pairs, generation);
  } else {  // an NVSwitch host: the fabric, and any direct GPU pairs as they are
    b.nvswitch_fabric(to_switch, generation);
    for (const auto& p : pairs)
      b.nvlink(b.gpus()[static_cast<size_t>(p.a)], b.gpus()[static_cast<size_t>(p.b)], generation, p.count);
  }

  std::string title = std::to_string(b.gpus().size()) + "-GPU node (NCCL topology";
  if (sm > 0) title += ", sm_" + std::to_string(sm);
  return b.finish(NodeTopologyFormat::nccl_topo_xml, title + ")");
}

}  // namespace meshscope
