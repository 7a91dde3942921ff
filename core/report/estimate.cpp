#include "core/report/estimate.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/report/text.hpp"
#include "core/report/units.hpp"

namespace meshscope {

using nlohmann::json;

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
  json gaps = json::array();
  for (const auto& gap : e.known_gaps) gaps.push_back({{"id", gap.id}, {"text", gap.text}});
  doc["known_gaps"] = gaps;
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

std::string estimate_text(const std::string& model_name, const std::string& cluster_name, const StepEstimate& e) {
  std::ostringstream out;
  const StepBreakdown& b = e.breakdown;
  printf_to(out, "%s on %s: step %.3f s, %.0f tokens/s (%.1f per GPU)\n", model_name.c_str(), cluster_name.c_str(),
            e.step_time_s, e.tokens_per_s, e.tokens_per_s_per_gpu);
  printf_to(out, "  model %.1f TFLOP/s per GPU (MFU %.1f %%), hardware %.1f TFLOP/s (HFU %.1f %%), bubble %.1f %%\n",
            e.model_tflops_per_gpu, percent(e.mfu), e.hardware_tflops_per_gpu, percent(e.hfu),
            percent(e.bubble_fraction));
  printf_to(out,
            "  busiest stage over the step (the parts add up to the step): compute forward %.3f s, backward %.3f s, "
            "recompute %.3f s\n",
            b.forward_s, b.backward_s, b.recompute_s);
  printf_to(out,
            "  exposed: TP %.3f s, CP %.3f s, EP %.3f s, PP send/recv %.3f s; bubble %.3f s; DP %.3f s; "
            "optimizer %.3f s\n",
            b.tp_exposed_s, b.cp_exposed_s, b.ep_exposed_s, b.pp_p2p_s, b.bubble_s, b.dp_exposed_s, b.optimizer_s);
  printf_to(out, "  peak memory %s (%s)\n", gib_text(e.peak_memory_bytes).c_str(),
            e.fits_in_memory ? "fits" : "DOES NOT FIT");
  for (const auto& a : e.assumptions) printf_to(out, "  - %s\n", a.c_str());
  for (const auto& gap : e.known_gaps) printf_to(out, "  ! known gap: %s\n", gap.text.c_str());
  return out.str();
}

}  // namespace meshscope
