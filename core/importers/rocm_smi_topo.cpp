#include "core/importers/rocm_smi_topo.hpp"
#include "core/base/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace meshscope {
namespace {

using node_import::NodeBuilder;
using node_import::split_lines;
using node_import::tokens_of;

// Each physical xGMI hop adds 15 to the KFD io_link weight rocm-smi prints; a PCIe segment 20
// (ROCm/rocm-systems PR #7372, "Interpreting hops and weight" in the amd-smi CLI guide).
constexpr int64_t kXgmiHopWeight = 15;
// One Infinity Fabric link per GPU pair, per direction: AMD Instinct MI300X datasheet (7 links per
// GPU at 128 GB/s both ways; the generators' mi300x platform), MI250X/MI210 (100 GB/s both ways).
constexpr double kMi300xXgmiBytesPerS = 64e9;
constexpr double kMi200XgmiBytesPerS = 50e9;

enum class Section { none, weight, hops, type, numa };

using text::trim;

// "===== Weight between two GPUs =====" → "Weight between two GPUs"; nullopt for other lines.
std::optional<std::string_view> title_of(std::string_view line) {
  line = trim(line);
  if (line.size() < 2 || line.front() != '=' || line.back() != '=') return std::nullopt;
  while (!line.empty() && line.front() == '=') line.remove_prefix(1);
  while (!line.empty() && line.back() == '=') line.remove_suffix(1);
  return trim(line);
}

Section section_of(std::string_view title) {
  if (title == "Weight between two GPUs") return Section::weight;
  if (title == "Hops between two GPUs") return Section::hops;
  if (title == "Link Type between two GPUs") return Section::type;
  if (title == "Numa Nodes") return Section::numa;
  return Section::none;
}

std::string table_name(Section s) {
  switch (s) {
    case Section::weight:
      return "Weight between two GPUs";
    case Section::hops:
      return "Hops between two GPUs";
    case Section::type:
      return "Link Type between two GPUs";
    case Section::numa:
      return "Numa Nodes";
    case Section::none:
      break;
  }
  return "";
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

bool is_gpu_column(std::string_view name) {
  return name.size() > 3 && name.substr(0, 3) == "GPU" && all_digits(name.substr(3));
}

constexpr auto integer = text::parse_integer;

struct RawTable {
  Section section = Section::none;
  size_t title_line = 0, header_line = 0;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> cells;  // [row][column]
  std::vector<size_t> lines;                    // 0-based line of each row
  bool header_seen = false;
};

struct NumaLine {
  std::string gpu;
  bool node = false;  // "Numa Node" (else "Numa Affinity")
  int64_t value = -1;
  size_t line = 0;
};

// Pass 1's result: the three matrices and the NUMA lines, by section.
struct RocmSections {
  std::map<Section, RawTable> tables;
  std::vector<NumaLine> numa_lines;
  std::optional<size_t> numa_title;  // 0-based line of the "Numa Nodes" title
};

// "file:12" for the 0-based line 11.
struct LineAt {
  const std::string& origin;
  std::string operator()(size_t line_index) const { return origin + ":" + std::to_string(line_index + 1); }
};

// Pass 1: the lines sorted into the sections their titles open, the tables' cells checked against
// their headers (a table ends at a blank line or at the next title).
class SectionReader {
 public:
  SectionReader(const std::vector<std::string_view>& lines, const std::string& origin,
                std::vector<ImportWarning>& warnings)
      : lines_(lines), at_{origin}, warnings_(warnings) {}

  Result<RocmSections> read() {
    for (size_t i = 0; i < lines_.size(); ++i) {
      Result<void> read;
      if (const auto title = title_of(lines_[i]))
        read = section_title(i, *title);
      else if (section_ == Section::numa)
        read = numa_line(i);
      else if (table_)
        read = table_line(i);
      if (!read) return tl::unexpected(read.error());
    }
    if (auto closed = close_table(lines_.size()); !closed) return tl::unexpected(closed.error());
    return std::move(sections_);
  }

 private:
  void warn(std::string location, std::string message) {
    warnings_.push_back({std::move(location), std::move(message)});
  }

  // The table being read ends: it must have its header and a row per column.
  Result<void> close_table(size_t line_index) {
    if (table_ && table_->header_seen && table_->cells.size() < table_->columns.size())
      return make_error(ErrorCode::parse_error,
                        "the \"" + table_name(table_->section) + "\" table ends after " +
                            std::to_string(table_->cells.size()) + " of " + std::to_string(table_->columns.size()) +
                            " rows (truncated output?); expected the row of " + table_->columns[table_->cells.size()],
                        at_(std::min(line_index, lines_.size())));
    if (table_ && !table_->header_seen)
      return make_error(ErrorCode::parse_error,
                        "the \"" + table_name(table_->section) + "\" table has no column header (GPU0 GPU1 ...)",
                        at_(table_->title_line));
    table_ = nullptr;
    return {};
  }

  // A section's title: each section once.
  Result<void> section_title(size_t i, std::string_view title) {
    if (auto closed = close_table(i); !closed) return closed;
    section_ = section_of(title);
    if (section_ == Section::numa) {
      if (sections_.numa_title)
        return make_error(ErrorCode::parse_error,
                          "a second \"Numa Nodes\" section (the first is at line " +
                              std::to_string(*sections_.numa_title + 1) +
                              "): paste the output of one `rocm-smi --showtopo`",
                          at_(i));
      sections_.numa_title = i;
    } else if (section_ != Section::none) {
      if (const auto it = sections_.tables.find(section_); it != sections_.tables.end())
        return make_error(ErrorCode::parse_error,
                          "a second \"" + table_name(section_) + "\" table (the first is at line " +
                              std::to_string(it->second.title_line + 1) +
                              "): paste the output of one `rocm-smi --showtopo`",
                          at_(i));
      table_ = &sections_.tables[section_];
      table_->section = section_;
      table_->title_line = i;
    }
    return {};
  }

  // A line of the "Numa Nodes" section: "GPU[0]\t\t: (Topology) Numa Node: 0" (rocm_smi.py printLog)
  // or "GPU 0 : ..." (older); other lines ("WARNING: ...") are skipped.
  Result<void> numa_line(size_t i) {
    const auto t = tokens_of(lines_[i]);
    if (t.empty() || t[0].substr(0, 3) != "GPU") return {};
    const std::string_view line = lines_[i];
    const size_t colon = line.find(':');
    std::string_view id = trim(line.substr(0, colon));
    std::string index(id.substr(3));
    index.erase(std::remove_if(index.begin(), index.end(), [](char ch) { return ch == '[' || ch == ']' || ch == ' '; }),
                index.end());
    if (colon == std::string_view::npos || !all_digits(index))
      return make_error(ErrorCode::parse_error,
                        "expected \"GPU[i] : (Topology) Numa Node: N\", found \"" + std::string(trim(line)) + "\"",
                        at_(i));
    const std::string_view rest = trim(line.substr(colon + 1));
    NumaLine n;
    n.gpu = "GPU" + index;
    n.line = i;
    const bool node = rest.find("Numa Node:") != std::string_view::npos;
    const bool affinity = rest.find("Numa Affinity:") != std::string_view::npos;
    if (!node && !affinity) {
      if (rest.find("Cannot read") != std::string_view::npos) {
        warn(at_(i), "rocm-smi could not read the NUMA node of " + n.gpu + " (\"" + std::string(rest) + "\")");
        return {};
      }
      return make_error(ErrorCode::parse_error,
                        "expected \"(Topology) Numa Node: N\" or \"(Topology) Numa Affinity: N\", found \"" +
                            std::string(rest) + "\"",
                        at_(i));
    }
    n.node = node;
    const std::string_view value = trim(rest.substr(rest.rfind(':') + 1));
    const auto number = integer(value);
    if (!number && value != "N/A" && value != "None" && value != "-")
      return make_error(ErrorCode::parse_error,
                        "NUMA value \"" + std::string(value) + "\" of " + n.gpu + " is not a number", at_(i));
    n.value = number.value_or(-1);
    if (n.value < -1 || n.value > 65535) {  // (uint32_t)-1: no NUMA node reported
      warn(at_(i), "NUMA value " + std::string(value) + " of " + n.gpu + " is no NUMA node: read as not given");
      n.value = -1;
    }
    sections_.numa_lines.push_back(n);
    return {};
  }

  // A line of a table: its column header, then a row per column.
  Result<void> table_line(size_t i) {
    const auto t = tokens_of(lines_[i]);
    if (t.empty()) {  // a table ends at a blank line
      if (table_->header_seen) {
        if (auto closed = close_table(i); !closed) return closed;
        section_ = Section::none;
      }
      return {};
    }
    if (t[0].substr(0, 4) == "GPU[") {  // rocm-smi's error lines, when stderr went into the paste
      warn(at_(i), "a rocm-smi message inside the \"" + table_name(table_->section) +
                       "\" table: " + std::string(trim(lines_[i])));
      return {};
    }
    if (!table_->header_seen) return table_header(i, t);
    return table_row(i, t);
  }

  Result<void> table_header(size_t i, const std::vector<std::string_view>& t) {
    if (!std::all_of(t.begin(), t.end(), is_gpu_column))
      return make_error(ErrorCode::parse_error,
                        "expected the column header (GPU0 GPU1 ...) of the \"" + table_name(table_->section) +
                            "\" table, found \"" + std::string(trim(lines_[i])) + "\"",
                        at_(i));
    table_->columns.assign(t.begin(), t.end());
    std::set<std::string> seen;
    for (const auto& c : table_->columns)
      if (!seen.insert(c).second)
        return make_error(ErrorCode::parse_error, "column \"" + c + "\" appears twice in the header", at_(i));
    table_->header_seen = true;
    table_->header_line = i;
    return {};
  }

  Result<void> table_row(size_t i, const std::vector<std::string_view>& t) {
    const size_t row = table_->cells.size();
    if (row >= table_->columns.size())
      return make_error(ErrorCode::parse_error,
                        "the \"" + table_name(table_->section) + "\" table has more rows than its " +
                            std::to_string(table_->columns.size()) + " columns: \"" + std::string(trim(lines_[i])) +
                            "\"",
                        at_(i));
    if (t[0] != table_->columns[row])
      return make_error(ErrorCode::parse_error,
                        "expected the row of " + table_->columns[row] + " in the \"" + table_name(table_->section) +
                            "\" table, found \"" + std::string(t[0]) + "\"",
                        at_(i));
    if (t.size() != table_->columns.size() + 1)
      return make_error(ErrorCode::parse_error,
                        "row " + table_->columns[row] + " of the \"" + table_name(table_->section) + "\" table has " +
                            std::to_string(t.size() - 1) + " entries, expected " +
                            std::to_string(table_->columns.size()) +
                            (t.size() - 1 < table_->columns.size() ? " (truncated line?)" : ""),
                        at_(i));
    table_->cells.emplace_back(t.begin() + 1, t.end());
    table_->lines.push_back(i);
    return {};
  }

  const std::vector<std::string_view>& lines_;
  LineAt at_;
  std::vector<ImportWarning>& warnings_;
  RocmSections sections_;
  Section section_ = Section::none;
  RawTable* table_ = nullptr;
};

// The Link Type table into the topology's GPUs and links; the other tables must have its columns.
Result<void> read_link_types(const RocmSections& sections, const LineAt& at, RocmTopo& topo) {
  const auto type_it = sections.tables.find(Section::type);
  if (type_it == sections.tables.end())
    return make_error(
        ErrorCode::parse_error,
        std::string("no \"Link Type between two GPUs\" table") +
            (sections.tables.empty() && !sections.numa_title ? ""
                                                             : " (only the Weight, Hops or Numa Nodes part of it)") +
            ": without it XGMI and PCIe links cannot be told apart; paste the whole output of "
            "`rocm-smi --showtopo`",
        at.origin);
  const RawTable& type = type_it->second;
  topo.gpus = type.columns;
  const size_t n = topo.gpus.size();
  for (const auto& [s, other] : sections.tables)
    if (other.columns != type.columns)
      return make_error(ErrorCode::parse_error,
                        "the columns of the \"" + table_name(s) + "\" table differ from those of the Link Type table " +
                            "(line " + std::to_string(type.header_line + 1) + "): not one rocm-smi output",
                        at(other.header_line));
  topo.link.assign(n, std::vector<RocmLink>(n, RocmLink::unknown));
  for (size_t r = 0; r < n; ++r) {
    for (size_t c = 0; c < n; ++c) {
      const std::string& cell = type.cells[r][c];
      RocmLink l = RocmLink::unknown;
      if (r == c) {
        if (cell != "0")
          return make_error(ErrorCode::parse_error, topo.gpus[r] + " to itself must be 0, found \"" + cell + "\"",
                            at(type.lines[r]));
        l = RocmLink::self;
      } else if (cell == "XGMI") {
        l = RocmLink::xgmi;
      } else if (cell == "PCIE") {
        l = RocmLink::pcie;
      } else if (cell != "XXXX" && cell != "0" && cell != "N/A") {
        return make_error(ErrorCode::parse_error,
                          "entry \"" + cell + "\" (" + topo.gpus[r] + " to " + topo.gpus[c] +
                              ") is none of XGMI, PCIE, XXXX (unknown) or 0 (not read)",
                          at(type.lines[r]));
      }
      topo.link[r][c] = l;
    }
    topo.row_lines.push_back(static_cast<int64_t>(type.lines[r] + 1));
  }
  for (size_t r = 0; r < n; ++r)
    for (size_t c = 0; c < r; ++c)
      if (topo.link[r][c] != topo.link[c][r])
        return make_error(ErrorCode::parse_error,
                          "the Link Type table is not symmetric: " + topo.gpus[r] + " to " + topo.gpus[c] +
                              " differs from " + topo.gpus[c] + " to " + topo.gpus[r],
                          at(type.lines[r]));
  return {};
}

// The Weight or Hops table as numbers (-1: not read), made symmetric by the smaller value of each
// pair; false when the text has no such table.
Result<bool> read_number_table(const RocmSections& sections, Section s, const LineAt& at, RocmTopo& topo,
                               std::vector<std::vector<int64_t>>& out) {
  const size_t n = topo.gpus.size();
  out.assign(n, std::vector<int64_t>(n, -1));
  const auto it = sections.tables.find(s);
  if (it == sections.tables.end()) return false;
  const RawTable& tb = it->second;
  for (size_t r = 0; r < n; ++r)
    for (size_t c = 0; c < n; ++c) {
      const std::string& cell = tb.cells[r][c];
      const auto v = integer(cell);
      if (!v && cell != "N/A")
        return make_error(ErrorCode::parse_error,
                          "entry \"" + cell + "\" (" + topo.gpus[r] + " to " + topo.gpus[c] + ") of the \"" +
                              table_name(s) + "\" table is not a number",
                          at(tb.lines[r]));
      if (r == c && v.value_or(0) != 0)
        return make_error(ErrorCode::parse_error,
                          topo.gpus[r] + " to itself must be 0 in the \"" + table_name(s) + "\" table, found " + cell,
                          at(tb.lines[r]));
      if (v && *v < 0)
        return make_error(ErrorCode::parse_error,
                          "entry " + cell + " (" + topo.gpus[r] + " to " + topo.gpus[c] + ") of the \"" +
                              table_name(s) + "\" table is negative",
                          at(tb.lines[r]));
      // 0 off the diagonal: rocm-smi could not read the value (its table starts as zeros).
      out[r][c] = r != c && v && *v > 0 ? *v : r == c ? 0 : -1;
    }
  int32_t asymmetric = 0;
  for (size_t r = 0; r < n; ++r)
    for (size_t c = 0; c < r; ++c)
      if (out[r][c] != out[c][r]) {
        ++asymmetric;
        const int64_t low = std::min(out[r][c], out[c][r]);
        out[r][c] = out[c][r] = low >= 0 ? low : std::max(out[r][c], out[c][r]);
      }
  if (asymmetric > 0)
    topo.warnings.push_back({at(tb.title_line), std::to_string(asymmetric) +
                                                    " GPU pairs differ by direction in the \"" + table_name(s) +
                                                    "\" table: the smaller value is used"});
  return true;
}

// The NUMA node and affinity of each GPU the "Numa Nodes" lines name.
Result<void> read_numa(const RocmSections& sections, const LineAt& at, RocmTopo& topo) {
  const size_t n = topo.gpus.size();
  topo.numa_node.assign(n, -1);
  topo.numa_affinity.assign(n, -1);
  for (const NumaLine& l : sections.numa_lines) {
    const auto it = std::find(topo.gpus.begin(), topo.gpus.end(), l.gpu);
    if (it == topo.gpus.end())
      return make_error(ErrorCode::parse_error, l.gpu + " in \"Numa Nodes\" is not a column of the tables", at(l.line));
    const auto g = static_cast<size_t>(it - topo.gpus.begin());
    (l.node ? topo.numa_node : topo.numa_affinity)[g] = static_cast<int32_t>(l.value);
  }
  topo.has_numa = sections.numa_title.has_value();
  return {};
}

}  // namespace

bool looks_like_rocm_smi_topo(std::string_view text) {
  const std::string clean = node_import::clean_pasted_text(text);
  for (const std::string_view line : split_lines(clean)) {
    if (const auto title = title_of(line); title && section_of(*title) != Section::none) return true;
    if (line.find("(Topology) Numa Node") != std::string_view::npos) return true;
  }
  return false;
}

Result<RocmTopo> parse_rocm_smi_topo(std::string_view text, const std::string& origin) {
  const std::string clean = node_import::clean_pasted_text(text);
  const auto lines = split_lines(clean);
  const LineAt at{origin};
  RocmTopo topo;
  // Pass 1: the three matrices and the NUMA lines, by section.
  MS_TRY(sections, SectionReader(lines, origin, topo.warnings).read());
  // Pass 2: the tables into the topology.
  if (auto read = read_link_types(sections, at, topo); !read) return tl::unexpected(read.error());
  MS_TRY(has_weight, read_number_table(sections, Section::weight, at, topo, topo.weight));
  MS_TRY(has_hops, read_number_table(sections, Section::hops, at, topo, topo.hops));
  topo.has_weight = has_weight;
  topo.has_hops = has_hops;
  if (auto read = read_numa(sections, at, topo); !read) return tl::unexpected(read.error());
  return topo;
}

Result<NodeImport> import_rocm_smi_topo(std::string_view text, const std::string& origin,
                                        const NodeImportOptions& options) {
  MS_TRY(topo, parse_rocm_smi_topo(text, origin));
  const size_t n = topo.gpus.size();
  NodeBuilder b(options, origin);
  for (const auto& w : topo.warnings) b.warn(w.location, w.message);
  auto row_at = [&](size_t i) { return origin + ":" + std::to_string(topo.row_lines[i]); };

  // NUMA domain of each GPU: "Numa Node", else "Numa Affinity"; without either for any GPU, the
  // PCIe pairs that are 2 hops apart (one CPU socket, AMD's MI200 guide) share a domain.
  std::vector<int32_t> numa(n, -1);
  int32_t disagree = 0;
  for (size_t g = 0; g < n; ++g) {
    numa[g] = topo.numa_node[g] >= 0 ? topo.numa_node[g] : topo.numa_affinity[g];
    if (topo.numa_node[g] >= 0 && topo.numa_affinity[g] >= 0 && topo.numa_node[g] != topo.numa_affinity[g]) ++disagree;
  }
  if (disagree > 0)
    b.warn(origin,
           std::to_string(disagree) + " GPUs have a Numa Affinity other than their Numa Node: the Numa Node is used");
  if (std::all_of(numa.begin(), numa.end(), [](int32_t v) { return v < 0; })) {
    node_import::UnionFind socket(n);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        if (topo.link[i][j] == RocmLink::xgmi || (topo.link[i][j] == RocmLink::pcie && topo.hops[i][j] == 2))
          socket.join(i, j);
    std::map<size_t, int32_t> roots;
    for (size_t g = 0; g < n; ++g)
      numa[g] = roots.try_emplace(socket.find(g), static_cast<int32_t>(roots.size())).first->second;
    b.warn(origin, std::string(!topo.has_numa ? "no \"Numa Nodes\" section" : "no GPU has a NUMA node") +
                       ": NUMA domains taken from the tables (XGMI pairs, and PCIe pairs 2 hops apart, share a CPU "
                       "socket)");
  }
  for (size_t g = 0; g < n; ++g)
    if (numa[g] < 0) {
      numa[g] = 0;
      b.warn(row_at(g), topo.gpus[g] + " has no NUMA node: placed on NUMA 0");
    }
  // PCIe pairs whose hops contradict the NUMA nodes (2: one socket, 3: two sockets).
  int32_t contradicted = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (topo.link[i][j] == RocmLink::pcie && topo.hops[i][j] > 0 && ((topo.hops[i][j] >= 3) == (numa[i] == numa[j])))
        ++contradicted;
  if (contradicted > 0)
    b.warn(origin, std::to_string(contradicted) +
                       " PCIe GPU pairs have hops that say otherwise than their NUMA nodes (2 hops: one CPU socket, "
                       "3: two): the NUMA nodes are used");

  // rocm-smi does not name the CPU: one CPU per NUMA domain, taken as AMD EPYC (AMD's MI300X and
  // MI200 platforms), so the sockets are joined by xGMI.
  std::map<int32_t, DeviceId> cpus;
  for (size_t g = 0; g < n; ++g) cpus.try_emplace(numa[g]);
  for (auto& [domain, id] : cpus) id = b.cpu(domain, "CPU (NUMA " + std::to_string(domain) + ")", true);
  if (cpus.size() > 1)
    b.warn(origin, "rocm-smi does not name the CPU: the " + std::to_string(cpus.size()) +
                       " NUMA domains are taken as AMD EPYC sockets joined by xGMI (hosts with Intel CPUs use UPI)");
  std::vector<DeviceId> dev(n);
  for (size_t g = 0; g < n; ++g) {
    dev[g] = b.gpu(static_cast<int32_t>(g), numa[g], topo.gpus[g]);
    b.pcie(dev[g], cpus.at(numa[g]), 0, 16);
  }

  // xGMI: a direct link for the pairs one xGMI hop apart (weight 15; without weights, 1 hop).
  const std::string& model = options.gpu_model;
  const bool mi200 = model.find("mi250") != std::string::npos || model.find("mi210") != std::string::npos;
  const double xgmi_bytes_per_s = mi200 ? kMi200XgmiBytesPerS : kMi300xXgmiBytesPerS;
  int32_t direct = 0, farther = 0, unknown = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      if (topo.link[i][j] == RocmLink::unknown) ++unknown;
      if (topo.link[i][j] != RocmLink::xgmi) continue;
      const bool one_hop = topo.weight[i][j] > 0 ? topo.weight[i][j] <= kXgmiHopWeight
                           : topo.hops[i][j] > 0 ? topo.hops[i][j] <= 1
                                                 : true;
      if (!one_hop) {
        ++farther;
        continue;
      }
      b.xgmi(dev[i], dev[j], xgmi_bytes_per_s);
      ++direct;
    }
  if (direct > 0)
    b.warn(origin, "rocm-smi gives no xGMI bandwidth: each of the " + std::to_string(direct) +
                       " XGMI pairs is one Infinity Fabric link of " +
                       std::to_string(std::lround(xgmi_bytes_per_s / 1e9)) + " GB/s per direction (" +
                       (mi200 ? "AMD Instinct MI250X/MI210: 100 GB/s both ways"
                              : "AMD Instinct MI300X datasheet: 128 GB/s both ways") +
                       ")");
  if (farther > 0)
    b.warn(origin, std::to_string(farther) + " XGMI pairs are more than one xGMI hop apart (weight above " +
                       std::to_string(kXgmiHopWeight) + "): no direct link, they route over PCIe in the model");
  if (unknown > 0)
    b.warn(origin, std::to_string(unknown) +
                       " GPU pairs have no link type (XXXX, or 0: not read by rocm-smi): they route over PCIe");
  return b.finish(NodeTopologyFormat::rocm_smi_topo, std::to_string(n) + "-GPU node (rocm-smi --showtopo)");
}

}  // namespace meshscope
