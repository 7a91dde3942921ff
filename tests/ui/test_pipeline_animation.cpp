// The animated pipeline schedule (ui/panels/pipeline_animation.hpp): the cursor at a time shows the core's in-flight
// counts (core/schedule/in_flight.hpp), stepping moves between event boundaries, space and the arrows drive it,
// and playing advances the cursor until the last event.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QSignalSpy>
#include <QTest>

#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/schedule/in_flight.hpp"
#include "core/schedule/schedule.hpp"
#include "qt_catch.hpp"
#include "ui/panels/pipeline_animation.hpp"
#include "ui/panels/pipeline_chart.hpp"
#include "ui/panels/pipeline_panel.hpp"
#include "ui/window/main_window.hpp"

using namespace meshscope;

namespace {

ScheduleResult one_f_one_b(int64_t p, int64_t m) {
  ScheduleInput in;
  in.schedule = PipelineSchedule::one_f_one_b;
  in.stages = p;
  in.micro_batches = m;
  in.costs.assign(static_cast<size_t>(p), StageCosts{1.0, 2.0, 0.0});
  return *simulate_schedule(in);
}

struct Rig {
  ui::PipelineChart chart;
  ui::InFlightChart in_flight{&chart};
  ui::PipelineAnimation animation;
  explicit Rig(const ScheduleResult& schedule) {
    chart.setSchedule(schedule, PipelineSchedule::one_f_one_b);
    in_flight.setSchedule(schedule);
    QObject::connect(&animation, &ui::PipelineAnimation::timeChanged, &chart, [this](double t) {
      chart.setCursorTime(t);
      in_flight.setTime(t);
    });
    animation.setSchedule(schedule);
  }
};

}  // namespace

TEST_CASE("pipeline animation: the cursor at t shows the core's in-flight counts per stage") {
  const ScheduleResult schedule = one_f_one_b(4, 8);
  Rig rig(schedule);
  const std::vector<double> times = schedule_event_times(schedule);
  for (const double fraction : {0.0, 0.25, 0.4, 0.5, 0.9, 1.0}) {
    const double t = times.front() + fraction * (times.back() - times.front());
    rig.animation.setTime(t);
    CHECK(rig.animation.time() == t);
    CHECK(rig.chart.cursorTime() == t);
    CHECK(rig.in_flight.inFlight() == in_flight_activations(schedule, t));
  }
  // Somewhere stage 0 holds its 1F1B peak, min(p, m) = 4 (Narayanan et al. SC21 §2.2.1).
  double most = 0;
  for (const double t : times) {
    rig.animation.setTime(t);
    most = std::max(most, rig.in_flight.inFlight()[0]);
  }
  CHECK(most == 4.0);
}

TEST_CASE("pipeline animation: stepping moves between event boundaries; the keys step and play") {
  const ScheduleResult schedule = one_f_one_b(4, 8);
  Rig rig(schedule);
  const std::vector<double>& times = rig.animation.eventTimes();
  REQUIRE(times == schedule_event_times(schedule));
  rig.animation.setTime(times.front());
  rig.animation.stepForward();
  CHECK(rig.animation.time() == times[1]);
  rig.animation.stepForward();
  CHECK(rig.animation.time() == times[2]);
  rig.animation.stepBack();
  CHECK(rig.animation.time() == times[1]);
  rig.animation.setTime((times[3] + times[4]) / 2);
  rig.animation.stepForward();
  CHECK(rig.animation.time() == times[4]);
  QTest::keyClick(&rig.animation, Qt::Key_Right);
  CHECK(rig.animation.time() == times[5]);
  QTest::keyClick(&rig.animation, Qt::Key_Left);
  CHECK(rig.animation.time() == times[4]);
  CHECK(!rig.animation.playing());
  QTest::keyClick(&rig.animation, Qt::Key_Space);
  CHECK(rig.animation.playing());
  QTest::keyClick(&rig.animation, Qt::Key_Space);
  CHECK(!rig.animation.playing());
}

TEST_CASE("pipeline animation: playing advances the cursor and stops at the last event") {
  const ScheduleResult schedule = one_f_one_b(2, 2);
  Rig rig(schedule);
  const std::vector<double>& times = rig.animation.eventTimes();
  rig.animation.setTime(times.front());
  QSignalSpy moved(&rig.animation, &ui::PipelineAnimation::timeChanged);
  rig.animation.play();
  REQUIRE(rig.animation.playing());
  QTest::qWait(ui::PipelineAnimation::kTickMs * 4);
  CHECK(moved.count() >= 1);
  CHECK(rig.animation.time() > times.front());
  rig.animation.setTime(times.back() - 1e-12);
  QTest::qWait(ui::PipelineAnimation::kTickMs * 4);
  CHECK(!rig.animation.playing());
  CHECK(rig.animation.time() == times.back());
  for (const double held : rig.in_flight.inFlight()) CHECK(held == 0);
}

TEST_CASE("pipeline animation: in the pipeline view it runs over the evaluated schedule") {
  auto text = read_text_file(std::string(MESHSCOPE_SOURCE_DIR) + "/examples/pipeline-llama3.1-70b-dgx-h100.json");
  REQUIRE(text);
  auto doc = parse_json_text(*text, "pipeline example");
  REQUIRE(doc);
  auto project = project_from_json(*doc, "pipeline example");
  REQUIRE(project);
  ui::MainWindow window(*project);
  window.waitForEvaluation();
  auto* panel = window.findChild<ui::PipelinePanel*>();
  REQUIRE(panel != nullptr);
  const ScheduleResult& schedule = panel->chart()->schedule();
  REQUIRE(!schedule.events.empty());
  CHECK(panel->animation()->eventTimes() == schedule_event_times(schedule));
  const std::vector<double>& times = panel->animation()->eventTimes();
  const double t = times[times.size() / 3];
  panel->animation()->setTime(t);
  CHECK(panel->chart()->cursorTime() == t);
  CHECK(panel->inFlightChart()->inFlight() == in_flight_activations(schedule, t));
}
