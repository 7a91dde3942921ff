#include "ui/explore/tradeoff_chart_spec.hpp"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"

namespace meshscope::ui {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString axis_short(TradeoffAxis axis) {
  switch (axis) {
    case TradeoffAxis::mbs:
      return QObject::tr("micro-batch");
    case TradeoffAxis::recompute:
      return QObject::tr("recompute");
    case TradeoffAxis::zero:
      return QObject::tr("ZeRO");
    case TradeoffAxis::seq:
      return QObject::tr("seq");
    case TradeoffAxis::gbs:
      return QObject::tr("global batch");
    case TradeoffAxis::gpus:
      return QObject::tr("GPUs");
    case TradeoffAxis::gpu:
      return QObject::tr("GPU");
    case TradeoffAxis::nic_gbps:
      return QObject::tr("NIC Gb/s");
    default:
      return qstring(enum_name(axis)).toUpper();
  }
}

// The step's parts in drawing order (bottom up), with their colours: compute first, then the exposed
// communication per mesh axis, the bubble, the optimizer.
struct StepPart {
  const char* label;
  double TradeoffBreakdown::*member;
  int colour;
};
constexpr StepPart kStepParts[] = {
    {"compute", &TradeoffBreakdown::compute_s, 0},       {"TP exposed", &TradeoffBreakdown::tp_exposed_s, 1},
    {"CP exposed", &TradeoffBreakdown::cp_exposed_s, 5}, {"EP exposed", &TradeoffBreakdown::ep_exposed_s, 4},
    {"PP send/recv", &TradeoffBreakdown::pp_p2p_s, 6},   {"DP exposed", &TradeoffBreakdown::dp_exposed_s, 3},
    {"bubble", &TradeoffBreakdown::bubble_s, 7},         {"optimizer", &TradeoffBreakdown::optimizer_s, 2},
};

// The traffic chart's colour of a mesh axis: the step chart's colour of its exposed part (series_colour index).
int axis_colour_index(MeshAxis axis) {
  switch (axis) {
    case MeshAxis::tp:
      return 1;
    case MeshAxis::cp:
      return 5;
    case MeshAxis::ep:
    case MeshAxis::etp:
    case MeshAxis::edp:
      return 4;
    case MeshAxis::pp:
      return 6;
    case MeshAxis::dp:
    case MeshAxis::fsdp_shard:
    case MeshAxis::fsdp_replicate:
      return 3;
  }
  return 0;
}

QString bytes_per_axis_text(const TradeoffPoint& p) {
  QStringList parts;
  for (const auto& [axis, bytes] : p.bytes_per_step)
    if (bytes > 0) parts << QStringLiteral("%1 %2").arg(qstring(enum_name(axis)).toUpper(), binary_bytes_text(bytes));
  return parts.join(QStringLiteral(", "));
}

QString point_tooltip(TradeoffAxis axis, const TradeoffPoint& p) {
  QStringList lines;
  lines << QStringLiteral("<b>%1</b>").arg(tradeoff_value_text(axis, p.value).toHtmlEscaped());
  lines << QObject::tr("layout %1 on %2 GPUs").arg(layout_summary(p.layout)).arg(p.gpus);
  if (!p.reason.empty())
    lines << QStringLiteral("<span style=\"color:%1\">%2</span>")
                 .arg(overflow_colour().name(), qstring(p.reason).toHtmlEscaped());
  if (p.has_memory)
    lines << QObject::tr("busiest rank (%1): %2 of %3 (training_memory, core/memory/memory.cpp)")
                 .arg(qstring(p.memory_role), gib_text(p.peak_memory_bytes), gib_text(p.capacity_bytes));
  if (p.has_step) {
    const TradeoffBreakdown& b = p.breakdown;
    lines << QObject::tr("step %1 = compute %2 + exposed TP %3, CP %4, EP %5, PP %6, DP %7 + bubble %8 + optimizer %9")
                 .arg(duration_text(p.step_time_s), duration_text(b.compute_s), duration_text(b.tp_exposed_s),
                      duration_text(b.cp_exposed_s), duration_text(b.ep_exposed_s), duration_text(b.pp_p2p_s),
                      duration_text(b.dp_exposed_s), duration_text(b.bubble_s), duration_text(b.optimizer_s));
    lines << QObject::tr("(estimate_step: the busiest stage through the schedule's event simulation)");
    lines
        << QObject::tr("MFU %1 % = model FLOPs per step / (step time × GPUs × dense peak)").arg(100 * p.mfu, 0, 'f', 1);
    lines << QObject::tr("tokens/s per GPU %1 = global batch × seq / (step time × GPUs)")
                 .arg(p.tokens_per_s_per_gpu, 0, 'f', 0);
    const QString bytes = bytes_per_axis_text(p);
    if (!bytes.isEmpty()) lines << QObject::tr("bytes per step and rank (CommPlan): %1").arg(bytes);
  }
  return lines.join(QStringLiteral("<br>"));
}

double nice_ceiling(double value) {
  if (value <= 0) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
  for (double step : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

}  // namespace

bool TradeoffChartSpec::is_gap(size_t index) const {
  return std::any_of(gaps.begin(), gaps.end(), [index](const Gap& gap) { return gap.index == index; });
}

QString tradeoff_value_text(TradeoffAxis axis, const TradeoffValue& value) {
  return QStringLiteral("%1 %2").arg(axis_short(axis), qstring(value.label));
}

TradeoffChartSpec tradeoff_chart_spec(const TradeoffCurve& curve) {
  TradeoffChartSpec spec;
  spec.axis = curve.axis;
  spec.x_title = qstring(tradeoff_axis_title(curve.axis));
  spec.rule = qstring(curve.rule);
  const size_t n = curve.points.size();
  std::vector<TradeoffChartSpec::Set> memory(kMemoryCategoryCount);
  for (int c = 0; c < kMemoryCategoryCount; ++c) {
    const auto category = static_cast<MemoryCategory>(c);
    memory[static_cast<size_t>(c)] = {category_label(category), memory_category_colour(category),
                                      std::vector<double>(n, 0.0)};
  }
  double overflow_max_gib = 0;
  std::vector<TradeoffChartSpec::Set> step;
  for (const StepPart& part : kStepParts)
    step.push_back({QObject::tr(part.label), series_colour(part.colour), std::vector<double>(n, 0.0)});
  std::vector<MeshAxis> traffic_axes;  // in the order they first carry bytes
  for (const TradeoffPoint& p : curve.points)
    for (const auto& [axis, bytes] : p.bytes_per_step)
      if (p.valid && bytes > 0 && std::find(traffic_axes.begin(), traffic_axes.end(), axis) == traffic_axes.end())
        traffic_axes.push_back(axis);
  for (const MeshAxis axis : traffic_axes)
    spec.traffic.push_back(
        {qstring(enum_name(axis)).toUpper(), series_colour(axis_colour_index(axis)), std::vector<double>(n, 0.0)});
  for (size_t i = 0; i < n; ++i) {
    const TradeoffPoint& p = curve.points[i];
    const QString label = qstring(p.value.label);
    spec.labels << (p.valid ? label : label + QStringLiteral(" \u2715"));
    spec.tooltips.push_back(point_tooltip(curve.axis, p));
    if (!p.valid) spec.gaps.push_back({i, tradeoff_value_text(curve.axis, p.value), qstring(p.reason)});
    spec.mfu_percent.push_back(p.valid ? 100 * p.mfu : kNaN);
    spec.tokens_per_s_per_gpu.push_back(p.valid ? p.tokens_per_s_per_gpu : kNaN);
    spec.capacity_per_value_gib.push_back(p.has_memory ? p.capacity_bytes / kBytesPerGib : 0.0);
    if (p.has_memory) spec.capacity_gib = std::max(spec.capacity_gib, p.capacity_bytes / kBytesPerGib);
    // A layout that does not fit keeps its memory bars, over the capacity line (how far over is the point);
    // its step and throughput are gaps, as every invalid value's.
    if (p.has_memory) {
      for (size_t c = 0; c < memory.size(); ++c) memory[c].values[i] = p.memory_bytes[c] / kBytesPerGib;
      const double gib = p.peak_memory_bytes / kBytesPerGib;
      if (p.valid) spec.memory_max_gib = std::max(spec.memory_max_gib, gib);
      overflow_max_gib = std::max(overflow_max_gib, gib);
    }
    if (!p.valid) continue;
    for (size_t s = 0; s < step.size(); ++s) step[s].values[i] = p.breakdown.*kStepParts[s].member;
    spec.step_max_s = std::max(spec.step_max_s, p.step_time_s);
    for (const auto& [axis, bytes] : p.bytes_per_step) {
      const auto at = std::find(traffic_axes.begin(), traffic_axes.end(), axis);
      if (at == traffic_axes.end()) continue;
      const double gb = bytes / 1e9;  // decimal GB (10^9 bytes)
      spec.traffic[static_cast<size_t>(at - traffic_axes.begin())].values[i] += gb;
      spec.traffic_max_gb = std::max(spec.traffic_max_gb, gb);
    }
    spec.tokens_max = std::max(spec.tokens_max, p.tokens_per_s_per_gpu);
  }
  // A value without a budget (an invalid layout) takes its neighbour's capacity: the line stays unbroken.
  for (size_t i = 1; i < n; ++i)
    if (spec.capacity_per_value_gib[i] == 0) spec.capacity_per_value_gib[i] = spec.capacity_per_value_gib[i - 1];
  for (size_t i = n; i-- > 1;)
    if (spec.capacity_per_value_gib[i - 1] == 0) spec.capacity_per_value_gib[i - 1] = spec.capacity_per_value_gib[i];
  const auto any = [](const TradeoffChartSpec::Set& set) {
    return std::any_of(set.values.begin(), set.values.end(), [](double v) { return v > 0; });
  };
  for (auto& set : memory)
    if (any(set)) spec.memory.push_back(std::move(set));
  for (auto& set : step)
    if (any(set)) spec.step.push_back(std::move(set));
  // Bars far over the capacity are cut at 1.5 × capacity: the valid ones stay readable, the reason gives the rest.
  spec.memory_max_gib = nice_ceiling(
      std::max({spec.memory_max_gib, spec.capacity_gib, std::min(overflow_max_gib, 1.5 * spec.capacity_gib)}) * 1.05);
  spec.step_max_s = nice_ceiling(spec.step_max_s * 1.05);
  spec.tokens_max = nice_ceiling(spec.tokens_max * 1.05);
  spec.traffic_max_gb = nice_ceiling(spec.traffic_max_gb * 1.05);
  return spec;
}

QColor tradeoff_ramp_colour(double fraction) {
  // Five stops of viridis (van der Walt & Smith, matplotlib 2015): perceptually uniform, monotone in lightness.
  static const QColor kStops[] = {QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b), QColor(0x21, 0x90, 0x8d),
                                  QColor(0x5d, 0xc8, 0x63), QColor(0xfd, 0xe7, 0x25)};
  const double f = std::clamp(fraction, 0.0, 1.0) * 4;
  const int i = std::min(static_cast<int>(f), 3);
  const double t = f - i;
  const QColor& a = kStops[i];
  const QColor& b = kStops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + t * (b.redF() - a.redF())),
                          static_cast<float>(a.greenF() + t * (b.greenF() - a.greenF())),
                          static_cast<float>(a.blueF() + t * (b.blueF() - a.blueF())));
}

TradeoffHeatmapSpec tradeoff_heatmap_spec(const TradeoffGrid& grid) {
  TradeoffHeatmapSpec spec;
  spec.axis_x = grid.axis_x;
  spec.axis_y = grid.axis_y;
  spec.x_title = qstring(tradeoff_axis_title(grid.axis_x));
  spec.y_title = qstring(tradeoff_axis_title(grid.axis_y));
  spec.title = QObject::tr("Tokens/s per GPU, %1 × %2").arg(axis_short(grid.axis_x), axis_short(grid.axis_y));
  for (const auto& v : grid.values_x) spec.x_labels << qstring(v.label);
  for (const auto& v : grid.values_y) spec.y_labels << qstring(v.label);
  bool any = false;
  for (const TradeoffPoint& p : grid.cells) {
    if (!p.valid) continue;
    spec.min_tokens = any ? std::min(spec.min_tokens, p.tokens_per_s_per_gpu) : p.tokens_per_s_per_gpu;
    spec.max_tokens = any ? std::max(spec.max_tokens, p.tokens_per_s_per_gpu) : p.tokens_per_s_per_gpu;
    any = true;
  }
  const double span = spec.max_tokens - spec.min_tokens;
  for (const TradeoffPoint& p : grid.cells) {
    TradeoffHeatmapSpec::Cell cell;
    cell.valid = p.valid;
    cell.does_not_fit = !p.valid && p.has_memory && p.peak_memory_bytes > p.capacity_bytes;
    cell.tokens_per_s_per_gpu = p.valid ? p.tokens_per_s_per_gpu : 0;
    cell.colour = p.valid ? tradeoff_ramp_colour(span > 0 ? (p.tokens_per_s_per_gpu - spec.min_tokens) / span : 1)
                          : QColor(0xe0, 0xe0, 0xe0);
    // A layout that does not fit reads its overflow ("+29.0 GiB"); another invalid one a cross.
    const std::string fit_prefix = "does not fit: ";
    if (p.valid)
      cell.text = QString::number(p.tokens_per_s_per_gpu, 'f', 0);
    else if (cell.does_not_fit && p.reason.rfind(fit_prefix, 0) == 0)
      cell.text = qstring(p.reason.substr(fit_prefix.size()));
    else
      cell.text = QStringLiteral("\u2715");
    cell.tooltip = QStringLiteral("%1 \u00b7 %2<br>%3")
                       .arg(tradeoff_value_text(grid.axis_x, p.value), tradeoff_value_text(grid.axis_y, p.value_y),
                            point_tooltip(grid.axis_x, p));
    spec.cells.push_back(std::move(cell));
  }
  return spec;
}

}  // namespace meshscope::ui
