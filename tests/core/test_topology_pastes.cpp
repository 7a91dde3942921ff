// Topology text as users paste it: the real `nvidia-smi topo -m` files in ../shared/data and a real
// `rocm-smi --showtopo` paste in tests/data/rocm_smi_topo, and variants built from them here the
// way terminals, issues and chats change them (ANSI escapes, prompts, spaces for tabs, no Legend,
// blank affinity, old headers, padding, wrapped rows).
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

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
// modelscope/ms-swift docs (tests/data/rocm_smi_topo/PROVENANCE.md).
const std::string kMi300 = "/tests/data/rocm_smi_topo/ms-swift_8xMI300-series_xgmi_showtopo.txt";

std::string shared_text(const std::string& relative) {
  auto text = read_text_file(test::shared_path(relative));
  REQUIRE(text);
  return *text;
}

std::string mi300_text() {
  auto text = read_text_file(std::string(MESHSCOPE_SOURCE_DIR) + kMi300);
  REQUIRE(text);
  return *text;
}

NodeImport imported(const std::string& text, const std::string& origin, const NodeImportOptions& options = {}) {
  auto node = import_node_topology_text(text, origin, options);
  INFO(origin << ": " << (node ? std::string() : node.error().to_string()));
  REQUIRE(node);
  return *node;
}

Error refused(const std::string& text, const std::string& origin) {
  auto node = import_node_topology_text(text, origin, {});
  REQUIRE_FALSE(node);
  return node.error();
}

bool warned(const NodeImport& node, const std::string& part) {
  return std::any_of(node.warnings.begin(), node.warnings.end(),
                     [&](const ImportWarning& w) { return w.message.find(part) != std::string::npos; });
}

std::string warnings_of(const NodeImport& node) {
  std::string out;
  for (const auto& w : node.warnings) out += w.location + ": " + w.message + "\n";
  return out;
}

size_t count(const Cluster& c, DeviceKind kind) {
  return static_cast<size_t>(
      std::count_if(c.devices.begin(), c.devices.end(), [&](const Device& d) { return d.kind == kind; }));
}

size_t count(const Cluster& c, LinkKind kind) {
  return static_cast<size_t>(
      std::count_if(c.links.begin(), c.links.end(), [&](const Link& l) { return l.kind == kind; }));
}

const Device& device(const Cluster& c, const std::string& id) {
  const auto it = c.by_id.find(id);
  INFO("device " << id);
  REQUIRE(it != c.by_id.end());
  return c.device(it->second);
}

PathTier tier(const Cluster& c, const std::string& a, const std::string& b) {
  const Router r(c);
  const Route route = r.route(c.by_id.at(a), c.by_id.at(b));
  REQUIRE(route.reachable);
  return route.tier;
}

std::string same_cluster_json(const Cluster& c) {
  return cluster_to_json(c).dump();
}

// --- Variants of a real paste, built the way copying changes it. ---

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string joined(const std::vector<std::string>& lines, const std::string& eol = "\n") {
  std::string out;
  for (const auto& l : lines) out += l + eol;
  return out;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

bool is_matrix_header(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t");
  return first != std::string::npos && line.compare(first, 4, "GPU0") == 0 && line.find(" X ") == std::string::npos &&
         line.find("\tX") == std::string::npos && line.find("GPU1") != std::string::npos;
}

// nvidia-smi on a terminal underlines the header: ESC[4m ... ESC[0m.
std::string with_underlined_header(const std::string& text, const std::string& on = "\x1b[4m",
                                   const std::string& off = "\x1b[0m") {
  auto lines = lines_of(text);
  for (auto& l : lines)
    if (is_matrix_header(l)) l = on + l + off;
  return joined(lines);
}

std::string without_legend(const std::string& text) {
  return text.substr(0, text.find("Legend:"));
}

// Each tab becomes spaces to the next multiple of 8 (what a terminal shows and a copy keeps).
std::string tabs_expanded(const std::string& text) {
  std::string out;
  size_t column = 0;
  for (const char ch : text) {
    if (ch == '\t') {
      do {
        out += ' ';
      } while (++column % 8 != 0);
    } else {
      out += ch;
      column = ch == '\n' ? 0 : column + 1;
    }
  }
  return out;
}

// The matrix rows of a space-aligned paste with their runs of 2+ spaces as one tab (how nvidia-smi
// itself writes them).
std::string spaces_to_tabs(const std::string& text) {
  auto lines = lines_of(text);
  for (auto& l : lines) {
    std::string out;
    for (size_t i = 0; i < l.size();) {
      if (l[i] == ' ' && i + 1 < l.size() && l[i + 1] == ' ') {
        while (i < l.size() && l[i] == ' ') ++i;
        out += '\t';
      } else {
        out += l[i++];
      }
    }
    l = out;
  }
  return joined(lines);
}

std::string with_trailing_spaces(const std::string& text) {
  auto lines = lines_of(text);
  for (auto& l : lines) l += "    ";
  return joined(lines);
}

// The affinity fields of the GPU rows replaced by spaces (a container view that shows none).
std::string with_blank_affinity(const std::string& text, const std::string& affinity) {
  return replace_all(text, affinity, std::string(affinity.size(), ' '));
}

std::string with_mlx5_headers(std::string text, int nics) {
  text = without_legend(text) + "Legend:\n\n  X    = Self\n";
  for (int k = nics - 1; k >= 0; --k) text = replace_all(text, "NIC" + std::to_string(k), "mlx5_" + std::to_string(k));
  return text;
}

}  // namespace

TEST_CASE("topology paste: nvidia-smi with an underlined (ANSI) header reads as the plain file", "[topo-paste]") {
  for (const auto& file : {kA100, kA10}) {
    const std::string good = shared_text(file);
    const std::string plain = same_cluster_json(imported(good, file).cluster);
    for (const auto& [on, off] : std::vector<std::pair<std::string, std::string>>{
             {"\x1b[4m", "\x1b[0m"}, {"\x1b[1;4m", "\x1b[m"}, {"^[[4m", "^[[0m"}, {"[4m", "[0m"}}) {
      const std::string paste = with_underlined_header(good, on, off);
      REQUIRE(paste != good);
      INFO(file << " with " << on);
      CHECK(detect_node_topology_format(paste) == NodeTopologyFormat::nvidia_smi_topo);
      const NodeImport node = imported(paste, file);
      CHECK(same_cluster_json(node.cluster) == plain);
    }
  }
}

TEST_CASE("topology paste: nvidia-smi after a shell prompt and before other output reads as the plain file",
          "[topo-paste]") {
  const std::string good = shared_text(kA10);
  const std::string plain = same_cluster_json(imported(good, kA10).cluster);
  const std::string paste = "user@host:~$ nvidia-smi topo -m\n" + good + "user@host:~$ nvidia-smi -L\n" +
                            "GPU 0: NVIDIA A10 (UUID: GPU-0)\n```\n";
  CHECK(same_cluster_json(imported(paste, "prompt.txt").cluster) == plain);
  // The same with the markdown fence of an issue around it.
  CHECK(same_cluster_json(imported("```\n" + paste, "fenced.md").cluster) == plain);
}

TEST_CASE("topology paste: nvidia-smi with tabs, spaces, padding or CRLF reads the same matrix", "[topo-paste]") {
  for (const auto& file : {kA100, kA10}) {
    const std::string good = shared_text(file);  // both real files hold spaces (tabs expanded)
    const std::string plain = same_cluster_json(imported(good, file).cluster);
    const std::string tabs = spaces_to_tabs(good);
    REQUIRE(tabs.find('\t') != std::string::npos);
    INFO(file);
    CHECK(same_cluster_json(imported(tabs, "tabs.txt").cluster) == plain);
    CHECK(same_cluster_json(imported(tabs_expanded(tabs), "expanded.txt").cluster) == plain);
    CHECK(same_cluster_json(imported(with_trailing_spaces(good), "padded.txt").cluster) == plain);
    CHECK(same_cluster_json(imported(joined(lines_of(good), "\r\n"), "crlf.txt").cluster) == plain);
    // A chat that turns spaces into no-break spaces.
    CHECK(same_cluster_json(
              imported(replace_all(good, "    ", "\xC2\xA0\xC2\xA0\xC2\xA0\xC2\xA0"), "nbsp.txt").cluster) == plain);
  }
}

TEST_CASE("topology paste: nvidia-smi without the Legend is complete; only NIC names are missing", "[topo-paste]") {
  SECTION("4x A10: the NICs keep their column names, with a warning") {
    const NodeImport node = imported(without_legend(shared_text(kA10)), "nolegend.txt");
    CHECK(node.cluster.num_gpus() == 4);
    CHECK(count(node.cluster, DeviceKind::nic) == 2);
    CHECK(device(node.cluster, "n0.nic0").name == "NIC0");
    CHECK(warned(node, "no NIC Legend"));
  }
  SECTION("8x A100: all 17 NICs, but the bond is not known as one without its name") {
    const NodeImport node = imported(without_legend(shared_text(kA100)), "nolegend.txt");
    CHECK(node.cluster.num_gpus() == 8);
    CHECK(count(node.cluster, DeviceKind::nic) == 17);
    CHECK(count(node.cluster, DeviceKind::nvswitch) == 1);
    CHECK(device(node.cluster, "n0.nic16").local_index == 16);
    CHECK(warned(node, "NIC0 ... NIC16 keep their column names"));
  }
  SECTION("a Legend without the NIC Legend warns the same") {
    const std::string text = without_legend(shared_text(kA10)) + "Legend:\n\n  X    = Self\n";
    CHECK(warned(imported(text, "legend-only.txt"), "no NIC Legend"));
  }
}

TEST_CASE("topology paste: nvidia-smi with old mlx5_* NIC headers reads the NICs by those names", "[topo-paste]") {
  const NodeImport node = imported(with_mlx5_headers(shared_text(kA10), 2), "old.txt");
  INFO(warnings_of(node));
  CHECK(count(node.cluster, DeviceKind::nic) == 2);
  CHECK(count(node.cluster, DeviceKind::pcie_switch) == 1);  // mlx5_0–mlx5_1 PIX
  CHECK(device(node.cluster, "n0.nic0").name == "mlx5_0");
  CHECK(device(node.cluster, "n0.nic1").name == "mlx5_1");
  CHECK_FALSE(warned(node, "NIC Legend"));  // old headers are the names
  CHECK_FALSE(warned(node, "read as a NIC"));
  // A column that is neither a GPU nor a known NIC name is read as a NIC, and said so.
  const NodeImport other = imported(replace_all(shared_text(kA10), "NIC1", "ib1"), "ib.txt");
  CHECK(count(other.cluster, DeviceKind::nic) == 2);
  CHECK(warned(other, "\"ib1\" is neither GPU# nor NIC#"));
}

TEST_CASE("topology paste: nvidia-smi with blank affinity (container view) warns what it guessed", "[topo-paste]") {
  const std::string good = shared_text(kA10);
  SECTION("all three fields blank: NUMA domains from the matrix") {
    const NodeImport node = imported(with_blank_affinity(good, "0-127   0               N/A"), "container.txt");
    INFO(warnings_of(node));
    CHECK(node.cluster.num_gpus() == 4);
    CHECK(warned(node, "row GPU0 has 0 of the 3 affinity fields"));
    CHECK(warned(node, "no NUMA or CPU affinity given: NUMA domains taken from the matrix"));
    // Every pair is SYS in this file: each GPU on its own domain, the NIC pair on one more.
    CHECK(count(node.cluster, DeviceKind::cpu) == 5);
  }
  SECTION("CPU and NUMA blank, GPU NUMA ID N/A left") {
    const NodeImport node = imported(with_blank_affinity(good, "0-127   0      "), "container.txt");
    INFO(warnings_of(node));
    CHECK(warned(node, "row GPU3 has 1 of the 3 affinity fields"));
    CHECK(warned(node, "read as GPU NUMA ID N/A, the others blank"));
  }
  SECTION("CPU blank, the NUMA node kept: the NUMA node gives the domain") {
    const NodeImport node = imported(replace_all(good, "0-127   0      ", "        1      "), "numa-only.txt");
    INFO(warnings_of(node));
    CHECK(warned(node, "read as NUMA Affinity 1, GPU NUMA ID N/A"));
    CHECK(device(node.cluster, "n0.gpu0").numa == 1);
    CHECK_FALSE(warned(node, "no NUMA or CPU affinity"));
  }
  SECTION("NUMA blank, the CPU list kept: the CPU sets give the domains") {
    const NodeImport node = imported(replace_all(good, "0-127   0      ", "0-127          "), "vm.txt");
    INFO(warnings_of(node));
    CHECK(warned(node, "read as CPU Affinity 0-127, GPU NUMA ID N/A"));
    CHECK(count(node.cluster, DeviceKind::cpu) == 1);  // one CPU set
    CHECK_FALSE(warned(node, "no NUMA or CPU affinity"));
  }
  SECTION("the Tesla P4 layout with N/A NUMA (HAMi PR #99) reads positionally") {
    const std::string p4 =
        "\tGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \t0-7\t\tN/A\t\tN/A\n\nLegend:\n\n  X    = Self\n";
    const NodeImport node = imported(p4, "p4.txt");
    CHECK(node.cluster.num_gpus() == 1);
    CHECK_THAT(device(node.cluster, "n0.cpu0").name, Contains("cores 0-7"));
    CHECK_FALSE(warned(node, "affinity fields"));
  }
}

TEST_CASE("topology paste: nvidia-smi rows wrapped by a narrow window are joined, with a warning", "[topo-paste]") {
  const std::string good = shared_text(kA100);
  const std::string plain = same_cluster_json(imported(good, kA100).cluster);
  // Break every GPU row after its NIC3 column (column 12).
  auto lines = lines_of(good);
  std::vector<std::string> wrapped;
  for (const auto& l : lines) {
    if (l.rfind("GPU", 0) == 0 && l.size() > 200) {
      wrapped.push_back(l.substr(0, 8 * 13));
      wrapped.push_back(l.substr(8 * 13));
    } else {
      wrapped.push_back(l);
    }
  }
  const NodeImport node = imported(joined(wrapped), "wrapped.txt");
  CHECK(same_cluster_json(node.cluster) == plain);
  CHECK(warned(node, "the row of GPU0 goes on at line 4 (a wrapped paste)"));
}

TEST_CASE("topology paste: nvidia-smi that is truly ambiguous is refused with the line and why", "[topo-paste]") {
  const std::string good = shared_text(kA10);
  SECTION("a wrapped row whose rest is lost") {
    const Error e = refused(replace_once(good,
                                         "GPU1    SYS      X      SYS     SYS     SYS     SYS     0-127   0      "
                                         "         N/A",
                                         "GPU1    SYS      X      SYS"),
                            "lost.txt");
    CHECK(e.location == "lost.txt:4");
    CHECK_THAT(e.message, Contains("row GPU1 has 3 entries, expected 6"));
  }
  SECTION("a diagonal that is not X") {
    const Error e = refused(replace_once(good, "GPU2    SYS     SYS      X", "GPU2    SYS     SYS     NV4"), "x.txt");
    CHECK(e.location == "x.txt:5");
    CHECK_THAT(e.message, Contains("GPU2 to itself must be X"));
  }
  SECTION("the header line lost at the top of the paste") {
    std::string cut = good;
    cut.erase(cut.find("        GPU0"), cut.find("GPU0     X") - cut.find("        GPU0"));
    const Error e = refused(cut, "top.txt");
    CHECK(e.location == "top.txt:2");
    CHECK_THAT(e.message, Contains("no header line above it"));
  }
  SECTION("only the Legend") {
    const Error e = refused(good.substr(good.find("Legend:")), "legend.txt");
    CHECK(e.location == "legend.txt");
    CHECK_THAT(e.message, Contains("nvidia-smi topo -m"));
  }
}

TEST_CASE("topology paste: rocm-smi --showtopo of 8 MI300-series GPUs is a full xGMI mesh like the mi300x sample",
          "[topo-paste][rocm-smi]") {
  const std::string text = mi300_text();
  CHECK(detect_node_topology_format(text) == NodeTopologyFormat::rocm_smi_topo);
  NodeImportOptions options;
  options.gpu_model = "mi300x";
  const NodeImport node = imported(text, "mi300.txt", options);
  const Cluster& c = node.cluster;
  INFO(warnings_of(node));
  CHECK(node.format == NodeTopologyFormat::rocm_smi_topo);
  CHECK(c.num_gpus() == 8);
  CHECK(count(c, DeviceKind::cpu) == 2);
  CHECK(count(c, DeviceKind::nvswitch) == 0);
  for (int g = 0; g < 8; ++g) CHECK(device(c, "n0.gpu" + std::to_string(g)).numa == (g < 4 ? 0 : 1));
  // Every GPU pair one xGMI hop apart (weight 15): 28 direct links, as the generator's mi300x host.
  size_t gpu_xgmi = 0;
  for (const Link& l : c.links)
    if (l.kind == LinkKind::xgmi && c.device(l.a).kind == DeviceKind::gpu) {
      ++gpu_xgmi;
      CHECK(l.bandwidth_bytes_per_s == 64e9);
    }
  CHECK(gpu_xgmi == 28);
  auto sample = read_text_file(std::string(MESHSCOPE_SOURCE_DIR) + "/sample_clusters/mi300x-2nodes.json");
  REQUIRE(sample);
  const nlohmann::json sample_doc = nlohmann::json::parse(*sample);
  size_t sample_xgmi = 0;
  for (const auto& l : sample_doc.at("links"))
    if (l["kind"] == "xgmi" && l["a"].get<std::string>().rfind("n0.gpu", 0) == 0) {
      ++sample_xgmi;
      CHECK(l["bandwidth_GBps"] == 64);
    }
  CHECK(sample_xgmi == gpu_xgmi);
  CHECK(device(c, "n0.gpu0").gpu_model == "mi300x");
  CHECK(tier(c, "n0.gpu0", "n0.gpu7") == PathTier::nvlink);  // the GPU-fabric tier
  CHECK(tier(c, "n0.gpu3", "n0.gpu4") == PathTier::nvlink);
  for (const Link& l : c.links)
    if (l.kind == LinkKind::pcie) CHECK(l.pcie_generation == 5);  // from the mi300x hint
  CHECK(count(c, LinkKind::xgmi) == 29);                          // and the two sockets
  // What was guessed is said: the xGMI bandwidth and the CPU vendor.
  CHECK(warned(node, "rocm-smi gives no xGMI bandwidth"));
  CHECK(warned(node, "AMD EPYC sockets"));
  const auto doc = cluster_to_json(c);
  auto back = cluster_from_json(doc, "round trip");
  REQUIRE(back);
  CHECK(cluster_to_json(*back) == doc);
}

TEST_CASE("topology paste: rocm-smi pastes with escapes, prompts, tabs, padding and old NUMA lines read the same",
          "[topo-paste][rocm-smi]") {
  const std::string good = mi300_text();
  const std::string plain = same_cluster_json(imported(good, "mi300.txt").cluster);
  std::vector<std::pair<std::string, std::string>> variants = {
      {"ansi", replace_all(good, "=== ", "=== \x1b[1m")},
      {"prompt", "[user@mi300x ~]$ rocm-smi --showtopo\n\n" + good + "[user@mi300x ~]$ \n"},
      // rocm_smi.py writes "GPU[0]\t\t: ..."; the ms-swift docs had the tabs as spaces.
      {"tabs", replace_all(good, "]          : ", "]\t\t: ")},
      {"old numa lines", replace_all(replace_all(good, "GPU[", "GPU "), "]          :", "          :")},
      {"padding", with_trailing_spaces(good)},
      {"crlf", joined(lines_of(good), "\r\n")},
      {"no warning line", replace_once(good,
                                       "WARNING: AMD GPU device(s) is/are in a low-power state. "
                                       "Check power control/runtime_status\n",
                                       "")},
  };
  for (const auto& [name, text] : variants) {
    INFO(name);
    REQUIRE(text != good);
    CHECK(detect_node_topology_format(text) == NodeTopologyFormat::rocm_smi_topo);
    CHECK(same_cluster_json(imported(text, "variant.txt").cluster) == plain);
  }
}

TEST_CASE("topology paste: rocm-smi reads PCIe between hives, multi-hop xGMI and missing NUMA lines",
          "[topo-paste][rocm-smi]") {
  const std::string good = mi300_text();
  // Two hives of 4 (GPU0-3, GPU4-7) joined by PCIe through two sockets: weight 72, 3 hops.
  auto lines = lines_of(good);
  auto set_cell = [&](const std::string& row, int col, const std::string& value, int table) {
    int seen = 0;
    for (auto& l : lines)
      if (l.rfind(row + "   ", 0) == 0 && seen++ == table) {
        const size_t start = 7 + 13 * static_cast<size_t>(col);
        const size_t width = std::min<size_t>(13, l.size() - start);
        std::string cell = value;
        cell.resize(width, ' ');
        l.replace(start, width, cell);
      }
  };
  SECTION("two hives joined by PCIe") {
    for (int a = 0; a < 8; ++a)
      for (int b = 0; b < 8; ++b)
        if ((a < 4) != (b < 4)) {
          set_cell("GPU" + std::to_string(a), b, "72", 0);
          set_cell("GPU" + std::to_string(a), b, "3", 1);
          set_cell("GPU" + std::to_string(a), b, "PCIE", 2);
        }
    const NodeImport node = imported(joined(lines), "hives.txt");
    INFO(warnings_of(node));
    const Cluster& c = node.cluster;
    CHECK(count(c, LinkKind::xgmi) == 12 + 1);  // 6 per hive, and the sockets
    CHECK(tier(c, "n0.gpu0", "n0.gpu3") == PathTier::nvlink);
    CHECK(tier(c, "n0.gpu0", "n0.gpu4") == PathTier::cross_socket);
    CHECK_FALSE(warned(node, "say otherwise"));  // 3 hops between NUMA 0 and 1 agree
  }
  SECTION("XGMI two hops apart (weight 30, an MI250X-like mesh) gets no direct link") {
    set_cell("GPU0", 3, "30", 0);
    set_cell("GPU3", 0, "30", 0);
    const NodeImport node = imported(joined(lines), "mi250.txt");
    CHECK(count(node.cluster, LinkKind::xgmi) == 27 + 1);
    CHECK(warned(node, "1 XGMI pairs are more than one xGMI hop apart"));
    CHECK(tier(node.cluster, "n0.gpu0", "n0.gpu3") == PathTier::numa);
  }
  SECTION("no Numa Nodes section: one domain from the xGMI mesh, with a warning") {
    const std::string text = good.substr(0, good.find("======================================= Numa Nodes"));
    const NodeImport node = imported(text, "nonuma.txt");
    CHECK(count(node.cluster, DeviceKind::cpu) == 1);
    CHECK(warned(node, "no \"Numa Nodes\" section"));
  }
  SECTION("a NUMA node rocm-smi could not read") {
    const NodeImport node = imported(replace_once(good,
                                                  "GPU[5]          : (Topology) Numa Node: 1\n"
                                                  "GPU[5]          : (Topology) Numa Affinity: 1\n",
                                                  "GPU[5]\t\t: Cannot read Numa Node\n"),
                                     "numa.txt");
    CHECK(warned(node, "could not read the NUMA node of GPU5"));
    CHECK(warned(node, "GPU5 has no NUMA node: placed on NUMA 0"));
    CHECK(device(node.cluster, "n0.gpu5").numa == 0);
  }
  SECTION("link types rocm-smi could not read (XXXX) route over PCIe") {
    set_cell("GPU1", 2, "XXXX", 2);
    set_cell("GPU2", 1, "XXXX", 2);
    const NodeImport node = imported(joined(lines), "xxxx.txt");
    CHECK(warned(node, "1 GPU pairs have no link type"));
    CHECK(count(node.cluster, LinkKind::xgmi) == 27 + 1);
  }
}

TEST_CASE("topology paste: broken rocm-smi output gives errors with file and line", "[topo-paste][rocm-smi]") {
  const std::string good = mi300_text();
  SECTION("truncated inside the Link Type table") {
    const Error e = refused(good.substr(0, good.find("GPU5   XGMI")), "cut.txt");
    CHECK(e.location == "cut.txt:33");
    CHECK_THAT(e.message, Contains("ends after 5 of 8 rows"));
  }
  SECTION("only `rocm-smi --showtoponuma`") {
    const Error e = refused(good.substr(good.find("======================================= Numa Nodes")), "numa.txt");
    CHECK(e.location == "numa.txt");
    CHECK_THAT(e.message, Contains("no \"Link Type between two GPUs\" table"));
  }
  SECTION("garbage in a cell") {
    const Error e = refused(replace_once(good, "GPU3   XGMI         XGMI", "GPU3   XGMI         XGM1"), "bad.txt");
    CHECK(e.location == "bad.txt:31");
    CHECK_THAT(e.message, Contains("\"XGM1\" (GPU3 to GPU1)"));
  }
  SECTION("an asymmetric Link Type table") {
    const Error e = refused(replace_once(good, "GPU3   XGMI         XGMI", "GPU3   XGMI         PCIE"), "asym.txt");
    CHECK(e.location == "asym.txt:31");
    CHECK_THAT(e.message, Contains("not symmetric"));
  }
  SECTION("a row cut short") {
    const Error e = refused(replace_once(good, "GPU6   15           15           15           15           15   ",
                                         "GPU6   15           15"),
                            "short.txt");
    CHECK(e.location == "short.txt:12");
    CHECK_THAT(e.message, Contains("row GPU6 of the \"Weight between two GPUs\" table has"));
  }
  SECTION("the tables pasted twice") {
    const Error e = refused(good + good, "twice.txt");
    CHECK(e.location == "twice.txt:58");
    CHECK_THAT(e.message, Contains("a second \"Weight between two GPUs\" table (the first is at line 4)"));
  }
  SECTION("a NUMA value that is no number") {
    const Error e = refused(
        replace_once(good, "GPU[2]          : (Topology) Numa Node: 0", "GPU[2]          : (Topology) Numa Node: zero"),
        "numa.txt");
    CHECK(e.location == "numa.txt:42");
    CHECK_THAT(e.message, Contains("\"zero\" of GPU2"));
  }
  SECTION("a GPU in the Numa Nodes that the tables lack") {
    const Error e = refused(
        replace_once(good, "GPU[7]          : (Topology) Numa Node: 1", "GPU[9]          : (Topology) Numa Node: 1"),
        "nine.txt");
    CHECK(e.location == "nine.txt:52");
    CHECK_THAT(e.message, Contains("GPU9"));
  }
}

TEST_CASE("topology paste: every cut and every garbled byte of the real pastes is read or refused with its location",
          "[topo-paste][rocm-smi]") {
  for (const std::string& text : {shared_text(kA10), shared_text(kA100), mi300_text()}) {
    size_t read = 0, refused_with_location = 0;
    auto check = [&](const std::string& variant) {
      auto node = import_node_topology_text(variant, "cut.txt", {});
      if (node) {
        ++read;
        CHECK(node->cluster.num_gpus() >= 1);
      } else {
        CHECK_THAT(node.error().location, Contains("cut.txt"));
        CHECK_FALSE(node.error().message.empty());
        ++refused_with_location;
      }
    };
    for (size_t cut = 0; cut <= text.size(); cut += 13) check(text.substr(0, cut));
    uint32_t seed = 12345;  // a fixed linear congruential sequence: the same bytes every run
    for (int i = 0; i < 300; ++i) {
      seed = seed * 1103515245u + 12345u;
      std::string garbled = text;
      garbled[(seed >> 8) % garbled.size()] = static_cast<char>(seed >> 24);
      check(garbled);
    }
    CHECK(read > 0);
    CHECK(refused_with_location > 0);
  }
}
