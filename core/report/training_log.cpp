#include "core/report/training_log.hpp"

#include <cstdio>

namespace meshscope {
namespace {

using json = nlohmann::json;

template <typename T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json median_or_null(const std::optional<SpreadStats>& stats) {
  return stats ? json(stats->median) : json(nullptr);
}

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

}  // namespace

json training_log_json(const MeasuredRun& run) {
  const LogLayout& l = run.layout;
  const LogModelDims& m = run.model;
  json spread = nullptr;
  if (run.step_time_s)
    spread = {{"count", run.step_time_s->count},
              {"min_s", run.step_time_s->min},
              {"max_s", run.step_time_s->max},
              {"relative", run.step_time_s->relative_spread}};
  json warnings = json::array();
  for (const auto& w : run.warnings) warnings.push_back({{"line", w.line}, {"message", w.message}});
  return {{"file", run.origin},
          {"framework", training_framework_name(run.framework)},
          {"iterations", run.iterations.size()},
          {"excluded_iterations", run.excluded_iterations},
          {"step_time_s", median_or_null(run.step_time_s)},
          {"step_time_spread", spread},
          {"step_time_source", run.step_time_source},
          {"tflops_per_gpu", median_or_null(run.tflops_per_gpu)},
          {"tokens_per_s_per_gpu", median_or_null(run.tokens_per_s_per_gpu)},
          {"tokens_per_s_source", run.tokens_per_s_source},
          {"samples_per_s", median_or_null(run.samples_per_s)},
          {"peak_memory_bytes", optional_json(run.peak_memory_bytes)},
          {"peak_memory_quantity", run.peak_memory_bytes ? json(run.peak_memory_quantity) : json(nullptr)},
          {"max_reserved_bytes", optional_json(run.max_reserved_bytes)},
          {"layout",
           {{"world_size", optional_json(l.world_size)},
            {"tp", optional_json(l.tp)},
            {"pp", optional_json(l.pp)},
            {"cp", optional_json(l.cp)},
            {"ep", optional_json(l.ep)},
            {"vpp", optional_json(l.vpp)},
            {"dp", optional_json(l.dp)},
            {"sequence_parallel", optional_json(l.sequence_parallel)},
            {"micro_batch", optional_json(l.micro_batch)},
            {"global_batch", optional_json(l.global_batch)},
            {"recompute", optional_json(l.recompute)},
            {"kernels", optional_json(l.kernels)},
            {"precision", optional_json(l.precision)},
            {"distributed_optimizer", optional_json(l.distributed_optimizer)},
            {"zero_stage", optional_json(l.zero_stage)},
            {"layout_keys", l.layout_keys()},
            {"train_keys", l.train_keys()}}},
          {"model",
           {{"num_layers", optional_json(m.num_layers)},
            {"hidden_size", optional_json(m.hidden_size)},
            {"ffn_hidden_size", optional_json(m.ffn_hidden_size)},
            {"num_attention_heads", optional_json(m.num_attention_heads)},
            {"num_query_groups", optional_json(m.num_query_groups)},
            {"seq_length", optional_json(m.seq_length)},
            {"vocab_size", optional_json(m.vocab_size)},
            {"num_experts", optional_json(m.num_experts)}}},
          {"warnings", warnings}};
}

std::string training_log_text(const MeasuredRun& run) {
  std::string out = "# " + run.origin + ": " + training_framework_name(run.framework) + ", " +
                    std::to_string(run.iterations.size()) + " iteration record(s)";
  if (!run.excluded_iterations.empty()) {
    out += "; warm-up excluded: iteration";
    for (const int64_t i : run.excluded_iterations) out += " " + std::to_string(i);
  }
  out += "\n";
  if (run.step_time_s) {
    const SpreadStats& s = *run.step_time_s;
    out += "step time        " + format("%.4f s", s.median) + " median of " + std::to_string(s.count) + " (" +
           format("%.4f", s.min) + " .. " + format("%.4f s", s.max) + ", spread " +
           format("%.1f %%", 100 * s.relative_spread) + ")  [" + run.step_time_source + "]\n";
  } else {
    out += "step time        -\n";
  }
  if (run.tflops_per_gpu) out += "TFLOP/s per GPU  " + format("%.2f", run.tflops_per_gpu->median) + " median\n";
  if (run.tokens_per_s_per_gpu)
    out += "tokens/s per GPU " + format("%.1f", run.tokens_per_s_per_gpu->median) + " median  [" +
           run.tokens_per_s_source + "]\n";
  if (run.samples_per_s) out += "samples/s        " + format("%.3f", run.samples_per_s->median) + " median\n";
  if (run.peak_memory_bytes)
    out += "peak memory      " + format("%.0f MiB", *run.peak_memory_bytes / (1024.0 * 1024.0)) + " (" +
           run.peak_memory_quantity + ")\n";
  if (run.max_reserved_bytes && run.peak_memory_quantity != "max reserved")
    out += "max reserved     " + format("%.0f MiB", *run.max_reserved_bytes / (1024.0 * 1024.0)) + "\n";
  const std::string layout = run.layout.layout_keys(), train = run.layout.train_keys();
  if (!layout.empty()) out += "--layout " + layout + "\n";
  if (!train.empty()) out += "--train " + train + "\n";
  for (const auto& w : run.warnings)
    out +=
        "# warning" + (w.line > 0 ? " (line " + std::to_string(w.line) + ")" : std::string()) + ": " + w.message + "\n";
  return out;
}

}  // namespace meshscope
