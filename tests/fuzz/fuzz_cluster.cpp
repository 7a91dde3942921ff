// libFuzzer target: meshscope cluster files (every accepted cluster is also indexed and routed).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/model/model_io.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/routing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = meshscope::parse_json_text(text, "fuzz.json");
  if (!doc) return 0;
  auto cluster = meshscope::cluster_from_json(*doc, "fuzz.json");
  if (!cluster || cluster->gpus.size() < 2) return 0;
  const meshscope::Router router(*cluster);
  (void)router.route(cluster->gpus.front(), cluster->gpus.back());
  return 0;
}
