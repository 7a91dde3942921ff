#include "core/importers/nvidia_smi_topo.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>

namespace meshscope {
namespace {

using node_import::NodeBuilder;
using node_import::NvlinkPair;

using node_import::split_lines;
using node_import::tokens_of;

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

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

bool is_gpu_name(std::string_view name) {
  return name.size() > 3 && name.substr(0, 3) == "GPU" && all_digits(name.substr(3));
}

// NIC0 (nvidia-smi 470 and later, named in the NIC Legend) or an HCA name (mlx5_0: older versions).
bool is_nic_name(std::string_view name) {
  if (name.size() > 3 && name.substr(0, 3) == "NIC" && all_digits(name.substr(3))) return true;
  const size_t underscore = name.find('_');
  return underscore != std::string_view::npos && underscore > 0 && all_digits(name.substr(underscore + 1));
}

// A CPU list as nvidia-smi prints it ("0-15,32-47"); a lone number could also be a NUMA node.
bool is_cpu_list(std::string_view text) {
  return text.find_first_of("-,") != std::string_view::npos && std::all_of(text.begin(), text.end(), [](char ch) {
           return (ch >= '0' && ch <= '9') || ch == '-' || ch == ',';
         });
}

// The header: first token GPU0, and not the GPU0 row (whose second token is X).
bool is_header(const std::vector<std::string_view>& t) {
  return !t.empty() && t[0] == "GPU0" && (t.size() == 1 || t[1] != "X");
}

std::string affinity_value(std::string_view token) {
  return token == "N/A" ? std::string() : std::string(token);
}

// The pasted lines, and where each is ("file:12").
struct SmiText {
  const std::vector<std::string_view>& lines;
  const std::string& origin;
  [[nodiscard]] std::string at(size_t line_index) const { return origin + ":" + std::to_string(line_index + 1); }
};

void warn(SmiTopoMatrix& m, std::string location, std::string message) {
  m.warnings.push_back({std::move(location), std::move(message)});
}

// The header line's index (the first line starting with GPU0 that is not its row).
Result<size_t> find_header(const SmiText& in) {
  const auto& lines = in.lines;
  size_t header = lines.size(), first_row = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto t = tokens_of(lines[i]);
    if (is_header(t)) {
      header = i;
      break;
    }
    if (first_row == lines.size() && t.size() > 1 && t[0] == "GPU0") first_row = i;
  }
  if (header == lines.size() && first_row < lines.size())
    return make_error(ErrorCode::parse_error,
                      "the row of GPU0 has no header line above it (GPU0 GPU1 ... CPU Affinity): the paste lost the "
                      "top of the matrix, and without it the columns cannot be named",
                      in.at(first_row));
  if (header == lines.size())
    return make_error(ErrorCode::parse_error,
                      "no matrix header (a line starting with GPU0): not the output of `nvidia-smi topo -m`",
                      in.origin);
  return header;
}

// Header: device columns, then the affinity columns whose names hold spaces; the matrix sized to the
// columns. Returns the affinity columns, "cpu", "numa", "gpu-numa" in header order.
Result<std::vector<std::string>> read_header(const SmiText& in, size_t header, SmiTopoMatrix& m) {
  const auto head = tokens_of(in.lines[header]);
  size_t k = 0;
  for (; k < head.size(); ++k) {
    const std::string_view t = head[k];
    if (t == "CPU" || t == "NUMA" || (t == "GPU" && k + 1 < head.size() && head[k + 1] == "NUMA")) break;
    m.devices.emplace_back(t);
  }
  std::vector<std::string> extras;
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
        return make_error(ErrorCode::parse_error, "column \"" + d + "\" appears twice in the header", in.at(header));
  }
  for (const auto& d : m.devices)
    if (!is_gpu_name(d) && !is_nic_name(d))
      warn(m, in.at(header),
           "column \"" + d + "\" is neither GPU# nor NIC# (nor an HCA name like mlx5_0): read as a NIC");
  m.link.assign(n, std::vector<SmiLink>(n, SmiLink::sys));
  m.nvlinks.assign(n, std::vector<int32_t>(n, 0));
  m.cpu_affinity.assign(n, "");
  m.numa_affinity.assign(n, "");
  m.gpu_numa_id.assign(n, "");
  m.nic_names.assign(n, "");
  return extras;
}

// The tokens of device `row`'s row, which starts at line `row_line`; a row a narrow terminal or a
// chat window wrapped goes on with cells on the next lines (`line` is left at its last line).
Result<std::vector<std::string_view>> row_tokens(const SmiText& in, size_t row, size_t& line, SmiTopoMatrix& m) {
  const size_t n = m.devices.size();
  const size_t row_line = line;
  auto t = tokens_of(in.lines[line]);
  if (t[0] != m.devices[row])
    return make_error(ErrorCode::parse_error,
                      "expected the row of " + m.devices[row] + ", found \"" + std::string(t[0]) + "\"", in.at(line));
  while (t.size() < n + 1 && line + 1 < in.lines.size() && !is_blank(in.lines[line + 1])) {
    const auto more = tokens_of(in.lines[line + 1]);
    SmiLink probe{};
    int32_t count = 0;
    if (!parse_cell(more[0], probe, count)) break;
    ++line;
    t.insert(t.end(), more.begin(), more.end());
    warn(m, in.at(row_line),
         "the row of " + m.devices[row] + " goes on at line " + std::to_string(line + 1) +
             " (a wrapped paste): the lines are read as one row");
  }
  if (t.size() < n + 1)
    return make_error(ErrorCode::parse_error,
                      "row " + m.devices[row] + " has " + std::to_string(t.size() - 1) + " entries, expected " +
                          std::to_string(n) + " (truncated line?)",
                      in.at(row_line));
  return t;
}

// The row's link cells: X on the diagonal only.
Result<void> read_cells(const SmiText& in, size_t row, size_t row_line, const std::vector<std::string_view>& t,
                        SmiTopoMatrix& m) {
  for (size_t col = 0; col < m.devices.size(); ++col) {
    SmiLink link{};
    int32_t count = 0;
    if (!parse_cell(t[col + 1], link, count))
      return make_error(ErrorCode::parse_error,
                        "entry \"" + std::string(t[col + 1]) + "\" (" + m.devices[row] + " to " + m.devices[col] +
                            ") is none of X, NV#, PIX, PXB, PHB, NODE, SYS",
                        in.at(row_line));
    if ((link == SmiLink::self) != (row == col))
      return make_error(ErrorCode::parse_error,
                        row == col ? m.devices[row] + " to itself must be X"
                                   : "X off the diagonal (" + m.devices[row] + " to " + m.devices[col] + ")",
                        in.at(row_line));
    m.link[row][col] = link;
    m.nvlinks[row][col] = count;
  }
  return {};
}

// The affinity fields. nvidia-smi separates them by tabs, which pastes turn into spaces, and a
// container or VM may leave some blank: with fewer values than columns, a CPU list ("0-15")
// is the CPU Affinity and the rest fill the later columns in order.
void read_affinities(const SmiText& in, size_t row, size_t row_line, const std::vector<std::string_view>& t,
                     const std::vector<std::string>& extras, SmiTopoMatrix& m) {
  static const std::map<std::string, std::string> kExtraName = {
      {"cpu", "CPU Affinity"}, {"numa", "NUMA Affinity"}, {"gpu-numa", "GPU NUMA ID"}};
  const size_t n = m.devices.size();
  std::vector<std::string_view> values(t.begin() + static_cast<std::ptrdiff_t>(n + 1), t.end());
  if (!is_gpu_name(m.devices[row])) values.clear();  // NIC rows have none
  std::map<std::string, std::string> got;
  if (values.size() >= extras.size()) {
    for (size_t e = 0; e < extras.size(); ++e) got[extras[e]] = affinity_value(values[e]);
    if (values.size() > extras.size())
      warn(m, in.at(row_line),
           "row " + m.devices[row] + " has " + std::to_string(values.size() - extras.size()) +
               " value(s) after its affinity columns: ignored");
  } else if (is_gpu_name(m.devices[row]) && !extras.empty()) {
    std::vector<std::string> columns = extras;
    size_t v = 0;
    if (columns.front() == "cpu") {
      if (v < values.size() && is_cpu_list(values[v])) got["cpu"] = affinity_value(values[v++]);
      columns.erase(columns.begin());
    }
    // The rest: a NUMA node number fills NUMA Affinity first; otherwise (N/A) the values belong to
    // the last columns, since GPU NUMA ID is the one field containers still print.
    const size_t left = values.size() - v;
    size_t c = 0;
    if (left < columns.size() && !(columns.front() == "numa" && left > 0 && all_digits(values[v])))
      c = columns.size() - left;
    std::string read;
    for (; c < columns.size() && v < values.size(); ++c, ++v) {
      got[columns[c]] = affinity_value(values[v]);
      read += (read.empty() ? "" : ", ") + kExtraName.at(columns[c]) + " " + std::string(values[v]);
    }
    if (got.count("cpu")) read = "CPU Affinity " + got["cpu"] + (read.empty() ? "" : ", " + read);
    warn(m, in.at(row_line),
         "row " + m.devices[row] + " has " + std::to_string(values.size()) + " of the " +
             std::to_string(extras.size()) + " affinity fields (blank in a container or VM?): " +
             (read.empty() ? "all taken as blank" : "read as " + read + ", the others blank"));
  }
  m.cpu_affinity[row] = got["cpu"];
  m.numa_affinity[row] = got["numa"];
  m.gpu_numa_id[row] = got["gpu-numa"];
}

// The rows, one per column, from the line after the header; returns the line after the last row.
Result<size_t> read_rows(const SmiText& in, size_t header, const std::vector<std::string>& extras, SmiTopoMatrix& m) {
  const size_t n = m.devices.size();
  size_t line = header + 1;
  for (size_t row = 0; row < n; ++row, ++line) {
    if (line >= in.lines.size() || is_blank(in.lines[line]))
      return make_error(ErrorCode::parse_error,
                        "the matrix ends after " + std::to_string(row) + " of " + std::to_string(n) +
                            " rows (truncated output?); expected the row of " + m.devices[row],
                        in.at(std::min(line, in.lines.size())));
    const size_t row_line = line;
    MS_TRY(t, row_tokens(in, row, line, m));
    if (auto read = read_cells(in, row, row_line, t, m); !read) return tl::unexpected(read.error());
    read_affinities(in, row, row_line, t, extras, m);
    m.row_lines.push_back(static_cast<int64_t>(row_line + 1));
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < i; ++j)
      if (m.link[i][j] != m.link[j][i] || m.nvlinks[i][j] != m.nvlinks[j][i])
        return make_error(ErrorCode::parse_error,
                          "the matrix is not symmetric: " + m.devices[i] + " to " + m.devices[j] + " differs from " +
                              m.devices[j] + " to " + m.devices[i],
                          in.at(static_cast<size_t>(m.row_lines[i] - 1)));
  return line;
}

// The NIC Legend after the matrix (from line `from`) gives NIC names; the Legend itself only explains
// the codes, so the matrix is complete without it (every row was read above).
void read_nic_legend(const SmiText& in, size_t from, SmiTopoMatrix& m) {
  bool nic_legend = false;
  for (size_t i = from; i < in.lines.size(); ++i) {
    const auto t = tokens_of(in.lines[i]);
    if (t.empty()) continue;
    if (t.size() >= 2 && t[0] == "NIC" && t[1] == "Legend:") nic_legend = true;
    if (nic_legend && t.size() >= 2 && t[0].size() > 1 && t[0].back() == ':') {
      const std::string key(t[0].substr(0, t[0].size() - 1));
      const auto it = std::find(m.devices.begin(), m.devices.end(), key);
      if (it != m.devices.end()) m.nic_names[static_cast<size_t>(it - m.devices.begin())] = std::string(t[1]);
    }
  }
  std::vector<std::string> unnamed;
  for (size_t i = 0; i < m.devices.size(); ++i)
    if (m.devices[i].rfind("NIC", 0) == 0 && is_nic_name(m.devices[i]) && m.nic_names[i].empty())
      unnamed.push_back(m.devices[i]);
  if (!unnamed.empty())
    warn(m, in.origin,
         std::string(nic_legend ? "the NIC Legend does not name " : "no NIC Legend after the matrix: ") +
             unnamed.front() + (unnamed.size() > 1 ? " ... " + unnamed.back() : "") +
             " keep their column names (the legend gives the device names, like mlx5_0)");
}

}  // namespace

Result<SmiTopoMatrix> parse_nvidia_smi_topo(std::string_view text, const std::string& origin) {
  const std::string clean = node_import::clean_pasted_text(text);
  const auto lines = split_lines(clean);
  const SmiText in{lines, origin};
  MS_TRY(header, find_header(in));
  SmiTopoMatrix m;
  MS_TRY(extras, read_header(in, header, m));
  MS_TRY(after_rows, read_rows(in, header, extras, m));
  read_nic_legend(in, after_rows, m);
  bool gpu = false;
  for (const auto& d : m.devices) gpu = gpu || is_gpu_name(d);
  if (!gpu) return make_error(ErrorCode::parse_error, "the matrix has no GPU column", in.at(header));
  return m;
}

Result<NodeImport> import_nvidia_smi_topo(std::string_view text, const std::string& origin,
                                          const NodeImportOptions& options) {
  MS_TRY(m, parse_nvidia_smi_topo(text, origin));
  const size_t n = m.devices.size();
  NodeBuilder b(options, origin);
  for (const auto& w : m.warnings) b.warn(w.location, w.message);
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
    node_import::UnionFind near(n);
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
  node_import::UnionFind group(n);
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
    dev[i] = b.nic(bond ? -1 : rail++, numa[i], name == m.devices[i] ? name : name + " (" + m.devices[i] + ")");
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
