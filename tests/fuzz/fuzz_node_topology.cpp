// libFuzzer target: nvidia-smi topo -m, hwloc XML and NCCL topology XML.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/importers/node_topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)meshscope::import_node_topology_text(text, "fuzz.txt", meshscope::NodeImportOptions{});
  return 0;
}
