#pragma once
// The QtCharts adapter of the serving curves: ServingCurveChart draws a ServingChartSpec
// (ui/panels/serving_chart_spec.hpp). Only ui/charts/ includes QtCharts.
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

#include "ui/panels/serving_chart_spec.hpp"

class QChartView;
class QGraphicsSimpleTextItem;
class QLabel;
class QLineSeries;
class QRadioButton;

namespace meshscope::ui {

class ServingCurveChart final : public QWidget {
  Q_OBJECT

 public:
  explicit ServingCurveChart(QWidget* parent = nullptr);
  ~ServingCurveChart() override;

  void setCurves(std::vector<ServingCurve> curves);
  // Infinite limits (ServingTarget's default) draw no target line.
  void setTarget(const ServingTarget& target);
  void setMetric(ServingMetric metric);  // also what the ITL/TTFT switch sets
  [[nodiscard]] ServingMetric metric() const { return metric_; }
  [[nodiscard]] const std::vector<ServingCurve>& curves() const { return curves_; }
  [[nodiscard]] const ServingChartSpec& spec() const { return spec_; }

  // What the QtCharts objects hold (tests check the adapter against the spec with these).
  [[nodiscard]] int seriesCount() const;  // layout lines, without the target line
  [[nodiscard]] QString seriesName(int series) const;
  [[nodiscard]] std::vector<QPointF> seriesPoints(int series) const;
  [[nodiscard]] QString pointToolTip(int series, int point) const;
  [[nodiscard]] std::optional<double> targetLineMs() const;
  [[nodiscard]] bool logX() const;

  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSizeHint() const override;

 signals:
  void metricChanged(meshscope::ui::ServingMetric metric);
  // A point was clicked: the curve's index in setCurves' list and the point's concurrency.
  void pointClicked(int curve, int64_t concurrency);

 private:
  void rebuild();
  void placeMinorLabels();
  // The point of `series` nearest to `value` on screen, or -1.
  [[nodiscard]] int nearestPoint(int series, QPointF value) const;

  std::vector<ServingCurve> curves_;
  ServingTarget target_;
  ServingMetric metric_ = ServingMetric::itl;
  ServingChartSpec spec_;
  QLabel* title_ = nullptr;
  QRadioButton* itl_button_ = nullptr;
  QRadioButton* ttft_button_ = nullptr;
  QChartView* view_ = nullptr;
  std::vector<QLineSeries*> lines_;  // parallel to spec_.series
  QLineSeries* target_line_ = nullptr;
  std::vector<QGraphicsSimpleTextItem*> minor_labels_;  // 2× and 5× labels of a log axis
};

}  // namespace meshscope::ui
