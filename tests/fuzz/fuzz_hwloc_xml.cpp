// libFuzzer target: hwloc XML (lstopo --of xml), read by its importer directly (fuzz_node_topology goes through the
// format detection first).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/importers/hwloc_xml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)meshscope::import_hwloc_xml(text, "fuzz.xml", meshscope::NodeImportOptions{});
  return 0;
}
