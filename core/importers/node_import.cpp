#include "core/importers/node_import.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <map>
#include <utility>

#include "core/base/text.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/link_defaults.hpp"

namespace meshscope {

std::string_view node_topology_format_name(NodeTopologyFormat format) {
  return enum_name(format);
}

namespace node_import {
namespace {

constexpr auto lower = text::lowercase;

bool has(const std::string& text, std::string_view word) {
  return text.find(word) != std::string::npos;
}

// "n0.gpu0" and "n0.pcie1" → "n0.gpu0-pcie1" (generators.cpp's link ids).
std::string link_id(const std::string& a, const std::string& b) {
  const size_t dot = a.find('.');
  if (dot != std::string::npos && b.size() > dot && b.compare(0, dot + 1, a, 0, dot + 1) == 0)
    return a + "-" + b.substr(dot + 1);
  return a + "-" + b;
}

// Intel UPI: 3 links at 10.4 GT/s × 2 bytes per direction (Intel Xeon Scalable platform brief).
constexpr double kUpiBytesPerS = 3 * 10.4e9 * 2.0;
// AMD xGMI: 4 x16 links at 18 Gb/s per lane per direction (the generators' DGX A100 assumption).
constexpr double kXgmiBytesPerS = 4 * 16 * 18e9 / 8.0;
constexpr int32_t kMaxNvlinksPerGpu = 18;

}  // namespace

double nvlink_link_bytes_per_s(int32_t generation) {
  return generation == 1 ? 20e9 : nvlink_bandwidth(generation, 1);
}

int32_t nvlink_generation_of(std::string_view gpu_name) {
  const std::string n = lower(gpu_name);
  if (has(n, "p100")) return 1;
  if (has(n, "v100")) return 2;
  if (has(n, "a100") || has(n, "a800") || has(n, "a30")) return 3;
  if (has(n, "h100") || has(n, "h200") || has(n, "h800") || has(n, "h20")) return 4;
  if (has(n, "b200") || has(n, "b100") || has(n, "gb200") || has(n, "b300")) return 5;
  return 0;
}

int32_t pcie_generation_of(std::string_view gpu_name) {
  const std::string n = lower(gpu_name);
  if (has(n, "p100") || has(n, "v100") || has(n, "t4") || has(n, "k40") || has(n, "k80") || has(n, "m2075")) return 3;
  if (has(n, "h100") || has(n, "h200") || has(n, "h800") || has(n, "b200") || has(n, "l40") || has(n, "mi300"))
    return 5;
  return 0;
}

std::string clean_pasted_text(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::string out;
  out.reserve(text.size());
  const size_t n = text.size();
  auto is_digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  // The end of a CSI sequence whose parameters start at `i`: parameter bytes 0x30-0x3F, intermediate
  // bytes 0x20-0x2F, one final byte 0x40-0x7E (ECMA-48 5.4); npos when it is not one.
  auto csi_end = [&](size_t at) {
    while (at < n && text[at] >= 0x30 && text[at] <= 0x3F) ++at;
    while (at < n && text[at] >= 0x20 && text[at] <= 0x2F) ++at;
    return at < n && text[at] >= 0x40 && text[at] <= 0x7E ? at + 1 : std::string_view::npos;
  };
  size_t i = 0;
  while (i < n) {
    const char ch = text[i];
    if (ch == '\x1b') {
      if (i + 1 < n && text[i + 1] == '[') {
        const size_t end = csi_end(i + 2);
        i = end == std::string_view::npos ? i + 2 : end;
      } else if (i + 1 < n && text[i + 1] == ']') {  // OSC: up to BEL, ESC backslash or the line's end
        size_t end = i + 2;
        while (end < n && text[end] != '\a' && text[end] != '\n' && text[end] != '\x1b') ++end;
        if (end < n && text[end] == '\a')
          ++end;
        else if (end + 1 < n && text[end] == '\x1b' && text[end + 1] == '\\')
          end += 2;
        i = end;
      } else {
        i += i + 1 < n && text[i + 1] != '\n' ? 2 : 1;  // ESC ( B and other two-byte escapes
      }
      continue;
    }
    if (ch == '^' && text.substr(i, 3) == "^[[") {  // caret notation (cat -v, less)
      if (const size_t end = csi_end(i + 3); end != std::string_view::npos) {
        i = end;
        continue;
      }
    }
    if (ch == '[') {  // an SGR code that lost its ESC byte: [4m, [0m, [1;32m
      size_t end = i + 1;
      while (end < n && (is_digit(text[end]) || text[end] == ';')) ++end;
      if (end < n && text[end] == 'm' && end > i + 1) {
        i = end + 1;
        continue;
      }
    }
    if (ch == '\xC2' && i + 1 < n && text[i + 1] == '\xA0') {  // U+00A0 no-break space
      out += ' ';
      i += 2;
      continue;
    }
    out += ch;
    ++i;
  }
  return out;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::vector<std::string_view> tokens_of(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

int64_t line_of(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
}

tl::unexpected<Error> xml_syntax_error(std::string_view text, const std::string& origin, const char* description,
                                       std::ptrdiff_t offset) {
  return make_error(
      ErrorCode::parse_error, std::string("XML syntax error: ") + description,
      origin + ":" + std::to_string(line_of(text, static_cast<size_t>(std::max<std::ptrdiff_t>(offset, 0)))));
}

NodeBuilder::NodeBuilder(const NodeImportOptions& options, std::string origin)
    : options_(options), origin_(std::move(origin)) {
  pcie_generation_ = options.pcie_generation > 0 ? options.pcie_generation : pcie_generation_of(options.gpu_model);
  if (pcie_generation_ <= 0) pcie_generation_ = 4;
}

int32_t NodeBuilder::nvlink_generation(int32_t from_file) const {
  if (options_.nvlink_generation > 0) return options_.nvlink_generation;
  if (const int32_t g = nvlink_generation_of(options_.gpu_model); g > 0) return g;
  return from_file > 0 ? from_file : 3;
}

DeviceId NodeBuilder::add(std::string id, DeviceKind kind, std::string name, int32_t numa, int32_t local_index) {
  Device d;
  d.id = "n0." + std::move(id);
  d.kind = kind;
  d.name = name.empty() ? d.id : std::move(name);
  d.node = 0;
  d.numa = numa;
  d.local_index = local_index;
  c_.devices.push_back(std::move(d));
  return DeviceId{static_cast<int32_t>(c_.devices.size() - 1)};
}

DeviceId NodeBuilder::cpu(int32_t numa, std::string name, bool amd) {
  amd_ = amd_ || amd;
  const DeviceId id = add("cpu" + std::to_string(cpus_.size()), DeviceKind::cpu, std::move(name), numa, -1);
  cpus_.push_back(id);
  return id;
}

DeviceId NodeBuilder::pcie_switch(int32_t numa, std::string name) {
  return add("pcie" + std::to_string(switches_++), DeviceKind::pcie_switch, std::move(name), numa, -1);
}

DeviceId NodeBuilder::gpu(int32_t local_index, int32_t numa, std::string name) {
  const DeviceId id = add("gpu" + std::to_string(local_index), DeviceKind::gpu, std::move(name), numa, local_index);
  c_.devices[id.index()].gpu_model = options_.gpu_model;
  gpus_.push_back(id);
  return id;
}

DeviceId NodeBuilder::nic(int32_t local_index, int32_t numa, std::string name) {
  const DeviceId id = add("nic" + std::to_string(nics_.size()), DeviceKind::nic, std::move(name), numa, local_index);
  nics_.push_back(id);
  return id;
}

Link& NodeBuilder::link(DeviceId a, DeviceId b, LinkKind kind, double bytes_per_s) {
  Link l;
  l.id = link_id(c_.device(a).id, c_.device(b).id);
  if (!link_ids_.insert(l.id).second) {  // a second link between the same devices (POWER8: NVLink + PCIe)
    l.id += "." + std::string(link_kind_name(kind));
    for (int32_t k = 2; !link_ids_.insert(l.id).second; ++k) l.id += "." + std::to_string(k);
  }
  l.a = a;
  l.b = b;
  l.kind = kind;
  l.bandwidth_bytes_per_s = bytes_per_s;
  l.latency_s = default_link_latency_s(kind, c_.device(a).kind, c_.device(b).kind);
  c_.links.push_back(std::move(l));
  return c_.links.back();
}

void NodeBuilder::pcie(DeviceId a, DeviceId b, int32_t generation, int32_t lanes, double bytes_per_s) {
  if (bytes_per_s > 0) {
    for (int32_t g = 1; g <= 6; ++g)
      for (const int32_t w : {16, 8, 4, 2, 1})
        if (std::abs(pcie_bandwidth(g, w) - bytes_per_s) <= 0.01 * bytes_per_s) {
          Link& l = link(a, b, LinkKind::pcie, pcie_bandwidth(g, w));
          l.pcie_generation = g;
          l.pcie_lanes = w;
          return;
        }
    link(a, b, LinkKind::pcie, bytes_per_s);
    return;
  }
  if (generation <= 0) generation = pcie_generation_;
  if (lanes <= 0) lanes = 16;
  Link& l = link(a, b, LinkKind::pcie, pcie_bandwidth(generation, lanes));
  l.pcie_generation = generation;
  l.pcie_lanes = lanes;
}

void NodeBuilder::nvlink(DeviceId a, DeviceId b, int32_t generation, int32_t count, double bytes_per_s) {
  if (bytes_per_s <= 0) bytes_per_s = nvlink_link_bytes_per_s(generation) * count;
  Link& l = link(a, b, LinkKind::nvlink, bytes_per_s);
  // The specification is kept only when it gives the bandwidth (cluster_to_json writes it then).
  if (generation >= 2 && count > 0 && std::abs(nvlink_bandwidth(generation, count) - bytes_per_s) < 1) {
    l.nvlink_generation = generation;
    l.nvlink_count = count;
    l.bandwidth_bytes_per_s = nvlink_bandwidth(generation, count);
  }
}

void NodeBuilder::xgmi(DeviceId a, DeviceId b, double bytes_per_s) {
  link(a, b, LinkKind::xgmi, bytes_per_s);
}

bool NodeBuilder::nvlink_peers(const std::vector<NvlinkPair>& pairs, int32_t generation) {
  if (pairs.empty()) return false;
  std::map<int32_t, DeviceId> by_local;
  for (const DeviceId g : gpus_) by_local[c_.device(g).local_index] = g;
  const double per_link = nvlink_link_bytes_per_s(generation);
  auto count_of = [&](const NvlinkPair& p) {
    return p.count > 0 ? p.count : static_cast<int32_t>(std::lround(p.bytes_per_s / per_link));
  };
  std::map<int32_t, int32_t> total, widest;
  for (const auto& p : pairs)
    for (const int32_t g : {p.a, p.b}) {
      total[g] += count_of(p);
      widest[g] = std::max(widest[g], count_of(p));
    }
  bool fabric = options_.nvlink == NvlinkModel::nvswitch;
  if (options_.nvlink == NvlinkModel::automatic)
    fabric = std::any_of(total.begin(), total.end(), [](const auto& t) { return t.second > kMaxNvlinksPerGpu; });
  if (!fabric) {
    for (const auto& p : pairs)
      nvlink(by_local.at(p.a), by_local.at(p.b), generation, count_of(p), p.count > 0 ? 0 : p.bytes_per_s);
    return false;
  }
  nvswitch_fabric(widest, generation);
  return true;
}

DeviceId NodeBuilder::nvswitch_fabric(const std::map<int32_t, int32_t>& links_per_gpu, int32_t generation) {
  std::map<int32_t, DeviceId> by_local;
  for (const DeviceId g : gpus_) by_local[c_.device(g).local_index] = g;
  // NVSwitch chips per 8-GPU baseboard: HGX A100 6, HGX H100 4, HGX B200 2 (NVIDIA DGX user guides).
  const int32_t chips = generation == 3 ? 6 : generation == 4 ? 4 : generation == 5 ? 2 : 1;
  const DeviceId sw =
      add("nvsw", DeviceKind::nvswitch, "NVSwitch fabric (" + std::to_string(chips) + " chips)", -1, -1);
  c_.devices[sw.index()].chips = chips;
  for (const auto& [local, count] : links_per_gpu)
    if (count > 0 && by_local.count(local)) nvlink(by_local.at(local), sw, generation, count);
  return sw;
}

void NodeBuilder::join_cpus() {
  for (size_t i = 0; i < cpus_.size(); ++i)
    for (size_t j = i + 1; j < cpus_.size(); ++j)
      link(cpus_[i], cpus_[j], amd_ ? LinkKind::xgmi : LinkKind::upi, amd_ ? kXgmiBytesPerS : kUpiBytesPerS);
}

DeviceId NodeBuilder::cpu_of_numa(int32_t numa) const {
  for (const DeviceId c : cpus_)
    if (c_.device(c).numa == numa) return c;
  return cpus_.empty() ? DeviceId{} : cpus_.front();
}

void NodeBuilder::warn(std::string location, std::string message) {
  warnings_.push_back({std::move(location), std::move(message)});
}

Result<NodeImport> NodeBuilder::finish(NodeTopologyFormat format, std::string name) {
  if (gpus_.empty())
    return make_error(ErrorCode::unsupported,
                      "no GPU in this topology: meshscope models GPU hosts (a CPU-only " +
                          std::string(node_topology_format_name(format)) + " file has nothing to place ranks on)",
                      origin_);
  if (!options_.gpu_model.empty()) {
    if (auto spec = find_gpu(options_.gpu_model); !spec)
      return make_error(ErrorCode::invalid_argument, spec.error().message, origin_);
  }
  if (cpus_.empty()) cpu(0, "CPU", false);
  // Anything the file gives no path for hangs off its CPU's root complex.
  std::vector<bool> reached(c_.devices.size(), false);
  std::vector<std::vector<DeviceId>> next(c_.devices.size());
  for (const Link& l : c_.links) {
    next[l.a.index()].push_back(l.b);
    next[l.b.index()].push_back(l.a);
  }
  std::deque<DeviceId> frontier(cpus_.begin(), cpus_.end());
  for (const DeviceId c : cpus_) reached[c.index()] = true;
  while (!frontier.empty()) {
    const DeviceId d = frontier.front();
    frontier.pop_front();
    for (const DeviceId n : next[d.index()])
      if (!reached[n.index()]) {
        reached[n.index()] = true;
        frontier.push_back(n);
      }
  }
  const size_t count = c_.devices.size();
  for (size_t i = 0; i < count; ++i) {
    const Device& d = c_.devices[i];
    if (reached[i] || d.kind == DeviceKind::cpu || d.kind == DeviceKind::nvswitch) continue;
    if (d.kind != DeviceKind::gpu && d.kind != DeviceKind::nic && d.kind != DeviceKind::pcie_switch) continue;
    const DeviceId id{static_cast<int32_t>(i)};
    const DeviceId up = cpu_of_numa(d.numa);
    warn(origin_, d.id + " has no PCIe path in the file: attached to " + c_.device(up).id + " as PCIe Gen" +
                      std::to_string(pcie_generation_) + " x16");
    pcie(id, up, 0, 16);
  }
  join_cpus();
  c_.name = std::move(name);
  c_.node_names = {"node000"};
  const auto problems = index_cluster(c_);
  if (!problems.empty())
    return make_error(ErrorCode::parse_error, "imported node is inconsistent: " + problems.front().message, origin_);
  NodeImport out;
  out.cluster = std::move(c_);
  out.format = format;
  out.warnings = std::move(warnings_);
  return out;
}

}  // namespace node_import
}  // namespace meshscope
