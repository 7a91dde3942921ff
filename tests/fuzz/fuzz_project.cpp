// libFuzzer target: meshscope project files (every accepted project also gives its estimate options and, when the
// cluster is inline, its indexed cluster; a cluster named by file or generator is not resolved: no disk reads).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/model/model_io.hpp"
#include "core/project/project.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = meshscope::parse_json_text(text, "fuzz.json");
  if (!doc) return 0;
  auto project = meshscope::project_from_json(*doc, "fuzz.json");
  if (!project) return 0;
  (void)meshscope::project_estimate_options(*project);
  if (project->cluster_inline) (void)meshscope::project_cluster(*project);
  (void)meshscope::project_to_json(*project).dump();
  return 0;
}
