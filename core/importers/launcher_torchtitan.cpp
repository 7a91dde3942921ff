// torchtitan TOML job configs → plain values (launcher_config.hpp). Keys, meanings and defaults
// are torchtitan/config/job_config.py's (pytorch/torchtitan: Training, Parallelism, ActivationCheckpoint,
// Compile, Float8, Model); docs/launchers.md lists the mapping.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <regex>
#include <set>

#include <toml++/toml.h>

#include "core/importers/launcher_config.hpp"
#include "core/keys/options.hpp"
#include "core/model/catalogue.hpp"

namespace meshscope {
namespace {

// The keys a config names, read or not: what is not read is listed as ignored (or unmodelled).
class TomlReader {
 public:
  TomlReader(const toml::table& root, std::string origin) : root_(root), origin_(std::move(origin)) {}

  const toml::node* node(const std::string& path) {
    read_.insert(path);
    return root_.at_path(path).node();
  }
  std::string where(const std::string& path) const {
    const toml::node* n = root_.at_path(path).node();
    std::string line = n ? ": line " + std::to_string(n->source().begin.line) : "";
    return origin_ + line + ": " + path;
  }
  Result<std::optional<int64_t>> integer(const std::string& path) {
    const toml::node* n = node(path);
    if (!n) return std::optional<int64_t>{};
    if (const auto v = n->value<int64_t>();
        v && n->is_integer() && *v <= launcher_detail::kMaxConfigInteger && *v >= -launcher_detail::kMaxConfigInteger)
      return std::optional<int64_t>(*v);
    return make_error(ErrorCode::wrong_type, path + " must be an integer up to 2^31", where(path));
  }
  Result<std::optional<bool>> boolean(const std::string& path) {
    const toml::node* n = node(path);
    if (!n) return std::optional<bool>{};
    if (n->is_boolean()) return std::optional<bool>(*n->value<bool>());
    return make_error(ErrorCode::wrong_type, path + " must be true or false", where(path));
  }
  Result<std::optional<std::string>> text(const std::string& path) {
    const toml::node* n = node(path);
    if (!n) return std::optional<std::string>{};
    if (n->is_string()) return std::optional<std::string>(*n->value<std::string>());
    if (n->is_integer()) return std::optional<std::string>(std::to_string(*n->value<int64_t>()));
    return make_error(ErrorCode::wrong_type, path + " must be a string", where(path));
  }
  Result<std::vector<std::string>> strings(const std::string& path) {
    const toml::node* n = node(path);
    std::vector<std::string> out;
    if (!n) return out;
    const toml::array* array = n->as_array();
    if (!array) return make_error(ErrorCode::wrong_type, path + " must be a list of strings", where(path));
    for (const toml::node& item : *array) {
      if (!item.is_string()) return make_error(ErrorCode::wrong_type, path + " must be a list of strings", where(path));
      out.push_back(*item.value<std::string>());
    }
    return out;
  }
  // Every leaf key of the file not read, as "section.key".
  void unread(const toml::table& table, const std::string& prefix, std::vector<std::string>& out) const {
    for (const auto& [key, value] : table) {
      const std::string path = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
      if (const toml::table* sub = value.as_table()) {
        unread(*sub, path, out);
      } else if (read_.count(path) == 0) {
        out.push_back(path);
      }
    }
  }

 private:
  const toml::table& root_;
  std::string origin_;
  std::set<std::string> read_;
};

// Keys that change what a run costs but that meshscope does not model, with why.
struct UnmodelledKey {
  std::string_view path;
  std::string_view why;
};
constexpr std::array<UnmodelledKey, 8> kTorchtitanUnmodelled{{
    {"quantize.linear.float8.enable_fsdp_float8_all_gather", "FSDP's all-gather in float8: modelled as 16-bit"},
    {"float8.enable_fsdp_float8_all_gather", "FSDP's all-gather in float8: modelled as 16-bit"},
    {"quantize.linear.float8.precompute_float8_dynamic_scale_for_fsdp", "float8 scales precomputed: not modelled"},
    {"float8.precompute_float8_dynamic_scale_for_fsdp", "float8 scales precomputed: not modelled"},
    {"parallelism.pipeline_parallel_split_points", "explicit split points: give stages= as a layout key"},
    {"parallelism.context_parallel_rotate_method",
     "the K/V rotation of context parallelism: modelled as PyTorch's default all-gather"},
    {"parallelism.disable_loss_parallel", "the loss computed unsharded: not modelled"},
    {"training.mixed_precision_reduce", "the gradient reduce-scatter dtype: modelled as fp32 reduction"},
}};

bool is_true_value(const toml::node* n) {
  return n && n->is_boolean() && *n->value<bool>();
}

// [job] description names the project; [model] name, flavor → a preset (else the base's model stays).
// Returns the model's layers.
Result<int64_t> read_model(TomlReader& toml, const LaunchBase& base, ImportedLaunch& out) {
  int64_t model_layers = base.model.num_layers;
  MS_TRY(description, toml.text("job.description"));
  MS_TRY(model_name, toml.text("model.name"));  // default "llama3"
  MS_TRY(flavor, toml.text("model.flavor"));    // default "debugmodel"
  const std::string name = model_name.value_or("llama3");
  const std::string flavor_text = flavor.value_or("debugmodel");
  if (const auto preset = preset_for_torchtitan_model(name, flavor_text)) {
    MS_TRY(model, model_preset(*preset));
    model_layers = model.num_layers;
    out.model = model;
    out.model_ref = *preset;
  } else {
    out.warnings.push_back("model " + name + " flavor " + flavor_text + " has no meshscope preset: the model is " +
                           (base.model_ref.empty() ? base.model.name : base.model_ref) +
                           " (the base project's); choose it with --model or in the app");
  }
  out.name = description.value_or("torchtitan " + name + " " + flavor_text);
  return model_layers;
}

struct Degrees {
  int64_t replicate = 1;
  int64_t shard = -1;  // -1: the ranks left over (resolved by resolve_gpu_count)
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t cp = 1;
  int64_t ep = 1;
  int64_t etp = 1;
  int64_t fixed = 1;  // replicate × TP × PP × CP
};

// [parallelism] (job_config.py Parallelism; every degree defaults to 1, data_parallel_shard_degree to -1).
Result<Degrees> read_degrees(TomlReader& toml) {
  const auto degree = [&](const std::string& key) -> Result<int64_t> {
    MS_TRY(value, toml.integer("parallelism." + key));
    if (value && *value < 1)
      return make_error(ErrorCode::invalid_argument, "parallelism." + key + " must be 1 or more",
                        toml.where("parallelism." + key));
    return value.value_or(1);
  };
  Degrees d;
  MS_TRY(replicate, degree("data_parallel_replicate_degree"));
  MS_TRY(shard_value, toml.integer("parallelism.data_parallel_shard_degree"));
  MS_TRY(tp, degree("tensor_parallel_degree"));
  MS_TRY(pp, degree("pipeline_parallel_degree"));
  MS_TRY(cp, degree("context_parallel_degree"));
  MS_TRY(ep, degree("expert_parallel_degree"));
  MS_TRY(etp, degree("expert_tensor_parallel_degree"));
  d.replicate = replicate;
  d.tp = tp;
  d.pp = pp;
  d.cp = cp;
  d.ep = ep;
  d.etp = etp;
  d.shard = shard_value.value_or(-1);
  if (d.shard == 0 || d.shard < -1)
    return make_error(ErrorCode::invalid_argument, "parallelism.data_parallel_shard_degree must be -1 or 1 or more",
                      toml.where("parallelism.data_parallel_shard_degree"));
  const std::string degrees_at = toml.where("parallelism");
  MS_TRY(replicate_tp, launcher_detail::checked_product(replicate, tp, degrees_at));
  MS_TRY(replicate_tp_pp, launcher_detail::checked_product(replicate_tp, pp, degrees_at));
  MS_TRY(fixed, launcher_detail::checked_product(replicate_tp_pp, cp, degrees_at));
  d.fixed = fixed;
  return d;
}

// The GPU count, and with it the shard degree where it is -1: the ranks left after replicate, TP, PP
// and CP (job_config.py), out of --gpus, the preset's comment, or the base's GPUs.
Result<int64_t> resolve_gpu_count(TomlReader& toml, std::string_view text, const LaunchReadOptions& options, Degrees& d,
                                  ImportedLaunch& out) {
  const int64_t fixed = d.fixed;
  int64_t gpus = 0;
  if (d.shard == -1) {
    // torchtitan's presets say what they are for on their first line ("# NOTE: this toml config is a
    // preset for 64 A100 GPUs.").
    static const std::regex preset_note(R"(preset for ([0-9]{1,7}) ([A-Za-z0-9]+ )?GPUs)");
    std::cmatch note;
    const std::string first_lines(text.substr(0, std::min<size_t>(text.size(), 400)));
    if (options.gpus) {
      gpus = *options.gpus;
    } else if (std::regex_search(first_lines.c_str(), note, preset_note) && std::stoll(note[1].str()) % fixed == 0 &&
               std::stoll(note[1].str()) > 0) {
      gpus = std::stoll(note[1].str());
      out.warnings.push_back("data_parallel_shard_degree = -1 uses all remaining GPUs: " + std::to_string(gpus) +
                             " GPUs, as the file's comment says (\"" + note[0].str() +
                             "\"); pass --gpus N for "
                             "another count");
    } else {
      const int64_t base_gpus = options.base.gpu_count;
      gpus = base_gpus > 0 && base_gpus % fixed == 0 ? base_gpus : fixed;
      out.warnings.push_back(
          "data_parallel_shard_degree = -1 uses all remaining GPUs, and the file does not say how "
          "many there are: " +
          std::to_string(gpus) + " GPUs used; pass --gpus N");
    }
    if (gpus % fixed != 0)
      return make_error(
          ErrorCode::invalid_layout,
          std::to_string(gpus) + " GPUs are not a multiple of replicate × TP × PP × CP = " + std::to_string(fixed),
          toml.where("parallelism.data_parallel_shard_degree"));
    d.shard = gpus / fixed;
  } else {
    MS_TRY(product, launcher_detail::checked_product(fixed, d.shard, toml.where("parallelism")));
    gpus = product;
    if (options.gpus && *options.gpus != gpus)
      out.warnings.push_back("the file's degrees make " + std::to_string(gpus) + " GPUs; --gpus " +
                             std::to_string(*options.gpus) + " is not used");
  }
  return gpus;
}

struct Batch {
  int64_t local = 8;
  int64_t seq = 2048;
  int64_t global = 0;
  std::optional<std::string> param_precision;  // training.mixed_precision_param
};

// [training] (local_batch_size 8, global_batch_size -1: local × DP, seq_len 2048, mixed_precision_param bfloat16).
Result<Batch> read_batch(TomlReader& toml, int64_t dp) {
  Batch batch;
  MS_TRY(local_value, toml.integer("training.local_batch_size"));
  MS_TRY(global_value, toml.integer("training.global_batch_size"));
  MS_TRY(seq_value, toml.integer("training.seq_len"));
  MS_TRY(param_precision, toml.text("training.mixed_precision_param"));
  batch.param_precision = param_precision;
  batch.local = local_value.value_or(8);
  batch.seq = seq_value.value_or(2048);
  if (batch.local < 1 || batch.seq < 1)
    return make_error(ErrorCode::invalid_argument, "training.local_batch_size and training.seq_len must be positive",
                      toml.where(batch.local < 1 ? "training.local_batch_size" : "training.seq_len"));
  MS_TRY(local_dp, launcher_detail::checked_product(batch.local, dp, toml.where("training.local_batch_size")));
  batch.global = global_value && *global_value > 0 ? *global_value : local_dp;
  return batch;
}

struct Pipeline {
  std::string schedule = "1f1b";
  int64_t vpp = 1;
};

// The micro-batch: local_batch_size without PP (gradient accumulation over global / (local · DP)), and
// pipeline_parallel_microbatch_size (default 1) with it; the pipeline schedule and its stages per rank.
Result<Pipeline> read_pipeline(TomlReader& toml, const Degrees& d, int64_t local, int64_t model_layers,
                               KeyValues& layout_keys, ImportedLaunch& out) {
  Pipeline pipeline;
  MS_TRY(pp_micro, toml.integer("parallelism.pipeline_parallel_microbatch_size"));
  layout_keys.push_back({"micro_batch", std::to_string(d.pp > 1 ? pp_micro.value_or(1) : local)});
  MS_TRY(schedule_name, toml.text("parallelism.pipeline_parallel_schedule"));  // default "1F1B"
  MS_TRY(layers_per_stage, toml.integer("parallelism.pipeline_parallel_layers_per_stage"));
  if (schedule_name) {
    if (*schedule_name == "GPipe") {
      pipeline.schedule = "gpipe";
    } else if (*schedule_name == "Interleaved1F1B") {
      pipeline.schedule = "interleaved";
      // Looped schedules: stages per rank from pipeline_parallel_layers_per_stage, else 2.
      pipeline.vpp = layers_per_stage && *layers_per_stage > 0 && d.pp > 0
                         ? std::max<int64_t>(1, model_layers / (d.pp * *layers_per_stage))
                         : 2;
    } else if (*schedule_name != "1F1B") {
      out.unmodelled.push_back("parallelism.pipeline_parallel_schedule = " + *schedule_name + ": modelled as 1F1B");
    }
  }
  layout_keys.push_back({"vpp", std::to_string(d.pp > 1 ? pipeline.vpp : 1)});
  return pipeline;
}

// The precision: mixed_precision_param's 16-bit type, float8 through the model converters (["float8"]
// or ["quantize.linear.float8"]) or the older [float8] table. Returns whether float8 is on.
Result<bool> precision_keys(TomlReader& toml, const std::optional<std::string>& param_precision, KeyValues& keys,
                            ImportedLaunch& out) {
  std::string precision = "bf16";
  if (param_precision && *param_precision == "float16")
    precision = "fp16";
  else if (param_precision && *param_precision != "bfloat16")
    out.unmodelled.push_back("training.mixed_precision_param = " + *param_precision + ": modelled as bf16");
  MS_TRY(converters, toml.strings("model.converters"));
  bool fp8 = false;
  for (const std::string& c : converters) {
    if (c == "float8" || c == "quantize.linear.float8")
      fp8 = true;
    else
      out.unmodelled.push_back("model.converters " + c + ": not modelled");
  }
  if (is_true_value(toml.node("float8.enable_float8_linear"))) fp8 = true;
  if (fp8) {
    keys.push_back({"precision", "fp8"});
    if (precision == "fp16") keys.push_back({"param_dtype", "fp16"});
  } else {
    keys.push_back({"precision", precision});
  }
  return fp8;
}

// [activation_checkpoint] mode none/full/selective; selective_ac_option "op" or an integer n (every n-th layer).
Result<std::string> recompute_key(TomlReader& toml, int64_t pp, int64_t vpp, int64_t model_layers,
                                  ImportedLaunch& out) {
  MS_TRY(ac_mode, toml.text("activation_checkpoint.mode"));
  MS_TRY(ac_option, toml.text("activation_checkpoint.selective_ac_option"));
  const std::string mode = ac_mode.value_or("selective");
  if (mode == "none") return std::string("none");
  if (mode == "full") return std::string("full");
  if (mode != "selective")
    return make_error(ErrorCode::invalid_argument,
                      "activation_checkpoint.mode must be none, selective or full, got \"" + mode + "\"",
                      toml.where("activation_checkpoint.mode"));
  const std::string option = ac_option.value_or("2");
  if (option == "op") return std::string("op");
  char* end = nullptr;
  const long long every = std::strtoll(option.c_str(), &end, 10);
  if (option.empty() || *end != '\0' || every < 1)
    return make_error(
        ErrorCode::invalid_argument,
        "activation_checkpoint.selective_ac_option must be \"op\" or a positive integer, got \"" + option + "\"",
        toml.where("activation_checkpoint.selective_ac_option"));
  if (every == 1) return std::string("full");
  // Every n-th block fully recomputed: as many blocks of each stage chunk (rounded up).
  const int64_t per_chunk = model_layers / std::max<int64_t>(1, pp * (pp > 1 ? vpp : 1));
  std::string recompute = std::to_string(std::max<int64_t>(1, (per_chunk + every - 1) / every));
  out.warnings.push_back("selective_ac_option = " + option + " (every " + option +
                         "th block recomputed) is modelled as the first " + recompute + " blocks of each stage");
  return recompute;
}

// [compile] enable: torch.compile fuses the element-wise kernels; eager PyTorch otherwise. Async TP
// and FSDP's resharding after the forward.
Result<void> compile_and_overlap_keys(TomlReader& toml, int64_t tp, KeyValues& keys, ImportedLaunch& out) {
  MS_TRY(compile, toml.boolean("compile.enable"));
  (void)toml.node("compile.components");
  keys.push_back({"kernels", compile.value_or(false) ? "fused" : "eager"});
  // Async TP: "currently only effective when compile is enabled" (job_config.py).
  MS_TRY(async_tp, toml.boolean("parallelism.enable_async_tensor_parallel"));
  if (async_tp.value_or(false)) {
    if (compile.value_or(false) && tp > 1)
      keys.push_back({"tp_comm_overlap", "true"});
    else
      out.warnings.emplace_back(
          "enable_async_tensor_parallel has no effect without compile and TP > 1 (job_config.py)");
  }
  MS_TRY(reshard, toml.text("parallelism.fsdp_reshard_after_forward"));
  if (reshard) {
    if (*reshard != "default" && *reshard != "always" && *reshard != "never")
      return make_error(
          ErrorCode::invalid_argument,
          "parallelism.fsdp_reshard_after_forward must be default, always or never, got \"" + *reshard + "\"",
          toml.where("parallelism.fsdp_reshard_after_forward"));
    keys.push_back({"reshard_after_forward", *reshard});
  }
  return {};
}

struct Workload {
  TrainingWorkload training;
  bool fp8 = false;
};

// The workload: FSDP2's conventions, the batch, ZeRO-3 for FSDP, the schedule, precision,
// recomputation, compile and overlap.
Result<Workload> read_workload(TomlReader& toml, const Degrees& d, const Batch& batch, const Pipeline& pipeline,
                               int64_t model_layers, ImportedLaunch& out) {
  Workload workload;
  KeyValues keys{{"convention", "zero"},
                 {"memory_framework", "fsdp2"},
                 {"framework", "torchtitan"},
                 {"seq", std::to_string(batch.seq)}};
  keys.push_back({"global_batch", std::to_string(batch.global)});
  // FSDP (ZeRO-3) whenever the shard degree is above 1; plain DDP replication otherwise.
  keys.push_back({"zero", d.shard > 1 ? "3" : "0"});
  if (d.pp > 1) keys.push_back({"schedule", pipeline.schedule});
  MS_TRY(fp8, precision_keys(toml, batch.param_precision, keys, out));
  workload.fp8 = fp8;
  MS_TRY(recompute, recompute_key(toml, d.pp, pipeline.vpp, model_layers, out));
  keys.push_back({"recompute", recompute});
  if (auto read = compile_and_overlap_keys(toml, d.tp, keys, out); !read) return tl::unexpected(read.error());
  auto training = training_from_keys(keys);
  if (!training) return tl::unexpected(training.error());
  workload.training = *training;
  return workload;
}

// What was not read: unmodelled when it matters (float8 keys only with float8 on), ignored otherwise.
void list_unread(const TomlReader& toml, const toml::table& root, bool fp8, ImportedLaunch& out) {
  std::vector<std::string> unread;
  toml.unread(root, "", unread);
  for (const std::string& path : unread) {
    const auto* u = std::find_if(kTorchtitanUnmodelled.begin(), kTorchtitanUnmodelled.end(),
                                 [&](const UnmodelledKey& k) { return k.path == path; });
    const toml::node* n = root.at_path(path).node();
    const bool is_default_false = n && n->is_boolean() && !*n->value<bool>();
    if (u != kTorchtitanUnmodelled.end() && !is_default_false &&
        !(fp8 == false && path.find("float8") != std::string::npos))
      out.unmodelled.push_back(path + ": " + std::string(u->why));
    else
      out.ignored.push_back(path);
  }
}

}  // namespace

Result<ImportedLaunch> read_torchtitan_toml(std::string_view text, const std::string& origin,
                                            const LaunchReadOptions& options) {
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& error) {
    return make_error(ErrorCode::parse_error, std::string(error.description()),
                      origin + ": line " + std::to_string(error.source().begin.line) + ", column " +
                          std::to_string(error.source().begin.column));
  }
  ImportedLaunch out;
  out.format = LauncherFormat::torchtitan;
  TomlReader toml(root, origin);
  MS_TRY(model_layers, read_model(toml, options.base, out));
  MS_TRY(degrees, read_degrees(toml));
  MS_TRY(gpus, resolve_gpu_count(toml, text, options, degrees, out));
  launcher_detail::set_gpu_count(out, options.base, gpus);
  MS_TRY(dp, launcher_detail::checked_product(degrees.replicate, degrees.shard, toml.where("parallelism")));
  KeyValues layout_keys{{"dp", std::to_string(dp)},
                        {"fsdp", std::to_string(degrees.replicate > 1 && degrees.shard > 1 ? degrees.shard : 0)},
                        {"tp", std::to_string(degrees.tp)},
                        {"pp", std::to_string(degrees.pp)},
                        {"cp", std::to_string(degrees.cp)},
                        {"ep", std::to_string(degrees.ep)},
                        {"etp", std::to_string(degrees.etp)},
                        // torchtitan's TP plan shards the norms and dropouts over the sequence
                        // (SequenceParallel in torchtitan/models/llama3/infra/parallelize.py apply_tp).
                        {"sp", degrees.tp > 1 ? "true" : "false"}};
  MS_TRY(batch, read_batch(toml, dp));
  MS_TRY(pipeline, read_pipeline(toml, degrees, batch.local, model_layers, layout_keys, out));
  auto layout = layout_from_keys(layout_keys);
  if (!layout) return tl::unexpected(layout.error());
  out.layout = *layout;
  MS_TRY(workload, read_workload(toml, degrees, batch, pipeline, model_layers, out));
  out.training = workload.training;
  list_unread(toml, root, workload.fp8, out);
  return out;
}

}  // namespace meshscope
