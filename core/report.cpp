#include "core/report.hpp"

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

json memory_report(const MemoryBudget& budget) {
  json ranks = json::array();
  for (const auto& rank : budget.ranks) {
    json categories = json::object();
    json formulas = json::object();
    for (const auto& item : rank.items) {
      categories[std::string(category_name(item.category))] = item.bytes;
      formulas[std::string(category_name(item.category))] = item.formula;
    }
    ranks.push_back({{"role", rank.role},
                     {"pp_stage", rank.pp_stages.front()},
                     {"pp_stages", rank.pp_stages},
                     {"layers", rank.layers},
                     {"params_on_rank", rank.params_on_rank},
                     {"in_flight_micro_batches", rank.in_flight_micro_batches},
                     {"categories", categories},
                     {"formulas", formulas},
                     {"total_bytes", rank.total_bytes()}});
  }
  json doc = {{"ranks", ranks},
              {"peak_total_bytes", budget.peak_total_bytes()},
              {"capacity_bytes", budget.capacity_bytes},
              {"fits", budget.fits()},
              {"convention", budget.convention}};
  if (budget.kv_bytes_per_token > 0) {
    doc["kv_bytes_per_token"] = budget.kv_bytes_per_token;
    doc["max_concurrency"] = budget.max_concurrency;
  }
  return doc;
}

json problems_report(const std::vector<LayoutProblem>& problems) {
  json list = json::array();
  for (const auto& p : problems) list.push_back({{"field", p.field}, {"message", p.message}});
  return list;
}

json estimate_report(const StepEstimate& e) {
  const StepBreakdown& b = e.breakdown;
  json doc = {{"step_time_s", e.step_time_s},
              {"tokens_per_s", e.tokens_per_s},
              {"tokens_per_s_per_gpu", e.tokens_per_s_per_gpu},
              {"model_tflops_per_gpu", e.model_tflops_per_gpu},
              {"hardware_tflops_per_gpu", e.hardware_tflops_per_gpu},
              {"mfu", e.mfu},
              {"hfu", e.hfu},
              {"bubble_fraction", e.bubble_fraction},
              {"micro_batches", e.micro_batches},
              {"breakdown",
               {{"forward_s", b.forward_s},
                {"backward_s", b.backward_s},
                {"recompute_s", b.recompute_s},
                {"tp_exposed_s", b.tp_exposed_s},
                {"cp_exposed_s", b.cp_exposed_s},
                {"ep_exposed_s", b.ep_exposed_s},
                {"pp_p2p_s", b.pp_p2p_s},
                {"bubble_s", b.bubble_s},
                {"dp_exposed_s", b.dp_exposed_s},
                {"optimizer_s", b.optimizer_s}}},
              {"peak_memory_bytes", e.peak_memory_bytes},
              {"peak_allocated_bytes", e.peak_allocated_bytes},
              {"peak_reserved_bytes", e.peak_reserved_bytes},
              {"fits_in_memory", e.fits_in_memory},
              {"assumptions", e.assumptions}};
  json operations = json::array();
  for (const auto& op : e.operations)
    operations.push_back({{"name", op.name},
                          {"flops", op.flops},
                          {"bytes", op.bytes},
                          {"forward_s", op.forward_s},
                          {"backward_input_s", op.backward_input_s},
                          {"backward_weight_s", op.backward_weight_s},
                          {"host_forward_s", op.host_forward_s},
                          {"host_backward_s", op.host_backward_s}});
  doc["operations"] = operations;
  return doc;
}

}  // namespace meshscope
