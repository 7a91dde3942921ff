#include "core/report/serving.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace meshscope {

using nlohmann::json;

namespace {

json layout_json(const ServingLayout& l) {
  json doc = json::object();
  for (const auto& [key, value] : serving_layout_to_keys(l)) doc[key] = std::stoll(value);
  return doc;
}

json point_json(const ServingPoint& p) {
  return {{"concurrency", p.concurrency},
          {"running", p.running},
          {"output_tokens_per_s", p.output_tokens_per_s},
          {"requests_per_s", p.requests_per_s},
          {"ttft_s", p.ttft_s},
          {"itl_s", p.itl_s},
          {"e2e_latency_s", p.e2e_latency_s},
          {"binding", serving_binding_name(p.binding)}};
}

json step_json(const StepCost& c) {
  return {{"time_s", c.time_s},
          {"compute_s", c.compute_s},
          {"memory_s", c.memory_s},
          {"communication_s", c.communication_s},
          {"overhead_s", c.overhead_s},
          {"weight_bytes", c.weight_bytes},
          {"kv_bytes", c.kv_bytes},
          {"flops", c.flops},
          {"binding", serving_binding_name(c.binding)}};
}

}  // namespace

json serving_layout_report(const ServingLayout& layout) {
  return layout_json(layout);
}

json serving_report(const ServingLayout& layout, const ServingEstimate& e, const std::optional<OfflineRun>& offline) {
  json curve = json::array();
  for (const auto& p : e.curve) curve.push_back(point_json(p));
  json doc = {{"layout", layout_json(layout)},
              {"gpus", layout.gpus()},
              {"concurrency", e.point.concurrency},
              {"ttft_s", e.point.ttft_s},
              {"itl_s", e.point.itl_s},
              {"e2e_latency_s", e.point.e2e_latency_s},
              {"requests_per_s", e.point.requests_per_s},
              {"output_tokens_per_s", e.output_tokens_per_s},
              {"output_tokens_per_s_per_gpu", e.output_tokens_per_s_per_gpu},
              {"output_tokens_per_s_per_replica", e.output_tokens_per_s_per_replica},
              {"max_batch", e.max_batch},
              {"kv_max_batch", e.kv_max_batch},
              {"binding", serving_binding_name(e.point.binding)},
              {"overloaded", e.overloaded},
              {"lone_prefill_s", e.lone_prefill_s},
              {"lone_decode_step_s", e.lone_decode_step_s},
              {"step", step_json(e.point.step)},
              {"peak_memory_bytes", e.memory.peak_total_bytes()},
              {"curve", curve},
              {"assumptions", e.assumptions}};
  if (offline) {
    const auto replicas = static_cast<double>(layout.replicas);
    doc["offline"] = {
        {"requests", offline->requests},
        {"iterations", offline->iterations},
        {"peak_batch", offline->peak_batch},
        {"total_s", offline->total_s},
        {"output_tokens_per_s", offline->output_tokens_per_s * replicas},
        {"output_tokens_per_s_per_gpu", offline->output_tokens_per_s / static_cast<double>(layout.instance_gpus())},
        {"mean_ttft_s", offline->mean_ttft_s},
        {"mean_itl_s", offline->mean_itl_s}};
  }
  return doc;
}

json disaggregated_serving_report(const DisaggregatedLayout& layout, const DisaggregatedEstimate& e) {
  return {{"disaggregated", true},
          {"prefill_layout", layout_json(layout.prefill)},
          {"decode_layout", layout_json(layout.decode)},
          {"gpus", layout.gpus()},
          {"ttft_s", e.ttft_s},
          {"itl_s", e.itl_s},
          {"e2e_latency_s", e.e2e_latency_s},
          {"kv_transfer_s", e.kv_transfer_s},
          {"kv_bytes_per_request", e.kv_bytes_per_request},
          {"prefill_requests_per_s", e.prefill_requests_per_s},
          {"decode_requests_per_s", e.decode_requests_per_s},
          {"output_tokens_per_s", e.output_tokens_per_s},
          {"output_tokens_per_s_per_gpu", e.output_tokens_per_s_per_gpu},
          {"prefill_batch", e.prefill_batch},
          {"max_batch", e.decode_batch},
          {"bound_by", e.bound_by},
          {"binding", serving_binding_name(e.binding)}};
}

json serving_rank_report(const ServingRankResult& result, const ServingTarget& target) {
  json layouts = json::array();
  for (const auto& r : result.layouts) {
    json entry = {{"kind", r.disaggregated ? "disaggregated" : "colocated"},
                  {"layout", layout_json(r.layout)},
                  {"gpus_used", r.gpus_used},
                  {"concurrency", r.concurrency},
                  {"ttft_s", r.ttft_s},
                  {"itl_s", r.itl_s},
                  {"output_tokens_per_s", r.output_tokens_per_s},
                  {"output_tokens_per_s_per_gpu", r.output_tokens_per_s_per_gpu},
                  {"binding", serving_binding_name(r.binding)}};
    if (r.disaggregated) {
      entry["prefill_layout"] = layout_json(r.prefill_layout);
      entry["decode_layout"] = layout_json(r.layout);
      entry["bound_by"] = r.bound_by;
    }
    layouts.push_back(entry);
  }
  json target_doc = json::object();
  if (std::isfinite(target.max_ttft_s)) target_doc["max_ttft_s"] = target.max_ttft_s;
  if (std::isfinite(target.max_itl_s)) target_doc["max_itl_s"] = target.max_itl_s;
  return {{"evaluated", result.evaluated},
          {"valid", result.valid},
          {"rejected", result.rejected},
          {"target", target_doc},
          {"layouts", layouts}};
}

}  // namespace meshscope
