#pragma once
// The QtCharts adapter of the memory chart: MemoryChart draws a MemoryChartSpec (ui/panels/memory_chart_spec.hpp)
// as stacked bars, capacity lines and headroom labels. Only ui/charts/ includes QtCharts.
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

#include "ui/panels/memory_chart_spec.hpp"

class QBarCategoryAxis;
class QBarSet;
class QChart;
class QChartView;
class QGraphicsSimpleTextItem;
class QLabel;
class QLineSeries;
class QStackedBarSeries;

namespace meshscope::ui {

class MemoryChart final : public QWidget {
  Q_OBJECT

 public:
  explicit MemoryChart(QWidget* parent = nullptr);
  ~MemoryChart() override;

  // Replaces the budget shown; nullptr clears the chart.
  void setBudget(std::shared_ptr<const MemoryBudget> budget);
  [[nodiscard]] const std::shared_ptr<const MemoryBudget>& budget() const { return budget_; }
  [[nodiscard]] const MemoryChartSpec& spec() const { return spec_; }

  // What the QtCharts objects hold (tests check the adapter against the spec with these).
  [[nodiscard]] int barCount() const;
  // The rank labels under the bars: the full ones, or the short ones when the bars are narrow.
  [[nodiscard]] QStringList barLabels() const;
  [[nodiscard]] QStringList setLabels() const;  // one per bar set, legend order
  // The value drawn for a category on a bar, in GiB; nullopt when the category has no set.
  [[nodiscard]] std::optional<double> segmentGib(int bar, MemoryCategory category) const;
  [[nodiscard]] QString segmentToolTip(int bar, MemoryCategory category) const;
  // Where the middle of a segment is drawn, in this widget's coordinates (after layout).
  [[nodiscard]] std::optional<QPoint> segmentCentre(int bar, MemoryCategory category) const;
  // The y of the capacity line's points (GiB), and of the usable line when it is drawn.
  [[nodiscard]] std::optional<double> capacityLineGib() const;
  [[nodiscard]] std::optional<double> usableLineGib() const;
  // The headroom text drawn above a bar, and whether it is drawn in the overflow colour.
  [[nodiscard]] QString headroomText(int bar) const;
  [[nodiscard]] bool headroomIsOverflow(int bar) const;
  [[nodiscard]] QChart* chart() const;

  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void rebuild();
  void placeHeadroomLabels();
  void fitRankLabels();
  void showSegmentToolTip(bool hovered, int bar, MemoryCategory category);

  std::shared_ptr<const MemoryBudget> budget_;
  MemoryChartSpec spec_;
  QLabel* title_ = nullptr;
  QLabel* convention_ = nullptr;
  QChartView* view_ = nullptr;
  QStackedBarSeries* bars_ = nullptr;
  QBarCategoryAxis* ranks_ = nullptr;
  QLineSeries* capacity_ = nullptr;
  QLineSeries* usable_ = nullptr;
  std::vector<QBarSet*> sets_;                             // parallel to spec_.sets
  std::vector<QGraphicsSimpleTextItem*> headroom_labels_;  // parallel to spec_.headroom
};

}  // namespace meshscope::ui
