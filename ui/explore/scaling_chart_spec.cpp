#include "ui/explore/scaling_chart_spec.hpp"

#include <QObject>
#include <QStringList>

#include <algorithm>
#include <cmath>

#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/nice_step.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"

namespace meshscope::ui {

namespace {

QString tooltip(const ScalingPoint& p) {
  return QObject::tr(
             "<b>%1 GPUs</b> · global batch %2<br>%3<br>%L4 tokens/s · %L5 per GPU · MFU %6 %<br>"
             "step %7 · efficiency %8 %%9<br>double-click: apply this size and layout")
      .arg(p.gpus)
      .arg(p.global_batch)
      .arg(ranked_layout_text(p.best).toHtmlEscaped())
      .arg(p.tokens_per_s, 0, 'f', 0)
      .arg(p.best.tokens_per_s_per_gpu, 0, 'f', 0)
      .arg(100 * p.best.mfu, 0, 'f', 1)
      .arg(duration_text(p.best.step_time_s))
      .arg(100 * p.scaling_efficiency, 0, 'f', 1)
      .arg(p.layout_changed ? QObject::tr("<br>layout changed: %1").arg(qstring(p.layout_change)) : QString());
}

double rounded_up(double value) {
  if (!(value > 0)) return 1;
  const double step = nice_step(value * 1.1, 6);
  return std::ceil(value * 1.1 / step) * step;
}

}  // namespace

ScalingChartSpec scaling_chart_spec(const ScalingResult& result) {
  ScalingChartSpec spec;
  spec.x_title = QObject::tr("GPUs (log₂ scale)");
  spec.tokens_title = QObject::tr("Tokens/s (log)");
  spec.per_gpu_title = QObject::tr("Tokens/s per GPU");
  spec.tokens = {QObject::tr("tokens/s (all GPUs)"), series_colour(0), {}, {}, {}};
  spec.per_gpu = {QObject::tr("tokens/s per GPU"), series_colour(1), {}, {}, {}};
  spec.efficiency = {result.has_baseline
                         ? QObject::tr("scaling efficiency (100 % = the baseline, %1 GPUs)").arg(result.baseline_gpus)
                         : QObject::tr("scaling efficiency (no valid size)"),
                     series_colour(2),
                     {},
                     {},
                     {}};
  spec.efficiency_title = QObject::tr("Efficiency %");  // its baseline: the series name and the caption
  QStringList invalid;
  double x_low = 0, x_high = 0, tokens_low = 0, tokens_high = 0, per_gpu_high = 0, efficiency_high = 100;
  for (size_t i = 0; i < result.points.size(); ++i) {
    const ScalingPoint& p = result.points[i];
    const auto x = static_cast<double>(p.gpus);
    x_low = x_low == 0 ? x : std::min(x_low, x);
    x_high = std::max(x_high, x);
    if (!p.valid) {
      invalid << QObject::tr("%1 GPUs: %2").arg(p.gpus).arg(qstring(p.error));
      continue;
    }
    const QString tip = tooltip(p);
    const double efficiency = 100 * p.scaling_efficiency;
    for (auto [series, y] :
         {std::pair{&spec.tokens, p.tokens_per_s}, std::pair{&spec.per_gpu, p.best.tokens_per_s_per_gpu},
          std::pair{&spec.efficiency, efficiency}}) {
      series->points.emplace_back(x, y);
      series->point.push_back(i);
      series->tooltips.push_back(tip);
    }
    if (p.layout_changed)
      spec.changes.push_back(
          {QPointF(x, efficiency), QObject::tr("%1: %2").arg(p.gpus).arg(qstring(p.layout_change)), i});
    tokens_low = tokens_low == 0 ? p.tokens_per_s : std::min(tokens_low, p.tokens_per_s);
    tokens_high = std::max(tokens_high, p.tokens_per_s);
    per_gpu_high = std::max(per_gpu_high, p.best.tokens_per_s_per_gpu);
    efficiency_high = std::max(efficiency_high, efficiency);
  }
  if (x_high > 0) {
    spec.x_min = x_low / 1.5;
    spec.x_max = x_high * 1.5;
  }
  if (tokens_high > 0) {
    spec.tokens_min = std::pow(10.0, std::floor(std::log10(tokens_low)));
    spec.tokens_max = std::pow(10.0, std::ceil(std::log10(tokens_high * 1.05)));
  }
  spec.per_gpu_max = rounded_up(per_gpu_high);
  spec.efficiency_max = rounded_up(efficiency_high);
  spec.caption = qstring(result.efficiency_definition);
  if (!invalid.isEmpty()) spec.caption += QObject::tr("\nNo layout: ") + invalid.join(QStringLiteral("; "));
  return spec;
}

}  // namespace meshscope::ui
