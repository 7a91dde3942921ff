// The pipeline bubble chart paints the schedule the core simulated, block for block: each event
// is hit where it is drawn, idle time is empty, and a time window clips what lies outside it.
// Expected timings are 1F1B's closed form (Narayanan et al. SC21 §2.2.1): with p stages, m
// micro-batches, forward t_f and backward t_b, the makespan is (m + p − 1)(t_f + t_b) and the
// bubble fraction (p − 1)/(m + p − 1); stage s starts its first forward at s·t_f.
#include <catch2/catch.hpp>

#include <QImage>

#include <QPainter>
#include <algorithm>
#include <optional>

#include "core/schedule/schedule.hpp"
#include "qt_catch.hpp"
#include "ui/panels/pipeline_chart.hpp"

using namespace meshscope;

namespace {

constexpr int64_t kStages = 4;
constexpr int64_t kMicroBatches = 8;

ScheduleResult one_f_one_b() {
  ScheduleInput input;
  input.schedule = PipelineSchedule::one_f_one_b;
  input.stages = kStages;
  input.micro_batches = kMicroBatches;
  input.costs.assign(kStages, StageCosts{.forward_s = 1.0, .backward_input_s = 1.0, .backward_weight_s = 1.0});
  Result<ScheduleResult> result = simulate_schedule(input);
  REQUIRE(result);
  return *result;
}

QPoint centre(const QRectF& rect) {
  return rect.center().toPoint();
}

}  // namespace

TEST_CASE("pipeline chart: every event is hit at the centre of the block drawn for it") {
  ui::PipelineChart chart;
  chart.resize(1000, chart.sizeHint().height());
  const ScheduleResult schedule = one_f_one_b();
  REQUIRE(schedule.makespan_s == Approx((kMicroBatches + kStages - 1) * 3.0));
  chart.setSchedule(schedule, PipelineSchedule::one_f_one_b);

  REQUIRE(schedule.events.size() == static_cast<size_t>(2 * kStages * kMicroBatches));
  for (const ScheduleEvent& event : schedule.events) {
    const QRectF box = chart.eventRect(event);
    REQUIRE_FALSE(box.isNull());
    const std::optional<ScheduleEvent> hit = chart.eventAt(centre(box));
    REQUIRE(hit);
    CHECK(hit->stage == event.stage);
    CHECK(hit->kind == event.kind);
    CHECK(hit->micro_batch == event.micro_batch);
  }
  // Blocks are proportional to duration: a fused backward (t_b = 2) is twice a forward.
  const QRectF forward = chart.eventRect(schedule.events.front());
  const auto backward = std::find_if(schedule.events.begin(), schedule.events.end(),
                                     [](const ScheduleEvent& e) { return e.kind == WorkKind::backward; });
  REQUIRE(backward != schedule.events.end());
  CHECK(chart.eventRect(*backward).width() == Approx(2 * forward.width()).margin(1.0));
}

TEST_CASE("pipeline chart: the warm-up bubble of the last stage is empty") {
  ui::PipelineChart chart;
  chart.resize(1000, chart.sizeHint().height());
  const ScheduleResult schedule = one_f_one_b();
  chart.setSchedule(schedule, PipelineSchedule::one_f_one_b);
  // Stage p−1 idles for (p−1)·t_f = 3 s before its first forward: the point 1.5 s in is a bubble.
  ScheduleEvent probe;
  probe.stage = kStages - 1;
  probe.start_s = 1.0;
  probe.end_s = 2.0;
  CHECK_FALSE(chart.eventAt(centre(chart.eventRect(probe))));
  probe.start_s = 3.0;
  probe.end_s = 4.0;
  const std::optional<ScheduleEvent> first = chart.eventAt(centre(chart.eventRect(probe)));
  REQUIRE(first);
  CHECK(first->kind == WorkKind::forward);
  CHECK(first->micro_batch == 0);
}

TEST_CASE("pipeline chart: a time window clips the events outside it") {
  ui::PipelineChart chart;
  chart.resize(1000, chart.sizeHint().height());
  const ScheduleResult schedule = one_f_one_b();
  chart.setSchedule(schedule, PipelineSchedule::one_f_one_b);
  chart.setTimeWindow(0, 6.0);
  size_t shown = 0;
  for (const ScheduleEvent& event : schedule.events) {
    const bool inside = event.start_s < 6.0;
    CHECK(chart.eventRect(event).isNull() == !inside);
    shown += inside ? 1 : 0;
  }
  CHECK(shown > 0);
  CHECK(shown < schedule.events.size());
  // The first forward spans 1 s of a 6 s window: a sixth of the plot.
  const QRectF first = chart.eventRect(schedule.events.front());
  const QRectF whole_first = [&] {
    ui::PipelineChart full;
    full.resize(1000, full.sizeHint().height());
    full.setSchedule(schedule, PipelineSchedule::one_f_one_b);
    return full.eventRect(schedule.events.front());
  }();
  CHECK(first.width() == Approx(whole_first.width() * schedule.makespan_s / 6.0).epsilon(0.01));
}

TEST_CASE("pipeline chart: paints the events in their colours without Qt warnings") {
  const meshscope::test::QtWarningRecorder recorder;
  ui::PipelineChart chart;
  chart.resize(800, chart.sizeHint().height());
  chart.setSchedule(one_f_one_b(), PipelineSchedule::one_f_one_b);
  QImage image(chart.size(), QImage::Format_ARGB32);
  chart.render(&image);
  CHECK(recorder.warnings().isEmpty());
  // Some pixel of stage 0's first block has the forward colour: the chart painted the events.
  const QRectF first = chart.eventRect(chart.schedule().events.front());
  CHECK(image.pixelColor(centre(first).x(), static_cast<int>(first.top()) + 2) == QColor(0x56, 0xB4, 0xE9));
}
