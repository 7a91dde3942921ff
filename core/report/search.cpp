#include "core/report/search.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/framework/framework.hpp"
#include "core/report/text.hpp"
#include "core/report/units.hpp"
#include "core/search/ties.hpp"

namespace meshscope {

using nlohmann::json;

namespace {

json frameworks_json(uint32_t bits);

json ranked_layout_json(const RankedLayout& r) {
  return {{"layout", ranked_layout_keys_json(r)},
          {"step_time_s", r.step_time_s},
          {"tokens_per_s_per_gpu", r.tokens_per_s_per_gpu},
          {"mfu", r.mfu},
          {"peak_memory_bytes", r.peak_memory_bytes},
          {"headroom_bytes", r.headroom_bytes},
          {"bubble_fraction", r.bubble_fraction},
          {"cost_per_million_tokens", r.cost_per_million_tokens},
          {"refined", r.refined},
          {"known_gaps", r.known_gaps},
          {"frameworks", frameworks_json(r.frameworks)},
          {"tie_group", r.tie_group},
          {"uncertainty", r.uncertainty}};
}

json frameworks_json(uint32_t bits) {
  json names = json::array();
  for (const Framework f : frameworks_in(bits)) names.push_back(enum_name(f));
  return names;
}

std::string_view work_kind_name(WorkKind kind) {
  switch (kind) {
    case WorkKind::forward:
      return "F";
    case WorkKind::backward_input:
      return "B";
    case WorkKind::backward_weight:
      return "W";
    case WorkKind::backward:
      return "BW";
  }
  return "?";
}

}  // namespace

json ranked_layout_keys_json(const RankedLayout& r) {
  json layout = json::object();
  for (const auto& [key, value] : layout_to_keys(r.layout)) layout[key] = value;
  layout["recompute"] = recompute_name(r.recompute);
  layout["zero"] = r.zero_stage;
  layout["schedule"] = enum_name(r.schedule);
  layout["order"] = axis_order_name(r.order);
  layout["tp_comm_overlap"] = r.tp_comm_overlap;
  return layout;
}

json ranked_layouts_report(const SearchResult& result, RankObjective objective) {
  json layouts = json::array();
  for (const auto& r : result.layouts) layouts.push_back(ranked_layout_json(r));
  return {{"evaluated", result.evaluated},
          {"valid", result.valid},
          {"collapsed", result.collapsed},
          {"rejected", result.rejected},
          {"largest_overflow_bytes", result.largest_overflow_bytes},
          {"elapsed_s", result.elapsed_s},
          {"objective", rank_objective_name(objective)},
          {"framework", enum_name(result.framework)},
          {"layouts", layouts}};
}

json schedule_report(PipelineSchedule schedule, const ScheduleResult& result) {
  json events = json::array();
  for (const auto& e : result.events)
    events.push_back({{"stage", e.stage},
                      {"kind", work_kind_name(e.kind)},
                      {"micro_batch", e.micro_batch},
                      {"chunk", e.chunk},
                      {"start", e.start_s},
                      {"end", e.end_s}});
  return {{"schedule", enum_name(schedule)},
          {"makespan", result.makespan_s},
          {"bubble_fraction", result.bubble_fraction},
          {"peak_in_flight", result.peak_in_flight},
          {"events", events}};
}

std::string ranked_layouts_text(const SearchResult& result) {
  std::ostringstream out;
  printf_to(out, "%lld candidates in %.3f s: %lld valid, %lld collapsed\n", static_cast<long long>(result.evaluated),
            result.elapsed_s, static_cast<long long>(result.valid), static_cast<long long>(result.collapsed));
  for (const auto& [reason, count] : result.rejected)
    printf_to(out, "  rejected %8lld  %s\n", static_cast<long long>(count), reason.c_str());
  const FrameworkSpec& framework = framework_spec(result.framework);
  printf_to(out, "framework: %s (%s %s)\n", std::string(enum_name(result.framework)).c_str(),
            std::string(framework.title).c_str(), std::string(framework.version).c_str());
  printf_to(out, "\n%4s %4s %-52s %10s %10s %7s %10s  %s\n", "#", "tie", "layout", "step (s)", "tok/s/GPU", "MFU",
            "memory", "runs in");
  int index = 1;
  bool ties = false;
  for (const auto& r : result.layouts) {
    char layout[160];
    std::snprintf(layout, sizeof layout, "TP%lld CP%lld PP%lld v%lld DP%lld EP%lld mbs%lld %s z%d %s%s%s",
                  static_cast<long long>(r.layout.tp), static_cast<long long>(r.layout.cp),
                  static_cast<long long>(r.layout.pp), static_cast<long long>(r.layout.vpp),
                  static_cast<long long>(r.layout.dp), static_cast<long long>(r.layout.ep),
                  static_cast<long long>(r.layout.micro_batch), std::string(recompute_name(r.recompute)).c_str(),
                  r.zero_stage, std::string(enum_name(r.schedule)).c_str(),
                  r.order == AxisOrder::megatron ? "" : (" " + std::string(axis_order_name(r.order))).c_str(),
                  r.tp_comm_overlap ? " tp-overlap" : "");
    std::string gaps;
    for (const std::string& gap : r.known_gaps) gaps += (gaps.empty() ? "  ! " : ", ") + gap;
    const bool tied = tie_group_size(result.layouts, r.tie_group) > 1;
    ties = ties || tied;
    const std::string tie = tied ? "=" + std::to_string(r.tie_group) : "";
    printf_to(out, "%4d %4s %-52s %10.3f %10.1f %6.1f%% %10s  %s%s\n", index++, tie.c_str(), layout, r.step_time_s,
              r.tokens_per_s_per_gpu, percent(r.mfu), gib_text(r.peak_memory_bytes).c_str(),
              frameworks_text(r.frameworks).c_str(), gaps.c_str());
  }
  if (ties)
    printf_to(out,
              "= tie: the layouts of one group are within the model's uncertainty of the group's first (the "
              "validation set's median |error| for the regime, docs/validation.md); the model cannot order them\n");
  if (std::any_of(result.layouts.begin(), result.layouts.end(),
                  [](const RankedLayout& r) { return !r.known_gaps.empty(); }))
    printf_to(out,
              "! known gap: published runs like the marked layouts differ from the model by more than 20 %% "
              "(estimate names the runs; docs/estimate.md#known-gaps)\n");
  return out.str();
}

std::string schedule_text(const ScheduleInput& input, const ScheduleResult& result) {
  std::ostringstream out;
  printf_to(out, "%s: p=%lld m=%lld v=%lld, makespan %.3f, bubble %.1f %%\n",
            std::string(enum_name(input.schedule)).c_str(), static_cast<long long>(input.stages),
            static_cast<long long>(input.micro_batches), static_cast<long long>(input.virtual_stages),
            result.makespan_s, percent(result.bubble_fraction));
  for (size_t s = 0; s < result.peak_in_flight.size(); ++s)
    printf_to(out, "  stage %zu: peak %.2f micro-batches in flight\n", s, result.peak_in_flight[s]);
  return out.str();
}

}  // namespace meshscope
