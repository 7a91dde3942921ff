#include "core/report/scaling.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/base/enum_names.hpp"
#include "core/keys/options.hpp"
#include "core/report/search.hpp"
#include "core/report/text.hpp"
#include "core/report/units.hpp"
#include "core/topology/placement.hpp"

namespace meshscope {

using nlohmann::json;

namespace {

json point_json(const ScalingPoint& p) {
  json point = {{"gpus", p.gpus}, {"cluster", p.cluster}, {"global_batch", p.global_batch}, {"valid", p.valid}};
  if (!p.valid) {
    json reasons = json::array();
    for (const auto& [reason, count] : p.top_rejections) reasons.push_back({{"reason", reason}, {"count", count}});
    point["error"] = p.error;
    point["top_rejections"] = reasons;
    return point;
  }
  point["best_layout"] = ranked_layout_keys_json(p.best);
  point["step_time_s"] = p.best.step_time_s;
  point["tokens_per_s"] = p.tokens_per_s;
  point["tokens_per_s_per_gpu"] = p.best.tokens_per_s_per_gpu;
  point["mfu"] = p.best.mfu;
  point["peak_memory_bytes"] = p.best.peak_memory_bytes;
  point["scaling_efficiency"] = p.scaling_efficiency;
  point["layout_changed"] = p.layout_changed;
  point["layout_change"] = p.layout_change;
  return point;
}

// The mesh keys that are not 1 (tp, pp, dp and the micro-batch always), then the search's choices.
std::string layout_line(const RankedLayout& r) {
  std::string text;
  for (const auto& [key, value] : ranked_layout_keys(r)) {
    const bool always = key == "tp" || key == "pp" || key == "dp" || key == "micro_batch" || key == "recompute" ||
                        key == "zero" || key == "schedule";
    if (!always && (value == "1" || value == "0" || value == "false" || value == "megatron")) continue;
    text += (text.empty() ? "" : " ") + key + "=" + value;
  }
  return text;
}

}  // namespace

json scaling_report(const ScalingResult& r) {
  json baseline = nullptr;
  if (r.has_baseline)
    baseline = {{"gpus", r.baseline_gpus},
                {"tokens_per_s_per_gpu", r.baseline_tokens_per_s_per_gpu},
                {"step_time_s", r.baseline_step_time_s},
                {"definition", r.efficiency_definition}};
  // Each point carries its efficiency's baseline too (issue 17: a percentage without its denominator is
  // meaningless, also for a consumer that reads one point).
  json points = json::array();
  for (const ScalingPoint& p : r.points) {
    points.push_back(point_json(p));
    points.back()["baseline"] = baseline;
  }
  return {{"mode", scaling_mode_name(r.mode)},
          {"cluster_family", r.cluster_family},
          {"gpus_per_node", r.gpus_per_node},
          {"baseline_global_batch", r.baseline_global_batch},
          {"baseline_batch_gpus", r.baseline_batch_gpus},
          {"efficiency_definition", r.efficiency_definition},
          {"baseline", baseline},
          {"points", points}};
}

std::string scaling_text(const ScalingResult& r) {
  std::ostringstream out;
  printf_to(out, "%s\n\n", r.efficiency_definition.c_str());
  printf_to(out, "%7s %8s %10s %12s %10s %6s %7s  %s\n", "GPUs", "batch", "step (s)", "tokens/s", "tok/s/GPU", "MFU",
            "eff.", "best layout");
  for (const ScalingPoint& p : r.points) {
    if (!p.valid) {
      printf_to(out, "%7lld %8lld  invalid: %s\n", static_cast<long long>(p.gpus),
                static_cast<long long>(p.global_batch), p.error.c_str());
      for (const auto& [reason, count] : p.top_rejections)
        printf_to(out, "%17s rejected %lld: %s\n", "", static_cast<long long>(count), reason.c_str());
      continue;
    }
    printf_to(out, "%7lld %8lld %10.3f %12.0f %10.1f %5.1f%% %6.1f%%  %s\n", static_cast<long long>(p.gpus),
              static_cast<long long>(p.global_batch), p.best.step_time_s, p.tokens_per_s, p.best.tokens_per_s_per_gpu,
              percent(p.best.mfu), percent(p.scaling_efficiency), layout_line(p.best).c_str());
    if (p.layout_changed) printf_to(out, "%17s layout changed: %s\n", "", p.layout_change.c_str());
  }
  return out.str();
}

}  // namespace meshscope
