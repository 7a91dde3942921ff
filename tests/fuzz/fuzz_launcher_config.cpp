// libFuzzer target: launcher configs (Megatron-LM scripts, torchtitan TOML, DeepSpeed JSON), each import
// exported again and re-imported.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/report/launcher.hpp"
#include "core/report/launcher_export.hpp"
#include "core/session/import_launcher.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace meshscope;
  static const LauncherImportOptions options = [] {
    LauncherImportOptions o;
    if (auto base = default_project()) o.base = *base;
    return o;
  }();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* origin : {"fuzz.sh", "fuzz.toml", "fuzz.json"}) {
    auto imported = import_launcher_config(text, origin, options);
    if (!imported) continue;
    (void)launcher_import_report(*imported);
    auto exported = export_launcher_config(imported->project, imported->format);
    if (exported) (void)import_launcher_config(exported->text, "exported", options);
  }
  return 0;
}
