// The activations each stage holds over time (core/schedule/in_flight.hpp), read off the simulated
// schedule: the peaks are the published ones (Narayanan et al. SC21 §2.2.1: 1F1B holds at most p − s
// micro-batches on stage s, GPipe all m; Huang et al. 2019), and equal the simulator's own peak_in_flight.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "core/schedule/in_flight.hpp"
#include "core/schedule/schedule.hpp"

using namespace meshscope;

namespace {

ScheduleResult simulate(PipelineSchedule schedule, int64_t p, int64_t m, int64_t v = 1) {
  ScheduleInput in;
  in.schedule = schedule;
  in.stages = p;
  in.micro_batches = m;
  in.virtual_stages = v;
  in.costs.assign(static_cast<size_t>(p), StageCosts{1.0, 1.0, 1.0});
  auto result = simulate_schedule(in);
  if (!result) FAIL(result.error().to_string());
  return *result;
}

// The most each stage holds at any event boundary.
std::vector<double> peaks_over_time(const ScheduleResult& result) {
  std::vector<double> peaks(result.busy_s.size(), 0.0);
  for (const double t : schedule_event_times(result)) {
    const std::vector<double> held = in_flight_activations(result, t);
    for (size_t s = 0; s < held.size(); ++s) peaks[s] = std::max(peaks[s], held[s]);
  }
  return peaks;
}

}  // namespace

TEST_CASE("in flight: 1F1B stage s holds at most min(p - s, m) micro-batches (Narayanan et al. SC21)") {
  const auto [p, m] = GENERATE(table<int64_t, int64_t>({{4, 8}, {4, 2}, {8, 16}, {2, 1}}));
  const ScheduleResult result = simulate(PipelineSchedule::one_f_one_b, p, m);
  const std::vector<double> peaks = peaks_over_time(result);
  REQUIRE(peaks.size() == static_cast<size_t>(p));
  for (int64_t s = 0; s < p; ++s) CHECK(peaks[static_cast<size_t>(s)] == static_cast<double>(std::min(p - s, m)));
}

TEST_CASE("in flight: GPipe holds all m micro-batches on every stage") {
  const ScheduleResult result = simulate(PipelineSchedule::gpipe, 4, 6);
  for (const double peak : peaks_over_time(result)) CHECK(peak == 6.0);
}

TEST_CASE("in flight: the peak over time is the simulator's peak_in_flight for every schedule") {
  const auto [schedule, v] = GENERATE(table<PipelineSchedule, int64_t>({{PipelineSchedule::one_f_one_b, 1},
                                                                        {PipelineSchedule::interleaved, 2},
                                                                        {PipelineSchedule::zb_h1, 1},
                                                                        {PipelineSchedule::dualpipe, 1}}));
  const ScheduleResult result = simulate(schedule, 4, 8, v);
  const std::vector<double> peaks = peaks_over_time(result);
  for (size_t s = 0; s < peaks.size(); ++s) CHECK(peaks[s] == Approx(result.peak_in_flight[s]));
}

TEST_CASE("in flight: nothing is held before the first event or after the last") {
  const ScheduleResult result = simulate(PipelineSchedule::one_f_one_b, 4, 8);
  const std::vector<double> times = schedule_event_times(result);
  for (const double held : in_flight_activations(result, times.front() - 1)) CHECK(held == 0);
  for (const double held : in_flight_activations(result, times.back())) CHECK(held == 0);
}

TEST_CASE("in flight: stepping moves from one event boundary to the next and back") {
  const ScheduleResult result = simulate(PipelineSchedule::one_f_one_b, 4, 8);
  const std::vector<double> times = schedule_event_times(result);
  REQUIRE(std::is_sorted(times.begin(), times.end()));
  REQUIRE(std::adjacent_find(times.begin(), times.end()) == times.end());
  CHECK(next_event_time(times, times[2]) == times[3]);
  CHECK(next_event_time(times, (times[2] + times[3]) / 2) == times[3]);
  CHECK(previous_event_time(times, times[3]) == times[2]);
  CHECK(previous_event_time(times, times.front()) == times.front());
  CHECK(next_event_time(times, times.back()) == times.back());
  // Every boundary is an event's start or end.
  for (const double t : times)
    CHECK(std::any_of(result.events.begin(), result.events.end(),
                      [t](const ScheduleEvent& e) { return e.start_s == t || e.end_s == t; }));
}
