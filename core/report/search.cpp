#include "core/report/search.hpp"

#include <nlohmann/json.hpp>

namespace meshscope {

using nlohmann::json;

namespace {

json ranked_layout_json(const RankedLayout& r) {
  json layout = json::object();
  for (const auto& [key, value] : layout_to_keys(r.layout)) layout[key] = value;
  layout["recompute"] = recompute_name(r.recompute);
  layout["zero"] = r.zero_stage;
  layout["schedule"] = pipeline_schedule_name(r.schedule);
  layout["order"] = axis_order_name(r.order);
  layout["tp_comm_overlap"] = r.tp_comm_overlap;
  return {{"layout", layout},
          {"step_time_s", r.step_time_s},
          {"tokens_per_s_per_gpu", r.tokens_per_s_per_gpu},
          {"mfu", r.mfu},
          {"peak_memory_bytes", r.peak_memory_bytes},
          {"headroom_bytes", r.headroom_bytes},
          {"bubble_fraction", r.bubble_fraction},
          {"cost_per_million_tokens", r.cost_per_million_tokens},
          {"refined", r.refined}};
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
  return {{"schedule", pipeline_schedule_name(schedule)},
          {"makespan", result.makespan_s},
          {"bubble_fraction", result.bubble_fraction},
          {"peak_in_flight", result.peak_in_flight},
          {"events", events}};
}

}  // namespace meshscope
