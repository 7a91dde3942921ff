#include "ui/explore/sweep_chart_spec.hpp"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <map>

#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/nice_step.hpp"

namespace meshscope::ui {

double sweep_metric_value(const SweepResultPoint& point, SweepMetric metric) {
  switch (metric) {
    case SweepMetric::tokens_per_s_per_gpu:
      return point.tokens_per_s_per_gpu;
    case SweepMetric::tokens_per_s:
      return point.tokens_per_s();
    case SweepMetric::cost_per_million_tokens:
      return point.cost_per_million_tokens;
  }
  return 0;
}

QString sweep_metric_title(SweepMetric metric) {
  switch (metric) {
    case SweepMetric::tokens_per_s_per_gpu:
      return QObject::tr("Tokens/s per GPU (best layout)");
    case SweepMetric::tokens_per_s:
      return QObject::tr("Tokens/s, all GPUs (best layout)");
    case SweepMetric::cost_per_million_tokens:
      return QObject::tr("Cost per million tokens (best layout)");
  }
  return {};
}

SweepChartSpec sweep_chart_spec(const SweepResults& results, SweepMetric metric) {
  SweepChartSpec spec;
  spec.metric = metric;
  spec.x_title = QObject::tr("GPUs");
  spec.y_title = sweep_metric_title(metric);
  std::map<std::string, size_t> series_of;  // first appearance order
  double x_low = 0, x_high = 0, y_high = 0;
  for (size_t i = 0; i < results.points.size(); ++i) {
    const SweepResultPoint& p = results.points[i];
    if (!p.has_layout) continue;  // nothing fits: no point to draw (the table says why)
    const std::string name = p.series();
    auto [it, fresh] = series_of.try_emplace(name, spec.series.size());
    if (fresh) {
      SweepChartSpec::Series series;
      series.name = QString::fromStdString(name);
      series.colour = series_colour(static_cast<int>(spec.series.size()));
      spec.series.push_back(std::move(series));
    }
    SweepChartSpec::Series& series = spec.series[it->second];
    const double x = static_cast<double>(p.gpus), y = sweep_metric_value(p, metric);
    series.points.emplace_back(x, y);
    series.point.push_back(i);
    QString workload;
    for (const auto& [key, value] : p.workload) workload += QStringLiteral(" %1=%2").arg(qstring(key), qstring(value));
    series.tooltips.push_back(QObject::tr("<b>#%1</b> %2 on %3<br>%4 GPUs ·%5<br>%6 tokens/s per GPU · MFU %7 % · "
                                          "step %8<br>double-click: open this point")
                                  .arg(p.index)
                                  .arg(qstring(p.model), qstring(p.cluster))
                                  .arg(p.gpus)
                                  .arg(workload)
                                  .arg(p.tokens_per_s_per_gpu, 0, 'f', 0)
                                  .arg(100 * p.mfu, 0, 'f', 1)
                                  .arg(duration_text(p.step_time_s)));
    x_low = x_low == 0 ? x : std::min(x_low, x);
    x_high = std::max(x_high, x);
    y_high = std::max(y_high, y);
  }
  // Each series in GPU order, so that its line reads left to right.
  for (SweepChartSpec::Series& series : spec.series) {
    std::vector<size_t> order(series.points.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return series.points[a].x() < series.points[b].x(); });
    SweepChartSpec::Series sorted = series;
    for (size_t i = 0; i < order.size(); ++i) {
      sorted.points[i] = series.points[order[i]];
      sorted.point[i] = series.point[order[i]];
      sorted.tooltips[i] = series.tooltips[order[i]];
    }
    series = std::move(sorted);
  }
  for (const size_t i : sweep_pareto_front(results.points))
    spec.front.emplace_back(static_cast<double>(results.points[i].gpus), sweep_metric_value(results.points[i], metric));
  if (x_high > 0) {
    spec.x_min = std::max(1.0, x_low / 1.5);
    spec.x_max = x_high * 1.5;
  }
  if (y_high > 0) {
    const double step = nice_step(y_high * 1.1, 6);
    spec.y_max = std::ceil(y_high * 1.1 / step) * step;
  }
  return spec;
}

}  // namespace meshscope::ui
