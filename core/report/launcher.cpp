// The launcher-config documents of meshscope-cli import/export (launcher.hpp).
#include "core/report/launcher.hpp"

#include <sstream>

#include <nlohmann/json.hpp>

namespace meshscope {

nlohmann::json launcher_import_report(const LauncherImport& imported) {
  return nlohmann::json{{"format", std::string(launcher_format_name(imported.format))},
                        {"project", project_to_json(imported.project)},
                        {"ignored", imported.ignored},
                        {"unmodelled", imported.unmodelled},
                        {"warnings", imported.warnings}};
}

std::string launcher_import_text(const LauncherImport& imported) {
  const Project& p = imported.project;
  std::ostringstream s;
  const auto keys = [](const KeyValues& kv) {
    std::string out;
    for (const auto& [k, v] : kv) out += (out.empty() ? "" : ",") + k + "=" + v;
    return out;
  };
  s << "Imported " << launcher_format_name(imported.format) << " config: " << p.name << "\n"
    << "  model:   " << (p.model_ref.empty() ? p.model.name : p.model_ref) << "\n"
    << "  GPUs:    " << p.gpu_count << " " << p.gpu.id << " (" << p.cluster << ")\n"
    << "  --layout " << keys(layout_to_keys(p.layout)) << "\n"
    << "  --train  " << keys(training_to_keys(p.training)) << "\n";
  const auto list = [&](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    s << title << " (" << items.size() << "):\n";
    for (const auto& item : items) s << "  " << item << "\n";
  };
  list("Unmodelled", imported.unmodelled);
  list("Warnings", imported.warnings);
  list("Ignored", imported.ignored);
  return s.str();
}

nlohmann::json launcher_export_report(const LauncherExport& exported, LauncherFormat format) {
  return nlohmann::json{{"format", std::string(launcher_format_name(format))},
                        {"text", exported.text},
                        {"placeholders", exported.placeholders},
                        {"warnings", exported.warnings}};
}

}  // namespace meshscope
