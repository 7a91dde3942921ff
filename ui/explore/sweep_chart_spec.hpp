#pragma once
// The sweep chart (ui/explore/sweep_view.hpp): a sweep's points (core/session/sweep_results.hpp) as one series per
// model and cluster family, x the GPU count (log axis: sweeps double it), y the metric of the best layout — tokens/s
// per GPU, tokens/s in all, or cost per million tokens — and the Pareto front (faster and more efficient at once)
// ringed (per model and workload, so no line joins its points). Pure data that tests check; ui/charts/sweep_chart.hpp
// draws it.
#include <QColor>
#include <QPointF>
#include <QString>

#include <cstddef>
#include <vector>

#include "core/session/sweep_results.hpp"

namespace meshscope::ui {

enum class SweepMetric { tokens_per_s_per_gpu, tokens_per_s, cost_per_million_tokens };

struct SweepChartSpec {
  struct Series {
    QString name;  // "llama3-8b · dgx-h100"
    QColor colour;
    std::vector<QPointF> points;  // by GPU count
    std::vector<size_t> point;    // the index into SweepResults::points of each
    std::vector<QString> tooltips;
  };
  SweepMetric metric = SweepMetric::tokens_per_s_per_gpu;
  std::vector<Series> series;
  std::vector<QPointF> front;  // the Pareto front's points, by GPU count
  QString x_title, y_title;
  double x_min = 1, x_max = 2, y_min = 0, y_max = 1;
};

[[nodiscard]] double sweep_metric_value(const SweepResultPoint& point, SweepMetric metric);
[[nodiscard]] QString sweep_metric_title(SweepMetric metric);
[[nodiscard]] SweepChartSpec sweep_chart_spec(const SweepResults& results, SweepMetric metric);

}  // namespace meshscope::ui
