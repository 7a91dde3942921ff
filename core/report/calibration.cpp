#include "core/report/calibration.hpp"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/report/units.hpp"

namespace meshscope {

using nlohmann::json;

namespace {

json number_or_null(double value) {
  return std::isfinite(value) ? json(value) : json(nullptr);
}

json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

}  // namespace

double mean_abs_time_error(const std::vector<CollectiveComparison>& rows) {
  double sum = 0;
  for (const auto& r : rows) sum += std::abs(r.error());
  return rows.empty() ? 0 : sum / static_cast<double>(rows.size());
}

std::string keys_text(const KeyValues& keys) {
  std::string text;
  for (const auto& [key, value] : keys) text += (text.empty() ? "" : ",") + key + "=" + value;
  return text;
}

json nccl_comparison_report(std::string_view collective, std::size_t ranks,
                            const std::vector<CollectiveComparison>& rows) {
  json points = json::array();
  for (const auto& r : rows)
    points.push_back({{"bytes", r.bytes},
                      {"measured_time_s", r.measured_time_s},
                      {"predicted_time_s", r.predicted_time_s},
                      {"measured_busbw_GBps", number_or_null(gb_per_s(r.measured_busbw))},
                      {"predicted_busbw_GBps", number_or_null(gb_per_s(r.predicted_busbw))},
                      {"error", r.error()}});
  return {{"collective", std::string(collective)},
          {"ranks", ranks},
          {"points", points},
          {"mean_abs_error", mean_abs_time_error(rows)}};
}

json calibration_report(const CalibrationResult& fit, double min_bytes) {
  json comm_keys = json::object();
  for (const auto& [key, value] : fit.comm_keys) comm_keys[key] = std::strtod(value.c_str(), nullptr);
  return {{"changes", fit.changes},
          {"comm_keys", comm_keys},
          {"comm", keys_text(fit.comm_keys)},
          {"error_before", fit.error_before},
          {"error_after", fit.error_after},
          {"rows", fit.rows},
          {"min_bytes", min_bytes},
          {"overhead_ll_us", fit.overhead_ll_us},
          {"overhead_pipelined_us", fit.overhead_pipelined_us},
          {"latency_error_before", fit.latency_error_before},
          {"latency_error_after", fit.latency_error_after},
          {"latency_rows", fit.latency_rows}};
}

json trace_comparison_report(const TraceComparison& c, const std::vector<std::string>& notes,
                             const std::optional<GemmEfficiencyHint>& hint) {
  json rows = json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"quantity", r.quantity},
                    {"unit", r.kind == TraceRowKind::time ? "s" : "B/s"},
                    {"measured", r.measured},
                    {"measured_min", r.measured_min},
                    {"measured_max", r.measured_max},
                    {"ranks", r.ranks},
                    {"predicted", optional_number(r.predicted)},
                    {"error", optional_number(r.error())},
                    {"note", r.note}});
  json collectives = json::array();
  for (const auto& k : c.collectives)
    collectives.push_back(
        {{"op", std::string(collective_op_name(k.op))},
         {"group", k.group},
         {"group_size", k.group_size},
         {"count_per_step", k.count_per_step},
         {"mean_message_bytes", k.mean_message_bytes},
         {"measured_busbw_GBps", number_or_null(gb_per_s(k.measured_busbw))},
         {"predicted_busbw_GBps", k.predicted_busbw ? number_or_null(gb_per_s(*k.predicted_busbw)) : json(nullptr)},
         {"predicted_time_s", optional_number(k.predicted_time_s)}});
  json groups = json::array();
  for (const auto& g : c.process_groups)
    groups.push_back({{"name", g.name},
                      {"description", g.description},
                      {"size", g.size},
                      {"stride", g.stride},
                      {"axis", g.axis ? json(std::string(mesh_axis_name(*g.axis))) : json(nullptr)},
                      {"label", g.label},
                      {"reason", g.reason}});
  json doc = {{"world_size", c.world_size}, {"ranks", c.ranks},         {"steps", c.steps}, {"rows", rows},
              {"collectives", collectives}, {"process_groups", groups}, {"notes", notes}};
  if (hint)
    doc["gemm_efficiency"] = {{"before", hint->before},
                              {"after", hint->after},
                              {"compute_error_before", hint->compute_error_before},
                              {"compute_error_after", hint->compute_error_after},
                              {"at_limit", hint->at_limit},
                              {"efficiency", hint->efficiency_key}};
  return doc;
}

}  // namespace meshscope
