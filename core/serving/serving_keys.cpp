// The serving side's layouts and keys: what a --serve / --engine key means, which layouts are valid, and the engine
// settings trtllm-bench derives for a layout (serving.hpp). The model itself is in serving.cpp.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/text.hpp"
#include "core/keys/options_rows.hpp"
#include "core/serving/serving.hpp"

namespace meshscope {
namespace {

using key_rows::bad_value;

Result<int64_t> non_negative_int(const std::string& option, const std::string& key, const std::string& value) {
  const auto parsed = text::parse_integer(value);
  if (!parsed || *parsed < 0) return bad_value(option, key, value, "an integer ≥ 0");
  return *parsed;
}

Result<double> non_negative_number(const std::string& option, const std::string& key, const std::string& value) {
  const auto parsed = text::parse_number(value);
  if (!parsed || *parsed < 0) return bad_value(option, key, value, "a number ≥ 0");
  return *parsed;
}

Result<bool> parse_flag(const std::string& option, const std::string& key, const std::string& value) {
  if (value == "true" || value == "1" || value == "on" || value == "yes") return true;
  if (value == "false" || value == "0" || value == "off" || value == "no") return false;
  return bad_value(option, key, value, "true or false");
}

}  // namespace

std::string_view serving_binding_name(ServingBinding binding) {
  return enum_name(binding);
}

std::vector<LayoutProblem> validate_serving(const ModelSpec& m, const ServingLayout& l, int64_t cluster_gpus) {
  std::vector<LayoutProblem> problems;
  for (const auto& [name, value] : {std::pair<const char*, int64_t>{"tp", l.tp},
                                    {"pp", l.pp},
                                    {"dp", l.dp},
                                    {"ep", l.ep},
                                    {"replicas", l.replicas}})
    if (value < 1) problems.push_back({name, std::string(name) + " must be at least 1."});
  if (!problems.empty()) return problems;
  if (m.is_moe() && (l.tp * l.dp) % l.ep != 0)
    problems.push_back({"ep", "EP=" + std::to_string(l.ep) + " must divide TP×DP=" + std::to_string(l.tp * l.dp) +
                                  " (the experts are spread over the attention ranks of a stage)."});
  if (!m.is_moe() && l.dp > 1)
    problems.push_back({"dp",
                        "Data-parallel attention inside an instance needs a mixture-of-experts model; for a "
                        "dense model use replicas=" +
                            std::to_string(l.dp * l.replicas) + "."});
  if (problems.empty()) {
    for (auto& p : validate_serving_layout(m, l.mesh(m))) problems.push_back(std::move(p));
  }
  if (cluster_gpus > 0 && l.gpus() > cluster_gpus)
    problems.push_back({"replicas", "TP×PP×DP×replicas = " + std::to_string(l.gpus()) + " GPUs, but the cluster has " +
                                        std::to_string(cluster_gpus) + "."});
  return problems;
}

Result<ServingRequestKeys> serving_request_from_keys(const KeyValues& keys, const ServingWorkload& base) {
  const std::string option = "--serve";
  ServingRequestKeys out;
  KeyValues rest;
  for (const auto& [key, value] : keys) {
    if (key == "prompt_spread") {
      MS_TRY(v, non_negative_number(option, key, value));
      out.traffic.prompt_spread = v;
    } else if (key == "output_spread") {
      MS_TRY(v, non_negative_number(option, key, value));
      out.traffic.output_spread = v;
    } else if (key == "arrival_rate") {
      MS_TRY(v, non_negative_number(option, key, value));
      out.traffic.arrival_rate_per_s = v;
    } else if (key == "requests") {
      MS_TRY(v, non_negative_int(option, key, value));
      out.traffic.num_requests = v;
    } else {
      rest.emplace_back(key, value);
    }
  }
  MS_TRY(workload, serving_from_keys(rest, base));
  out.workload = workload;
  if (out.traffic.prompt_spread >= static_cast<double>(out.workload.prompt_len) && out.traffic.prompt_spread > 0)
    return make_error(ErrorCode::invalid_argument, "prompt_spread must be smaller than the prompt length",
                      option + " prompt_spread");
  if (out.traffic.output_spread >= static_cast<double>(out.workload.output_len) && out.traffic.output_spread > 0)
    return make_error(ErrorCode::invalid_argument, "output_spread must be smaller than the output length",
                      option + " output_spread");
  if (out.workload.output_len < 1)
    return make_error(ErrorCode::invalid_argument, "serving needs at least one output token", option + " output");
  if (out.workload.prompt_len < 1)
    return make_error(ErrorCode::invalid_argument, "serving needs at least one prompt token", option + " prompt");
  return out;
}

Result<ServingEngine> serving_engine_from_keys(const KeyValues& keys, ServingEngine e) {
  const std::string option = "--engine";
  for (const auto& [key, value] : keys) {
    if (key == "max_batch") {
      MS_TRY(v, non_negative_int(option, key, value));
      e.max_batch = v;
    } else if (key == "max_num_tokens") {
      MS_TRY(v, non_negative_int(option, key, value));
      e.max_num_tokens = v;
    } else if (key == "chunked_prefill") {
      MS_TRY(v, parse_flag(option, key, value));
      e.chunked_prefill = v;
    } else if (key == "reserve_full_context") {
      MS_TRY(v, parse_flag(option, key, value));
      e.reserve_full_context = v;
    } else if (key == "step_overhead_ms") {
      MS_TRY(v, non_negative_number(option, key, value));
      e.step_overhead_s = v * 1e-3;
    } else if (key == "sequence_overhead_us") {
      MS_TRY(v, non_negative_number(option, key, value));
      e.sequence_overhead_s = v * 1e-6;
    } else if (key == "low_latency_a2a") {
      MS_TRY(v, parse_flag(option, key, value));
      e.low_latency_all_to_all = v;
    } else {
      return make_error(ErrorCode::invalid_argument,
                        "unknown key \"" + key +
                            "\"; known keys: max_batch, max_num_tokens, chunked_prefill, reserve_full_context, "
                            "step_overhead_ms, sequence_overhead_us, low_latency_a2a",
                        option);
    }
  }
  return e;
}

ServingEngine trtllm_bench_engine(const ModelSpec& m, const ServingWorkload& w, const ServingLayout& l,
                                  const GpuSpec& gpu, double kv_fraction) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  // calc_engine_setting: weights at the quantised width (whole checkpoint), KV heads at least TP.
  const double param_count = count_params(m).total_params();
  const double engine_gib = param_count * dtype_bytes(w.weight_dtype) / kGiB;
  const double kv_heads = static_cast<double>(std::max(l.tp, m.num_kv_heads));
  const double gib_per_token = m.mla.enabled()
                                   ? static_cast<double>(m.num_layers * (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim)) *
                                         dtype_bytes(w.kv_dtype) / kGiB
                                   : 2.0 * static_cast<double>(m.num_layers) * kv_heads *
                                         static_cast<double>(m.head_dim) * dtype_bytes(w.kv_dtype) / kGiB;
  const auto gpus = static_cast<double>(l.tp * l.pp);
  const double cache_gib = (gpu.memory_bytes / kGiB * gpus - engine_gib) * kv_fraction;
  const double seq = static_cast<double>(w.prompt_len + w.output_len);
  const double max_requests = std::max(cache_gib / (gib_per_token * seq), 0.0);
  // finetune_setting (optimistic tuning on).
  const double raw_batch = std::min(max_requests, 4096.0) / static_cast<double>(l.pp);
  const double raw_tokens = std::min(
      raw_batch * (1.0 + static_cast<double>(w.prompt_len) / static_cast<double>(std::max<int64_t>(w.output_len, 1))),
      32768.0);
  auto round_up = [](double value, double step) { return step * std::ceil(value / step); };
  double batch = 0;
  if (raw_batch < 256)
    batch = std::max(64.0, round_up(raw_batch, 32));
  else if (raw_batch < 1024)
    batch = round_up(raw_batch, 128);
  else
    batch = round_up(raw_batch, 256);
  double tokens = 0;
  if (raw_tokens < 4096)
    tokens = std::max(2048.0, round_up(raw_tokens, 256));
  else if (raw_tokens < 8192)
    tokens = round_up(raw_tokens, 512);
  else
    tokens = round_up(raw_tokens, 1024);
  ServingEngine e;
  e.max_batch = static_cast<int64_t>(batch);
  // get_settings: without chunked prefill, max_num_tokens ≥ max ISL + max batch.
  e.max_num_tokens = static_cast<int64_t>(std::max(tokens, static_cast<double>(w.prompt_len) + batch));
  e.chunked_prefill = false;
  e.reserve_full_context = true;
  return e;
}

}  // namespace meshscope
