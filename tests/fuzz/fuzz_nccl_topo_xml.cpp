// libFuzzer target: NCCL topology XML (NCCL_TOPO_DUMP_FILE), read by its importer directly, with the NIC speed it
// gives the replicated fabric.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/importers/nccl_topo_xml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)meshscope::import_nccl_topo_xml(text, "fuzz.xml", meshscope::NodeImportOptions{});
  (void)meshscope::nccl_topo_nic_gbps(text);
  return 0;
}
