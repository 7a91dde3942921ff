#include "ui/charts/tradeoff_heatmap.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

#include "ui/kit/chart_style.hpp"

namespace meshscope::ui {

namespace {

constexpr int kLeft = 110, kTop = 34, kRight = 150, kBottom = 56;  // room for titles, labels and the legend

}  // namespace

TradeoffHeatmap::TradeoffHeatmap(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
}

void TradeoffHeatmap::setSpec(TradeoffHeatmapSpec spec) {
  spec_ = std::move(spec);
  update();
}

QRect TradeoffHeatmap::gridRect() const {
  return rect().adjusted(kLeft, kTop, -kRight, -kBottom);
}

QRect TradeoffHeatmap::cellRect(size_t ix, size_t iy) const {
  const QRect grid = gridRect();
  const auto nx = static_cast<int>(std::max<qsizetype>(spec_.x_labels.size(), 1));
  const auto ny = static_cast<int>(std::max<qsizetype>(spec_.y_labels.size(), 1));
  const int x0 = grid.left() + grid.width() * static_cast<int>(ix) / nx;
  const int x1 = grid.left() + grid.width() * (static_cast<int>(ix) + 1) / nx;
  // The first y value at the bottom, as on a chart's axis.
  const int row = ny - 1 - static_cast<int>(iy);
  const int y0 = grid.top() + grid.height() * row / ny;
  const int y1 = grid.top() + grid.height() * (row + 1) / ny;
  return QRect(QPoint(x0, y0), QPoint(x1 - 1, y1 - 1));
}

std::optional<std::pair<size_t, size_t>> TradeoffHeatmap::cellAt(QPoint point) const {
  for (size_t iy = 0; iy < static_cast<size_t>(spec_.y_labels.size()); ++iy)
    for (size_t ix = 0; ix < static_cast<size_t>(spec_.x_labels.size()); ++ix)
      if (cellRect(ix, iy).contains(point)) return std::make_pair(ix, iy);
  return std::nullopt;
}

void TradeoffHeatmap::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing, false);
  const QFont base = chart_font(font());
  QFont bold = chart_font(font(), 1);
  bold.setBold(true);
  painter.setFont(bold);
  painter.drawText(QRect(8, 4, width() - 16, kTop - 8), Qt::AlignLeft | Qt::AlignVCenter, spec_.title);
  if (spec_.cells.empty()) return;
  painter.setFont(base);
  for (size_t iy = 0; iy < static_cast<size_t>(spec_.y_labels.size()); ++iy) {
    for (size_t ix = 0; ix < static_cast<size_t>(spec_.x_labels.size()); ++ix) {
      const TradeoffHeatmapSpec::Cell& cell = spec_.at(ix, iy);
      const QRect r = cellRect(ix, iy);
      painter.fillRect(r, cell.colour);
      if (cell.does_not_fit) painter.fillRect(r, QBrush(overflow_colour(), Qt::BDiagPattern));
      painter.setPen(cell.valid && cell.colour.lightnessF() < 0.55 ? Qt::white : Qt::black);
      painter.drawText(r, Qt::AlignCenter, cell.text);
    }
  }
  painter.setPen(palette().color(QPalette::Text));
  const QRect grid = gridRect();
  for (size_t ix = 0; ix < static_cast<size_t>(spec_.x_labels.size()); ++ix) {
    const QRect r = cellRect(ix, 0);
    painter.drawText(QRect(r.left(), grid.bottom() + 4, r.width(), 20), Qt::AlignCenter,
                     spec_.x_labels[static_cast<qsizetype>(ix)]);
  }
  for (size_t iy = 0; iy < static_cast<size_t>(spec_.y_labels.size()); ++iy) {
    const QRect r = cellRect(0, iy);
    painter.drawText(QRect(grid.left() - 44, r.top(), 38, r.height()), Qt::AlignRight | Qt::AlignVCenter,
                     spec_.y_labels[static_cast<qsizetype>(iy)]);
  }
  painter.drawText(QRect(grid.left(), grid.bottom() + 26, grid.width(), 22), Qt::AlignCenter, spec_.x_title);
  painter.save();
  painter.translate(grid.left() - 64, grid.center().y());
  painter.rotate(-90);
  painter.drawText(QRect(-grid.height() / 2, -12, grid.height(), 24), Qt::AlignCenter, spec_.y_title);
  painter.restore();
  paintLegend(painter, grid);
}

void TradeoffHeatmap::paintLegend(QPainter& painter, const QRect& grid) const {
  const QRect ramp(grid.right() + 24, grid.top(), 18, std::min(grid.height(), 240));
  QLinearGradient gradient(ramp.bottomLeft(), ramp.topLeft());
  for (int i = 0; i <= 8; ++i) gradient.setColorAt(i / 8.0, tradeoff_ramp_colour(i / 8.0));
  painter.fillRect(ramp, gradient);
  painter.drawRect(ramp.adjusted(0, 0, -1, -1));
  painter.drawText(QRect(ramp.right() + 6, ramp.top() - 2, 90, 18), Qt::AlignLeft | Qt::AlignTop,
                   QString::number(spec_.max_tokens, 'f', 0));
  painter.drawText(QRect(ramp.right() + 6, ramp.bottom() - 16, 90, 18), Qt::AlignLeft | Qt::AlignBottom,
                   QString::number(spec_.min_tokens, 'f', 0));
  painter.drawText(QRect(ramp.left(), ramp.bottom() + 6, 130, 18), Qt::AlignLeft, tr("tokens/s per GPU"));
  const QRect hatch(ramp.left(), ramp.bottom() + 30, 18, 18);
  painter.fillRect(hatch, QColor(0xe0, 0xe0, 0xe0));
  painter.fillRect(hatch, QBrush(overflow_colour(), Qt::BDiagPattern));
  painter.drawText(QRect(hatch.right() + 6, hatch.top(), 110, 18), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("does not fit"));
  const QRect cross(ramp.left(), hatch.bottom() + 8, 18, 18);
  painter.fillRect(cross, QColor(0xe0, 0xe0, 0xe0));
  painter.drawText(cross, Qt::AlignCenter, QStringLiteral("\u2715"));
  painter.drawText(QRect(cross.right() + 6, cross.top(), 110, 18), Qt::AlignLeft | Qt::AlignVCenter, tr("invalid"));
}

void TradeoffHeatmap::mouseMoveEvent(QMouseEvent* event) {
  const auto cell = cellAt(event->position().toPoint());
  if (cell)
    QToolTip::showText(event->globalPosition().toPoint(), spec_.at(cell->first, cell->second).tooltip, this);
  else
    QToolTip::hideText();
}

void TradeoffHeatmap::mousePressEvent(QMouseEvent* event) {
  const auto cell = cellAt(event->position().toPoint());
  if (cell && event->button() == Qt::LeftButton) emit cellActivated(cell->first, cell->second);
}

}  // namespace meshscope::ui
