#pragma once
// The memory budget as a chart: one stacked bar per distinct rank (pipeline stage roles, expert
// ranks), one colour per memory category (ui/kit/chart_style.hpp, the same in every view), the GPU's
// capacity (and the engine's usable share when smaller) drawn across, and above each bar its
// headroom ("+12.3 GiB free") or overflow ("4.1 GiB over", in red). Hovering a segment shows the
// category, its bytes (exact and in GiB) and the formula with the inputs that produced it.
//
// It draws MemoryBudget as the core computed it (core/memory/memory.hpp); nothing here recomputes bytes.
// memory_chart_spec() turns a budget into plain data (bars, sets, values, lines, labels) that tests
// check; MemoryChart is the thin QtCharts adapter over it.
#include <QColor>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

#include "core/memory/memory.hpp"

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

}  // namespace meshscope::ui
