#include "ui/panels/pipeline_chart.hpp"

#include <QEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/nice_step.hpp"

namespace meshscope::ui {

namespace {

constexpr int kRowHeight = 26;
constexpr int kRowGap = 4;
constexpr int kMargin = 10;

// One colour per kind, distinct for the common forms of colour blindness (Okabe–Ito palette).
QColor kind_colour(WorkKind kind) {
  switch (kind) {
    case WorkKind::forward:
      return {0x56, 0xB4, 0xE9};  // sky blue
    case WorkKind::backward_input:
      return {0x00, 0x9E, 0x73};  // bluish green
    case WorkKind::backward_weight:
      return {0xE6, 0x9F, 0x00};  // orange
    case WorkKind::backward:
      return {0x00, 0x72, 0xB2};  // blue
  }
  return Qt::gray;
}

}  // namespace

QString work_kind_label(WorkKind kind) {
  switch (kind) {
    case WorkKind::forward:
      return QStringLiteral("F");
    case WorkKind::backward_input:
      return QStringLiteral("B");
    case WorkKind::backward_weight:
      return QStringLiteral("W");
    case WorkKind::backward:
      return QStringLiteral("B+W");
  }
  return {};
}

PipelineChart::PipelineChart(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void PipelineChart::setSchedule(ScheduleResult schedule, PipelineSchedule kind) {
  schedule_ = std::move(schedule);
  kind_ = kind;
  stages_ = static_cast<int64_t>(schedule_.busy_s.size());
  first_start_s_ = std::numeric_limits<double>::infinity();
  for (const ScheduleEvent& event : schedule_.events) first_start_s_ = std::min(first_start_s_, event.start_s);
  if (schedule_.events.empty()) first_start_s_ = 0;
  updateGeometry();
  update();
}

QRectF PipelineChart::plotRect() const {
  const QFontMetrics metrics(font());
  const double left = kMargin + metrics.horizontalAdvance(tr("stage %1").arg(std::max<int64_t>(stages_ - 1, 0))) + 8;
  const double top = kMargin + 2.0 * metrics.height() + 8;  // title and legend
  const double height = static_cast<double>(stages_) * (kRowHeight + kRowGap);
  const double right = width() - kMargin - metrics.horizontalAdvance(QStringLiteral("00.00 s")) / 2.0;
  return {left, top, std::max(right - left, 1.0), height};
}

void PipelineChart::setTimeWindow(double start_s, double end_s) {
  window_start_s_ = start_s;
  window_end_s_ = end_s;
  update();
}

double PipelineChart::windowStart() const {
  return window_end_s_ > window_start_s_ ? window_start_s_ : 0.0;
}

double PipelineChart::windowSpan() const {
  if (window_end_s_ > window_start_s_) return window_end_s_ - window_start_s_;
  return schedule_.makespan_s > 0 ? schedule_.makespan_s : 1.0;
}

double PipelineChart::timeToX(double seconds) const {
  const QRectF plot = plotRect();
  return plot.left() + (seconds - first_start_s_ - windowStart()) / windowSpan() * plot.width();
}

QRectF PipelineChart::eventRect(const ScheduleEvent& event) const {
  const QRectF plot = plotRect();
  const double x0 = std::clamp(timeToX(event.start_s), plot.left(), plot.right());
  const double x1 = std::clamp(timeToX(event.end_s), plot.left(), plot.right());
  if (x1 <= x0) return {};
  const double y = plot.top() + static_cast<double>(event.stage) * (kRowHeight + kRowGap);
  return {x0, y, std::max(x1 - x0, 0.5), static_cast<double>(kRowHeight)};
}

std::optional<ScheduleEvent> PipelineChart::eventAt(QPoint point) const {
  const QRectF plot = plotRect();
  if (stages_ == 0 || !plot.adjusted(0, 0, 1, 0).contains(point)) return std::nullopt;
  const auto row = static_cast<int64_t>((point.y() - plot.top()) / (kRowHeight + kRowGap));
  for (const ScheduleEvent& event : schedule_.events)
    if (event.stage == row && eventRect(event).adjusted(-0.5, 0, 0.5, 0).contains(point)) return event;
  return std::nullopt;
}

void PipelineChart::setCursorTime(std::optional<double> t_s) {
  cursor_s_ = t_s;
  update();
}

QRectF PipelineChart::stageRow(int64_t stage) const {
  if (stage < 0 || stage >= stages_) return {};
  const QRectF plot = plotRect();
  return {plot.left(), plot.top() + static_cast<double>(stage) * (kRowHeight + kRowGap), plot.width(),
          static_cast<double>(kRowHeight)};
}

QSize PipelineChart::minimumSizeHint() const {
  const QFontMetrics metrics(font());
  const int height = static_cast<int>(2 * kMargin + 4 * metrics.height() + 16 + stages_ * (kRowHeight + kRowGap));
  return {400, height};
}

QSize PipelineChart::sizeHint() const {
  return {1000, minimumSizeHint().height()};
}

void PipelineChart::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().base());
  const QFontMetrics metrics(font());
  const QColor text = palette().color(QPalette::Text);
  painter.setPen(text);

  // Title: schedule, makespan and bubble, as the core computed them.
  const QString title =
      tr("Pipeline schedule %1 \u00b7 %2 stages \u00b7 makespan %3 \u00b7 bubble %4 %")
          .arg(QString::fromUtf8(enum_name(kind_).data(), static_cast<qsizetype>(enum_name(kind_).size())))
          .arg(static_cast<qlonglong>(stages_))
          .arg(duration_text(schedule_.makespan_s))
          .arg(100.0 * schedule_.bubble_fraction, 0, 'f', 1) +
      (window_end_s_ > window_start_s_
           ? tr(" · showing %1 – %2").arg(duration_text(window_start_s_), duration_text(window_end_s_))
           : QString());
  painter.drawText(QPointF(kMargin, kMargin + metrics.ascent()), title);

  // Legend: only the kinds this schedule uses, plus idle.
  bool used[4] = {false, false, false, false};
  for (const ScheduleEvent& event : schedule_.events) used[static_cast<int>(event.kind)] = true;
  double x = kMargin;
  const double legend_y = kMargin + metrics.height() + 4;
  const auto legend_entry = [&](const QColor& colour, const QString& label) {
    painter.fillRect(QRectF(x, legend_y + 2, 14, metrics.height() - 4), colour);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(QRectF(x, legend_y + 2, 14, metrics.height() - 4));
    painter.setPen(text);
    x += 18;
    painter.drawText(QPointF(x, legend_y + metrics.ascent()), label);
    x += metrics.horizontalAdvance(label) + 16;
  };
  const QString kind_names[4] = {tr("F forward"), tr("B input gradient"), tr("W weight gradient"), tr("B+W backward")};
  for (int kind = 0; kind < 4; ++kind)
    if (used[kind]) legend_entry(kind_colour(static_cast<WorkKind>(kind)), kind_names[kind]);
  legend_entry(palette().color(QPalette::AlternateBase), tr("idle (bubble)"));

  const QRectF plot = plotRect();
  // Rows with their stage labels and a faint track, so idle time reads as a gap in the track.
  for (int64_t stage = 0; stage < stages_; ++stage) {
    const double y = plot.top() + static_cast<double>(stage) * (kRowHeight + kRowGap);
    painter.fillRect(QRectF(plot.left(), y, plot.width(), kRowHeight), palette().color(QPalette::AlternateBase));
    const QString label = tr("stage %1").arg(static_cast<qlonglong>(stage));
    painter.drawText(QPointF(plot.left() - 8 - metrics.horizontalAdvance(label),
                             y + (kRowHeight + metrics.ascent() - metrics.descent()) / 2.0),
                     label);
  }

  // Events; the micro-batch number is drawn where it fits.
  const QColor outline = palette().color(QPalette::Base);
  for (const ScheduleEvent& event : schedule_.events) {
    const QRectF box = eventRect(event);
    if (box.isNull()) continue;
    painter.fillRect(box, kind_colour(event.kind));
    if (box.width() >= 3) {
      painter.setPen(QPen(outline, themed_width(1)));
      painter.drawLine(QPointF(box.right(), box.top()), QPointF(box.right(), box.bottom()));
    }
    const QString number = QString::number(static_cast<qlonglong>(event.micro_batch));
    if (box.width() >= metrics.horizontalAdvance(number) + 2) {
      painter.setPen(Qt::black);
      painter.drawText(box, Qt::AlignCenter, number);
    }
  }

  // The animation's cursor.
  if (cursor_s_) {
    const double cursor_x = timeToX(*cursor_s_);
    if (cursor_x >= plot.left() && cursor_x <= plot.right()) {
      painter.setPen(QPen(overflow_colour(), 2));
      painter.drawLine(QPointF(cursor_x, plot.top() - 4), QPointF(cursor_x, plot.bottom() + 4));
    }
  }
  // Time axis under the rows.
  painter.setPen(text);
  const double axis_y = plot.bottom() + 2;
  painter.drawLine(QPointF(plot.left(), axis_y), QPointF(plot.right(), axis_y));
  if (schedule_.makespan_s > 0) {
    const double span = windowSpan();
    const double step = nice_step(span, std::max(2, static_cast<int>(plot.width() / 110)));
    for (double t = std::ceil(windowStart() / step) * step; t <= (windowStart() + span) * (1 + 1e-9); t += step) {
      const double tick_x = timeToX(first_start_s_ + t);
      painter.drawLine(QPointF(tick_x, axis_y), QPointF(tick_x, axis_y + 4));
      const QString label = duration_text(t);
      painter.drawText(QPointF(tick_x - metrics.horizontalAdvance(label) / 2.0, axis_y + 4 + metrics.ascent()), label);
    }
  }
}

bool PipelineChart::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (const std::optional<ScheduleEvent> hit = eventAt(help->pos())) {
      QString tip = tr("<b>%1</b> micro-batch %2 on stage %3")
                        .arg(work_kind_label(hit->kind))
                        .arg(static_cast<qlonglong>(hit->micro_batch))
                        .arg(static_cast<qlonglong>(hit->stage));
      if (kind_ == PipelineSchedule::interleaved) tip += tr(", chunk %1").arg(static_cast<qlonglong>(hit->chunk));
      if (kind_ == PipelineSchedule::dualpipe) tip += tr(", direction %1").arg(static_cast<qlonglong>(hit->chunk));
      tip += tr("<br>start %1 \u00b7 duration %2")
                 .arg(duration_text(hit->start_s - first_start_s_), duration_text(hit->end_s - hit->start_s));
      QToolTip::showText(help->globalPos(), tip, this);
    } else {
      QToolTip::hideText();
      event->ignore();
    }
    return true;
  }
  return QWidget::event(event);
}

}  // namespace meshscope::ui
