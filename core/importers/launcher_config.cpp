// Launcher configs: what the three importers share (core/importers/launcher_config.hpp).
#include "core/importers/launcher_config.hpp"

#include <array>
#include <cctype>
#include <regex>

namespace meshscope {

std::string_view launcher_format_name(LauncherFormat format) {
  return enum_name(format);
}
std::optional<LauncherFormat> launcher_format_of(Framework framework) {
  switch (framework) {
    case Framework::megatron_lm:
    case Framework::megatron_bridge:
      return LauncherFormat::megatron;
    case Framework::torchtitan:
      return LauncherFormat::torchtitan;
    case Framework::deepspeed:
      return LauncherFormat::deepspeed;
    case Framework::any:
      break;
  }
  return std::nullopt;
}

std::optional<LauncherFormat> parse_launcher_format(std::string_view name) {
  return parse_enum_ignoring_case<LauncherFormat>(name);
}

namespace {

struct TorchtitanModel {
  std::string_view name;
  std::string_view flavor;
  std::string_view preset;
};
// torchtitan's llama3 flavors "8B", "70B", "405B" are Llama 3.1 (torchtitan/models/llama3/__init__.py
// llama3_configs: rope_theta 500000, vocab 128256, the 3.1 scaling; the configs' hf_assets_path names
// Llama-3.1-8B and Llama-3.1-405B).
constexpr std::array<TorchtitanModel, 3> kTorchtitanModels{{
    {"llama3", "8B", "llama3.1-8b"},
    {"llama3", "70B", "llama3.1-70b"},
    {"llama3", "405B", "llama3.1-405b"},
}};

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string_view trim_left(std::string_view text) {
  while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) != 0)) text.remove_prefix(1);
  return text;
}

}  // namespace

std::optional<std::string> preset_for_torchtitan_model(std::string_view name, std::string_view flavor) {
  for (const auto& m : kTorchtitanModels)
    if (m.name == name && same_ignoring_case(m.flavor, flavor)) return std::string(m.preset);
  return std::nullopt;
}

std::optional<std::pair<std::string, std::string>> torchtitan_model_for_preset(std::string_view preset) {
  for (const auto& m : kTorchtitanModels)
    if (m.preset == preset) return std::pair{std::string(m.name), std::string(m.flavor)};
  return std::nullopt;
}

LauncherFormat detect_launcher_format(std::string_view text, const std::string& origin) {
  if (origin.ends_with(".json")) return LauncherFormat::deepspeed;
  if (origin.ends_with(".toml")) return LauncherFormat::torchtitan;
  if (origin.ends_with(".sh")) return LauncherFormat::megatron;
  std::string_view body = trim_left(text);
  if (body.starts_with("\xEF\xBB\xBF")) body = trim_left(body.substr(3));
  if (body.starts_with("{")) return LauncherFormat::deepspeed;
  // A TOML table header on a line of its own ("[parallelism]") and no Megatron flag.
  static const std::regex table_header(R"((^|\n)\s*\[[A-Za-z_][A-Za-z0-9_.]*\]\s*(#[^\n]*)?(\n|$))");
  // Comment lines do not count (an exported TOML's header names the torchrun command).
  std::string code;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim_left(text.substr(start, end - start));
    if (!line.starts_with("#")) code.append(line).append("\n");
    start = end + 1;
  }
  if (code.find("--") == std::string::npos && std::regex_search(code, table_header)) return LauncherFormat::torchtitan;
  return LauncherFormat::megatron;
}

Result<ImportedLaunch> read_launcher_config(std::string_view text, const std::string& origin,
                                            const LaunchReadOptions& options) {
  if (origin.ends_with(".yaml") || origin.ends_with(".yml"))
    return make_error(ErrorCode::unsupported,
                      "NeMo YAML recipes are not read (no YAML parser): give the Megatron-LM arguments, a torchtitan "
                      "TOML or a DeepSpeed JSON",
                      origin);
  switch (detect_launcher_format(text, origin)) {
    case LauncherFormat::deepspeed:
      return read_deepspeed_json(text, origin, options);
    case LauncherFormat::torchtitan:
      return read_torchtitan_toml(text, origin, options);
    case LauncherFormat::megatron:
      break;
  }
  return read_megatron_args(text, origin, options);
}

namespace launcher_detail {

void set_gpu_count(ImportedLaunch& out, const LaunchBase& base, int64_t gpus) {
  const int64_t old_count = base.gpu_count;
  out.gpu_count = gpus;
  out.cluster = base.cluster;
  if (old_count == gpus) return;
  // A generator string with nodes=K (the default project's "dgx-h100:nodes=8"): K re-sized to the count.
  static const std::regex nodes_key(R"((^|[:,])nodes=([0-9]{1,9})(?![0-9]))");
  std::smatch match;
  const std::string cluster = base.cluster;
  if (!base.inline_cluster && std::regex_search(cluster, match, nodes_key)) {
    const int64_t nodes = std::stoll(match[2].str());
    const int64_t per_node = nodes > 0 && old_count > 0 && old_count % nodes == 0 ? old_count / nodes : 0;
    if (per_node > 0 && gpus % per_node == 0) {
      out.cluster =
          match.prefix().str() + match[1].str() + "nodes=" + std::to_string(gpus / per_node) + match.suffix().str();
      return;
    }
  }
  out.warnings.push_back("the cluster (" + (base.inline_cluster ? *base.inline_cluster : base.cluster) + ", " +
                         std::to_string(old_count) + " GPUs) was not re-sized to " + std::to_string(gpus) +
                         " GPUs: choose a cluster of that size");
}

Result<int64_t> checked_product(int64_t a, int64_t b, const std::string& location) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product) || product > kMaxConfigInteger || product < -kMaxConfigInteger)
    return make_error(ErrorCode::invalid_argument, std::to_string(a) + " × " + std::to_string(b) + " is beyond 2^31",
                      location);
  return product;
}

}  // namespace launcher_detail
}  // namespace meshscope
