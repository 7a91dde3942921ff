#pragma once
// The pipeline bubble chart: a Gantt chart of one simulated schedule, one row per pipeline rank,
// forward / input-gradient / weight-gradient work in distinct colours, idle time left blank.
// It paints ScheduleResult as the core simulated it (core/schedule/schedule.hpp); nothing here
// recomputes timing. Micro-batch numbers are drawn inside a block when they fit; hovering a
// block shows its micro-batch, chunk, start and duration.
#include <QWidget>

#include <optional>

#include "core/schedule/schedule.hpp"

namespace meshscope::ui {

class PipelineChart final : public QWidget {
  Q_OBJECT

 public:
  explicit PipelineChart(QWidget* parent = nullptr);

  void setSchedule(ScheduleResult schedule, PipelineSchedule kind);
  [[nodiscard]] const ScheduleResult& schedule() const { return schedule_; }
  // Show only [start, end) seconds after the first event (a zoom on the warm-up, say); events
  // outside are clipped. An empty window (end ≤ start) shows the whole makespan.
  void setTimeWindow(double start_s, double end_s);

  // The event drawn under a point of the widget, if any (tooltips and tests use it).
  [[nodiscard]] std::optional<ScheduleEvent> eventAt(QPoint point) const;
  // The rectangle an event is drawn in, in widget coordinates.
  [[nodiscard]] QRectF eventRect(const ScheduleEvent& event) const;

  // The animation's cursor (ui/panels/pipeline_animation.hpp): a line at `t_s` on the schedule's clock; none: hidden.
  void setCursorTime(std::optional<double> t_s);
  [[nodiscard]] std::optional<double> cursorTime() const { return cursor_s_; }
  // The rectangle of a stage's row, in widget coordinates (the in-flight bars line up with it).
  [[nodiscard]] QRectF stageRow(int64_t stage) const;

  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  [[nodiscard]] QRectF plotRect() const;
  [[nodiscard]] double timeToX(double seconds) const;
  [[nodiscard]] double windowStart() const;
  [[nodiscard]] double windowSpan() const;

  ScheduleResult schedule_;
  PipelineSchedule kind_ = PipelineSchedule::one_f_one_b;
  int64_t stages_ = 0;
  double first_start_s_ = 0;
  double window_start_s_ = 0, window_end_s_ = 0;  // relative to first_start_s_; empty = all
  std::optional<double> cursor_s_;
};

// "F", "B", "W" or "B+W" for a work kind; the legend and the tooltips use it.
[[nodiscard]] QString work_kind_label(WorkKind kind);

}  // namespace meshscope::ui
