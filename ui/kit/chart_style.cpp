#include "ui/kit/chart_style.hpp"

#include <array>

namespace meshscope::ui {

namespace {

// Okabe & Ito (2008), "Color Universal Design (CUD): how to make figures and presentations that
// are friendly to colorblind people", the eight-colour set.
constexpr std::array<QRgb, 8> kOkabeIto = {
    0x0072B2,  // blue
    0xE69F00,  // orange
    0x009E73,  // bluish green
    0xD55E00,  // vermillion
    0xCC79A7,  // reddish purple
    0x56B4E9,  // sky blue
    0xF0E442,  // yellow
    0x000000,  // black
};

ChartTheme& current_theme() {
  static ChartTheme theme;
  return theme;
}

}  // namespace

const ChartTheme& chart_theme() {
  return current_theme();
}

void set_chart_theme(const ChartTheme& theme) {
  current_theme() = theme;
}

ChartTheme presenter_chart_theme() {
  return ChartTheme{1.6, 2.0, 1.6, true};
}

qreal themed_width(qreal width) {
  return width * chart_theme().line_width_scale;
}

qreal themed_marker_size(qreal size) {
  return size * chart_theme().marker_scale;
}

QColor series_colour(int index) {
  const auto size = static_cast<int>(kOkabeIto.size());
  return QColor::fromRgb(kOkabeIto[static_cast<size_t>(((index % size) + size) % size)]);
}

QColor memory_category_colour(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::parameters:
      return QColor::fromRgb(0x0072B2);  // blue
    case MemoryCategory::gradients:
      return QColor::fromRgb(0x56B4E9);  // sky blue
    case MemoryCategory::optimizer_state:
      return QColor::fromRgb(0xCC79A7);  // reddish purple
    case MemoryCategory::activations:
      return QColor::fromRgb(0xE69F00);  // orange
    case MemoryCategory::kv_cache:
      return QColor::fromRgb(0x009E73);  // bluish green
    case MemoryCategory::temporary:
      return QColor::fromRgb(0xF0E442);  // yellow
    case MemoryCategory::communication:
      return QColor::fromRgb(0xD55E00);  // vermillion
    case MemoryCategory::runtime:        // mid grey: fixed overhead, not a modelling choice
      return QColor::fromRgb(chart_theme().high_contrast ? 0x505050 : 0x7F7F7F);
    case MemoryCategory::allocator:  // light grey: reserved, not used
      return QColor::fromRgb(chart_theme().high_contrast ? 0x9A9A9A : 0xC8C8C8);
  }
  return Qt::gray;
}

QColor overflow_colour() {
  return QColor::fromRgb(0xC0, 0x00, 0x1A);
}

QColor reference_line_colour() {
  if (chart_theme().high_contrast) return Qt::black;
  return QColor::fromRgb(0x20, 0x20, 0x20);
}

QFont chart_font(const QFont& base, qreal delta_points) {
  QFont font = base;
  if (font.pointSizeF() > 0) font.setPointSizeF(font.pointSizeF() + delta_points);
  return font;
}

}  // namespace meshscope::ui
