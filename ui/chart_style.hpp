#pragma once
// The look shared by meshscope's charts: one colour per memory category and per compared series
// from the Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008: distinguishable under
// the common forms of colour blindness), the red used for "does not fit", and the chart fonts.
// The memory category colours are the same in every view. The theme and margins applied to every
// QChart are ui/charts/chart_theme.hpp (only ui/charts/ includes QtCharts).
#include <QColor>
#include <QFont>

#include "core/memory.hpp"

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

// The application font at `delta_points` above (or below) its size.
[[nodiscard]] QFont chart_font(const QFont& base, qreal delta_points = 0);

}  // namespace meshscope::ui
