#include "core/report/model.hpp"

#include <nlohmann/json.hpp>

namespace meshscope {

using nlohmann::json;

namespace {
json split_json(const ParamSplit& s) {
  return {{"embedding", s.embedding}, {"attention", s.attention}, {"mlp", s.mlp},  {"experts", s.experts},
          {"router", s.router},       {"norms", s.norms},         {"head", s.head}};
}
}  // namespace

json params_report(const ModelSpec& model) {
  const ParamCounts counts = count_params(model);
  return {{"model", model.name},
          {"total", counts.total_params()},
          {"active", counts.active_params()},
          {"active_excluding_embedding", counts.active_excluding_embedding()},
          {"split", split_json(counts.total)},
          {"active_split", split_json(counts.active)}};
}

json flops_report(const FlopsPerToken& f, int64_t seq_len, bool causal) {
  return {{"seq_len", seq_len},
          {"attention", causal ? "causal" : "full"},
          {"forward_gemm", f.forward_gemm},
          {"forward_attention", f.forward_attention},
          {"forward_head", f.forward_head},
          {"forward", f.forward()},
          {"model_training", f.model_training()},
          {"recompute", f.recompute},
          {"hardware_training", f.hardware_training()}};
}

json presets_report(const std::vector<std::string>& models, const std::vector<GpuSpec>& gpus) {
  json doc = {{"models", models}, {"gpus", json::array()}};
  for (const auto& gpu : gpus)
    doc["gpus"].push_back({{"id", gpu.id}, {"name", gpu.name}, {"memory_bytes", gpu.memory_bytes}});
  return doc;
}

}  // namespace meshscope
