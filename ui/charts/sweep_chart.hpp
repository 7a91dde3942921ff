#pragma once
// The QtCharts adapter of the sweep chart: draws a SweepChartSpec (ui/explore/sweep_chart_spec.hpp). Only ui/charts/
// includes QtCharts.
#include <QWidget>

#include <cstddef>
#include <vector>

#include "ui/explore/sweep_chart_spec.hpp"

class QChartView;
class QScatterSeries;

namespace meshscope::ui {

class SweepChart final : public QWidget {
  Q_OBJECT

 public:
  explicit SweepChart(QWidget* parent = nullptr);
  void setSpec(SweepChartSpec spec);
  [[nodiscard]] const SweepChartSpec& spec() const { return spec_; }
  // What the QtCharts objects hold (tests check the adapter against the spec).
  [[nodiscard]] int seriesCount() const { return static_cast<int>(markers_.size()); }
  [[nodiscard]] std::vector<QPointF> seriesPoints(int series) const;
  [[nodiscard]] std::vector<QPointF> frontPoints() const;
  [[nodiscard]] QSize sizeHint() const override { return {720, 460}; }

 signals:
  // A point was double-clicked: its index into SweepResults::points.
  void pointActivated(size_t point);

 private:
  SweepChartSpec spec_;
  QChartView* view_ = nullptr;
  std::vector<QScatterSeries*> markers_;  // parallel to spec_.series
  QScatterSeries* front_ = nullptr;       // rings around the front's points (fronts are per model: no line joins them)
};

}  // namespace meshscope::ui
