#include "ui/profile/profile_chart_spec.hpp"

#include <QObject>

#include <algorithm>
#include <cmath>

#include "core/calibration/trace_compare.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/nice_step.hpp"

namespace meshscope::ui {

namespace {

constexpr double kMicro = 1e-6;  // Kineto times are microseconds

// Okabe–Ito (Okabe & Ito, "Color Universal Design", 2008), as in ui/panels/pipeline_chart.cpp.
const QColor kComputeColour{0x00, 0x72, 0xB2};  // blue
const QColor kExposedColour{0xD5, 0x5E, 0x00};  // vermillion
const QColor kIdleColour{0xBB, 0xBB, 0xBB};     // grey: nothing runs

struct RankMeans {
  double compute_s = 0, exposed_s = 0, idle_s = 0, step_s = 0;
};

RankMeans rank_means(const KinetoRankAnalysis& rank) {
  RankMeans m;
  for (const auto& s : rank.steps) {
    m.compute_s += s.compute_us * kMicro;
    m.exposed_s += s.exposed_communication_us * kMicro;
    m.idle_s += s.idle_us * kMicro;
    m.step_s += s.duration_us * kMicro;
  }
  const double n = static_cast<double>(rank.steps.size());
  m.compute_s /= n;
  m.exposed_s /= n;
  m.idle_s /= n;
  m.step_s /= n;
  return m;
}

}  // namespace

ProfileChartSpec profile_chart_spec(const KinetoRunAnalysis& run, const StepEstimate* estimate) {
  ProfileChartSpec spec;
  spec.sets = {{QObject::tr("Compute"), kComputeColour, {}, {}},
               {QObject::tr("Exposed communication"), kExposedColour, {}, {}},
               {QObject::tr("Idle / bubble"), kIdleColour, {}, {}}};
  int64_t steps = 0;
  double tallest_ms = 0;
  const auto add_bar = [&](const QString& label, double compute_s, double exposed_s, double idle_s,
                           const QString& what) {
    spec.bar_labels << label;
    const double values[] = {compute_s * 1e3, exposed_s * 1e3, idle_s * 1e3};
    for (size_t i = 0; i < spec.sets.size(); ++i) {
      spec.sets[i].ms.push_back(values[i]);
      spec.sets[i].tooltips.push_back(QStringLiteral("<b>%1</b> · %2<br>%3 per step (%4)")
                                          .arg(spec.sets[i].label, label, duration_text(values[i] / 1e3), what));
    }
    tallest_ms = std::max(tallest_ms, values[0] + values[1] + values[2]);
  };
  for (const auto& rank : run.ranks) {
    if (rank.steps.empty()) continue;
    steps = std::max<int64_t>(steps, static_cast<int64_t>(rank.steps.size()));
    const RankMeans m = rank_means(rank);
    add_bar(QString::number(rank.rank), m.compute_s, m.exposed_s, m.idle_s,
            QObject::tr("mean of %1 ProfilerSteps; step time %2").arg(rank.steps.size()).arg(duration_text(m.step_s)));
  }
  if (estimate) {
    const StepBreakdown& b = estimate->breakdown;
    // Nine or more bars leave too little room under each for the whole word.
    add_bar(spec.bar_labels.size() < 8 ? QObject::tr("predicted") : QObject::tr("pred."),
            predicted_compute_s(*estimate),
            b.tp_exposed_s + b.cp_exposed_s + b.ep_exposed_s + b.pp_p2p_s + b.dp_exposed_s, b.bubble_s,
            QObject::tr("the cost model; step time %1").arg(duration_text(estimate->step_time_s)));
  }
  spec.title = QObject::tr("Step breakdown per rank · mean of %n ProfilerStep(s)", nullptr, static_cast<int>(steps));
  spec.axis_step_ms = tallest_ms > 0 ? nice_step(tallest_ms, 5) : 1;
  spec.axis_max_ms = std::max(1.0, std::ceil(tallest_ms / spec.axis_step_ms)) * spec.axis_step_ms;
  return spec;
}

}  // namespace meshscope::ui
