#include "core/report/serving.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include <string>
#include "core/report/text.hpp"
#include "core/report/units.hpp"

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

// "TP2 PP1 ×4", with DP and EP when used.
std::string layout_text(const ServingLayout& l) {
  std::string text = "TP" + std::to_string(l.tp) + " PP" + std::to_string(l.pp);
  if (l.dp > 1) text += " DP" + std::to_string(l.dp);
  if (l.ep > 1) text += " EP" + std::to_string(l.ep);
  return text + " ×" + std::to_string(l.replicas);
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

std::string serving_text(const std::string& model_name, const std::string& cluster_name, const ServingLayout& layout,
                         const ServingEstimate& e, const std::optional<OfflineRun>& offline) {
  std::ostringstream out;
  printf_to(out, "%s on %s: TP%lld PP%lld DP%lld EP%lld × %lld replicas (%lld GPUs)\n", model_name.c_str(),
            cluster_name.c_str(), static_cast<long long>(layout.tp), static_cast<long long>(layout.pp),
            static_cast<long long>(layout.dp), static_cast<long long>(layout.ep),
            static_cast<long long>(layout.replicas), static_cast<long long>(layout.gpus()));
  printf_to(out, "  at %lld sequences per replica: TTFT %.1f ms, ITL %.2f ms, end-to-end %.2f s\n",
            static_cast<long long>(e.point.concurrency), ms_from_s(e.point.ttft_s), ms_from_s(e.point.itl_s),
            e.point.e2e_latency_s);
  printf_to(out, "  %.0f output tokens/s (%.1f per GPU, %.1f per replica), bound by %s%s\n", e.output_tokens_per_s,
            e.output_tokens_per_s_per_gpu, e.output_tokens_per_s_per_replica,
            std::string(serving_binding_name(e.point.binding)).c_str(), e.overloaded ? " (OVERLOADED)" : "");
  printf_to(out, "  largest batch %lld per replica (KV cache holds %lld); lone prompt %.1f ms, lone step %.2f ms\n",
            static_cast<long long>(e.max_batch), static_cast<long long>(e.kv_max_batch), ms_from_s(e.lone_prefill_s),
            ms_from_s(e.lone_decode_step_s));
  if (offline)
    printf_to(out, "  offline run of %lld requests: %.1f s, %.0f output tokens/s per replica, mean TTFT %.2f s\n",
              static_cast<long long>(offline->requests), offline->total_s, offline->output_tokens_per_s,
              offline->mean_ttft_s);
  printf_to(out, "\n  %11s %14s %10s %10s  %s\n", "concurrency", "output tok/s", "ITL (ms)", "TTFT (ms)", "binding");
  for (const auto& p : e.curve)
    printf_to(out, "  %11lld %14.0f %10.2f %10.1f  %s\n", static_cast<long long>(p.concurrency), p.output_tokens_per_s,
              ms_from_s(p.itl_s), ms_from_s(p.ttft_s), std::string(serving_binding_name(p.binding)).c_str());
  for (const auto& a : e.assumptions) printf_to(out, "  - %s\n", a.c_str());
  return out.str();
}

std::string disaggregated_serving_text(const std::string& model_name, const std::string& cluster_name,
                                       const DisaggregatedLayout& layout, const DisaggregatedEstimate& e) {
  std::ostringstream out;
  printf_to(
      out, "%s, disaggregated on %s: %lld prefill GPUs (TP%lld PP%lld ×%lld), %lld decode GPUs (TP%lld PP%lld ×%lld)\n",
      model_name.c_str(), cluster_name.c_str(), static_cast<long long>(layout.prefill.gpus()),
      static_cast<long long>(layout.prefill.tp), static_cast<long long>(layout.prefill.pp),
      static_cast<long long>(layout.prefill.replicas), static_cast<long long>(layout.decode.gpus()),
      static_cast<long long>(layout.decode.tp), static_cast<long long>(layout.decode.pp),
      static_cast<long long>(layout.decode.replicas));
  printf_to(out, "  TTFT %.1f ms (KV transfer %.2f ms of %s), ITL %.2f ms, end-to-end %.2f s\n", ms_from_s(e.ttft_s),
            ms_from_s(e.kv_transfer_s), gib_text(e.kv_bytes_per_request).c_str(), ms_from_s(e.itl_s), e.e2e_latency_s);
  printf_to(out, "  %.0f output tokens/s (%.1f per GPU), bound by the %s (%s); prefill %.2f req/s, decode %.2f req/s\n",
            e.output_tokens_per_s, e.output_tokens_per_s_per_gpu, e.bound_by.c_str(),
            std::string(serving_binding_name(e.binding)).c_str(), e.prefill_requests_per_s, e.decode_requests_per_s);
  return out.str();
}

std::string serving_rank_text(const std::string& model_name, const std::string& cluster_name,
                              const ServingRankResult& result) {
  std::ostringstream out;
  printf_to(out, "%s on %s: %lld candidates, %lld meet the target\n", model_name.c_str(), cluster_name.c_str(),
            static_cast<long long>(result.evaluated), static_cast<long long>(result.valid));
  for (const auto& [reason, count] : result.rejected)
    printf_to(out, "  rejected %6lld  %s\n", static_cast<long long>(count), reason.c_str());
  printf_to(out, "\n%4s %-44s %5s %6s %9s %8s %10s  %s\n", "#", "layout", "GPUs", "batch", "TTFT (ms)", "ITL (ms)",
            "tok/s/GPU", "binding");
  int index = 1;
  for (const auto& r : result.layouts) {
    const std::string text = r.disaggregated ? "P: " + layout_text(r.prefill_layout) + " | D: " + layout_text(r.layout)
                                             : layout_text(r.layout);
    printf_to(out, "%4d %-44s %5lld %6lld %9.1f %8.2f %10.1f  %s%s%s\n", index++, text.c_str(),
              static_cast<long long>(r.gpus_used), static_cast<long long>(r.concurrency), ms_from_s(r.ttft_s),
              ms_from_s(r.itl_s), r.output_tokens_per_s_per_gpu, std::string(serving_binding_name(r.binding)).c_str(),
              r.disaggregated ? ", " : "", r.bound_by.c_str());
  }
  return out.str();
}

}  // namespace meshscope
