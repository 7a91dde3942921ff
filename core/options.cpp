#include "core/options.hpp"

#include <charconv>
#include <cstdio>
#include <functional>
#include <map>

namespace meshscope {
namespace {

tl::unexpected<Error> bad_value(const std::string& option, const std::string& key, const std::string& value,
                                const std::string& expected) {
  return make_error(ErrorCode::invalid_argument, "\"" + value + "\" is not valid for " + key + ": expected " + expected,
                    option + " " + key);
}

Result<int64_t> to_int(const std::string& option, const std::string& key, const std::string& value, int64_t min_value) {
  int64_t parsed = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (ec != std::errc() || end != value.data() + value.size() || parsed < min_value)
    return bad_value(option, key, value, "an integer ≥ " + std::to_string(min_value));
  return parsed;
}

Result<double> to_double(const std::string& option, const std::string& key, const std::string& value, double min_value,
                         double max_value) {
  char* end = nullptr;
  const double parsed = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !(parsed >= min_value) || !(parsed <= max_value)) {
    char range[96];
    std::snprintf(range, sizeof range, "a number in [%g, %g]", min_value, max_value);
    return bad_value(option, key, value, range);
  }
  return parsed;
}

Result<bool> to_bool(const std::string& option, const std::string& key, const std::string& value) {
  if (value == "true" || value == "1" || value == "on" || value == "yes") return true;
  if (value == "false" || value == "0" || value == "off" || value == "no") return false;
  return bad_value(option, key, value, "true or false");
}

Result<DType> to_dtype(const std::string& option, const std::string& key, const std::string& value) {
  if (auto type = parse_dtype(value)) return *type;
  return bad_value(option, key, value, "fp32, bf16, fp16, fp8, int8 or int4");
}

tl::unexpected<Error> unknown_key(const std::string& option, const std::string& key, const std::string& known) {
  return make_error(ErrorCode::invalid_argument, "unknown key \"" + key + "\"; known keys: " + known, option);
}

std::string fmt_double(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Result<bool> apply_runtime(RuntimeAssumptions& r, const std::string& option, const std::string& key,
                           const std::string& value) {
  if (key == "runtime_gib") {
    MS_TRY(v, to_double(option, key, value, 0, 1024));
    r.runtime_bytes = v * kGiB;
  } else if (key == "nccl_buffer_mib") {
    MS_TRY(v, to_double(option, key, value, 0, 4096));
    r.nccl_buffer_bytes = v * 1024 * 1024;
  } else if (key == "nccl_channels") {
    MS_TRY(v, to_int(option, key, value, 0));
    r.nccl_channels = v;
  } else if (key == "allocator_fraction") {
    MS_TRY(v, to_double(option, key, value, 0, 1));
    r.allocator_fraction = v;
  } else {
    return false;
  }
  return true;
}

}  // namespace

Result<KeyValues> split_key_values(std::string_view text, const std::string& option) {
  KeyValues keys;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view item =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!item.empty()) {
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0)
        return make_error(ErrorCode::invalid_argument, "\"" + std::string(item) + "\" is not a key=value pair", option);
      keys.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return keys;
}

Result<TrainingWorkload> training_from_keys(const KeyValues& keys, TrainingWorkload w) {
  const std::string option = "--train";
  for (const auto& [key, value] : keys) {
    if (key == "convention" && !apply_training_convention(w, value))
      return bad_value(option, key, value, "zero, megatron, megatron-distopt, playbook-fp32 or playbook-bf16");
  }
  for (const auto& [key, value] : keys) {
    if (key == "convention") continue;
    if (key == "seq" || key == "seq_len") {
      MS_TRY(v, to_int(option, key, value, 1));
      w.seq_len = v;
    } else if (key == "global_batch" || key == "gbs") {
      MS_TRY(v, to_int(option, key, value, 1));
      w.global_batch = v;
    } else if (key == "precision") {
      MS_TRY(v, to_dtype(option, key, value));
      if (v != DType::bf16 && v != DType::fp16 && v != DType::fp8)
        return bad_value(option, key, value, "bf16, fp16 or fp8 (mixed precision)");
      w.compute_dtype = v;
      w.param_dtype = v == DType::fp16 ? DType::fp16 : DType::bf16;
      if (w.grad_dtype != DType::fp32) w.grad_dtype = w.param_dtype;
    } else if (key == "param_dtype") {
      MS_TRY(v, to_dtype(option, key, value));
      w.param_dtype = v;
    } else if (key == "grad_dtype") {
      MS_TRY(v, to_dtype(option, key, value));
      w.grad_dtype = v;
    } else if (key == "master") {
      if (value == "none") {
        w.master_dtype = std::nullopt;
      } else {
        MS_TRY(v, to_dtype(option, key, value));
        w.master_dtype = v;
      }
    } else if (key == "optimizer_dtype") {
      MS_TRY(v, to_dtype(option, key, value));
      w.optimizer_state_dtype = v;
    } else if (key == "activation_dtype") {
      MS_TRY(v, to_dtype(option, key, value));
      w.activation_dtype = v;
    } else if (key == "optimizer") {
      if (value == "adam" || value == "adamw") {
        w.optimizer = Optimizer::adam;
      } else if (value == "sgd") {
        w.optimizer = Optimizer::sgd_momentum;
      } else {
        return bad_value(option, key, value, "adam, adamw or sgd (with momentum)");
      }
    } else if (key == "zero") {
      MS_TRY(v, to_int(option, key, value, 0));
      if (v > 3) return bad_value(option, key, value, "0, 1, 2 or 3");
      w.zero_stage = static_cast<int>(v);
    } else if (key == "recompute") {
      // A name (none, selective, full, op), or n: the first n layers of each chunk ("layers").
      if (const auto mode = parse_enum<RecomputeMode>(value); mode && *mode != RecomputeMode::layers) {
        w.recompute = *mode;
      } else {
        MS_TRY(v, to_int(option, key, value, 0));
        w.recompute = RecomputeMode::layers;
        w.recompute_layers = v;
      }
    } else if (key == "flash") {
      MS_TRY(v, to_bool(option, key, value));
      w.flash_attention = v;
    } else if (key == "dropout") {
      MS_TRY(v, to_bool(option, key, value));
      w.dropout = v;
    } else if (key == "output_activations") {
      MS_TRY(v, to_bool(option, key, value));
      w.output_layer_activations = v;
    } else if (key == "fp32_logits") {
      MS_TRY(v, to_bool(option, key, value));
      w.fp32_logits = v;
    } else if (key == "causal") {
      MS_TRY(v, to_bool(option, key, value));
      w.causal = v;
    } else if (key == "cp_comm") {
      if (value != "p2p" && value != "a2a")
        return bad_value(option, key, value, "p2p (ring attention) or a2a (Ulysses)");
      w.cp_all_to_all = value == "a2a";
    } else if (key == "tp_comm_overlap") {
      MS_TRY(v, to_bool(option, key, value));
      w.tp_comm_overlap = v;
    } else if (key == "overlap_grad_reduce") {
      MS_TRY(v, to_bool(option, key, value));
      w.overlap_grad_reduce = v;
    } else if (key == "overlap_param_gather") {
      MS_TRY(v, to_bool(option, key, value));
      w.overlap_param_gather = v;
    } else if (key == "memory_framework") {
      const auto framework = parse_enum<MemoryFramework>(value);
      if (!framework) return bad_value(option, key, value, enum_choices<MemoryFramework>());
      w.memory_framework = *framework;
    } else if (key == "kernels") {
      if (value != "fused" && value != "eager")
        return bad_value(option, key, value, "fused (Transformer Engine, torch.compile) or eager (PyTorch composites)");
      w.eager_kernels = value == "eager";
    } else if (key == "cuda_graphs") {
      MS_TRY(v, to_bool(option, key, value));
      w.cuda_graphs = v;
    } else if (key == "fsdp_prefetch") {
      MS_TRY(v, to_bool(option, key, value));
      w.fsdp_prefetch = v;
    } else if (key == "reshard_after_forward") {
      // torchtitan's policy names, and FSDP2's booleans for always/never.
      if (value == "default") {
        w.reshard_after_forward = ReshardAfterForward::torchtitan_default;
      } else {
        const bool always = value == "always", never = value == "never";
        Result<bool> v = always || never ? Result<bool>(always) : to_bool(option, key, value);
        if (!v) return bad_value(option, key, value, "default, always (true) or never (false)");
        w.reshard_after_forward = *v ? ReshardAfterForward::always : ReshardAfterForward::never;
      }
    } else if (key == "schedule") {
      const auto schedule = parse_enum<PipelineSchedule>(value);
      if (!schedule) return bad_value(option, key, value, enum_choices<PipelineSchedule>());
      w.schedule = *schedule;
    } else {
      MS_TRY(handled, apply_runtime(w.runtime, option, key, value));
      if (!handled)
        return unknown_key(
            option, key,
            "seq, global_batch, precision, convention, param_dtype, grad_dtype, master, optimizer, "
            "optimizer_dtype, activation_dtype, zero, recompute, flash, dropout, output_activations, "
            "fp32_logits, causal, schedule, cp_comm, tp_comm_overlap, overlap_grad_reduce, "
            "overlap_param_gather, fsdp_prefetch, reshard_after_forward, cuda_graphs, kernels, memory_framework, "
            "runtime_gib, "
            "nccl_buffer_mib, nccl_channels, allocator_fraction");
    }
  }
  // Megatron-LM refuses --overlap-param-gather without --overlap-grad-reduce
  // (megatron/training/arguments.py, validate_args); so do we.
  if (w.overlap_param_gather && !w.overlap_grad_reduce)
    return make_error(ErrorCode::invalid_argument,
                      "overlap_param_gather needs overlap_grad_reduce (Megatron-LM: \"Must use "
                      "--overlap-param-gather with --overlap-grad-reduce\")",
                      option + " overlap_param_gather");
  return w;
}

Result<ServingWorkload> serving_from_keys(const KeyValues& keys, ServingWorkload w) {
  const std::string option = "--serve";
  for (const auto& [key, value] : keys) {
    if (key == "weights" || key == "weight_dtype") {
      MS_TRY(v, to_dtype(option, key, value));
      w.weight_dtype = v;
    } else if (key == "group_size") {
      MS_TRY(v, to_int(option, key, value, 0));
      w.weight_group_size = v;
    } else if (key == "kv" || key == "kv_dtype") {
      MS_TRY(v, to_dtype(option, key, value));
      w.kv_dtype = v;
    } else if (key == "prompt" || key == "prompt_len") {
      MS_TRY(v, to_int(option, key, value, 0));
      w.prompt_len = v;
    } else if (key == "output" || key == "output_len") {
      MS_TRY(v, to_int(option, key, value, 0));
      w.output_len = v;
    } else if (key == "concurrency") {
      MS_TRY(v, to_int(option, key, value, 1));
      w.concurrency = v;
    } else if (key == "max_batched_tokens") {
      MS_TRY(v, to_int(option, key, value, 1));
      w.max_batched_tokens = v;
    } else if (key == "memory_fraction") {
      MS_TRY(v, to_double(option, key, value, 0.01, 1.0));
      w.memory_fraction = v;
    } else {
      MS_TRY(handled, apply_runtime(w.runtime, option, key, value));
      if (!handled)
        return unknown_key(option, key,
                           "weights, group_size, kv, prompt, output, concurrency, max_batched_tokens, memory_fraction, "
                           "runtime_gib, nccl_buffer_mib, nccl_channels");
    }
  }
  return w;
}

Result<Layout> layout_from_keys(const KeyValues& keys, Layout l) {
  const std::string option = "--layout";
  const std::map<std::string, int64_t Layout::*> degrees = {
      {"dp", &Layout::dp},          {"tp", &Layout::tp}, {"pp", &Layout::pp},   {"vpp", &Layout::vpp},
      {"cp", &Layout::cp},          {"ep", &Layout::ep}, {"etp", &Layout::etp}, {"micro_batch", &Layout::micro_batch},
      {"mbs", &Layout::micro_batch}};
  for (const auto& [key, value] : keys) {
    if (const auto it = degrees.find(key); it != degrees.end()) {
      MS_TRY(v, to_int(option, key, value, 1));
      l.*(it->second) = v;
    } else if (key == "fsdp") {
      MS_TRY(v, to_int(option, key, value, 0));
      l.fsdp = v;
    } else if (key == "sp") {
      MS_TRY(v, to_bool(option, key, value));
      l.sp = v;
    } else if (key == "stages" || key == "stage_layers") {
      l.stage_layers.clear();
      size_t start = 0;
      while (start <= value.size()) {
        const size_t sep = value.find_first_of(":/", start);
        const std::string item = value.substr(start, sep == std::string::npos ? std::string::npos : sep - start);
        MS_TRY(v, to_int(option, key, item, 0));
        l.stage_layers.push_back(v);
        if (sep == std::string::npos) break;
        start = sep + 1;
      }
    } else {
      return unknown_key(option, key, "dp, fsdp, tp, pp, vpp, cp, ep, etp, sp, micro_batch (mbs), stages");
    }
  }
  return l;
}

KeyValues training_to_keys(const TrainingWorkload& w) {
  KeyValues keys = {{"convention", w.convention},
                    {"seq", std::to_string(w.seq_len)},
                    {"global_batch", std::to_string(w.global_batch)},
                    {"precision", std::string(dtype_name(w.compute_dtype))},
                    {"param_dtype", std::string(dtype_name(w.param_dtype))},
                    {"grad_dtype", std::string(dtype_name(w.grad_dtype))},
                    {"master", w.master_dtype ? std::string(dtype_name(*w.master_dtype)) : "none"},
                    {"optimizer", std::string(optimizer_name(w.optimizer))},
                    {"zero", std::to_string(w.zero_stage)},
                    {"recompute", w.recompute == RecomputeMode::layers ? std::to_string(w.recompute_layers)
                                                                       : std::string(recompute_name(w.recompute))},
                    {"flash", w.flash_attention ? "true" : "false"},
                    {"schedule", std::string(enum_name(w.schedule))},
                    {"cp_comm", w.cp_all_to_all ? "a2a" : "p2p"},
                    {"tp_comm_overlap", w.tp_comm_overlap ? "true" : "false"},
                    {"overlap_grad_reduce", w.overlap_grad_reduce ? "true" : "false"},
                    {"overlap_param_gather", w.overlap_param_gather ? "true" : "false"},
                    {"fsdp_prefetch", w.fsdp_prefetch ? "true" : "false"},
                    {"reshard_after_forward", std::string(reshard_after_forward_name(w.reshard_after_forward))},
                    {"cuda_graphs", w.cuda_graphs ? "true" : "false"},
                    {"kernels", w.eager_kernels ? "eager" : "fused"},
                    {"memory_framework", std::string(memory_framework_name(w.memory_framework))},
                    {"runtime_gib", fmt_double(w.runtime.runtime_bytes / kGiB)},
                    {"allocator_fraction", fmt_double(w.runtime.allocator_fraction)}};
  if (w.dropout) keys.emplace_back("dropout", *w.dropout ? "true" : "false");
  return keys;
}

KeyValues serving_to_keys(const ServingWorkload& w) {
  return {{"weights", std::string(dtype_name(w.weight_dtype))},
          {"group_size", std::to_string(w.weight_group_size)},
          {"kv", std::string(dtype_name(w.kv_dtype))},
          {"prompt", std::to_string(w.prompt_len)},
          {"output", std::to_string(w.output_len)},
          {"concurrency", std::to_string(w.concurrency)},
          {"max_batched_tokens", std::to_string(w.max_batched_tokens)},
          {"memory_fraction", fmt_double(w.memory_fraction)}};
}

KeyValues layout_to_keys(const Layout& l) {
  KeyValues keys = {{"dp", std::to_string(l.dp)},    {"fsdp", std::to_string(l.fsdp)},
                    {"tp", std::to_string(l.tp)},    {"pp", std::to_string(l.pp)},
                    {"vpp", std::to_string(l.vpp)},  {"cp", std::to_string(l.cp)},
                    {"ep", std::to_string(l.ep)},    {"etp", std::to_string(l.etp)},
                    {"sp", l.sp ? "true" : "false"}, {"micro_batch", std::to_string(l.micro_batch)}};
  if (!l.stage_layers.empty()) {
    std::string stages;
    for (const auto layers : l.stage_layers) stages += (stages.empty() ? "" : ":") + std::to_string(layers);
    keys.emplace_back("stages", stages);
  }
  return keys;
}

}  // namespace meshscope
