#pragma once
// The pipeline schedule animated (issue 17 §4): play / pause, step and a time slider move a cursor over the
// simulated schedule, and beside the schedule a small bar chart shows the activations each stage holds at
// the cursor (micro-batches whose forward has started and whose backward has not finished), rising and
// falling as it plays. The counts are the core's (core/schedule/in_flight.hpp); stepping moves from one
// event boundary to the next. Keyboard: space plays or pauses, the left and right arrows step.
#include <QTimer>
#include <QWidget>

#include <vector>

#include "core/schedule/schedule.hpp"

class QLabel;
class QPushButton;
class QSlider;

namespace meshscope::ui {

class PipelineChart;

// Bars per stage, each on the row of its stage in `rows` (the Gantt chart beside it).
class InFlightChart final : public QWidget {
  Q_OBJECT

 public:
  explicit InFlightChart(const PipelineChart* rows, QWidget* parent = nullptr);
  void setSchedule(const ScheduleResult& schedule);
  void setTime(double t_s);
  [[nodiscard]] const std::vector<double>& inFlight() const { return in_flight_; }
  [[nodiscard]] QSize sizeHint() const override { return {240, 200}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  const PipelineChart* rows_;
  ScheduleResult schedule_;
  std::vector<double> in_flight_;
  double scale_ = 1;  // the largest peak of any stage
};

class PipelineAnimation final : public QWidget {
  Q_OBJECT

 public:
  explicit PipelineAnimation(QWidget* parent = nullptr);
  void setSchedule(const ScheduleResult& schedule);
  // Moves the cursor to `t_s` on the schedule's clock (clamped to its first start and last end).
  void setTime(double t_s);
  [[nodiscard]] double time() const { return time_s_; }
  [[nodiscard]] const std::vector<double>& eventTimes() const { return times_; }
  void stepForward();
  void stepBack();
  void play();
  void pause();
  void togglePlaying();
  [[nodiscard]] bool playing() const { return timer_.isActive(); }

  static constexpr int kTickMs = 40;
  static constexpr int kTicksPerPlay = 250;  // 10 s from the first event to the last

 signals:
  void timeChanged(double t_s);

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void tick();
  void show_time();

  std::vector<double> times_;  // the event boundaries
  double time_s_ = 0;
  QTimer timer_;
  QPushButton* back_ = nullptr;
  QPushButton* play_ = nullptr;
  QPushButton* forward_ = nullptr;
  QSlider* slider_ = nullptr;
  QLabel* label_ = nullptr;
};

}  // namespace meshscope::ui
