#pragma once
// The look every QChart gets (the colours and fonts are ui/chart_style.hpp, which includes no QtCharts).
#include <QFont>

class QChart;

namespace meshscope::ui {

// Light theme, no animation, antialiasing-friendly margins, fonts from `base` on the legend.
void apply_chart_style(QChart* chart, const QFont& base);

}  // namespace meshscope::ui
