#include "core/report/calibration.hpp"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/report/text.hpp"
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

// A row's value in the table's unit: ms for times, GB/s for bandwidths.
std::string table_value(const TraceCompareRow& row, double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", row.kind == TraceRowKind::time ? ms_from_s(value) : gb_per_s(value));
  return buffer;
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

std::string nccl_comparison_text(std::string_view collective, std::size_t ranks, const std::string& log_path,
                                 const std::string& cluster_name, const std::vector<CollectiveComparison>& rows) {
  std::ostringstream out;
  const std::string op(collective);
  const double mean_error = mean_abs_time_error(rows);
  printf_to(out, "# %s over %zu GPUs: measured (%s) vs predicted (%s)\n", op.c_str(), ranks, log_path.c_str(),
            cluster_name.c_str());
  printf_to(out, "#%14s %12s %12s %10s %10s %8s\n", "size (B)", "meas (us)", "pred (us)", "meas busbw", "pred busbw",
            "error");
  for (const auto& r : rows)
    printf_to(out, "%15.0f %12.2f %12.2f %10.2f %10.2f %+7.1f%%\n", r.bytes, us_from_s(r.measured_time_s),
              us_from_s(r.predicted_time_s), gb_per_s(r.measured_busbw), gb_per_s(r.predicted_busbw),
              percent(r.error()));
  printf_to(out, "# mean |time error| %.1f %% over %zu sizes (error: predicted / measured time - 1)\n",
            percent(mean_error), rows.size());
  return out.str();
}

std::string calibration_text(const CalibrationResult& fit, std::size_t logs, double min_bytes) {
  std::ostringstream out;
  const std::string keys = keys_text(fit.comm_keys);
  printf_to(out, "# calibrated on %zu log(s), %lld rows of at least %.0f B\n", logs, static_cast<long long>(fit.rows),
            min_bytes);
  for (const auto& change : fit.changes) printf_to(out, "#   %s\n", change.c_str());
  printf_to(out, "# mean |time error| %.1f %% -> %.1f %%\n", percent(fit.error_before), percent(fit.error_after));
  printf_to(out, "--comm %s\n", keys.c_str());
  return out.str();
}

std::string trace_comparison_text(const std::string& trace, const std::string& model_name,
                                  const std::string& cluster_name, const TraceComparison& c,
                                  const std::vector<std::string>& notes,
                                  const std::optional<GemmEfficiencyHint>& hint) {
  std::ostringstream out;
  printf_to(out, "# %s: %lld rank(s), %lld ProfilerStep(s) vs %s on %s (%lld ranks)\n", trace.c_str(),
            static_cast<long long>(c.ranks), static_cast<long long>(c.steps), model_name.c_str(), cluster_name.c_str(),
            static_cast<long long>(c.world_size));
  printf_to(out,
            "# times in ms per step, bandwidths in GB/s; measured: mean over ranks (min..max); "
            "error: predicted / measured - 1\n");
  printf_to(out, "%-26s %12s %21s %12s %9s\n", "quantity", "measured", "(min..max)", "predicted", "error");
  for (const auto& r : c.rows) {
    const std::string range =
        r.ranks > 1 ? table_value(r, r.measured_min) + ".." + table_value(r, r.measured_max) : std::string();
    char error[16] = "-";
    if (const auto e = r.error()) std::snprintf(error, sizeof error, "%+.1f%%", percent(*e));
    printf_to(out, "%-26s %12s %21s %12s %9s\n", r.quantity.c_str(), table_value(r, r.measured).c_str(), range.c_str(),
              r.predicted ? table_value(r, *r.predicted).c_str() : "-", error);
  }
  for (const auto& g : c.process_groups)
    printf_to(out, "# pg %s (%s): %s - %s\n", g.name.c_str(), g.description.c_str(), g.label.c_str(), g.reason.c_str());
  if (hint)
    printf_to(out, "# GEMM efficiency %.3f -> %.3f: compute error %+.1f %% -> %+.1f %%%s; --efficiency %s\n",
              hint->before, hint->after, percent(hint->compute_error_before), percent(hint->compute_error_after),
              hint->at_limit ? " (at its limit: GEMMs alone cannot explain the difference)" : "",
              hint->efficiency_key.c_str());
  for (const auto& note : notes) printf_to(out, "# note: %s\n", note.c_str());
  return out.str();
}

}  // namespace meshscope
