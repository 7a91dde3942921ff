#pragma once
// The look every QChart gets (the colours and fonts are ui/kit/chart_style.hpp, which includes no QtCharts).
#include <QFont>

class QChart;
class QWidget;

namespace meshscope::ui {

// Light theme, no animation, antialiasing-friendly margins, fonts from `base` on the legend.
void apply_chart_style(QChart* chart, const QFont& base);

// Every chart under `root`: its legend, axis labels and axis titles in `font` (presenter mode sets the
// enlarged application font after each update of the views, and the normal one when it ends).
void set_chart_fonts(QWidget* root, const QFont& font);

}  // namespace meshscope::ui
