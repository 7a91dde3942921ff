#pragma once
// The QtCharts adapter of the trade-off explorer's curve (ui/explore/tradeoff_chart_spec.hpp): three charts side by
// side over the same values — the busiest rank's memory stacked by category against the capacity line, the step stacked
// as compute / exposed communication per axis / bubble / optimizer, and MFU with tokens/s per GPU — gaps (invalid
// values) left empty, marked ✕ on the axis and listed with their reason below. Hovering a bar shows the spec's tooltip;
// clicking a value asks to apply it. Only ui/charts/ includes QtCharts.
#include <QWidget>

#include <vector>

#include "ui/explore/tradeoff_chart_spec.hpp"

class QAbstractBarSeries;
class QBarSet;
class QChart;
class QChartView;
class QLabel;

namespace meshscope::ui {

class TradeoffChart final : public QWidget {
  Q_OBJECT

 public:
  explicit TradeoffChart(QWidget* parent = nullptr);
  void setSpec(TradeoffChartSpec spec);
  [[nodiscard]] const TradeoffChartSpec& spec() const { return spec_; }
  // What the QtCharts objects hold (tests check the adapter against the spec).
  [[nodiscard]] int memorySetCount() const { return static_cast<int>(memory_sets_.size()); }
  [[nodiscard]] int stepSetCount() const { return static_cast<int>(step_sets_.size()); }
  [[nodiscard]] QStringList categories() const;
  [[nodiscard]] QString gapText() const;
  // The legends under the memory and step charts (rich text: one coloured square and label per set).
  [[nodiscard]] QString memoryLegendText() const;
  [[nodiscard]] QString stepLegendText() const;
  [[nodiscard]] QSize sizeHint() const override { return {1100, 460}; }

 signals:
  void valueActivated(int index);

 private:
  void rebuild();
  void buildMemory();
  void buildStep();
  void buildThroughput();
  void buildTraffic();
  // The spec's sets as bars of `bars` (hover: the value's tooltip; click: valueActivated), kept in `kept`.
  void addSets(QAbstractBarSeries* bars, const std::vector<TradeoffChartSpec::Set>& sets, std::vector<QBarSet*>* kept);
  void connectSet(QBarSet* set);

  TradeoffChartSpec spec_;
  QChartView* memory_ = nullptr;
  QChartView* step_ = nullptr;
  QChartView* throughput_ = nullptr;
  QChartView* traffic_ = nullptr;
  QLabel* gaps_ = nullptr;
  QLabel* memory_legend_ = nullptr;
  QLabel* step_legend_ = nullptr;
  QLabel* traffic_legend_ = nullptr;
  std::vector<QBarSet*> memory_sets_, step_sets_;
};

}  // namespace meshscope::ui
