#include "core/report/importers.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/report/units.hpp"

namespace meshscope {

using nlohmann::json;

namespace {

json number_or_null(double value) {
  return std::isfinite(value) ? json(value) : json(nullptr);
}

json temporal_json(const KinetoTemporalBreakdown& t) {
  return {{"idle_us", t.idle_us},
          {"compute_us", t.compute_us},
          {"non_compute_us", t.non_compute_us},
          {"kernel_time_us", t.kernel_time_us},
          {"idle_pct", t.idle_pct()},
          {"compute_pct", t.compute_pct()},
          {"non_compute_pct", t.non_compute_pct()}};
}

json rank_json(const KinetoRankAnalysis& a) {
  json steps = json::array();
  for (const auto& s : a.steps) {
    json devices = json::array();
    for (const auto& d : s.devices)
      devices.push_back({{"device", d.device},
                         {"busy_us", d.busy_us},
                         {"kernel_time_us", d.kernel_time_us},
                         {"compute_us", d.compute_us},
                         {"communication_us", d.communication_us},
                         {"exposed_communication_us", d.exposed_communication_us},
                         {"idle_us", d.idle_us},
                         {"gpu_events", d.gpu_events}});
    const auto& l = s.launched;
    steps.push_back({{"name", s.name},
                     {"start_us", s.start_us},
                     {"duration_us", s.duration_us},
                     {"device", s.device},
                     {"busy_us", s.busy_us},
                     {"kernel_time_us", s.kernel_time_us},
                     {"compute_us", s.compute_us},
                     {"communication_us", s.communication_us},
                     {"exposed_communication_us", s.exposed_communication_us},
                     {"compute_or_communication_us", s.compute_or_communication_us},
                     {"idle_us", s.idle_us},
                     {"gpu_events", s.gpu_events},
                     {"devices", devices},
                     {"launched",
                      {{"kernel_time_us", l.kernel_time_us},
                       {"compute_us", l.compute_us},
                       {"communication_us", l.communication_us},
                       {"exposed_communication_us", l.exposed_communication_us},
                       {"idle_us", l.idle_us},
                       {"gpu_events", l.gpu_events}}}});
  }
  json families = json::array();
  for (const auto& f : a.kernel_families)
    families.push_back({{"rule", f.rule >= 0 ? json(f.rule) : json(nullptr)},
                        {"pattern", f.pattern},
                        {"library", f.library},
                        {"source", f.source},
                        {"class", std::string(kernel_class_name(f.cls))},
                        {"op", f.op ? json(std::string(collective_op_name(*f.op))) : json(nullptr)},
                        {"names", f.names},
                        {"count", f.count},
                        {"time_us", f.time_us},
                        {"example", f.example}});
  json collectives = json::array();
  for (const auto& c : a.collectives)
    collectives.push_back({{"op", c.op ? json(std::string(collective_op_name(*c.op))) : json(nullptr)},
                           {"process_group", c.process_group},
                           {"group_size", c.group_size > 0 ? json(c.group_size) : json(nullptr)},
                           {"group_size_assumed", c.group_size_assumed},
                           {"count", c.count},
                           {"count_with_bytes", c.count_with_bytes},
                           {"bytes", c.bytes},
                           {"time_us", c.time_us},
                           {"algbw_GBps", number_or_null(gb_per_s(c.algbw_bytes_per_s))},
                           {"busbw_GBps", number_or_null(gb_per_s(c.busbw_bytes_per_s))},
                           {"on_cpu", c.on_cpu}});
  json classes = json::array();
  for (const auto& c : a.classes)
    classes.push_back({{"class", std::string(kernel_class_name(c.cls))}, {"count", c.count}, {"time_us", c.time_us}});
  json groups = json::array();
  for (const auto& g : a.process_groups)
    groups.push_back({{"name", g.name},
                      {"description", g.description},
                      {"size", g.size},
                      {"stride", g.stride},
                      {"shape", std::string(process_group_shape_name(g.shape))},
                      {"axis_hint", g.axis_hint}});
  json warnings = json::array();
  for (const auto& w : a.warnings) warnings.push_back(w.message);
  return {
      {"file", a.origin},
      {"rank", a.rank},
      {"world_size", a.world_size > 0 ? json(a.world_size) : json(nullptr)},
      {"device", a.device},
      {"steps", steps},
      {"temporal_breakdown", a.temporal ? temporal_json(*a.temporal) : json(nullptr)},
      {"comm_comp_overlap_pct", a.comm_comp_overlap_pct ? json(*a.comm_comp_overlap_pct) : json(nullptr)},
      {"hta_temporal_breakdown", a.hta_temporal ? temporal_json(*a.hta_temporal) : json(nullptr)},
      {"hta_comm_comp_overlap_pct", a.hta_comm_comp_overlap_pct ? json(*a.hta_comm_comp_overlap_pct) : json(nullptr)},
      {"collectives", collectives},
      {"kernel_classes", classes},
      {"kernel_families", families},
      {"process_groups", groups},
      {"warnings", warnings}};
}

}  // namespace

json kineto_run_report(const KinetoRunAnalysis& run) {
  json ranks = json::array();
  for (const auto& r : run.ranks) ranks.push_back(rank_json(r));
  json doc = {{"ranks", ranks}};
  if (run.ranks.size() > 1) {
    doc["skew_us"] = run.step_skew_us ? json(*run.step_skew_us) : json(nullptr);
    doc["slowest_rank"] = run.slowest_rank ? json(*run.slowest_rank) : json(nullptr);
  }
  doc["warnings"] = run.warnings;
  return doc;
}

json nccl_tests_log_report(const NcclTestsLog& log) {
  json points = json::array();
  for (const auto& row : log.rows) {
    points.push_back({{"bytes", row.bytes},
                      {"time_us", number_or_null(us_from_s_rounded(row.out_of_place_time_s))},
                      {"algbw_GBps", number_or_null(gb_per_s(row.out_of_place_algbw_bytes_per_s))},
                      {"busbw_GBps", number_or_null(gb_per_s(row.out_of_place_busbw_bytes_per_s))},
                      {"in_place", false}});
    if (std::isfinite(row.in_place_time_s))
      points.push_back({{"bytes", row.bytes},
                        {"time_us", number_or_null(us_from_s_rounded(row.in_place_time_s))},
                        {"algbw_GBps", number_or_null(gb_per_s(row.in_place_algbw_bytes_per_s))},
                        {"busbw_GBps", number_or_null(gb_per_s(row.in_place_busbw_bytes_per_s))},
                        {"in_place", true}});
  }
  json warnings = json::array();
  for (const auto& w : log.warnings) warnings.push_back({{"line", w.line}, {"message", w.message}});
  return {{"collective", log.op ? json(std::string(collective_op_name(*log.op))) : json(nullptr)},
          {"ranks", log.ranks > 0 ? json(log.ranks) : json(nullptr)},
          {"points", points},
          {"warnings", warnings}};
}

}  // namespace meshscope
