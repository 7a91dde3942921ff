#include "core/importers/hwloc_xml.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <unordered_map>

#include "core/importers/xml_input.hpp"

namespace meshscope {
namespace {

using node_import::NodeBuilder;
using node_import::NvlinkPair;

std::string_view type_of(const pugi::xml_node& o) {
  return o.attribute("type").value();
}
bool is_io(const pugi::xml_node& o) {
  const std::string_view t = type_of(o);
  return t == "Bridge" || t == "PCIDev" || t == "OSDev";
}

std::string info(const pugi::xml_node& o, const char* name) {
  for (const auto& i : o.children("info"))
    if (std::string_view(i.attribute("name").value()) == name) return i.attribute("value").value();
  return {};
}

std::optional<int64_t> integer(std::string_view text, int base = 10) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

// "0302 [10de:1eb8] [10de:12a2] a1" → class 0x0302, vendor 0x10de.
struct PciType {
  int64_t class_id = -1;
  int64_t vendor = -1;
};
PciType pci_type(const pugi::xml_node& o) {
  const std::string_view t = o.attribute("pci_type").value();
  PciType p;
  if (auto c = integer(t.substr(0, t.find(' ')), 16)) p.class_id = *c;
  if (const size_t open = t.find('['); open != std::string_view::npos)
    if (auto v = integer(t.substr(open + 1, 4), 16)) p.vendor = *v;
  return p;
}

// Lowest set bit of an hwloc bitmap "0x00000303,0x03030000,,0x03030303" (32-bit words, most
// significant first; empty words are 0); -1 when empty.
int32_t lowest_bit(std::string_view bitmap) {
  std::vector<std::string_view> words;
  while (true) {
    const size_t comma = bitmap.find(',');
    words.push_back(bitmap.substr(0, comma));
    if (comma == std::string_view::npos) break;
    bitmap.remove_prefix(comma + 1);
  }
  for (size_t k = 0; k < words.size() && k < 1024; ++k) {  // beyond 32,768 bits: not a NUMA node of one host
    std::string_view w = words[words.size() - 1 - k];
    if (w.substr(0, 2) == "0x") w.remove_prefix(2);
    if (w.empty()) continue;
    const auto value = integer(w, 16);
    if (!value || *value == 0) continue;
    for (int32_t bit = 0; bit < 64; ++bit)
      if ((*value >> bit) & 1) return static_cast<int32_t>(k) * 32 + bit;
  }
  return -1;
}

bool starts_with_any(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view p) { return name.substr(0, p.size()) == p; });
}

bool is_compute_osdev(std::string_view name) {
  return starts_with_any(name, {"cuda", "nvml", "rsmi", "ze"});
}

// The fastest PCIe link there is, Gen6 x16, moves 121 GB/s; NVLink between two GPUs under 2 TB/s. Anything far
// beyond is not a speed (and would overflow the link counts derived from it).
constexpr double kMaxPcieGBps = 1000;
constexpr double kMaxNvlinkMBps = 1e8;  // 100 TB/s
constexpr int32_t kMaxNumaIndex = 4095;

struct Importer {
  NodeBuilder& b;
  std::string_view text;
  const std::string& origin;
  std::vector<pugi::xml_node> objects;
  bool compute_osdevs = false;  // the file was made with GPU backends (CUDA, NVML, RSMI, Level Zero)
  std::map<int32_t, DeviceId> cpu_by_numa;
  std::unordered_map<std::string, DeviceId> by_gp;  // "OSDev:332", "Package:3" → device
  std::unordered_map<std::string, DeviceId> cpu_by_gp;
  int32_t first_numa = 0;
  struct Gpu {
    pugi::xml_node node;
    int64_t order = 0;
  };
  std::vector<Gpu> gpus;

  std::string where(const pugi::xml_node& o) const {
    const ptrdiff_t offset = o.offset_debug();
    std::string at = origin;
    if (offset >= 0) at += ":" + std::to_string(node_import::line_of(text, static_cast<size_t>(offset)));
    return at;
  }

  bool is_gpu(const pugi::xml_node& o) const {
    if (type_of(o) != "PCIDev") return false;
    if (compute_osdevs) {
      for (const auto& c : o.children("object"))
        if (type_of(c) == "OSDev" && is_compute_osdev(c.attribute("name").value())) return true;
      return false;
    }
    const PciType p = pci_type(o);
    return p.class_id == 0x0302 || (p.class_id == 0x0300 && (p.vendor == 0x10de || p.vendor == 0x1002));
  }
  static bool is_nic(const pugi::xml_node& o) {
    if (type_of(o) != "PCIDev") return false;
    const int64_t c = pci_type(o).class_id;
    return c == 0x0200 || c == 0x0207 || c == 0x0280;
  }
  int32_t relevant(const pugi::xml_node& o) const {
    if (type_of(o) == "PCIDev") return is_gpu(o) || is_nic(o) ? 1 : 0;
    int32_t n = 0;
    for (const auto& c : o.children("object")) n += relevant(c);
    return n;
  }

  int32_t numa_of(pugi::xml_node o) const {
    for (; o; o = o.parent())
      if (const auto ns = o.attribute("nodeset"); ns) {
        const int32_t bit = lowest_bit(ns.value());
        if (bit >= 0) return bit;
      }
    return first_numa;
  }
  DeviceId cpu_for(int32_t numa) const {
    const auto it = cpu_by_numa.find(numa);
    return it != cpu_by_numa.end() ? it->second : b.cpu_of_numa(numa);
  }

  // pci_link_speed in GB/s; 0 (the default for the link) when absent, and, with a warning, when not a speed.
  double link_bytes(const pugi::xml_node& o) const {
    const auto speed = o.attribute("pci_link_speed");
    if (!speed) return 0;
    const double gbytes = std::atof(speed.value());
    if (std::isfinite(gbytes) && gbytes >= 0 && gbytes <= kMaxPcieGBps) return gbytes * 1e9;
    b.warn(where(o), std::string("pci_link_speed=\"") + speed.value() + "\" is not a link speed in GB/s: ignored");
    return 0;
  }

  void place(const pugi::xml_node& o, DeviceId up, int32_t numa) {
    const std::string_view t = type_of(o);
    if (t == "PCIDev") {
      if (!is_gpu(o) && !is_nic(o)) return;
      DeviceId d;
      if (is_gpu(o)) {
        const auto it = std::find_if(gpus.begin(), gpus.end(), [&](const Gpu& g) { return g.node == o; });
        const auto local = static_cast<int32_t>(it - gpus.begin());
        d = b.gpu(local, numa, gpu_name(o));
      } else {
        d = b.nic(static_cast<int32_t>(b.nics().size()), numa, nic_name(o));
      }
      for (const auto& c : o.children("object"))
        if (type_of(c) == "OSDev") by_gp["OSDev:" + std::string(c.attribute("gp_index").value())] = d;
      // No link speed in the file (0): the GPU's own PCIe generation where its name tells it.
      const int32_t generation = is_gpu(o) ? node_import::pcie_generation_of(gpu_name(o)) : 0;
      b.pcie(d, up, generation, 16, link_bytes(o));
      return;
    }
    if (t != "Bridge") return;
    const bool host_bridge = std::string_view(o.attribute("bridge_type").value()).substr(0, 2) == "0-";
    const int32_t below = relevant(o);
    if (below == 0) return;
    bool chain = false;  // one child holds everything: the switch (if any) is further down
    for (const auto& c : o.children("object"))
      if (relevant(c) == below) chain = true;
    if (!host_bridge && below >= 2 && !chain) {
      const DeviceId sw = b.pcie_switch(numa, "PCIe switch " + std::string(o.attribute("pci_busid").value()));
      b.pcie(sw, up, 0, 16, link_bytes(o));
      up = sw;
    }
    for (const auto& c : o.children("object")) place(c, up, numa);
  }

  std::string gpu_name(const pugi::xml_node& o) const {
    for (const auto& c : o.children("object"))
      if (auto m = info(c, "GPUModel"); !m.empty()) return m;
    const std::string d = info(o, "PCIDevice");
    return d.empty() ? "GPU " + std::string(o.attribute("pci_busid").value()) : d;
  }
  static std::string nic_name(const pugi::xml_node& o) {
    std::string os;
    for (const auto& c : o.children("object")) {
      const std::string n = c.attribute("name").value();
      if (type_of(c) != "OSDev" || n.empty()) continue;
      if (os.empty() || starts_with_any(n, {"mlx", "hfi", "bnxt_re", "irdma", "efa", "rdmap"})) os = n;
    }
    const std::string d = info(o, "PCIDevice");
    if (os.empty()) return d.empty() ? "NIC " + std::string(o.attribute("pci_busid").value()) : d;
    return d.empty() ? os : os + " (" + d + ")";
  }
};

void collect(const pugi::xml_node& node, std::vector<pugi::xml_node>& out) {
  for (const auto& c : node.children("object")) {
    out.push_back(c);
    collect(c, out);
  }
}

// The GPU's CUDA/NVML index ("cuda3" → 3), else -1.
int64_t cuda_index(const pugi::xml_node& o) {
  for (const auto& c : o.children("object")) {
    const std::string_view n = c.attribute("name").value();
    for (const std::string_view p : {"cuda", "nvml", "rsmi"})
      if (n.substr(0, p.size()) == p)
        if (auto i = integer(n.substr(p.size()))) return *i;
  }
  return -1;
}

// The package (socket) an object is in; an empty node when none.
pugi::xml_node package_of(pugi::xml_node o) {
  for (; o; o = o.parent())
    if (type_of(o) == "Package" || type_of(o) == "Socket") return o;
  return pugi::xml_node{};
}

std::string cpu_name(const pugi::xml_node& package, const pugi::xml_node& fallback) {
  std::string model = info(package, "CPUModel");
  if (model.empty()) model = info(fallback, "CPUModel");
  return model;
}

bool is_amd(const pugi::xml_node& package) {
  const std::string v = info(package, "CPUVendor") + info(package, "CPUModel");
  return v.find("AMD") != std::string::npos || v.find("EPYC") != std::string::npos;
}

// CPUs: one per NUMA node (else per Package, else one), named after its package.
Result<void> add_cpus(Importer& im, const pugi::xml_node& root) {
  NodeBuilder& b = im.b;
  std::vector<pugi::xml_node> numas, packages;
  for (const auto& o : im.objects) {
    if (type_of(o) == "NUMANode") numas.push_back(o);
    if (type_of(o) == "Package" || type_of(o) == "Socket") packages.push_back(o);
  }
  std::sort(numas.begin(), numas.end(), [](const pugi::xml_node& x, const pugi::xml_node& y) {
    return x.attribute("os_index").as_int() < y.attribute("os_index").as_int();
  });
  for (const auto& n : numas) {
    const int32_t index = n.attribute("os_index").as_int();
    if (index < 0 || index > kMaxNumaIndex) {
      b.warn(im.where(n), "NUMANode os_index " + std::to_string(index) + " is out of range (0 to " +
                              std::to_string(kMaxNumaIndex) + "): ignored");
      continue;
    }
    if (im.cpu_by_numa.count(index)) continue;
    if (im.cpu_by_numa.size() >= node_import::kMaxCpusPerNode)
      return make_error(ErrorCode::unsupported,
                        "more than " + std::to_string(node_import::kMaxCpusPerNode) +
                            " NUMA nodes: not one host that meshscope can model",
                        im.where(n));
    const pugi::xml_node package = package_of(n);
    const std::string model = cpu_name(package, root.first_child());
    const DeviceId cpu =
        b.cpu(index, (model.empty() ? "CPU" : model) + " (NUMA " + std::to_string(index) + ")", is_amd(package));
    im.cpu_by_numa[index] = cpu;
    if (package) im.cpu_by_gp.try_emplace("Package:" + std::string(package.attribute("gp_index").value()), cpu);
    im.cpu_by_gp["NUMANode:" + std::string(n.attribute("gp_index").value())] = cpu;
  }
  if (numas.empty() && packages.size() > node_import::kMaxCpusPerNode)
    return make_error(ErrorCode::unsupported,
                      "more than " + std::to_string(node_import::kMaxCpusPerNode) +
                          " packages: not one host that meshscope can model",
                      im.where(packages[node_import::kMaxCpusPerNode]));
  if (numas.empty())
    for (size_t k = 0; k < packages.size(); ++k) {
      const auto index = static_cast<int32_t>(k);
      const DeviceId cpu = b.cpu(index, cpu_name(packages[k], root.first_child()), is_amd(packages[k]));
      im.cpu_by_numa[index] = cpu;
      im.cpu_by_gp["Package:" + std::string(packages[k].attribute("gp_index").value())] = cpu;
    }
  if (!im.cpu_by_numa.empty()) im.first_numa = im.cpu_by_numa.begin()->first;
  return {};
}

// GPUs in CUDA order (else PCI order), so that local indices are device numbers.
Result<void> order_gpus(Importer& im) {
  int64_t order = 0;
  for (const auto& o : im.objects) {
    if (type_of(o) != "PCIDev") continue;
    if (im.is_gpu(o)) {
      const int64_t cuda = cuda_index(o);
      im.gpus.push_back({o, cuda >= 0 ? cuda : 1'000'000 + order});
    } else if (const PciType p = pci_type(o); p.class_id == 0x0302 || p.class_id == 0x0300) {
      im.b.warn(im.where(o), std::string("PCI device ") + o.attribute("pci_busid").value() + " (" +
                                 info(o, "PCIDevice") +
                                 ") is a display controller with no CUDA/NVML/ROCm device: not a GPU");
    }
    ++order;
  }
  if (im.gpus.size() > node_import::kMaxGpusPerNode)
    return make_error(ErrorCode::unsupported,
                      std::to_string(im.gpus.size()) + " GPUs: more than the " +
                          std::to_string(node_import::kMaxGpusPerNode) + " one imported node may have",
                      im.where(im.gpus[node_import::kMaxGpusPerNode].node));
  std::stable_sort(im.gpus.begin(), im.gpus.end(), [](const auto& x, const auto& y) { return x.order < y.order; });
  return {};
}

// The I/O tree: each I/O subtree hangs off the CPU of its parent's NUMA node.
void place_io(Importer& im) {
  NodeBuilder& b = im.b;
  for (const auto& o : im.objects) {
    if (!is_io(o) || is_io(o.parent())) continue;
    const int32_t numa = im.numa_of(o.parent());
    if (!b.cpus().empty() && !im.cpu_by_numa.count(numa))
      b.warn(im.where(o), "I/O attached to NUMA node " + std::to_string(numa) + ", which has no CPU: placed on " +
                              b.cluster().device(b.cpus().front()).id);
    if (b.cpus().empty()) im.cpu_by_numa[0] = b.cpu(0, "CPU", false);
    im.place(o, im.cpu_for(numa), numa);
  }
}

// A distance matrix's objects, "type:gp_index" ("OSDev:332").
std::vector<std::string> matrix_keys(const pugi::xml_node& dist) {
  std::vector<std::string> keys;
  const std::string idx = dist.child("indexes").text().get();
  const std::string type = dist.attribute("type").value();
  size_t i = 0;
  while (i < idx.size()) {
    while (i < idx.size() && std::isspace(static_cast<unsigned char>(idx[i]))) ++i;
    const size_t start = i;
    while (i < idx.size() && !std::isspace(static_cast<unsigned char>(idx[i]))) ++i;
    if (i > start) {
      std::string key = idx.substr(start, i - start);
      if (key.find(':') == std::string::npos) key = type + ":" + key;
      keys.push_back(key);
    }
  }
  return keys;
}

// A distance matrix's values, row by row.
std::vector<double> matrix_values(const pugi::xml_node& dist) {
  std::vector<double> values;
  for (const auto& v : dist.children("u64values")) {
    const std::string t = v.text().get();
    const char* p = t.c_str();
    char* end = nullptr;
    for (double x = std::strtod(p, &end); end != p; x = std::strtod(p, &end)) {
      values.push_back(x);
      p = end;
    }
  }
  return values;
}

// One NVLinkBandwidth matrix (MB/s between GPUs' OSDevs and, on POWER, Packages): GPU pairs into
// `pairs`, GPU–CPU links built.
void add_nvlink_matrix(Importer& im, const pugi::xml_node& dist, int32_t generation, std::vector<NvlinkPair>& pairs) {
  NodeBuilder& b = im.b;
  const std::vector<std::string> keys = matrix_keys(dist);
  const std::vector<double> values = matrix_values(dist);
  const size_t n = keys.size();
  if (values.size() != n * n) {
    b.warn(im.where(dist), "NVLinkBandwidth has " + std::to_string(values.size()) + " values for " + std::to_string(n) +
                               " objects: ignored");
    return;
  }
  auto device_of = [&](const std::string& key) -> DeviceId {
    if (auto it = im.by_gp.find(key); it != im.by_gp.end()) return it->second;
    if (auto it = im.cpu_by_gp.find(key); it != im.cpu_by_gp.end()) return it->second;
    return DeviceId{};
  };
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      const double mbytes = values[i * n + j];
      if (mbytes == 0) continue;
      if (!(mbytes > 0) || mbytes > kMaxNvlinkMBps) {
        b.warn(im.where(dist), "NVLinkBandwidth between " + keys[i] + " and " + keys[j] + " is " +
                                   std::to_string(mbytes) + " MB/s, not a bandwidth: ignored");
        continue;
      }
      const DeviceId x = device_of(keys[i]), y = device_of(keys[j]);
      if (!x.valid() || !y.valid()) {
        b.warn(im.where(dist),
               "NVLinkBandwidth names " + keys[!x.valid() ? i : j] + ", which is not a GPU or CPU here");
        continue;
      }
      const bool gx = b.cluster().device(x).kind == DeviceKind::gpu;
      const bool gy = b.cluster().device(y).kind == DeviceKind::gpu;
      if (gx && gy) {
        pairs.push_back({b.cluster().device(x).local_index, b.cluster().device(y).local_index, 0, mbytes * 1e6});
      } else if (gx || gy) {
        const double per_link = node_import::nvlink_link_bytes_per_s(generation);
        b.nvlink(gx ? x : y, gx ? y : x, generation, static_cast<int32_t>(std::lround(mbytes * 1e6 / per_link)),
                 mbytes * 1e6);
      }
    }
}

// NVLink from the NVLinkBandwidth matrices.
void add_nvlinks(Importer& im, const pugi::xml_node& root) {
  NodeBuilder& b = im.b;
  const int32_t generation =
      b.nvlink_generation(im.gpus.empty() ? 0 : node_import::nvlink_generation_of(im.gpu_name(im.gpus.front().node)));
  std::vector<NvlinkPair> pairs;
  for (const auto& dist : root.children()) {
    const std::string_view tag = dist.name();
    if ((tag != "distances2" && tag != "distances2hetero") ||
        std::string_view(dist.attribute("name").value()) != "NVLinkBandwidth")
      continue;
    add_nvlink_matrix(im, dist, generation, pairs);
  }
  b.nvlink_peers(pairs, generation);
}

}  // namespace

Result<NodeImport> import_hwloc_xml(std::string_view text, const std::string& origin,
                                    const NodeImportOptions& options) {
  pugi::xml_document doc;
  if (auto error = node_import::load_xml(doc, text, origin)) return tl::unexpected(*error);
  const pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) != "topology")
    return make_error(ErrorCode::parse_error,
                      "root element <" + std::string(root.name()) + "> is not hwloc's <topology>", origin);
  NodeBuilder b(options, origin);
  Importer im{b, text, origin, {}, false, {}, {}, {}, 0, {}};
  collect(root, im.objects);
  if (im.objects.empty() || type_of(im.objects.front()) != "Machine") b.warn(origin, "the top object is not a Machine");
  for (const auto& o : im.objects)
    if (type_of(o) == "OSDev" && is_compute_osdev(o.attribute("name").value())) im.compute_osdevs = true;
  if (auto added = add_cpus(im, root); !added) return tl::unexpected(added.error());
  if (auto ordered = order_gpus(im); !ordered) return tl::unexpected(ordered.error());
  place_io(im);
  add_nvlinks(im, root);

  std::string host = info(root, "HostName");
  if (host.empty() && !im.objects.empty()) host = info(im.objects.front(), "HostName");
  std::string title = std::to_string(b.gpus().size()) + "-GPU node";
  if (!im.gpus.empty()) title += " (" + im.gpu_name(im.gpus.front().node) + ")";
  if (!host.empty()) title = host + ": " + title;
  return b.finish(NodeTopologyFormat::hwloc_xml, title);
}

}  // namespace meshscope
