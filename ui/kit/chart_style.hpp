#pragma once
// The look shared by meshscope's charts: one colour per memory category and per compared series
// from the Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008: distinguishable under
// the common forms of colour blindness), the red used for "does not fit", and the chart fonts.
// The memory category colours are the same in every view. The theme and margins applied to every
// QChart are ui/charts/chart_theme.hpp (only ui/charts/ includes QtCharts).
#include <QColor>
#include <QFont>

#include "core/memory/memory.hpp"

namespace meshscope::ui {

// Okabe–Ito without black, in an order where neighbours contrast: blue, orange, bluish green,
// vermillion, reddish purple, sky blue, yellow; then black, then the cycle again.
[[nodiscard]] QColor series_colour(int index);
// One fixed colour per category (grey for the runtime and allocator overheads).
[[nodiscard]] QColor memory_category_colour(MemoryCategory category);
// Text and marks for "does not fit" / "misses the target".
[[nodiscard]] QColor overflow_colour();
// The colour of reference lines (capacity, targets).
[[nodiscard]] QColor reference_line_colour();

// The theme every chart and table reads (View → Presenter mode switches it): how much thicker lines
// and larger markers are, and whether the colours are the high-contrast presenter set. Fonts scale
// through the application font (QApplication::setFont), which every widget and chart inherits.
// Chart adapters (ui/charts/, and the pipeline chart's painter) take their pen widths and marker
// sizes through themed_width() and themed_marker_size(), their colours from the functions above.
struct ChartTheme {
  qreal font_scale = 1.0;        // of the application font (the presenter mode sets it)
  qreal line_width_scale = 1.0;  // of every chart pen
  qreal marker_scale = 1.0;      // of every marker
  bool high_contrast = false;    // darker greys and a black reference colour (projectors wash out light tints)
  bool operator==(const ChartTheme&) const = default;
};
[[nodiscard]] const ChartTheme& chart_theme();
void set_chart_theme(const ChartTheme& theme);
// Readable from the back of a room: fonts × 1.6, lines × 2, markers × 1.6, high contrast.
[[nodiscard]] ChartTheme presenter_chart_theme();
[[nodiscard]] qreal themed_width(qreal width);
[[nodiscard]] qreal themed_marker_size(qreal size);

// The application font at `delta_points` above (or below) its size.
[[nodiscard]] QFont chart_font(const QFont& base, qreal delta_points = 0);

}  // namespace meshscope::ui
