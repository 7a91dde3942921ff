#pragma once
// Text helpers the views share (the summary strip, the pipeline panel); not an API.
#include <QObject>
#include <QString>

#include <algorithm>
#include <string>

#include "core/estimate/step.hpp"
#include "core/project/project.hpp"
#include "core/schedule/schedule.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/panels/serving_chart_spec.hpp"

namespace meshscope::ui::view_text {

// Verdict colours chosen to stay readable on light and dark palettes.
inline const QString kFitsColour = QStringLiteral("#2e7d32");
inline const QString kProblemColour = QStringLiteral("#c62828");

inline QString html(const std::string& text) {
  return QString::fromStdString(text).toHtmlEscaped();
}

inline QString mode_text(Mode mode) {
  return mode == Mode::training ? QObject::tr("training") : QObject::tr("serving");
}

// The layout line: the training mesh, or the serving deployment.
inline QString layout_line(const Project& project) {
  return project.mode == Mode::training ? layout_summary(project.layout) : serving_layout_label(project.serving_layout);
}

// "Llama-3.1-70B on NVIDIA H100 SXM5 80GB × 64 · training"
inline QString title_line(const Project& project) {
  QString line = QObject::tr("<span style=\"font-size:large\"><b>%1</b></span> on %2")
                     .arg(html(project.model.name), html(project.gpu.name));
  if (project.gpu_count > 0) line += QStringLiteral(" \u00d7 %1").arg(static_cast<qlonglong>(project.gpu_count));
  return line + QStringLiteral(" \u00b7 ") + mode_text(project.mode);
}

// The time from the first event to the end of stage 0's 3·p·v-th work item: the warm-up and the
// start of the steady state. 0 when the whole schedule is shorter than that (nothing to zoom).
inline double warm_up_window_s(const ScheduleResult& schedule) {
  const auto stages = static_cast<int64_t>(schedule.busy_s.size());
  if (schedule.events.empty() || stages == 0) return 0;
  int64_t chunks = 1;
  for (const ScheduleEvent& event : schedule.events) chunks = std::max(chunks, event.chunk + 1);
  const double first = schedule.events.front().start_s;
  const auto wanted = static_cast<size_t>(3 * stages * chunks);
  size_t seen = 0;
  for (const ScheduleEvent& event : schedule.events) {
    if (event.stage != 0) break;
    if (++seen == wanted) return event.end_s - first < 0.5 * schedule.makespan_s ? event.end_s - first : 0.0;
  }
  return 0;
}

inline QString schedule_caption(const StepEstimate& estimate) {
  return QObject::tr("<b>%1</b> · %2 micro-batches · makespan %3 · bubble %4 % · step %5 s")
      .arg(QString::fromStdString(std::string(enum_name(estimate.pipeline_schedule))))
      .arg(static_cast<qlonglong>(estimate.micro_batches))
      .arg(duration_text(estimate.schedule.makespan_s))
      .arg(100 * estimate.bubble_fraction, 0, 'f', 1)
      .arg(estimate.step_time_s, 0, 'f', 2);
}

}  // namespace meshscope::ui::view_text
