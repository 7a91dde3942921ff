#pragma once
// The trade-off explorer's charts as data (ui/explore/tradeoff_view.hpp): for every value along an axis, the busiest
// rank's memory by category stacked against the capacity, the step stacked as compute / exposed communication
// per mesh axis / bubble / optimizer, MFU and tokens/s per GPU; invalid values are gaps with their reason; and
// the two-axis heat map (colour = tokens/s per GPU, hatched = does not fit). Pure: built from the core's points
// (core/session/tradeoff.hpp), checked by tests; ui/charts/tradeoff_chart.hpp and tradeoff_heatmap.hpp draw it.
#include <QColor>
#include <QString>
#include <QStringList>

#include <cstddef>
#include <vector>

#include "core/session/tradeoff.hpp"

namespace meshscope::ui {

struct TradeoffChartSpec {
  struct Set {
    QString label;
    QColor colour;
    std::vector<double> values;  // one per axis value; 0 in a gap (memory: also drawn where it does not fit)
  };
  struct Gap {
    size_t index = 0;  // into labels
    QString value;     // "TP 16"
    QString reason;    // "does not fit: +12.3 GiB", the layout's problem
  };
  TradeoffAxis axis = TradeoffAxis::tp;
  QString x_title;          // "tensor parallel (TP)"
  QString rule;             // what stays fixed
  QStringList labels;       // one per value: "8", or "16 ✕" for a gap
  std::vector<Set> memory;  // GiB, one set per memory category (MemoryCategory order, empty ones left out)
  double capacity_gib = 0;  // the largest of capacity_per_value_gib
  std::vector<double> capacity_per_value_gib;  // the GPU's capacity at each value (the gpu axis changes it)
  std::vector<Set> step;     // seconds: compute, TP, CP, EP, PP, DP exposed, bubble, optimizer (empty ones left out)
  std::vector<Set> traffic;  // decimal GB per step and rank, one set per mesh axis with traffic (CommPlan)
  std::vector<double> mfu_percent;           // NaN in a gap
  std::vector<double> tokens_per_s_per_gpu;  // NaN in a gap
  std::vector<Gap> gaps;
  std::vector<QString> tooltips;  // one per value: the numbers and where they come from
  double memory_max_gib = 1, step_max_s = 1, tokens_max = 1, traffic_max_gb = 1;
  [[nodiscard]] bool is_gap(size_t index) const;
};

struct TradeoffHeatmapSpec {
  struct Cell {
    bool valid = false;
    bool does_not_fit = false;  // hatched
    double tokens_per_s_per_gpu = 0;
    QColor colour;  // on the ramp; grey where invalid
    QString text;   // drawn in the cell: "1234" or "✕"
    QString tooltip;
  };
  TradeoffAxis axis_x = TradeoffAxis::tp, axis_y = TradeoffAxis::pp;
  QString x_title, y_title, title;
  QStringList x_labels, y_labels;
  std::vector<Cell> cells;  // row-major, as TradeoffGrid
  double min_tokens = 0, max_tokens = 1;
  [[nodiscard]] const Cell& at(size_t ix, size_t iy) const {
    return cells[iy * static_cast<size_t>(x_labels.size()) + ix];
  }
};

// "TP 8": how a value reads in the undo history and the tooltips.
[[nodiscard]] QString tradeoff_value_text(TradeoffAxis axis, const TradeoffValue& value);
[[nodiscard]] TradeoffChartSpec tradeoff_chart_spec(const TradeoffCurve& curve);
[[nodiscard]] TradeoffHeatmapSpec tradeoff_heatmap_spec(const TradeoffGrid& grid);
// The heat map's ramp from the lowest (0) to the highest (1) throughput: viridis-like, readable in grey.
[[nodiscard]] QColor tradeoff_ramp_colour(double fraction);

}  // namespace meshscope::ui
