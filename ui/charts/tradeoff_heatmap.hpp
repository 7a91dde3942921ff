#pragma once
// The trade-off explorer's two-axis heat map, painted with QPainter: a TradeoffHeatmapSpec's cells coloured by
// tokens/s per GPU (a legend ramp beside them), layouts that do not fit hatched, other invalid ones grey with a
// cross; hovering a cell shows its numbers and reason, clicking it asks to apply both values.
#include <QWidget>

#include <cstddef>
#include <optional>
#include <utility>

#include "ui/explore/tradeoff_chart_spec.hpp"

namespace meshscope::ui {

class TradeoffHeatmap final : public QWidget {
  Q_OBJECT

 public:
  explicit TradeoffHeatmap(QWidget* parent = nullptr);
  void setSpec(TradeoffHeatmapSpec spec);
  [[nodiscard]] const TradeoffHeatmapSpec& spec() const { return spec_; }
  // The cell under a point of this widget (x index, y index), if any.
  [[nodiscard]] std::optional<std::pair<size_t, size_t>> cellAt(QPoint point) const;
  // Where a cell is drawn (after a resize).
  [[nodiscard]] QRect cellRect(size_t ix, size_t iy) const;
  [[nodiscard]] QSize sizeHint() const override { return {720, 460}; }
  [[nodiscard]] QSize minimumSizeHint() const override { return {320, 220}; }

 signals:
  void cellActivated(size_t ix, size_t iy);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  [[nodiscard]] QRect gridRect() const;
  void paintLegend(QPainter& painter, const QRect& grid) const;
  TradeoffHeatmapSpec spec_;
};

}  // namespace meshscope::ui
