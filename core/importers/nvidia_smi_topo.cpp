#include "core/importers/nvidia_smi_topo.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>
#include <optional>
#include <set>

namespace meshscope {
namespace {

using node_import::NodeBuilder;
using node_import::NvlinkPair;

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

bool is_blank(std::string_view line) {
  return tokens_of(line).empty();
}

std::optional<int32_t> leading_int(std::string_view text) {
  int32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

bool parse_cell(std::string_view cell, SmiLink& link, int32_t& count) {
  count = 0;
  if (cell == "X")
    link = SmiLink::self;
  else if (cell == "PIX")
    link = SmiLink::pix;
  else if (cell == "PXB")
    link = SmiLink::pxb;
  else if (cell == "PHB")
    link = SmiLink::phb;
  else if (cell == "NODE")
    link = SmiLink::node;
  else if (cell == "SYS" || cell == "SOC")
    link = SmiLink::sys;
  else if (cell.size() > 2 && cell.substr(0, 2) == "NV") {
    int32_t n = 0;
    const auto [end, error] = std::from_chars(cell.data() + 2, cell.data() + cell.size(), n);
    if (error != std::errc() || end != cell.data() + cell.size() || n < 1 || n > 64) return false;
    link = SmiLink::nvlink;
    count = n;
  } else {
    return false;
  }
  return true;
}

bool is_gpu_name(std::string_view name) {
  return name.size() > 3 && name.substr(0, 3) == "GPU";
}

struct UnionFind {
  std::vector<size_t> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), size_t{0}); }
  size_t find(size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(size_t a, size_t b) { parent[find(a)] = find(b); }
};

}  // namespace

Result<SmiTopoMatrix> parse_nvidia_smi_topo(std::string_view text, const std::string& origin) {
  const auto lines = split_lines(text);
  auto at = [&](size_t line_index) { return origin + ":" + std::to_string(line_index + 1); };
  size_t header = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto t = tokens_of(lines[i]);
    if (!t.empty() && t[0] == "GPU0") {
      header = i;
      break;
    }
  }
  if (header == lines.size())
    return make_error(ErrorCode::parse_error,
                      "no matrix header (a line starting with GPU0): not the output of `nvidia-smi topo -m`", origin);
  SmiTopoMatrix m;
  // Header: device columns, then the affinity columns whose names hold spaces.
  const auto head = tokens_of(lines[header]);
  size_t k = 0;
  for (; k < head.size(); ++k) {
    const std::string_view t = head[k];
    if (t == "CPU" || t == "NUMA" || (t == "GPU" && k + 1 < head.size() && head[k + 1] == "NUMA")) break;
    m.devices.emplace_back(t);
  }
  std::vector<std::string> extras;  // "cpu", "numa", "gpu-numa" in header order
  for (; k < head.size(); ++k) {
    if (head[k] == "CPU")
      extras.emplace_back("cpu");
    else if (head[k] == "NUMA" && (k == 0 || head[k - 1] != "GPU"))
      extras.emplace_back("numa");
    else if (head[k] == "GPU")
      extras.emplace_back("gpu-numa");
  }
  const size_t n = m.devices.size();
  {
    std::set<std::string> seen;
    for (const auto& d : m.devices)
      if (!seen.insert(d).second)
        return make_error(ErrorCode::parse_error, "column \"" + d + "\" appears twice in the header", at(header));
  }
  m.link.assign(n, std::vector<SmiLink>(n, SmiLink::sys));
  m.nvlinks.assign(n, std::vector<int32_t>(n, 0));
  m.cpu_affinity.assign(n, "");
  m.numa_affinity.assign(n, "");
  m.nic_names.assign(n, "");
  size_t line = header + 1;
  for (size_t row = 0; row < n; ++row, ++line) {
    if (line >= lines.size() || is_blank(lines[line]))
      return make_error(ErrorCode::parse_error,
                        "the matrix ends after " + std::to_string(row) + " of " + std::to_string(n) +
                            " rows (truncated output?); expected the row of " + m.devices[row],
                        at(std::min(line, lines.size())));
    const auto t = tokens_of(lines[line]);
    if (t[0] != m.devices[row])
      return make_error(ErrorCode::parse_error,
                        "expected the row of " + m.devices[row] + ", found \"" + std::string(t[0]) + "\"", at(line));
    if (t.size() < n + 1)
      return make_error(ErrorCode::parse_error,
                        "row " + m.devices[row] + " has " + std::to_string(t.size() - 1) + " entries, expected " +
                            std::to_string(n) + " (truncated line?)",
                        at(line));
    for (size_t col = 0; col < n; ++col) {
      SmiLink link{};
      int32_t count = 0;
      if (!parse_cell(t[col + 1], link, count))
        return make_error(ErrorCode::parse_error,
                          "entry \"" + std::string(t[col + 1]) + "\" (" + m.devices[row] + " to " + m.devices[col] +
                              ") is none of X, NV#, PIX, PXB, PHB, NODE, SYS",
                          at(line));
      if ((link == SmiLink::self) != (row == col))
        return make_error(ErrorCode::parse_error,
                          row == col ? m.devices[row] + " to itself must be X"
                                     : "X off the diagonal (" + m.devices[row] + " to " + m.devices[col] + ")",
                          at(line));
      m.link[row][col] = link;
      m.nvlinks[row][col] = count;
    }
    for (size_t e = 0; e < extras.size() && n + 1 + e < t.size(); ++e) {
      const std::string value(t[n + 1 + e]);
      if (extras[e] == "cpu") m.cpu_affinity[row] = value == "N/A" ? "" : value;
      if (extras[e] == "numa") m.numa_affinity[row] = value == "N/A" ? "" : value;
    }
    m.row_lines.push_back(static_cast<int64_t>(line + 1));
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < i; ++j)
      if (m.link[i][j] != m.link[j][i] || m.nvlinks[i][j] != m.nvlinks[j][i])
        return make_error(ErrorCode::parse_error,
                          "the matrix is not symmetric: " + m.devices[i] + " to " + m.devices[j] + " differs from " +
                              m.devices[j] + " to " + m.devices[i],
                          at(static_cast<size_t>(m.row_lines[i] - 1)));
  // The Legend (it marks complete output) and the NIC Legend (NIC names).
  bool legend = false, nic_legend = false;
  for (size_t i = line; i < lines.size(); ++i) {
    const auto t = tokens_of(lines[i]);
    if (t.empty()) continue;
    if (t[0] == "Legend:") legend = true;
    if (t.size() >= 2 && t[0] == "NIC" && t[1] == "Legend:") nic_legend = true;
    if (nic_legend && t.size() >= 2 && t[0].size() > 1 && t[0].back() == ':') {
      const std::string key(t[0].substr(0, t[0].size() - 1));
      const auto it = std::find(m.devices.begin(), m.devices.end(), key);
      if (it != m.devices.end()) m.nic_names[static_cast<size_t>(it - m.devices.begin())] = std::string(t[1]);
    }
  }
  if (!legend)
    return make_error(ErrorCode::parse_error,
                      "no \"Legend:\" after the matrix: the output looks cut short (paste all of `nvidia-smi topo -m`)",
                      at(std::min(line, lines.size() - 1)));
  bool gpu = false;
  for (const auto& d : m.devices) gpu = gpu || is_gpu_name(d);
  if (!gpu) return make_error(ErrorCode::parse_error, "the matrix has no GPU column", at(header));
  return m;
}

Result<NodeImport> import_nvidia_smi_topo(std::string_view text, const std::string& origin,
                                          const NodeImportOptions& options) {
  MS_TRY(m, parse_nvidia_smi_topo(text, origin));
  const size_t n = m.devices.size();
  NodeBuilder b(options, origin);
  auto row_at = [&](size_t i) { return origin + ":" + std::to_string(m.row_lines[i]); };
  std::vector<size_t> gpus, nics;
  for (size_t i = 0; i < n; ++i) (is_gpu_name(m.devices[i]) ? gpus : nics).push_back(i);
  auto within_numa = [&](SmiLink l) {
    return l == SmiLink::pix || l == SmiLink::pxb || l == SmiLink::phb || l == SmiLink::node;
  };

  // NUMA domain of each GPU: the NUMA Affinity column; else distinct CPU Affinity sets; else the
  // groups the matrix joins by PIX/PXB/PHB/NODE.
  std::vector<int32_t> numa(n, -1);
  bool from_numa = false, from_cpu = false;
  for (const size_t g : gpus)
    if (auto v = leading_int(m.numa_affinity[g]); v && *v >= 0) {
      numa[g] = *v;
      from_numa = true;
    }
  if (!from_numa) {
    std::map<std::string, int32_t> sets;
    for (const size_t g : gpus)
      if (!m.cpu_affinity[g].empty()) {
        numa[g] = sets.try_emplace(m.cpu_affinity[g], static_cast<int32_t>(sets.size())).first->second;
        from_cpu = true;
      }
  }
  if (!from_numa && !from_cpu) {
    UnionFind near(n);
    for (const size_t a : gpus)
      for (const size_t c : gpus)
        if (within_numa(m.link[a][c])) near.join(a, c);
    std::map<size_t, int32_t> roots;
    for (const size_t g : gpus)
      numa[g] = roots.try_emplace(near.find(g), static_cast<int32_t>(roots.size())).first->second;
    b.warn(origin, "no NUMA or CPU affinity given: NUMA domains taken from the matrix (SYS separates them)");
  }
  for (const size_t g : gpus)
    if (numa[g] < 0) {
      numa[g] = 0;
      b.warn(row_at(g), m.devices[g] + " has no NUMA affinity: placed on NUMA 0");
    }

  // PCIe switches: devices that are PIX or PXB to each other share one.
  UnionFind group(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (m.link[i][j] == SmiLink::pix || m.link[i][j] == SmiLink::pxb) group.join(i, j);
  std::map<size_t, std::vector<size_t>> members;
  for (size_t i = 0; i < n; ++i) members[group.find(i)].push_back(i);

  // NUMA of each group: its GPUs'; else that of a GPU one of its NICs is PHB/NODE to; else a CPU
  // no GPU is on (everything SYS), else the first.
  std::set<int32_t> gpu_numas;
  for (const size_t g : gpus) gpu_numas.insert(numa[g]);
  for (auto& [root, list] : members) {
    int32_t domain = -1;
    for (const size_t i : list)
      if (is_gpu_name(m.devices[i]) && domain < 0) domain = numa[i];
    for (const size_t i : list)
      for (const size_t g : gpus)
        if (domain < 0 && within_numa(m.link[i][g])) domain = numa[g];
    if (domain < 0) {
      domain = *gpu_numas.begin();
      if (gpu_numas.size() > 1) {
        domain = *gpu_numas.rbegin() + 1;  // a socket with no GPU: the matrix says SYS to all of them
        gpu_numas.insert(domain);
      }
    }
    for (const size_t i : list) numa[i] = domain;
  }

  // Where the matrix and the affinity disagree (VMs often show SYS for devices on one NUMA node),
  // the affinity wins: say so once.
  int32_t sys_same = 0, near_apart = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      if (m.link[i][j] == SmiLink::sys && numa[i] == numa[j]) ++sys_same;
      if ((m.link[i][j] == SmiLink::phb || m.link[i][j] == SmiLink::node) && numa[i] != numa[j]) ++near_apart;
    }
  if (sys_same > 0)
    b.warn(origin, std::to_string(sys_same) +
                       " device pairs are SYS in the matrix but on the same NUMA node by their affinity "
                       "(common in VMs, which hide the host's sockets): modelled as one NUMA domain");
  if (near_apart > 0)
    b.warn(origin, std::to_string(near_apart) +
                       " device pairs are PHB/NODE in the matrix but on different NUMA nodes by their affinity: "
                       "the affinity is used");

  std::map<int32_t, DeviceId> cpus;
  for (size_t i = 0; i < n; ++i) cpus.try_emplace(numa[i]);
  for (auto& [domain, id] : cpus) {
    std::string cores;
    for (const size_t g : gpus)
      if (numa[g] == domain && !m.cpu_affinity[g].empty() && cores.empty()) cores = m.cpu_affinity[g];
    id = b.cpu(domain, "CPU (NUMA " + std::to_string(domain) + (cores.empty() ? "" : ", cores " + cores) + ")", false);
  }

  std::vector<DeviceId> dev(n);
  int32_t rail = 0;
  for (size_t i = 0; i < n; ++i) {
    if (is_gpu_name(m.devices[i])) {
      dev[i] = b.gpu(static_cast<int32_t>(b.gpus().size()), numa[i], m.devices[i]);
      continue;
    }
    const std::string name = m.nic_names[i].empty() ? m.devices[i] : m.nic_names[i];
    const bool bond = name.find("bond") != std::string::npos;
    if (bond)
      b.warn(row_at(i), m.devices[i] + " (" + name + ") is a bonded interface: kept as a NIC but not given a rail");
    dev[i] = b.nic(bond ? -1 : rail++, numa[i], name + " (" + m.devices[i] + ")");
  }
  for (const auto& [root, list] : members) {
    const DeviceId cpu = cpus.at(numa[list.front()]);
    if (list.size() == 1) {
      b.pcie(dev[list.front()], cpu, 0, 16);
      continue;
    }
    const DeviceId sw = b.pcie_switch(numa[list.front()], "PCIe switch");
    b.pcie(sw, cpu, 0, 16);
    for (const size_t i : list) b.pcie(dev[i], sw, 0, 16);
  }

  // NVLink.
  int32_t generation = 0;
  std::vector<NvlinkPair> pairs;
  for (size_t x = 0; x < gpus.size(); ++x)
    for (size_t y = x + 1; y < gpus.size(); ++y)
      if (m.link[gpus[x]][gpus[y]] == SmiLink::nvlink)
        pairs.push_back({static_cast<int32_t>(x), static_cast<int32_t>(y), m.nvlinks[gpus[x]][gpus[y]], 0});
  generation = b.nvlink_generation(0);
  b.nvlink_peers(pairs, generation);
  return b.finish(NodeTopologyFormat::nvidia_smi_topo, std::to_string(gpus.size()) + "-GPU node (nvidia-smi topo -m)");
}

}  // namespace meshscope
