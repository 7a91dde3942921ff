#pragma once
// Launcher configs in: a Megatron-LM launch script or argument list (pretrain_gpt.py), a torchtitan
// TOML job config, or a DeepSpeed JSON config, read into a meshscope project (model, workload,
// layout, GPU count). Pure functions, text in; what the file says that meshscope does not use is
// returned as data: `ignored` (flags without effect on the prediction), `unmodelled` (flags that
// change the prediction but that the model does not represent) and `warnings` (assumptions made).
// The mapping of each flag, with its source, is in docs/launchers.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/project.hpp"
#include "core/result.hpp"

namespace meshscope {

enum class LauncherFormat { megatron, torchtitan, deepspeed };

template <>
struct EnumNames<LauncherFormat> {
  static constexpr std::array<std::pair<LauncherFormat, std::string_view>, 3> table{
      {{LauncherFormat::megatron, "megatron"},
       {LauncherFormat::torchtitan, "torchtitan"},
       {LauncherFormat::deepspeed, "deepspeed"}}};
};
[[nodiscard]] std::string_view launcher_format_name(LauncherFormat format);
[[nodiscard]] std::optional<LauncherFormat> parse_launcher_format(std::string_view name);
// The launcher config a target framework reads: Megatron-LM's arguments for megatron-lm and
// megatron-bridge (whose recipes take Megatron-Core's arguments), torchtitan's TOML, DeepSpeed's
// JSON; nullopt for `any`.
[[nodiscard]] std::optional<LauncherFormat> launcher_format_of(Framework framework);

struct LauncherImportOptions {
  std::optional<int64_t> gpus;  // total GPUs (--gpus); needed where the file leaves it open (dp_shard = -1)
  // What the file does not say (the GPU model and cluster family, and for DeepSpeed the model and
  // sequence length) comes from this project; nullopt: the embedded default project.
  std::optional<Project> base;
};

struct LauncherImport {
  LauncherFormat format = LauncherFormat::megatron;
  Project project;
  std::vector<std::string> ignored;     // flags read but without effect on the prediction
  std::vector<std::string> unmodelled;  // flags that change the prediction but are not modelled, each with why
  std::vector<std::string> warnings;    // assumptions and placeholders ("line 15: CHECKPOINT_PATH is $1 ...")
};

// The format from the text (a JSON object: DeepSpeed; TOML tables: torchtitan; otherwise Megatron-LM),
// with the file name's extension as a hint.
[[nodiscard]] LauncherFormat detect_launcher_format(std::string_view text, const std::string& origin);

// `origin` names the file in errors and warnings ("train.sh: line 57: --num-layers").
[[nodiscard]] Result<LauncherImport> import_megatron_args(std::string_view text, const std::string& origin,
                                                          const LauncherImportOptions& options = {});
[[nodiscard]] Result<LauncherImport> import_torchtitan_toml(std::string_view text, const std::string& origin,
                                                            const LauncherImportOptions& options = {});
[[nodiscard]] Result<LauncherImport> import_deepspeed_json(std::string_view text, const std::string& origin,
                                                           const LauncherImportOptions& options = {});
// Detects the format and imports.
[[nodiscard]] Result<LauncherImport> import_launcher_config(std::string_view text, const std::string& origin,
                                                            const LauncherImportOptions& options = {});
[[nodiscard]] Result<LauncherImport> load_launcher_config(const std::string& path,
                                                          const LauncherImportOptions& options = {});

// torchtitan's [model] name and flavor for a meshscope preset and back (llama3 8B ↔ llama3.1-8b:
// torchtitan's llama3 flavors are the Llama 3.1 models, torchtitan/models/llama3/__init__.py).
[[nodiscard]] std::optional<std::string> preset_for_torchtitan_model(std::string_view name, std::string_view flavor);
[[nodiscard]] std::optional<std::pair<std::string, std::string>> torchtitan_model_for_preset(std::string_view preset);

namespace launcher_detail {
// Shared by the three importers: the project they start from, and the GPU count applied to it
// (the base cluster's generator string re-sized to the GPU count where it has `nodes=`).
[[nodiscard]] Result<Project> base_project(const LauncherImportOptions& options);
void set_gpu_count(Project& project, int64_t gpus, std::vector<std::string>& warnings);
// Integers a config may give: 0 to 2^31 (a value beyond is an error, so that products of them do not overflow).
inline constexpr int64_t kMaxConfigInteger = int64_t{1} << 31;
// a · b, or an error naming `location` when it exceeds kMaxConfigInteger.
[[nodiscard]] Result<int64_t> checked_product(int64_t a, int64_t b, const std::string& location);
}  // namespace launcher_detail

}  // namespace meshscope
