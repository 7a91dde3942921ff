#include "ui/panels/pipeline_animation.hpp"

#include <QFontMetrics>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>

#include <algorithm>
#include <cmath>

#include "core/schedule/in_flight.hpp"
#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/panels/pipeline_chart.hpp"

namespace meshscope::ui {

namespace {
constexpr int kSliderSteps = 1000;
constexpr int kMargin = 10;
}  // namespace

InFlightChart::InFlightChart(const PipelineChart* rows, QWidget* parent) : QWidget(parent), rows_(rows) {
  setObjectName(QStringLiteral("in_flight_chart"));
  setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
  setMinimumWidth(240);
}

void InFlightChart::setSchedule(const ScheduleResult& schedule) {
  schedule_ = schedule;
  scale_ = 1;
  for (const double peak : schedule_.peak_in_flight) scale_ = std::max(scale_, peak);
  in_flight_.assign(schedule_.busy_s.size(), 0.0);
  update();
}

void InFlightChart::setTime(double t_s) {
  in_flight_ = in_flight_activations(schedule_, t_s);
  update();
}

void InFlightChart::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().base());
  const QFontMetrics metrics(font());
  painter.setPen(palette().color(QPalette::Text));
  painter.drawText(QPointF(kMargin, kMargin + metrics.ascent()), tr("In flight at the cursor"));
  painter.drawText(QPointF(kMargin, kMargin + metrics.height() + 4 + metrics.ascent()),
                   tr("bar: now · line: peak (micro-batches)"));
  // Each bar on its stage's row of the schedule beside it (same top in the panel).
  const int offset = rows_ ? rows_->mapTo(window(), QPoint(0, 0)).y() - mapTo(window(), QPoint(0, 0)).y() : 0;
  const double label_width = metrics.horizontalAdvance(QStringLiteral("00.00 / 00.00")) + 8;
  const double bar_left = kMargin, bar_width = width() - 2 * kMargin - label_width;
  const QColor bar = series_colour(0);
  for (size_t s = 0; s < in_flight_.size(); ++s) {
    QRectF row = rows_ ? rows_->stageRow(static_cast<int64_t>(s)) : QRectF();
    if (row.isNull()) continue;
    row.translate(0, offset);
    const double peak = s < schedule_.peak_in_flight.size() ? schedule_.peak_in_flight[s] : 0;
    const QRectF track(bar_left, row.top() + 3, bar_width, row.height() - 6);
    painter.fillRect(track, palette().color(QPalette::AlternateBase));
    painter.fillRect(QRectF(track.left(), track.top(), track.width() * in_flight_[s] / scale_, track.height()), bar);
    painter.setPen(QPen(palette().color(QPalette::Text), 2));
    const double peak_x = track.left() + track.width() * peak / scale_;
    painter.drawLine(QPointF(peak_x, track.top() - 2), QPointF(peak_x, track.bottom() + 2));
    painter.drawText(QRectF(track.right() + 6, row.top(), label_width, row.height()), Qt::AlignVCenter | Qt::AlignLeft,
                     QStringLiteral("%1 / %2").arg(in_flight_[s], 0, 'g', 3).arg(peak, 0, 'g', 3));
  }
}

PipelineAnimation::PipelineAnimation(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("pipeline_animation"));
  setFocusPolicy(Qt::StrongFocus);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  back_ = new QPushButton(tr("◀ step"), this);
  play_ = new QPushButton(tr("▶ play"), this);
  forward_ = new QPushButton(tr("step ▶"), this);
  back_->setToolTip(tr("The previous event boundary (left arrow)"));
  play_->setToolTip(tr("Play or pause the schedule (space)"));
  forward_->setToolTip(tr("The next event boundary (right arrow)"));
  for (QPushButton* button : {back_, play_, forward_}) {
    button->setFocusPolicy(Qt::NoFocus);  // the keys go to this widget
    layout->addWidget(button);
  }
  connect(back_, &QPushButton::clicked, this, &PipelineAnimation::stepBack);
  connect(play_, &QPushButton::clicked, this, &PipelineAnimation::togglePlaying);
  connect(forward_, &QPushButton::clicked, this, &PipelineAnimation::stepForward);
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setObjectName(QStringLiteral("pipeline_time"));
  slider_->setRange(0, kSliderSteps);
  slider_->setFocusPolicy(Qt::NoFocus);
  connect(slider_, &QSlider::valueChanged, this, [this](int value) {
    if (times_.empty()) return;
    setTime(times_.front() + (times_.back() - times_.front()) * value / kSliderSteps);
  });
  layout->addWidget(slider_, 1);
  label_ = new QLabel(this);
  label_->setMinimumWidth(QFontMetrics(font()).horizontalAdvance(QStringLiteral("t = 000.00 ms of 000.00 ms")));
  layout->addWidget(label_);
  timer_.setInterval(kTickMs);
  connect(&timer_, &QTimer::timeout, this, &PipelineAnimation::tick);
  show_time();
}

void PipelineAnimation::setSchedule(const ScheduleResult& schedule) {
  pause();
  times_ = schedule_event_times(schedule);
  setTime(times_.empty() ? 0.0 : std::clamp(time_s_, times_.front(), times_.back()));
}

void PipelineAnimation::setTime(double t_s) {
  time_s_ = times_.empty() ? 0.0 : std::clamp(t_s, times_.front(), times_.back());
  show_time();
  emit timeChanged(time_s_);
}

void PipelineAnimation::show_time() {
  const double first = times_.empty() ? 0.0 : times_.front();
  const double span = times_.empty() ? 0.0 : times_.back() - first;
  {
    const QSignalBlocker block(slider_);
    slider_->setValue(span > 0 ? static_cast<int>(std::lround((time_s_ - first) / span * kSliderSteps)) : 0);
  }
  label_->setText(tr("t = %1 of %2").arg(duration_text(time_s_ - first), duration_text(span)));
  play_->setText(playing() ? tr("❚❚ pause") : tr("▶ play"));
  for (QWidget* control : {static_cast<QWidget*>(back_), static_cast<QWidget*>(play_), static_cast<QWidget*>(forward_),
                           static_cast<QWidget*>(slider_)})
    control->setEnabled(!times_.empty());
}

void PipelineAnimation::stepForward() {
  pause();
  setTime(next_event_time(times_, time_s_));
}

void PipelineAnimation::stepBack() {
  pause();
  setTime(previous_event_time(times_, time_s_));
}

void PipelineAnimation::play() {
  if (times_.empty()) return;
  if (time_s_ >= times_.back()) setTime(times_.front());  // from the start again
  timer_.start();
  show_time();
}

void PipelineAnimation::pause() {
  timer_.stop();
  show_time();
}

void PipelineAnimation::togglePlaying() {
  playing() ? pause() : play();
}

void PipelineAnimation::tick() {
  if (times_.empty()) return pause();
  const double step = (times_.back() - times_.front()) / kTicksPerPlay;
  setTime(time_s_ + step);
  if (time_s_ >= times_.back()) pause();
}

void PipelineAnimation::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Space:
      togglePlaying();
      return;
    case Qt::Key_Left:
      stepBack();
      return;
    case Qt::Key_Right:
      stepForward();
      return;
    default:
      QWidget::keyPressEvent(event);
  }
}

}  // namespace meshscope::ui
