#pragma once
// Launcher configs in: a Megatron-LM launch script or argument list (pretrain_gpt.py), a torchtitan
// TOML job config, or a DeepSpeed JSON config, read into plain values (model, workload, layout, GPU
// count); core/session/import_launcher.hpp builds the project from them. Pure functions, text in; what
// the file says that meshscope does not use is returned as data: `ignored` (flags without effect on
// the prediction), `unmodelled` (flags that change the prediction but that the model does not
// represent) and `warnings` (assumptions made). The mapping of each flag, with its source, is in
// docs/launchers.md.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/enum_names.hpp"
#include "core/base/result.hpp"
#include "core/model/model.hpp"
#include "core/workload/layout.hpp"
#include "core/workload/workload.hpp"

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

// What the file does not say comes from a base (the session's base project; plain values here): the
// GPU count and cluster family, the model where the file names none (DeepSpeed) or one without a
// meshscope preset (torchtitan), and for DeepSpeed the sequence length.
struct LaunchBase {
  std::string model_ref;  // preset name; empty when the model is inline
  ModelSpec model;
  std::string cluster;                        // generator string or cluster file
  std::optional<std::string> inline_cluster;  // the inline cluster's name: such a cluster is never re-sized
  int64_t gpu_count = 0;
  int64_t seq_len = 0;  // the base's training sequence length
};

struct LaunchReadOptions {
  std::optional<int64_t> gpus;  // total GPUs (--gpus); needed where the file leaves it open (dp_shard = -1)
  LaunchBase base;
};

// What a launcher config says, as plain values; the model is the base's where `model` is empty.
struct ImportedLaunch {
  LauncherFormat format = LauncherFormat::megatron;
  std::string name;                // the project's name
  std::optional<ModelSpec> model;  // nullopt: the base's model (and preset) stay
  std::string model_ref;           // the preset `model` is, empty for an inline model
  std::string cluster;             // the base's cluster, re-sized to gpu_count where it can be
  int64_t gpu_count = 0;
  Layout layout;
  TrainingWorkload training;
  std::vector<std::string> ignored;     // flags read but without effect on the prediction
  std::vector<std::string> unmodelled;  // flags that change the prediction but are not modelled, each with why
  std::vector<std::string> warnings;    // assumptions and placeholders ("line 15: CHECKPOINT_PATH is $1 ...")
};

// The format from the text (a JSON object: DeepSpeed; TOML tables: torchtitan; otherwise Megatron-LM),
// with the file name's extension as a hint.
[[nodiscard]] LauncherFormat detect_launcher_format(std::string_view text, const std::string& origin);

// `origin` names the file in errors and warnings ("train.sh: line 57: --num-layers").
[[nodiscard]] Result<ImportedLaunch> read_megatron_args(std::string_view text, const std::string& origin,
                                                        const LaunchReadOptions& options);
[[nodiscard]] Result<ImportedLaunch> read_torchtitan_toml(std::string_view text, const std::string& origin,
                                                          const LaunchReadOptions& options);
[[nodiscard]] Result<ImportedLaunch> read_deepspeed_json(std::string_view text, const std::string& origin,
                                                         const LaunchReadOptions& options);
// Detects the format and reads (a NeMo YAML recipe is an error).
[[nodiscard]] Result<ImportedLaunch> read_launcher_config(std::string_view text, const std::string& origin,
                                                          const LaunchReadOptions& options);

// torchtitan's [model] name and flavor for a meshscope preset and back (llama3 8B ↔ llama3.1-8b:
// torchtitan's llama3 flavors are the Llama 3.1 models, torchtitan/models/llama3/__init__.py).
[[nodiscard]] std::optional<std::string> preset_for_torchtitan_model(std::string_view name, std::string_view flavor);
[[nodiscard]] std::optional<std::pair<std::string, std::string>> torchtitan_model_for_preset(std::string_view preset);

namespace launcher_detail {
// Shared by the three importers: the GPU count, with the base cluster's generator string re-sized to
// it where it has `nodes=` (a warning where it cannot be).
void set_gpu_count(ImportedLaunch& out, const LaunchBase& base, int64_t gpus);
// Integers a config may give: 0 to 2^31 (a value beyond is an error, so that products of them do not overflow).
inline constexpr int64_t kMaxConfigInteger = int64_t{1} << 31;
// a · b, or an error naming `location` when it exceeds kMaxConfigInteger.
[[nodiscard]] Result<int64_t> checked_product(int64_t a, int64_t b, const std::string& location);
}  // namespace launcher_detail

}  // namespace meshscope
