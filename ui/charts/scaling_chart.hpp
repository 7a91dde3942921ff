#pragma once
// The QtCharts adapter of the scaling chart: draws a ScalingChartSpec (ui/explore/scaling_chart_spec.hpp) as two
// charts side by side on the same GPU axis — throughput, then efficiency. Only ui/charts/ includes QtCharts.
#include <QWidget>

#include <cstddef>
#include <vector>

#include "ui/explore/scaling_chart_spec.hpp"

class QAbstractAxis;
class QChart;
class QChartView;
class QScatterSeries;

namespace meshscope::ui {

class ScalingChart final : public QWidget {
  Q_OBJECT

 public:
  explicit ScalingChart(QWidget* parent = nullptr);
  void setSpec(ScalingChartSpec spec);
  [[nodiscard]] const ScalingChartSpec& spec() const { return spec_; }
  // What the QtCharts objects hold, for tests: 0 tokens/s, 1 per GPU, 2 efficiency, 3 layout changes.
  [[nodiscard]] std::vector<QPointF> seriesPoints(int series) const;
  [[nodiscard]] QSize sizeHint() const override { return {1200, 360}; }

 signals:
  void pointActivated(size_t point);  // double-clicked: its index into ScalingResult::points

 private:
  QScatterSeries* addSeries(QChart* chart, const ScalingChartSpec::Series& series, QAbstractAxis* x, QAbstractAxis* y);
  ScalingChartSpec spec_;
  QChartView* throughput_view_ = nullptr;
  QChartView* efficiency_view_ = nullptr;
  std::vector<QScatterSeries*> markers_;  // tokens, per GPU, efficiency, changes
};

}  // namespace meshscope::ui
