#include "core/session/tradeoff_report.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/report/text.hpp"
#include "core/report/units.hpp"

namespace meshscope {

using nlohmann::json;

namespace {

// A recompute mode and a GPU model are written by name, every other value as its number.
json value_json(const TradeoffValue& value, TradeoffAxis axis) {
  if (axis == TradeoffAxis::recompute || axis == TradeoffAxis::gpu) return value.label;
  return value.number;
}

json layout_json(const Layout& l) {
  return {{"dp", l.dp},   {"fsdp", l.fsdp}, {"tp", l.tp}, {"pp", l.pp},
          {"vpp", l.vpp}, {"cp", l.cp},     {"ep", l.ep}, {"micro_batch", l.micro_batch}};
}

json breakdown_json(const TradeoffBreakdown& b) {
  return {{"compute_s", b.compute_s},       {"tp_exposed_s", b.tp_exposed_s}, {"cp_exposed_s", b.cp_exposed_s},
          {"ep_exposed_s", b.ep_exposed_s}, {"pp_p2p_s", b.pp_p2p_s},         {"dp_exposed_s", b.dp_exposed_s},
          {"bubble_s", b.bubble_s},         {"optimizer_s", b.optimizer_s}};
}

std::string value_text(const TradeoffPoint& point) {
  return point.value_y.label.empty() ? point.value.label : point.value.label + " × " + point.value_y.label;
}

void point_row(std::ostream& out, const TradeoffPoint& p) {
  if (!p.valid && !p.has_step) {
    printf_to(out, "%-14s %-7s %s\n", value_text(p).c_str(), "no", p.reason.c_str());
    return;
  }
  printf_to(out, "%-14s %-7s %10s %10.3f %7.1f %12.1f  %s\n", value_text(p).c_str(), p.valid ? "yes" : "no",
            gib_text(p.peak_memory_bytes).c_str(), p.step_time_s, percent(p.mfu), p.tokens_per_s_per_gpu,
            p.reason.c_str());
}

void header(std::ostream& out) {
  printf_to(out, "%-14s %-7s %10s %10s %7s %12s  %s\n", "value", "valid", "peak mem", "step s", "MFU %", "tok/s/GPU",
            "reason");
}

}  // namespace

json tradeoff_point_json(const TradeoffPoint& p, TradeoffAxis axis) {
  json memory = json::object();
  for (int c = 0; c < kMemoryCategoryCount; ++c)
    memory[std::string(category_name(static_cast<MemoryCategory>(c)))] = p.memory_bytes[static_cast<size_t>(c)];
  json bytes = json::object();
  for (const auto& [mesh_axis, b] : p.bytes_per_step) bytes[std::string(enum_name(mesh_axis))] = b;
  return {{"value", value_json(p.value, axis)},
          {"label", p.value.label},
          {"valid", p.valid},
          {"reason", p.reason},
          {"gpus", p.gpus},
          {"layout", layout_json(p.layout)},
          {"peak_memory_bytes", p.peak_memory_bytes},
          {"capacity_bytes", p.capacity_bytes},
          {"memory_rank", p.memory_role},
          {"memory", memory},
          {"step_time_s", p.step_time_s},
          {"breakdown", breakdown_json(p.breakdown)},
          {"bubble_fraction", p.bubble_fraction},
          {"mfu", p.mfu},
          {"tokens_per_s_per_gpu", p.tokens_per_s_per_gpu},
          {"bytes_per_step", bytes}};
}

json tradeoff_report(const TradeoffCurve& curve) {
  json points = json::array();
  for (const TradeoffPoint& point : curve.points) points.push_back(tradeoff_point_json(point, curve.axis));
  return {{"axis", enum_name(curve.axis)}, {"rule", curve.rule}, {"points", points}};
}

json tradeoff_grid_report(const TradeoffGrid& grid) {
  json cells = json::array();
  for (const TradeoffPoint& cell : grid.cells) {
    json c = tradeoff_point_json(cell, grid.axis_x);
    c["value_y"] = value_json(cell.value_y, grid.axis_y);
    cells.push_back(std::move(c));
  }
  json xs = json::array(), ys = json::array();
  for (const auto& v : grid.values_x) xs.push_back(value_json(v, grid.axis_x));
  for (const auto& v : grid.values_y) ys.push_back(value_json(v, grid.axis_y));
  return {{"axis", enum_name(grid.axis_x)},
          {"axis2", enum_name(grid.axis_y)},
          {"rule", grid.rule_x},
          {"rule2", grid.rule_y},
          {"values", xs},
          {"values2", ys},
          {"points", cells}};
}

std::string tradeoff_text(const std::string& title, const TradeoffCurve& curve) {
  std::ostringstream out;
  printf_to(out, "%s, along %s (%s)\n", title.c_str(), std::string(enum_name(curve.axis)).c_str(), curve.rule.c_str());
  header(out);
  for (const TradeoffPoint& point : curve.points) point_row(out, point);
  return out.str();
}

std::string tradeoff_grid_text(const std::string& title, const TradeoffGrid& grid) {
  std::ostringstream out;
  printf_to(out, "%s, %s × %s\n  %s: %s\n  %s: %s\n", title.c_str(), std::string(enum_name(grid.axis_x)).c_str(),
            std::string(enum_name(grid.axis_y)).c_str(), std::string(enum_name(grid.axis_x)).c_str(),
            grid.rule_x.c_str(), std::string(enum_name(grid.axis_y)).c_str(), grid.rule_y.c_str());
  header(out);
  for (const TradeoffPoint& cell : grid.cells) point_row(out, cell);
  return out.str();
}

}  // namespace meshscope
