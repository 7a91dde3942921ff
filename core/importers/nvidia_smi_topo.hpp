#pragma once
// Importer for the text of `nvidia-smi topo -m`: the connection matrix between GPUs and NICs
// (X, NV#, PIX, PXB, PHB, NODE, SYS; SOC is the old name of SYS), the "CPU Affinity", "NUMA
// Affinity" and "GPU NUMA ID" columns, the Legend and the "NIC Legend" (NIC0: mlx5_0). Pastes as
// users make them are read: ANSI escapes, a shell prompt or other text around the matrix, spaces
// instead of tabs, no Legend, blank affinity fields, old headers (mlx5_0 for NIC0), padding. One
// host becomes one cluster node; docs/import-topology.md gives the mapping rules.
#include <string>
#include <string_view>
#include <vector>

#include "core/importers/node_import.hpp"

namespace meshscope {

enum class SmiLink { self, nvlink, pix, pxb, phb, node, sys };

// The matrix as read, before it becomes devices.
struct SmiTopoMatrix {
  std::vector<std::string> devices;                      // column names: "GPU0", "NIC3" (or "mlx5_0")
  std::vector<std::vector<SmiLink>> link;                // [row][column]
  std::vector<std::vector<int32_t>> nvlinks;             // [row][column]: # of NV#
  std::vector<std::string> cpu_affinity, numa_affinity;  // per device ("" for NICs, blanks and N/A)
  std::vector<std::string> gpu_numa_id;                  // per device ("" when not given or N/A)
  std::vector<std::string> nic_names;                    // per device: the NIC Legend's name, or ""
  std::vector<int64_t> row_lines;                        // 1-based line of each row
  std::vector<ImportWarning> warnings;                   // what the reading had to guess
};

// Reads the matrix; `origin` names the file in errors ("file:line: ...").
[[nodiscard]] Result<SmiTopoMatrix> parse_nvidia_smi_topo(std::string_view text, const std::string& origin);

// One node from the matrix.
[[nodiscard]] Result<NodeImport> import_nvidia_smi_topo(std::string_view text, const std::string& origin,
                                                        const NodeImportOptions& options);

}  // namespace meshscope
