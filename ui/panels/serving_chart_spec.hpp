#pragma once
// The serving latency–throughput chart: one line per serving layout through the operating points
// of ServingEstimate::curve (concurrency 1, 2, 4, … up to the largest batch), x the output tokens/s
// per GPU, y the inter-token latency (ITL) or, switched, the time to first token (TTFT), in ms; the
// latency target drawn as a dashed horizontal line. Hovering a point names its concurrency, TTFT,
// ITL, throughput and the resource that binds it. It draws the core's points (core/serving/
// serving.hpp) as they are; nothing here re-estimates them.
//
// serving_chart_spec() turns the curves into plain data (series, points, axes, target) that tests
// check; ServingCurveChart is the thin QtCharts adapter over it.
#include <QColor>
#include <QPointF>
#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/serving/serving.hpp"

namespace meshscope::ui {

enum class ServingMetric { itl, ttft };

// One layout's estimate and what the chart calls it.
struct ServingCurve {
  QString name;          // legend text; empty: serving_layout_label(layout)
  ServingLayout layout;  // its GPU count turns deployment throughput into throughput per GPU
  ServingEstimate estimate;
};

struct ServingChartSpec {
  struct Series {
    QString name;
    QColor colour;
    std::vector<QPointF> points;       // x: output tokens/s per GPU, y: the metric in ms
    std::vector<QString> tooltips;     // one per point (rich text)
    std::vector<int64_t> concurrency;  // one per point
  };
  ServingMetric metric = ServingMetric::itl;
  std::vector<Series> series;
  QString title;
  QString x_title;     // "Output tokens/s per GPU"
  QString y_title;     // "ITL (ms)" or "TTFT (ms)"
  bool log_x = false;  // throughput spanning a decade or more reads on a log axis
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;
  std::optional<double> target_ms;  // the target of the metric shown, when it has one
  QString target_label;             // "ITL target 50 ms"
};

// "TP 8 · PP 2 × 2 replicas (32 GPUs)"; DP and EP shown when used.
[[nodiscard]] QString serving_layout_label(const ServingLayout& layout);
// "<b>name</b><br>concurrency 64 per replica …<br>… tokens/s per GPU …<br>TTFT … · ITL …<br>bound by …".
[[nodiscard]] QString serving_point_tooltip(const QString& name, const ServingPoint& point, int64_t gpus);
[[nodiscard]] ServingChartSpec serving_chart_spec(const std::vector<ServingCurve>& curves, const ServingTarget& target,
                                                  ServingMetric metric);

}  // namespace meshscope::ui
