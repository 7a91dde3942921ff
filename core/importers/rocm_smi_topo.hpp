#pragma once
// Importer for the text of `rocm-smi --showtopo` (AMD ROCm SMI): the "Weight between two GPUs",
// "Hops between two GPUs" and "Link Type between two GPUs" tables (XGMI, PCIE, XXXX) and the
// "Numa Nodes" lines (GPU[0] : (Topology) Numa Node: 0 / Numa Affinity: 0), as rocm_smi.py
// (ROCm/rocm_smi_lib python_smi_tools) prints them. One host becomes one cluster node;
// docs/import-topology.md gives the mapping rules.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/importers/node_import.hpp"

namespace meshscope {

enum class RocmLink { self, xgmi, pcie, unknown };

// The tables as read, before they become devices. Tables the text lacks stay empty.
struct RocmTopo {
  std::vector<std::string> gpus;             // "GPU0", "GPU1", ... in column order
  std::vector<std::vector<RocmLink>> link;   // [row][column]
  std::vector<std::vector<int64_t>> weight;  // [row][column]; -1: not given or not read
  std::vector<std::vector<int64_t>> hops;    // [row][column]; -1: not given or not read
  std::vector<int32_t> numa_node;            // per GPU; -1: not given
  std::vector<int32_t> numa_affinity;        // per GPU; -1: not given
  bool has_weight = false, has_hops = false, has_numa = false;
  std::vector<int64_t> row_lines;       // 1-based line of each Link Type row
  std::vector<ImportWarning> warnings;  // what the reading had to guess
};

// True when the text has a rocm-smi topology section title ("=== Link Type between two GPUs ===",
// "=== Numa Nodes ===") or "(Topology) Numa Node" lines.
[[nodiscard]] bool looks_like_rocm_smi_topo(std::string_view text);

// Reads the tables; `origin` names the file in errors ("file:line: ...").
[[nodiscard]] Result<RocmTopo> parse_rocm_smi_topo(std::string_view text, const std::string& origin);

// One node from the tables.
[[nodiscard]] Result<NodeImport> import_rocm_smi_topo(std::string_view text, const std::string& origin,
                                                      const NodeImportOptions& options);

}  // namespace meshscope
