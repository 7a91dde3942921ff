#include "core/report/log_compare.hpp"

#include <cstdio>

namespace meshscope {
namespace {

using json = nlohmann::json;

json optional_json(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

// A value in the table's unit: ms, GiB, percent, or as it is.
std::string table_value(const LogCompareRow& row, double value) {
  char buffer[32];
  if (row.unit == "s")
    std::snprintf(buffer, sizeof buffer, "%.1f ms", value * 1e3);
  else if (row.unit == "B")
    std::snprintf(buffer, sizeof buffer, "%.2f GiB", value / (1024.0 * 1024.0 * 1024.0));
  else if (row.unit == "fraction")
    std::snprintf(buffer, sizeof buffer, "%.2f %%", 100 * value);
  else
    std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

}  // namespace

json log_comparison_json(const LogComparison& c, const std::string& file) {
  json rows = json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"quantity", r.quantity},
                    {"unit", r.unit},
                    {"measured", r.measured},
                    {"measured_min", optional_json(r.measured_min)},
                    {"measured_max", optional_json(r.measured_max)},
                    {"samples", r.samples},
                    {"predicted", optional_json(r.predicted)},
                    {"error", optional_json(r.error())},
                    {"note", r.note}});
  return {{"file", file},
          {"framework", c.framework},
          {"iterations", c.iterations},
          {"excluded_iterations", c.excluded_iterations},
          {"layout", c.layout_keys},
          {"train", c.train_keys},
          {"layout_from_log", c.layout_from_log},
          {"rows", rows},
          {"notes", c.notes}};
}

std::string log_comparison_text(const LogComparison& c, const std::string& file, const std::string& model,
                                const std::string& cluster) {
  std::string out = "# " + file + " (" + c.framework + ", " + std::to_string(c.iterations) + " iterations) vs " +
                    model + " on " + cluster + "\n";
  out +=
      "# --layout " + c.layout_keys + (c.layout_from_log ? " (from the log)" : "") + "  --train " + c.train_keys + "\n";
  out += "# measured: median after warm-up (min..max); memory: the largest printed; error: predicted / measured - 1\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-28s %14s %27s %14s %9s\n", "quantity", "measured", "(min..max)", "predicted",
                "error");
  out += line;
  for (const auto& r : c.rows) {
    const std::string range = r.measured_min && r.measured_max && r.samples > 1
                                  ? table_value(r, *r.measured_min) + ".." + table_value(r, *r.measured_max)
                                  : std::string();
    char error[16] = "-";
    if (const auto e = r.error()) std::snprintf(error, sizeof error, "%+.1f%%", 100 * *e);
    std::snprintf(line, sizeof line, "%-28s %14s %27s %14s %9s\n", r.quantity.c_str(),
                  table_value(r, r.measured).c_str(), range.c_str(),
                  r.predicted ? table_value(r, *r.predicted).c_str() : "-", error);
    out += line;
  }
  for (const auto& n : c.notes) out += "# note: " + n + "\n";
  return out;
}

json log_gemm_hint_json(const LogGemmHint& hint, const LogComparison& c, const std::string& file) {
  const LogCompareRow* step = c.row("step time");
  return {{"file", file},
          {"framework", c.framework},
          {"measured_step_s", step ? json(step->measured) : json(nullptr)},
          {"layout", c.layout_keys},
          {"train", c.train_keys},
          {"gemm_efficiency",
           {{"before", hint.before},
            {"after", hint.after},
            {"step_error_before", hint.step_error_before},
            {"step_error_after", hint.step_error_after},
            {"at_limit", hint.at_limit},
            {"efficiency", hint.efficiency_key}}}};
}

std::string log_gemm_hint_text(const LogGemmHint& hint, const LogComparison& c, const std::string& file) {
  const LogCompareRow* step = c.row("step time");
  char line[512];
  std::snprintf(line, sizeof line,
                "# %s (%s): measured step %.4f s (median after warm-up)\n"
                "# GEMM efficiency %.3f -> %.3f: step time error %+.1f %% -> %+.1f %%%s\n--efficiency %s\n",
                file.c_str(), c.framework.c_str(), step ? step->measured : 0.0, hint.before, hint.after,
                100 * hint.step_error_before, 100 * hint.step_error_after,
                hint.at_limit ? " (at its limit: GEMMs alone cannot explain the difference)" : "",
                hint.efficiency_key.c_str());
  return line;
}

}  // namespace meshscope
