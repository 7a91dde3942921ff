#pragma once
// The memory budget as a chart: one stacked bar per distinct rank (pipeline stage roles, expert
// ranks), one colour per memory category (ui/chart_style.hpp, the same in every view), the GPU's
// capacity (and the engine's usable share when smaller) drawn across, and above each bar its
// headroom ("+12.3 GiB free") or overflow ("4.1 GiB over", in red). Hovering a segment shows the
// category, its bytes (exact and in GiB) and the formula with the inputs that produced it.
//
// It draws MemoryBudget as the core computed it (core/memory.hpp); nothing here recomputes bytes.
// memory_chart_spec() turns a budget into plain data (bars, sets, values, lines, labels) that tests
// check; MemoryChart is the thin QtCharts adapter over it.
#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

#include "core/memory.hpp"

class QBarCategoryAxis;
class QBarSet;
class QChart;
class QChartView;
class QGraphicsSimpleTextItem;
class QLabel;
class QLineSeries;
class QStackedBarSeries;

namespace meshscope::ui {

// What the chart shows, as data. Values are in GiB (2^30 bytes), the unit of the value axis.
struct MemoryChartSpec {
  // One stack of one category across the bars (QBarSet); only categories some rank uses.
  struct CategorySet {
    MemoryCategory category = MemoryCategory::parameters;
    QString label;                  // "Optimizer state"
    QColor colour;                  // memory_category_colour(category)
    std::vector<double> gib;        // one per bar
    std::vector<QString> tooltips;  // one per bar (rich text)
  };
  // The space left (or missing) on one bar against the usable memory.
  struct Headroom {
    double bytes = 0;    // usable − total: negative when the rank does not fit
    QString text;        // "+12.34 GiB free" / "4.10 GiB over"
    QString short_text;  // "+12.3 GiB" / "−4.1 GiB", when the bar is too narrow for `text`
    QString tiny_text;   // "+12" / "−4" (GiB, the axis's unit), when even `short_text` does not fit
    [[nodiscard]] bool overflow() const { return bytes < 0; }
  };

  QString title;                   // "Memory per rank · peak 61.23 GiB of 80.00 GiB"
  QString convention;              // the budget's convention, shown under the title
  bool fits = true;                // every rank within the usable memory (MemoryBudget::fits)
  QStringList bar_labels;          // rank_label() of each rank, in budget order
  QStringList bar_short_labels;    // "stage 3", "stages 1–2": when the full labels do not fit
  QStringList bar_tiny_labels;     // "3", "1–2": when even the short ones do not
  std::vector<CategorySet> sets;   // in MemoryCategory order
  std::vector<Headroom> headroom;  // one per bar
  double capacity_gib = 0;
  std::optional<double> usable_gib;  // only when smaller than the capacity
  double axis_max_gib = 0;           // a whole number of axis_step_gib above every bar and line
  double axis_step_gib = 0;          // 1, 2 or 5 × 10^k
};

// The chart of a budget; an empty budget gives no bars.
[[nodiscard]] MemoryChartSpec memory_chart_spec(const MemoryBudget& budget);
// "<b>Optimizer state</b> · first stage (0)<br>12.34 GiB = 13,249,… bytes<br>formula", escaped.
[[nodiscard]] QString memory_segment_tooltip(const RankMemory& rank, const MemoryItem& item);

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
