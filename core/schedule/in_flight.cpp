#include "core/schedule/in_flight.hpp"

#include <algorithm>

namespace meshscope {

std::vector<double> in_flight_activations(const ScheduleResult& result, double t_s) {
  std::vector<double> held(result.busy_s.size(), 0.0);
  for (const ScheduleEvent& event : result.events) {
    if (event.stage < 0 || static_cast<size_t>(event.stage) >= held.size()) continue;
    double& stage = held[static_cast<size_t>(event.stage)];
    // A forward stores its activations from its start; the weight gradient (or the fused backward)
    // frees them at its end. B alone keeps what W still needs (summarise() counts the same way).
    if (event.kind == WorkKind::forward && event.start_s <= t_s) stage += result.in_flight_unit;
    if ((event.kind == WorkKind::backward_weight || event.kind == WorkKind::backward) && event.end_s <= t_s)
      stage -= result.in_flight_unit;
  }
  return held;
}

std::vector<double> schedule_event_times(const ScheduleResult& result) {
  std::vector<double> times;
  times.reserve(result.events.size() * 2);
  for (const ScheduleEvent& event : result.events) {
    times.push_back(event.start_s);
    times.push_back(event.end_s);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

double next_event_time(const std::vector<double>& times, double t_s) {
  if (times.empty()) return t_s;
  const auto after = std::upper_bound(times.begin(), times.end(), t_s);
  return after == times.end() ? times.back() : *after;
}

double previous_event_time(const std::vector<double>& times, double t_s) {
  if (times.empty()) return t_s;
  const auto at = std::lower_bound(times.begin(), times.end(), t_s);
  return at == times.begin() ? times.front() : *(at - 1);
}

}  // namespace meshscope
