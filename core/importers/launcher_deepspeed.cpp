// DeepSpeed JSON configs → plain values (launcher_config.hpp). Keys, meanings and defaults are
// DeepSpeed's docs/_pages/config-json.md (deepspeedai/DeepSpeed: batch size parameters, fp16/bf16,
// zero_optimization); docs/launchers.md lists the mapping. A DeepSpeed config names no model and no
// sequence length: both come from the base project.
#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/importers/launcher_config.hpp"
#include "core/keys/options.hpp"
#include "core/model/model_io.hpp"

namespace meshscope {
namespace {

using json = nlohmann::json;

class JsonReader {
 public:
  JsonReader(const json& root, std::string origin, std::vector<std::string>& warnings)
      : root_(root), origin_(std::move(origin)), warnings_(warnings) {}

  const json* node(const std::string& path) {
    read_.push_back(path);
    const json* n = &root_;
    size_t start = 0;
    while (start <= path.size()) {
      const size_t dot = path.find('.', start);
      const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (!n->is_object()) return nullptr;
      const auto it = n->find(key);
      if (it == n->end()) return nullptr;
      n = &*it;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (n->is_string() && n->get<std::string>() == "auto") {
      warnings_.push_back(path + " is \"auto\" (filled in by the Hugging Face Trainer at launch): the default is used");
      return nullptr;
    }
    return n;
  }
  std::string where(const std::string& path) const { return origin_ + ": " + path; }
  Result<std::optional<int64_t>> integer(const std::string& path) {
    const json* n = node(path);
    if (!n) return std::optional<int64_t>{};
    constexpr auto limit = static_cast<double>(launcher_detail::kMaxConfigInteger);
    if (n->is_number()) {
      const double v = n->get<double>();
      if (std::isfinite(v) && v == std::floor(v) && std::abs(v) <= limit)
        return std::optional<int64_t>(static_cast<int64_t>(v));
    }
    return make_error(ErrorCode::wrong_type, path + " must be an integer up to 2^31, got " + n->dump(), where(path));
  }
  Result<std::optional<bool>> boolean(const std::string& path) {
    const json* n = node(path);
    if (!n) return std::optional<bool>{};
    if (n->is_boolean()) return std::optional<bool>(n->get<bool>());
    return make_error(ErrorCode::wrong_type, path + " must be true or false, got " + n->dump(), where(path));
  }
  [[nodiscard]] bool was_read(const std::string& path) const {
    return std::find(read_.begin(), read_.end(), path) != read_.end();
  }
  void unread(const json& object, const std::string& prefix, std::vector<std::string>& out) const {
    for (const auto& [key, value] : object.items()) {
      const std::string path = prefix.empty() ? key : prefix + "." + key;
      if (was_read(path)) continue;
      if (value.is_object() && !value.empty())
        unread(value, path, out);
      else
        out.push_back(path);
    }
  }

 private:
  const json& root_;
  std::string origin_;
  std::vector<std::string>& warnings_;
  std::vector<std::string> read_;
};

struct UnmodelledKey {
  std::string_view path;
  std::string_view why;
};
constexpr std::array<UnmodelledKey, 7> kDeepSpeedUnmodelled{{
    {"zero_optimization.offload_optimizer", "the optimizer state on the CPU or NVMe: not modelled"},
    {"zero_optimization.offload_param", "the parameters on the CPU or NVMe: not modelled"},
    {"zero_optimization.stage3_param_persistence_threshold", "small parameters kept gathered: not modelled"},
    {"zero_optimization.stage3_max_live_parameters", "a cap on gathered parameters: not modelled"},
    {"zero_optimization.stage3_max_reuse_distance", "parameters kept for reuse: not modelled"},
    {"zero_optimization.reduce_bucket_size", "the gradient bucket size: not modelled"},
    {"activation_checkpointing", "DeepSpeed's activation checkpointing (partitioned or on the CPU): not modelled"},
}};

// A JSON object with none of DeepSpeed's keys (a meshscope project, a Hugging Face config) is not one.
Result<void> check_is_deepspeed(const json& doc, const std::string& origin) {
  if (!doc.is_object()) return make_error(ErrorCode::wrong_type, "a DeepSpeed config is a JSON object", origin);
  constexpr std::array<const char*, 6> kDeepSpeedKeys{"zero_optimization",
                                                      "train_batch_size",
                                                      "train_micro_batch_size_per_gpu",
                                                      "gradient_accumulation_steps",
                                                      "fp16",
                                                      "bf16"};
  if (std::none_of(kDeepSpeedKeys.begin(), kDeepSpeedKeys.end(), [&](const char* key) { return doc.contains(key); }))
    return make_error(ErrorCode::missing_field,
                      "not a DeepSpeed config: none of zero_optimization, train_batch_size, "
                      "train_micro_batch_size_per_gpu, gradient_accumulation_steps, fp16, bf16",
                      origin);
  return {};
}

struct BatchSizes {
  int64_t micro = 1;
  int64_t steps = 1;  // gradient accumulation steps
  int64_t global = 1;
};

// Batch sizes: train_batch_size = micro × gradient_accumulation_steps × GPUs; any two give the third.
Result<BatchSizes> read_batch_sizes(JsonReader& reader, int64_t dp, const std::string& origin, ImportedLaunch& out) {
  MS_TRY(train_batch, reader.integer("train_batch_size"));
  MS_TRY(micro_value, reader.integer("train_micro_batch_size_per_gpu"));
  MS_TRY(accumulation, reader.integer("gradient_accumulation_steps"));
  for (const auto& [value, key] :
       {std::pair{train_batch, "train_batch_size"}, std::pair{micro_value, "train_micro_batch_size_per_gpu"},
        std::pair{accumulation, "gradient_accumulation_steps"}})
    if (value && *value < 1)
      return make_error(ErrorCode::invalid_argument, std::string(key) + " must be positive", reader.where(key));
  const auto product = [&](int64_t a, int64_t b) { return launcher_detail::checked_product(a, b, origin); };
  BatchSizes sizes;
  int64_t& micro = sizes.micro;
  int64_t& steps = sizes.steps;
  if (micro_value && accumulation) {
    micro = *micro_value;
    steps = *accumulation;
    MS_TRY(micro_steps, product(micro, steps));
    MS_TRY(per_step, product(micro_steps, dp));
    if (train_batch && *train_batch != per_step)
      return make_error(ErrorCode::invalid_argument,
                        "train_batch_size " + std::to_string(*train_batch) +
                            " is not train_micro_batch_size_per_gpu × gradient_accumulation_steps × " +
                            std::to_string(dp) + " GPUs = " + std::to_string(per_step),
                        reader.where("train_batch_size"));
  } else if (train_batch) {
    const int64_t known = micro_value ? *micro_value : accumulation.value_or(1);
    MS_TRY(known_dp, product(known, dp));
    if (*train_batch % known_dp != 0)
      return make_error(ErrorCode::invalid_argument,
                        "train_batch_size " + std::to_string(*train_batch) + " is not a multiple of " +
                            std::to_string(known_dp) + " (the per-GPU batch × " + std::to_string(dp) + " GPUs)",
                        reader.where("train_batch_size"));
    if (micro_value) {
      micro = *micro_value;
      steps = *train_batch / known_dp;
    } else {
      steps = accumulation.value_or(1);
      micro = *train_batch / known_dp;
    }
  } else if (micro_value) {
    micro = *micro_value;
  } else {
    out.warnings.emplace_back("no batch size in the config: micro-batch 1 and no gradient accumulation assumed");
  }
  MS_TRY(micro_steps, product(micro, steps));
  MS_TRY(global_batch, product(micro_steps, dp));
  sizes.global = global_batch;
  return sizes;
}

// Precision: fp16.enabled or bf16.enabled (not both); fp32 otherwise, not modelled.
Result<void> precision_keys(JsonReader& reader, KeyValues& keys, ImportedLaunch& out) {
  MS_TRY(fp16, reader.boolean("fp16.enabled"));
  MS_TRY(bf16, reader.boolean("bf16.enabled"));
  (void)reader.node("fp16");
  (void)reader.node("bf16");
  if (fp16.value_or(false) && bf16.value_or(false))
    return make_error(ErrorCode::invalid_argument, "fp16 and bf16 are both enabled", reader.where("bf16.enabled"));
  if (fp16.value_or(false)) {
    keys.push_back({"precision", "fp16"});
  } else if (bf16.value_or(false)) {
    keys.push_back({"precision", "bf16"});
  } else {
    keys.push_back({"precision", "bf16"});
    out.unmodelled.emplace_back("neither fp16 nor bf16 enabled: fp32 training is not modelled (bf16 assumed)");
  }
  return {};
}

// ZeRO's overlap and prefetch, and the optimizer.
Result<void> zero_keys(JsonReader& reader, int64_t stage, KeyValues& keys, ImportedLaunch& out) {
  // overlap_comm: the gradient reduction under the backward; stage3_prefetch_bucket_size 0: no prefetch.
  MS_TRY(overlap, reader.boolean("zero_optimization.overlap_comm"));
  if (overlap.value_or(false)) keys.push_back({"overlap_grad_reduce", "true"});
  if (stage == 3) {
    MS_TRY(prefetch, reader.integer("zero_optimization.stage3_prefetch_bucket_size"));
    if (prefetch && *prefetch == 0) keys.push_back({"fsdp_prefetch", "false"});
    // ZeRO-3 releases a layer's gathered parameters after its forward and gathers them again for the backward.
    keys.push_back({"reshard_after_forward", "always"});
  }
  if (const json* type = reader.node("optimizer.type"); type && type->is_string()) {
    const std::string name = type->get<std::string>();
    if (name != "Adam" && name != "AdamW" && name != "FusedAdam")
      out.unmodelled.push_back("optimizer.type " + name + ": modelled as Adam");
  }
  return {};
}

// The workload: ZeRO stage (default 0), the batch, precision, ZeRO's options.
Result<TrainingWorkload> read_workload(JsonReader& reader, int64_t base_seq, int64_t global_batch,
                                       ImportedLaunch& out) {
  MS_TRY(stage_value, reader.integer("zero_optimization.stage"));
  const int64_t stage = stage_value.value_or(0);
  if (stage < 0 || stage > 3)
    return make_error(ErrorCode::invalid_argument,
                      "zero_optimization.stage must be 0 to 3, got " + std::to_string(stage),
                      reader.where("zero_optimization.stage"));
  KeyValues keys{{"convention", "zero"},
                 {"memory_framework", "generic"},
                 {"framework", "deepspeed"},
                 {"seq", std::to_string(base_seq)},
                 {"global_batch", std::to_string(global_batch)},
                 {"zero", std::to_string(stage)},
                 // The config does not say whether the model checkpoints activations (the training script does).
                 {"recompute", "none"}};
  if (auto read = precision_keys(reader, keys, out); !read) return tl::unexpected(read.error());
  if (auto read = zero_keys(reader, stage, keys, out); !read) return tl::unexpected(read.error());
  auto training = training_from_keys(keys);
  if (!training) return tl::unexpected(training.error());
  return *training;
}

// What was not read: unmodelled when it matters (offload with device "none" is no offload), ignored otherwise.
void list_unread(JsonReader& reader, const json& doc, ImportedLaunch& out) {
  std::vector<std::string> unread;
  reader.unread(doc, "", unread);
  for (const std::string& path : unread) {
    const auto* u = std::find_if(kDeepSpeedUnmodelled.begin(), kDeepSpeedUnmodelled.end(), [&](const UnmodelledKey& k) {
      return path == k.path || path.starts_with(std::string(k.path) + ".");
    });
    if (u == kDeepSpeedUnmodelled.end()) {
      out.ignored.push_back(path);
      continue;
    }
    const std::string entry = std::string(u->path) + ": " + std::string(u->why);
    const json* device = reader.node(std::string(u->path) + ".device");
    if (device && device->is_string() && device->get<std::string>() == "none") {
      out.ignored.push_back(path);
      continue;
    }
    if (std::find(out.unmodelled.begin(), out.unmodelled.end(), entry) == out.unmodelled.end())
      out.unmodelled.push_back(entry);
  }
}

}  // namespace

Result<ImportedLaunch> read_deepspeed_json(std::string_view text, const std::string& origin,
                                           const LaunchReadOptions& options) {
  MS_TRY(doc, parse_json_text(text, origin));
  if (auto checked = check_is_deepspeed(doc, origin); !checked) return tl::unexpected(checked.error());
  ImportedLaunch out;
  out.format = LauncherFormat::deepspeed;
  const LaunchBase& base = options.base;
  // The sequence length is the base project's (a DeepSpeed config has none).
  const int64_t base_seq = base.seq_len;
  JsonReader reader(doc, origin, out.warnings);
  out.warnings.push_back("a DeepSpeed config names no model and no sequence length: the base project's model (" +
                         (base.model_ref.empty() ? base.model.name : base.model_ref) + ") and " +
                         std::to_string(base_seq) + " tokens are used");
  out.name = "DeepSpeed ZeRO config";

  // GPUs: --gpus, else the base's; all of them data-parallel.
  int64_t gpus = options.gpus.value_or(base.gpu_count);
  if (!options.gpus)
    out.warnings.push_back("the GPU count is not in a DeepSpeed config: " + std::to_string(gpus) +
                           " GPUs (the base project's) used; pass --gpus N");
  if (gpus < 1 || gpus > launcher_detail::kMaxConfigInteger)
    return make_error(ErrorCode::invalid_argument, "the GPU count must be positive", origin + ": --gpus");
  launcher_detail::set_gpu_count(out, base, gpus);
  const int64_t dp = gpus;

  MS_TRY(batch, read_batch_sizes(reader, dp, origin, out));
  KeyValues layout_keys{{"dp", std::to_string(dp)}, {"micro_batch", std::to_string(batch.micro)}};
  auto layout = layout_from_keys(layout_keys);
  if (!layout) return tl::unexpected(layout.error());
  out.layout = *layout;
  MS_TRY(training, read_workload(reader, base_seq, batch.global, out));
  out.training = training;
  list_unread(reader, doc, out);
  return out;
}

}  // namespace meshscope
