#pragma once
// The trade-off explorer (issue 17 §1): pick an axis — TP, PP, v, DP, FSDP shard group, CP, EP, micro-batch,
// recompute, ZeRO stage, sequence length, global batch, GPUs — and see, for each value with the rest of the
// project fixed (core tradeoff_rule), the busiest rank's memory, the step's parts, MFU and tokens/s per GPU
// (ui/charts/tradeoff_chart.hpp); with a second axis, the heat map of tokens/s per GPU
// (ui/charts/tradeoff_heatmap.hpp). Every point is the core's evaluate_project of the varied project. It is
// recomputed when the project changes and the view is shown (16 values take 11–25 ms, the 7 × 7 heat map 16 ms in
// a release build: bench_tradeoff; so on the GUI thread, debounced); clicking a value applies it as one undoable step
// ("Trade-off: TP 4").
#include <QWidget>

#include <memory>
#include <optional>

#include "core/session/evaluate.hpp"
#include "core/session/tradeoff.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTimer;

namespace meshscope::ui {

class ProjectDocument;
class TradeoffChart;
class TradeoffHeatmap;

class TradeoffView final : public QWidget {
  Q_OBJECT

 public:
  explicit TradeoffView(ProjectDocument* document, QWidget* parent = nullptr);
  // The axis, and the heat map's second axis (nullopt: the one-axis charts). Values reset to the defaults.
  void setAxes(TradeoffAxis axis, std::optional<TradeoffAxis> axis2 = std::nullopt);
  // Comma-separated values of the axis (the second's); an error is shown in the status line.
  void setValues(const QString& values);
  void setValues2(const QString& values);
  // Recomputes now (the view recomputes by itself when the project changes and it is visible).
  void refresh();
  // A value of the curve, or a cell of the heat map, applied to the project (one undo step).
  void applyValue(int index);
  void applyCell(size_t ix, size_t iy);

  [[nodiscard]] TradeoffAxis axis() const { return axis_; }
  [[nodiscard]] std::optional<TradeoffAxis> axis2() const { return axis2_; }
  [[nodiscard]] const TradeoffCurve* curve() const { return curve_ ? &*curve_ : nullptr; }
  [[nodiscard]] const TradeoffGrid* grid() const { return grid_ ? &*grid_ : nullptr; }
  [[nodiscard]] TradeoffChart* chart() const { return chart_; }
  [[nodiscard]] TradeoffHeatmap* heatmap() const { return heatmap_; }
  [[nodiscard]] QSize sizeHint() const override { return {1200, 640}; }

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void on_project_changed();
  void sync_controls();
  [[nodiscard]] std::optional<std::vector<TradeoffValue>> values_of(TradeoffAxis axis, const QString& text);

  ProjectDocument* document_;
  TradeoffAxis axis_ = TradeoffAxis::tp;
  std::optional<TradeoffAxis> axis2_;
  QString values_text_, values2_text_;  // empty: the defaults for the project
  std::optional<TradeoffCurve> curve_;
  std::optional<TradeoffGrid> grid_;
  ClusterCache cache_;
  bool dirty_ = true;
  QComboBox* axis_box_ = nullptr;
  QComboBox* axis2_box_ = nullptr;
  QLineEdit* values_edit_ = nullptr;
  QLineEdit* values2_edit_ = nullptr;
  QLabel* status_ = nullptr;
  QStackedWidget* stack_ = nullptr;
  TradeoffChart* chart_ = nullptr;
  TradeoffHeatmap* heatmap_ = nullptr;
  QTimer* debounce_ = nullptr;
};

}  // namespace meshscope::ui
