#pragma once
// The scaling chart (ui/explore/scaling_view.hpp) as data: a ScalingResult (core/session/scaling.hpp) drawn against
// the GPU count on a log2 axis — first, tokens/s of all GPUs (left, log axis) and tokens/s per GPU (right);
// beside it, the scaling efficiency with its baseline in the series name and its definition in the caption, and a
// marker with a label where the best layout changes. Tooltips give each point's best layout. Pure data
// that tests check; ui/charts/scaling_chart.hpp draws it.
#include <QColor>
#include <QPointF>
#include <QString>

#include <cstddef>
#include <vector>

#include "core/search/scaling_result.hpp"

namespace meshscope::ui {

struct ScalingChartSpec {
  struct Series {
    QString name;
    QColor colour;
    std::vector<QPointF> points;  // (GPUs, value), valid points only, by GPU count
    std::vector<size_t> point;    // the index into ScalingResult::points of each
    std::vector<QString> tooltips;
  };
  struct Change {
    QPointF at;     // on the efficiency series
    QString label;  // "64 GPUs: tp 4→8, pp 1→2"
    size_t point = 0;
  };
  Series tokens;      // tokens/s, all GPUs (left axis, log)
  Series per_gpu;     // tokens/s per GPU (right axis)
  Series efficiency;  // E(N) in percent
  std::vector<Change> changes;
  QString x_title, tokens_title, per_gpu_title, efficiency_title;
  QString caption;  // the efficiency definition with its baseline, and the invalid sizes with why
  // (the layout changes are marked on the chart and listed in the view's table)
  double x_min = 1, x_max = 2;
  double tokens_min = 1, tokens_max = 10;
  double per_gpu_max = 1;
  double efficiency_max = 110;  // percent
};

[[nodiscard]] ScalingChartSpec scaling_chart_spec(const ScalingResult& result);

}  // namespace meshscope::ui
