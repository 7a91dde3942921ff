#pragma once
// The profile view's chart as data: a stacked bar per rank (compute / exposed communication / idle per ProfilerStep,
// the mean over the rank's steps) and, with a prediction, a "predicted" bar (compute / exposed communication /
// pipeline bubble). ui/charts/profile_chart.hpp draws it.
#include <QColor>
#include <QString>
#include <QStringList>

#include <vector>

#include "core/estimate/step.hpp"
#include "core/importers/kineto.hpp"

namespace meshscope::ui {

struct ProfileChartSpec {
  struct Set {
    QString label;           // "Compute", "Exposed communication", "Idle / bubble"
    QColor colour;           // Okabe–Ito
    std::vector<double> ms;  // one per bar: mean per step, milliseconds (the value axis' unit)
    std::vector<QString> tooltips;
  };
  QString title;            // "Step breakdown per rank · mean of 3 ProfilerSteps"
  QStringList bar_labels;   // "0", "1", ... (ranks), "predicted" ("pred." after 8 ranks)
  std::vector<Set> sets;    // compute, exposed communication, idle / bubble
  double axis_max_ms = 0;   // a whole number of steps above the tallest bar
  double axis_step_ms = 0;  // 1, 2 or 5 × 10^k
};
// One bar per rank with ProfilerSteps; a "predicted" bar when `estimate` is given.
[[nodiscard]] ProfileChartSpec profile_chart_spec(const KinetoRunAnalysis& run, const StepEstimate* estimate);

}  // namespace meshscope::ui
